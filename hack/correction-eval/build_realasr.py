# Builds the "realasr" shape of hack/correction-eval in /tmp/eval2/docs: the
# sermon transcripts of ebdtcode/TrustingJesus (MIT), which transcribed
# YouTube videos of several churches' preachers (Liberian, Ghanaian, Kenyan
# and other accents) with faster-whisper base or mlx-whisper small, some
# without punctuation. Their mishearings are a recognizer's own, not
# lowercased Whisper text. Only the transcript body is kept (the header with
# the video's metadata and any word-timestamp section are cut).
import subprocess, re, os, hashlib
M = '/work/.mirror/ebdtcode+TrustingJesus/repo'
def git(*a):
    return subprocess.run(['git', '--git-dir=' + M] + list(a), capture_output=True).stdout.decode('utf-8', 'replace')
files = sorted(f for f in git('ls-tree', '-r', '--name-only', 'HEAD').split('\n')
               if re.search(r'(^|/)transcripts/(sermon|exhortation)/.*(transcript\.md|\.txt)$', f)
               or re.search(r'personal-development/transcripts/[^/]+/transcript\.md$', f))
os.makedirs('/tmp/eval2/docs/realasr', exist_ok=True)
seen = set()
with open('/tmp/eval2/sources.tsv', 'w') as src:
    src.write('name\tdoc\tshape\trepo\tpath\n')
    for i, f in enumerate(files):
        t = git('show', 'HEAD:' + f)
        if '## Transcript' in t:
            t = t.split('## Transcript', 1)[1]
        t = t.split('## Detailed Transcript', 1)[0].strip() + '\n'
        if f.endswith('audio.txt') or f.endswith('transcript_raw.txt'):
            continue  # the raw text of a transcript.md kept beside it
        key = t[:2000]
        if len(t) < 2000 or key in seen:
            continue
        seen.add(key)
        name = 'tj_%02d.txt' % len(seen)
        open('/tmp/eval2/docs/realasr/' + name, 'w').write(t)
        doc = hashlib.sha256(t.encode()).hexdigest()[:16]
        src.write('%s\t%s\trealasr\tebdtcode/TrustingJesus\t%s\n' % (name, doc, f))
