# Builds issue 24's fourteenth-round (L) shapes of hack/correction-eval in
# /tmp/e14l/docs from one repository mirrored under /work/.mirror (fetch it
# first; not licensed for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   vodl-dev, vodl-held  the WebVTT transcripts that the podcast feeds of
#       more unrelated churches publish (podcast:transcript), as
#       bobbigmac/vodcasts keeps them (site/assets/transcripts/<feed>/*.vtt):
#       only feeds whose names begin with a letter from A to L, none that
#       round 14J (build_round14j.py) used and none whose church or speaker an
#       earlier round used: Baptist, Methodist, Calvary Chapel and other
#       churches' sermons and classes, a Catholic bishop's homily; the cue
#       timings dropped, the cues joined, in the caption shape of
#       captionshape.py (lowercase, no punctuation, cues of 5 to 12
#       words), their lost capitals in /tmp/e14l/errors.tsv.
# The split is by document, alternating in feed and date order: the even ones
# dev (where rules may be written), the odd ones held (judged before and
# after, never read for a rule).
import subprocess, os, hashlib, random, re
from captionshape import caption, NUMW
M = '/work/.mirror'
OUT = '/tmp/e14l/docs'
REPO = 'bobbigmac+vodcasts'
COMMIT = '3f40e49af23948fe4300c1721cd6bce3accb1a53'
FEEDS = [('amazing-grace-baptist-mount-airy', 1), ('antioch-church', 1), ('atlanta-first-umc', 1),
         ('bishop-barron-sermons', 1), ('bridgetown', 1), ('buford-road-baptist', 1),
         ('calvary-chapel-fort-lauderdale', 1), ('church-of-the-highlands-weekend-video', 1),
         ('concord-baptist-church', 1), ('desiring-god-messages', 1), ('eaglebrook', 1),
         ('elevation-steven-furtick', 1), ('fresh-life-church', 1), ('harvest-baptist-ga', 1),
         ('james-river', 1), ('lancaster-baptist', 1), ('life-church-craig-groeschel', 1),
         ('first-baptist-columbia-wf', 1), ('godspeak-calvary', 1), ('dungeness-community-church', 1)]
random.seed(2421)
for d in ['vodl-dev', 'vodl-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/e14l/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/e14l/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
class Lost:
    """The lost capitals of one document, less the title "king of Kings" and
    a generic psalm ("that famous psalm for us", "in psalms and hymns": no
    number after it, no "of" before it); "psalms" before a number is one
    psalm, as psalm.singular writes it."""
    def __init__(self):
        self.rows = []
    def write(self, row):
        self.rows.append(row.rstrip('\n').split('\t'))
    def flush(self, body):
        b = body.encode()
        for name, doc, s, e, want in self.rows:
            before = b[max(0, int(s) - 8):int(s)].decode(errors='ignore').split()
            after = b[int(e):int(e) + 8].decode(errors='ignore').split()
            if want == 'Kings' and before[-2:] == ['king', 'of']:
                continue
            num = after[:1] and (after[0].isdigit() or after[0] in NUMW)
            if want in ('Psalm', 'Psalms') and not num and before[-1:] not in (['of'], ['book']):
                continue
            if want == 'Psalms' and after[:1] and after[0].isdigit():
                want = 'Psalm'
            errs.write('\t'.join([name, doc, s, e, want]) + '\n')
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, REPO)] + list(a), capture_output=True, check=True).stdout
def spoken(vtt):
    cues = []
    for l in vtt.split('\n'):
        l = l.strip()
        if not l or l == 'WEBVTT' or '-->' in l or re.fullmatch(r'\d+', l):
            continue
        cues.append(l)
    return ' '.join(cues) + '\n'
n = 0
for feed, want in FEEDS:
    rows = git('ls-tree', '-r', '-l', COMMIT, 'site/assets/transcripts/' + feed + '/').decode().split('\n')
    files = sorted(r.split('\t')[1] for r in rows if r and 15000 <= int(r.split()[3]) <= 180000)
    for p in files[:want]:
        name = 'vodl_%02d_%s.txt' % (n, os.path.basename(p)[:-4][:40].rstrip('-.'))
        shape = 'vodl-dev' if n % 2 == 0 else 'vodl-held'
        lost = Lost()
        body = caption(spoken(git('show', COMMIT + ':' + p).decode()), lost, name)
        lost.flush(body)
        open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
        src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                             'bobbigmac/vodcasts', p))
        n += 1
src.close()
errs.close()
