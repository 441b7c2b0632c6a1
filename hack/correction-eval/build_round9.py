# Builds issue 24's ninth-round shapes of hack/correction-eval in
# /tmp/eval9/docs from eastpointdurham/sermons (fetch it first; mirrored
# under /work/.mirror), which no rule was tuned on: the YouTube transcripts
# of one evangelical church's sermons (Eastpoint Church, Durham NC; three
# preachers), sermons.json's "transcript" fields, as YouTube's current
# recognizer wrote them (punctuated, ">>" at a change of speaker,
# "[laughter]"); no licence: text in /tmp only, hashes and verdicts committed.
#   epyt-dev,  epyt-held   the transcripts as written;
#   epcap-dev, epcap-held  the same in the caption shape (captionshape.py),
#                          their lost capitals in /tmp/eval9/errors.tsv.
# The split is by sermon: the 36 transcripts not empty, oldest first, the
# even ones dev (where rules may be written), the odd ones held (judged
# before and after, never read for a rule).
import subprocess, os, hashlib, random, json
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/eval9/docs'
R = 'eastpointdurham+sermons'
random.seed(24)
for d in ['epyt-dev', 'epyt-held', 'epcap-dev', 'epcap-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/eval9/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepo\tpath\n')
errs = open('/tmp/eval9/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def keep(shape, name, body):
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'eastpointdurham/sermons', 'sermons.json'))
raw = subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, R), 'show', 'HEAD:sermons.json'],
                     capture_output=True, check=True).stdout
sermons = [s for s in json.loads(raw) if (s.get('transcript') or '').strip()]
sermons.sort(key=lambda s: (s['date'], s['id']))
for i, s in enumerate(sermons):
    half = 'dev' if i % 2 == 0 else 'held'
    name = 'ep_%02d.txt' % i
    t = s['transcript'].strip() + '\n'
    keep('epyt-' + half, name, t)
    keep('epcap-' + half, name, caption(t, errs, name))
