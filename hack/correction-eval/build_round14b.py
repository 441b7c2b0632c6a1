# Builds issue 24's fourteenth-round (B) shapes of hack/correction-eval in
# /tmp/e14b/docs from one repository mirrored under /work/.mirror (fetch it
# first; not licensed for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   akcap-dev, akcap-held  YouTube's own auto-captions of the Sunday services
#       and one conference of a Los Angeles deliverance ministry (5F Church,
#       Apostle Kathryn Krick, her pastors, worship leaders and testimonies;
#       the Stockholm conference, in English), as the
#       transcript panel of YouTube copies them (a timestamp, then the cue),
#       from MarkusIsaksson1982/MarkusIsaksson1982.github.io
#       (international/charismatic/apostle-kathryn-krick/live/*.html, deleted
#       from the newest tree and read at the commit that holds the most of
#       them); the timestamps dropped, the cues joined, in the caption shape of
#       captionshape.py (lowercase, no punctuation, cues of 5 to 12 words),
#       their lost capitals in /tmp/e14b/errors.tsv.
# Six services, about two months apart, the split by document alternating in
# date order: the even ones dev (where rules may be written), the odd ones
# held (judged before and after, never read for a rule).
import subprocess, os, hashlib, random, re, html
from captionshape import caption
from lostcaps import Lost, standard
M = '/work/.mirror'
OUT = '/tmp/e14b/docs'
REPO = 'MarkusIsaksson1982+MarkusIsaksson1982.github.io'
COMMIT = '597fa7ee339af976938968fa0c5dd700f1dd2959'
DIR = 'international/charismatic/apostle-kathryn-krick/live/'
PICK = ['2025-04-13-the-power-of-expectancy', '2025-05-25-great-faith', '2025-06-22-prepared-for-harvest',
        '2025-07-20-growing-in-the-knowledge-of-god', '2025-08-02-revival-is-now-stockholm-sweden',
        '2025-08-24-the-power-of-positive-believing']
random.seed(2414)
for d in ['akcap-dev', 'akcap-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/e14b/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/e14b/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, REPO)] + list(a), capture_output=True, check=True).stdout
def spoken(page):
    body = page.split('</pre>', 1)[0].split('<pre', 1)[1].split('>', 1)[1]
    body = body.split('\n---\n', 1)[1] if body.lstrip().startswith('---') else body
    cues = [l.strip() for l in html.unescape(body).split('\n')]
    return ' '.join(c for c in cues if c and not re.fullmatch(r'\d+(:\d+)+', c)) + '\n'
for i, base in enumerate(PICK):
    p = DIR + base + '.html'
    page = git('show', COMMIT + ':' + p).decode()
    name = 'ak_%s.txt' % base[:10]
    shape = 'akcap-dev' if i % 2 == 0 else 'akcap-held'
    lost = Lost(errs, standard)
    body = caption(spoken(page), lost, name)
    lost.flush(body)
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'MarkusIsaksson1982/MarkusIsaksson1982.github.io', p))
src.close()
errs.close()
