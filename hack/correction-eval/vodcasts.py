# The common builder of the shapes that rounds 14J, 14L and 14M made from
# bobbigmac/vodcasts (mirrored under /work/.mirror; fetch it first): the
# WebVTT transcripts that churches' podcast feeds publish
# (site/assets/transcripts/<feed>/*.vtt), the cue timings dropped, the cues
# joined, in the caption shape of captionshape.py, their lost capitals in
# <out>/errors.tsv. The text stays in /tmp; only hashes, offsets and verdicts
# are committed.
import subprocess, os, hashlib, random, re
from captionshape import caption, NUMW
from lostcaps import Lost
M = '/work/.mirror'
REPO = 'bobbigmac+vodcasts'
COMMIT = '3f40e49af23948fe4300c1721cd6bce3accb1a53'
def keep(name, start, want, before, after):
    """Strikes the title "king of Kings" and a generic psalm ("that famous
    psalm for us", "in psalms and hymns": no number after it, no "of" before
    it); "psalms" before a number is one psalm, as psalm.singular writes it."""
    if want == 'Kings' and before[-2:] == ['king', 'of']:
        return None
    num = after[:1] and (after[0].isdigit() or after[0] in NUMW)
    if want in ('Psalm', 'Psalms') and not num and before[-1:] not in (['of'], ['book']):
        return None
    if want == 'Psalms' and after[:1] and after[0].isdigit():
        return 'Psalm'
    return want
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
def build(out, shape, prefix, feeds, seed):
    """Writes the shapes <shape>-dev and <shape>-held under <out>/docs from
    the first transcripts of 15 to 180 KB of each feed of feeds (name, how
    many), split by document, alternating in feed and date order: the even
    ones dev (where rules may be written), the odd ones held (judged before
    and after, never read for a rule); its documents are named
    <prefix>_NN_<file>.txt, its sources and lost capitals written to
    <out>/sources.tsv and <out>/errors.tsv."""
    random.seed(seed)
    for d in [shape + '-dev', shape + '-held']:
        os.makedirs(out + '/docs/' + d, exist_ok=True)
    src = open(out + '/sources.tsv', 'w')
    src.write('name\tdoc\tshape\trepository\tpath\n')
    errs = open(out + '/errors.tsv', 'w')
    errs.write('name\tdoc\tstart\tend\texpected\n')
    n = 0
    for feed, want in feeds:
        rows = git('ls-tree', '-r', '-l', COMMIT, 'site/assets/transcripts/' + feed + '/').decode().split('\n')
        files = sorted(r.split('\t')[1] for r in rows if r and 15000 <= int(r.split()[3]) <= 180000)
        for p in files[:want]:
            name = '%s_%02d_%s.txt' % (prefix, n, os.path.basename(p)[:-4][:40].rstrip('-.'))
            d = shape + ('-dev' if n % 2 == 0 else '-held')
            lost = Lost(errs, keep)
            body = caption(spoken(git('show', COMMIT + ':' + p).decode()), lost, name)
            lost.flush(body)
            open('%s/docs/%s/%s' % (out, d, name), 'w').write(body)
            src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], d,
                                                 'bobbigmac/vodcasts', p))
            n += 1
    src.close()
    errs.close()
