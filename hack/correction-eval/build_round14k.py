# Builds issue 24's fourteenth-round (K) shapes of hack/correction-eval in
# /tmp/e14k/docs from one repository mirrored under /work/.mirror (fetch it
# first; no licence for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   srcap-dev, srcap-held  Catholic Sunday reflections on the lectionary's
#       readings (edbrannin/saints-alive.siministries.org,
#       src/_data/sunday_reflections.json): each Sunday's page holds a
#       deacon's catechism questions and answers (Deacon Paul Rooney,
#       Omaha), a priest's reflection (Fr Robert F. McNamara, Rochester) and
#       a parishioner's (John Dealy), three writers no round used; the
#       Markdown, the question numbers and the citations in parentheses
#       (never spoken) dropped, in the caption shape of captionshape.py
#       (lowercase, no punctuation, cues of 5 to 12 words), the lost
#       capitals of books and places as the known errors in
#       /tmp/e14k/errors.tsv (less the common nouns and other names keep strikes).
# The pages in slug order, every other one kept (0.5 MB), the split by
# document alternating: the even ones dev (where rules may be written), the
# odd ones held (judged before and after, never read for a rule).
import subprocess, os, hashlib, random, re, json
from captionshape import caption
from lostcaps import Lost
M = '/work/.mirror'
OUT = '/tmp/e14k/docs'
REPO = 'edbrannin+saints-alive.siministries.org'
COMMIT = '85284a5'
PATH = 'src/_data/sunday_reflections.json'
random.seed(2414 + 10)
for d in ['srcap-dev', 'srcap-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/e14k/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/e14k/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, REPO)] + list(a), capture_output=True, check=True).stdout
def plain(md):
    """The prose of one page's Markdown: no emphasis, links, rules, question
    numbers or citations in parentheses or brackets."""
    t = md.replace('\u2019', "'").replace('\u2018', "'")
    t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', t)
    t = re.sub(r'\([^()]*\)', ' ', t)
    t = re.sub(r'\[[^\]]*\]', ' ', t)
    t = re.sub(r'\bQ\d+:\s*', '', t)
    t = re.sub(r'CCC\s*#?\s*[\d,\- ]+', ' ', t)
    t = re.sub(r'^\s*(---+|\*\*\*+)\s*$', '', t, flags=re.M)
    t = t.replace('*', '').replace('#', '').replace('_', ' ')
    t = re.sub(r"(?<![A-Za-z])'|'(?![A-Za-z])", ' ', t)
    t = re.sub(r'[ \t]+', ' ', t)
    return re.sub(r'\n\s*\n+', '\n', t).strip() + '\n'
def keep(name, start, want, before, after):
    """Strikes the capitals the writers gave common nouns and other names,
    read in context: "kings" not after "of", a number or an ordinal (a
    marching band, the Magi), "psalm" before no number (the responsorial
    psalm) and "divine revelation"."""
    if want == 'Kings' and before[-1:] not in (['of'], ['1'], ['2'], ['first'], ['second']):
        return None
    if want == 'Psalm' and not (after[:1] and after[0].isdigit()):
        return None
    if want == 'Revelation' and before[-1:] == ['divine']:
        return None
    return want
pages = sorted(json.loads(git('show', COMMIT + ':' + PATH)), key=lambda p: p['slug'])
pages = [p for p in pages if len(p.get('markdown', '')) > 2000][::2]
for i, p in enumerate(pages):
    shape = 'srcap-dev' if i % 2 == 0 else 'srcap-held'
    name = 'sr_%02d_%s.txt' % (i, p['slug'][:40])
    lost = Lost(errs, keep, 12)
    body = caption(plain(p['markdown']), lost, name)
    lost.flush(body)
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'edbrannin/saints-alive.siministries.org', PATH + '#' + p['slug']))
src.close()
errs.close()
