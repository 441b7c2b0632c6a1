# Builds issue 24's fourteenth-round (D) shapes of hack/correction-eval in
# /tmp/e14d/docs from one repository mirrored under /work/.mirror (fetch it
# first; the homilies carry no licence for reuse here: the text stays in /tmp,
# only hashes, offsets and verdicts are committed).
#   frcap-dev, frcap-held  the Sunday and feast-day homilies of a Catholic
#       parish priest (Fr. Adam Royal, fradamroyal/fradamroyal_com,
#       content/homilies/<year>/*.md, 2024 to 2026), written to be preached,
#       in the caption shape of captionshape.py (lowercase, no punctuation,
#       cues of 5 to 12 words), their lost capitals in /tmp/e14d/errors.tsv.
# The TOML front matter (title, readings' citations) and the sidenotes (a
# citation, a Greek word) are dropped: they are never spoken. The homilies in date order, the split by document alternating: the
# even ones dev (where rules may be written), the odd ones held (judged before
# and after, never read for a rule).
import subprocess, os, hashlib, random, re
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/e14d/docs'
REPO = 'fradamroyal+fradamroyal_com'
random.seed(2414 + 4)
for d in ['frcap-dev', 'frcap-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/e14d/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/e14d/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, REPO)] + list(a), capture_output=True, check=True).stdout
def spoken(md):
    """The preached text of one homily: no front matter, no markup."""
    m = re.match(r'\+\+\+\n(.*?)\n\+\+\+\n', md, re.S)
    date = re.search(r"^date = (\S+)", m.group(1), re.M).group(1) if m else ''
    body = md[m.end():] if m else md
    body = re.sub(r'\{\{<\s*sidenote\s*>\}\}.*?\{\{<\s*/sidenote\s*>\}\}', '', body, flags=re.S)  # citations, never spoken
    body = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', body)
    body = re.sub(r'^#+\s*', '', body, flags=re.M)
    body = body.replace('*', '').replace('_', ' ')
    return date, re.sub(r'\n{3,}', '\n\n', body).strip() + '\n'
docs = []
for p in git('ls-tree', '-r', '--name-only', 'HEAD', 'content/homilies/').decode().split('\n'):
    if not p.endswith('.md') or p.endswith('_index.md'):
        continue
    date, body = spoken(git('show', 'HEAD:' + p).decode())
    docs.append((date, p, body))
docs.sort()
for i, (date, p, body) in enumerate(docs):
    shape = 'frcap-dev' if i % 2 == 0 else 'frcap-held'
    name = 'fa_%s_%s.txt' % (date[:10], os.path.basename(p)[:-3][:40])
    text = caption(body, errs, name)
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(text)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(text.encode()).hexdigest()[:16], shape,
                                         'fradamroyal/fradamroyal_com', p))
src.close()
errs.close()
