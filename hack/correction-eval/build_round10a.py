# Builds issue 24's tenth-round (A) shapes of hack/correction-eval in
# /tmp/eval10a/docs from sermon-archives/sermons (fetch it first; mirrored
# under /work/.mirror), which no rule was tuned on: the sermons of GraceLife
# London (a Reformed Baptist church in London; British and American
# preachers), transcribed by faster-whisper's small.en with voice-activity
# filtering (scripts/worker.py) and reflowed into paragraphs, as
# content/sermons/*.md hold them under "## Transcript"; no licence: text in
# /tmp only, hashes and verdicts committed.
#   glw-dev,   glw-held    the transcripts as written;
#   glcap-dev, glcap-held  the same in the caption shape (captionshape.py),
#                          their lost capitals in /tmp/eval10a/errors.tsv.
# The split is by sermon: the 11 transcripts marked complete, oldest first
# (the front matter's "published", then the title; five carry no date), the
# even ones dev (where rules may be written), the odd ones held (judged
# before and after, never read for a rule).
import subprocess, os, hashlib, random, re
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/eval10a/docs'
R = 'sermon-archives+sermons'
random.seed(24)
for d in ['glw-dev', 'glw-held', 'glcap-dev', 'glcap-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/eval10a/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepo\tpath\n')
errs = open('/tmp/eval10a/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(*args):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, R)] + list(args),
                          capture_output=True, check=True).stdout.decode()
def keep(shape, name, body, path):
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'sermon-archives/sermons', path))
sermons = []
for path in git('ls-tree', '-r', '--name-only', 'HEAD', 'content/sermons').split():
    md = git('show', 'HEAD:' + path)
    if 'transcript_status: complete' not in md:
        continue
    published = re.search(r'^published: *(\S*)', md, re.M).group(1)
    title = re.search(r'^title: (.*)$', md, re.M).group(1)
    body = md.split('\n## Transcript\n', 1)[1].split('\n## Strengths', 1)[0].strip()
    sermons.append((published, title, path, body))
sermons.sort()
for i, (published, title, path, body) in enumerate(sermons):
    half = 'dev' if i % 2 == 0 else 'held'
    name = 'gl_%02d.txt' % i
    t = body + '\n'
    keep('glw-' + half, name, t, path)
    keep('glcap-' + half, name, caption(t, errs, name), path)
