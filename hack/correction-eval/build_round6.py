# Builds issue 24's sixth-round shape of hack/correction-eval in
# /tmp/eval6/docs from a repository mirrored under /work/.mirror (not
# licensed: its text stays in /tmp, only hashes, offsets and verdicts are
# kept):
#   controls-pt  Portuguese sermons of the Igreja Presbiteriana Peregrinos
#                (eusoubrasileiro/ipp-sermons, data/transcripts, WhisperX),
#                every 50th of the 610 by name, every other one in the
#                caption shape (lowercase, no punctuation, cue lines of 5 to
#                12 words): sermons in another language, whose Bible names
#                (Gênesis, Filipenses, João, Jerusalém) and words are not
#                English. A change on them counts as wrong unless judged.
import subprocess, re, os, hashlib, random
M = '/work/.mirror'
OUT = '/tmp/eval6/docs'
R = 'eusoubrasileiro+ipp-sermons'
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, R)] + list(a), capture_output=True).stdout.decode('utf-8', 'replace')
def caption(text):
    """The caption shape of a punctuated text."""
    words = [w.lower() for w in re.sub(r"[^\w\s'\-]", ' ', text).split()]
    out, k = [], 0
    while k < len(words):
        n = random.randint(5, 12)
        out.append(' '.join(words[k:k + n]))
        k += n
    return '\n'.join(out) + '\n'
random.seed(24)
os.makedirs(OUT + '/controls-pt', exist_ok=True)
src = open('/tmp/eval6/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepo\tpath\n')
files = sorted(f for f in git('ls-tree', '-r', '-z', '--name-only', 'HEAD', 'data/transcripts').split('\0') if f.endswith('.txt'))
for i, f in enumerate(files[::50]):
    body = git('show', 'HEAD:' + f).strip() + '\n'
    if i % 2 == 1:
        body = caption(body)
    name = 'ipp_%02d.txt' % i
    open('%s/controls-pt/%s' % (OUT, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], 'controls-pt', 'eusoubrasileiro/ipp-sermons', f))
