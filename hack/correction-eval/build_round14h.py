# Builds issue 24's fourteenth-round (H) shapes of hack/correction-eval in
# /tmp/e14h/docs from one repository mirrored under /work/.mirror (fetch it
# first; no licence for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   controls-tl-dev, controls-tl-held  A control, not sermons: the transcribed speeches of
#       a Philippine president (dutertetimes/dutertetimes.github.io, the
#       posts under _posts/ whose transcript begins "SPEECH OF PRESIDENT"),
#       English mixed with Tagalog and Cebuano in nearly every paragraph
#       (salamat po, mga, ang, sa, ng, yung, kasi, ha), with the place names,
#       agencies and officials of the Philippines; punctuated by the palace's
#       stenographers. From the transcript's first paragraph that is no
#       Markdown heading, in the caption shape of captionshape.py (lowercase,
#       no punctuation, cues of 5 to 12 words); the Bible names that shape
#       loses (a rare "Jerusalem" or "Genesis") are the known errors in
#       /tmp/e14h/errors.tsv. What the engine changes here, automatically or
#       as a suggestion, is what a caption of a mixed-language speaker would
#       get wrong.
# The transcripts under 20 KB, in date order, until 0.5 MB, the split by
# document alternating: the even ones dev (where rules may be written), the
# odd ones held (judged before and after, never read for a rule).
import subprocess, os, hashlib, random, re
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/e14h/docs'
REPO = 'dutertetimes+dutertetimes.github.io'
COMMIT = '3d63490'
LIMIT = 20000
TOTAL = 500000
random.seed(2414 + 8)
for d in ['controls-tl-dev', 'controls-tl-held']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/e14h/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/e14h/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, REPO)] + list(a), capture_output=True, check=True).stdout
def spoken(page):
    """The paragraphs of a post's speech transcript, Markdown dropped; '' when it has none."""
    i = page.upper().find('SPEECH OF PRESIDENT')
    if i < 0:
        return ''
    out = []
    for line in page[i:].split('\n')[1:]:
        s = line.strip()
        if not s or s.startswith(('#', '---', '<', '!', '|', '{')):
            continue
        s = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', s)
        s = re.sub(r'[*_`>]+', ' ', s)
        out.append(s)
    return '\n'.join(out) + '\n' if out else ''
pages = []
for p in git('ls-tree', '-r', '-z', '--name-only', COMMIT, '_posts/').decode().split('\0'):
    if p.endswith('.md'):
        t = spoken(git('show', COMMIT + ':' + p).decode(errors='replace'))
        if 2000 < len(t) < LIMIT:
            pages.append((p.rsplit('/', 1)[-1], p, t))
pages.sort()
size = 0
for i, (base, p, t) in enumerate(pages):
    if size >= TOTAL:
        break
    size += len(t)
    shape = 'controls-tl-dev' if i % 2 == 0 else 'controls-tl-held'
    slug = re.sub(r'[^a-z0-9]+', '-', base[:-3].lower()).strip('-')[:40]
    name = 'dt_%02d_%s.txt' % (i, slug)
    body = caption(t, errs, name)
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'dutertetimes/dutertetimes.github.io', p))
src.close()
errs.close()
