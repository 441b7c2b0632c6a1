# Builds issue 24's tenth-round (B) shapes of hack/correction-eval in
# /tmp/eval10b/docs from werth-code/jack-werth-sermons (fetch it first;
# mirrored under /work/.mirror), which no rule was tuned on: the sermons of
# one Reformed Baptist preacher (Jack Werth, Liberty Baptist Church; KJV
# readings, verse-by-verse through 2 Samuel, Habakkuk, Colossians, Titus,
# Jonah, Luke, Revelation, Malachi, Jude, Hosea, Ecclesiastes ...), as
# faster-whisper (distil-large-v3) wrote them: data/transcripts/*.json's
# "text" fields, punctuated, one paragraph; no licence: text in /tmp only,
# hashes and verdicts committed.
#   jwasr-dev,  jwasr-held   the transcripts as written;
#   jwcap-dev,  jwcap-held   the same in the caption shape (captionshape.py),
#                            their lost capitals in /tmp/eval10b/errors.tsv.
# The split is by sermon: 24 of the 641 transcripts, evenly spaced by date
# (every 26th by the file name), the even ones dev (where rules may be
# written), the odd ones held (judged before and after, never read for a
# rule).
import subprocess, os, hashlib, random, json
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/eval10b/docs'
R = 'werth-code+jack-werth-sermons'
random.seed(24)
for d in ['jwasr-dev', 'jwasr-held', 'jwcap-dev', 'jwcap-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/eval10b/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepo\tpath\n')
errs = open('/tmp/eval10b/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
git = ['git', '--git-dir=%s/%s/repo' % (M, R)]
def keep(shape, name, body, path):
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'werth-code/jack-werth-sermons', path))
paths = sorted(p for p in subprocess.run(git + ['ls-tree', '-r', '--name-only', 'HEAD', 'data/transcripts/'],
                                         capture_output=True, check=True, text=True).stdout.split('\n')
               if p.endswith('.json'))
picked = paths[::26][:24]
for i, p in enumerate(picked):
    d = json.loads(subprocess.run(git + ['show', 'HEAD:' + p], capture_output=True, check=True).stdout)
    half = 'dev' if i % 2 == 0 else 'held'
    name = 'jw_%02d.txt' % i
    t = d['text'].strip() + '\n'
    keep('jwasr-' + half, name, t, p)
    keep('jwcap-' + half, name, caption(t, errs, name), p)

# The control: YouTube's captions of one tech commentator's videos (Nate B
# Jones, AI news and strategy; sohailbhamani/nate-jones-transcripts, no
# licence), episodes/*/transcript.md below their front matter and title,
# every 24th of the 485 by name: the recognizer's own shape (no
# punctuation, some capitals) in controls-natejones, and the caption shape
# (captionshape.py, lowercase) in controls-natejones-cap.
R2 = 'sohailbhamani+nate-jones-transcripts'
git2 = ['git', '--git-dir=%s/%s/repo' % (M, R2)]
for d in ['controls-natejones', 'controls-natejones-cap']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
eps = sorted(p for p in subprocess.run(git2 + ['ls-tree', '-r', '--name-only', 'HEAD', 'episodes/'],
                                       capture_output=True, check=True, text=True).stdout.split('\n')
             if p.endswith('/transcript.md'))
for i, p in enumerate(eps[::24]):
    md = subprocess.run(git2 + ['show', 'HEAD:' + p], capture_output=True, check=True, text=True).stdout
    body = md.split('\n---\n', 1)[1] if md.startswith('---\n') else md
    body = '\n'.join(l for l in body.split('\n') if not l.startswith('# ')).strip() + '\n'
    name = 'nj_%02d.txt' % i
    open('%s/controls-natejones/%s' % (OUT, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], 'controls-natejones',
                                         'sohailbhamani/nate-jones-transcripts', p))
    cap = caption(body)
    open('%s/controls-natejones-cap/%s' % (OUT, name), 'w').write(cap)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(cap.encode()).hexdigest()[:16], 'controls-natejones-cap',
                                         'sohailbhamani/nate-jones-transcripts', p))
