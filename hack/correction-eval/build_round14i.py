# Builds issue 24's fourteenth-round (I) shapes of hack/correction-eval in
# /tmp/e14i/docs from one repository mirrored under /work/.mirror (fetch it
# first; no licence for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   bmcap-dev, bmcap-held  The volunteers' transcripts of a Bible podcast (the
#       BEMA Discipleship podcast: Marty Solomon and Brent Billings read
#       Genesis and walk through church history, from the first centuries to
#       today; dpwhittaker/bema, season-1/transcripts and season-5/transcripts)
#       in the caption shape of captionshape.py (lowercase, no punctuation,
#       cues of 5 to 12 words): the speakers' names before their turns, the
#       headings, the release notes and the links dropped; the capitals the
#       shape loses (books, the Bible's places, a person-like book before a
#       number) as the known errors in /tmp/e14i/errors.tsv.
# The transcripts over 2 KB (15 of 16, 0.41 MB), in path order, the split by
# document alternating: the even ones dev (where rules may be written), the
# odd ones held (judged before and after, never read for a rule).
import subprocess, os, hashlib, random, re
from captionshape import caption
from lostcaps import Lost, standard
M = '/work/.mirror'
OUT = '/tmp/e14i/docs'
REPO = 'dpwhittaker+bema'
COMMIT = '7cc6fdb'
random.seed(2414 + 9)
for d in ['bmcap-dev', 'bmcap-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/e14i/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/e14i/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, REPO)] + list(a), capture_output=True, check=True).stdout
def spoken(page):
    """The spoken words of a transcript page: its paragraphs after the first
    rule, without the speakers' names, headings, links and bracketed notes."""
    parts = page.split('\n---\n', 1)
    body = parts[1] if len(parts) == 2 else page
    out = []
    for line in body.split('\n'):
        line = line.strip()
        if not line or line.startswith('#') or line == '---':
            continue
        line = re.sub(r'^\*\*[^*]{1,40}:\*\*\s*', '', line)
        if not re.search(r'[.!?,"”]', line):
            continue  # a heading such as the episode's title
        line = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', line)
        line = re.sub(r'\[[^\]]*\]', ' ', line)
        line = line.replace('*', '').replace('—', ' ').replace('–', ' ').replace('’', "'").replace('‘', "'")
        out.append(line)
    return '\n'.join(out) + '\n'
pages = []
for p in git('ls-tree', '-r', '--name-only', COMMIT).decode().split('\n'):
    if '/transcripts/' in p and p.endswith('.md'):
        t = spoken(git('show', COMMIT + ':' + p).decode())
        if len(t) > 2000:
            pages.append((p, t))
pages.sort()
for i, (p, t) in enumerate(pages):
    shape = 'bmcap-dev' if i % 2 == 0 else 'bmcap-held'
    name = 'bm_%02d_%s.txt' % (i, p.split('/')[-1][:-3][:40])
    lost = Lost(errs, standard)
    body = caption(t, lost, name)
    lost.flush(body)
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'dpwhittaker/bema', p))
src.close()
errs.close()
