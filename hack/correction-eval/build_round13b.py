# Builds issue 24's thirteenth-round (B) shapes of hack/correction-eval in
# /tmp/e13b/docs from one repository mirrored under /work/.mirror (fetch it
# first; not licensed for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   locap-dev, locap-held  the interpreted sermons of a Swedish charismatic
#       church's European conference and of a Swedish revival conference
#       (MarkusIsaksson1982/MarkusIsaksson1982.github.io, Swedish/charismatic/
#       {livets-ord,arken}/*-raw.html, deleted from the newest tree and read at
#       the commit that holds them): English speakers from the United States,
#       India, Ethiopia and Lebanon, each with a Swedish interpreter, which
#       Whisper medium transcribed and translated to English (the interpreter's
#       sentence is often the speaker's again, said a second time); in the
#       caption shape of captionshape.py, their lost capitals in
#       /tmp/e13b/errors.tsv;
#   losv  the same church's pastor in Swedish (riverside.fm and Whisper,
#       Swedish), in the caption shape: a language the engine does not read,
#       where nothing may change.
# The split is by document, alternating in the order of the names: the even
# ones dev (where rules may be written), the odd ones held (judged before and
# after, never read for a rule).
import subprocess, os, hashlib, random, re, html
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/e13b/docs'
REPO = 'MarkusIsaksson1982+MarkusIsaksson1982.github.io'
COMMIT = '88416b1d6487492da9beab08b0a5d2f22e55015c'
random.seed(2413)
for d in ['locap-dev', 'locap-held', 'losv']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/e13b/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/e13b/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(*a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, REPO)] + list(a), capture_output=True, check=True).stdout
def spoken(page):
    body = page.split('</pre>', 1)[0]
    body = body[body.index('[Transcri'):].split('\n', 1)[1]
    return html.unescape(re.sub(r'<[^>]*>', '', body)).strip() + '\n'
paths = sorted(p for p in git('ls-tree', '-r', '--name-only', COMMIT, 'Swedish/charismatic/').decode().split('\n')
               if p.endswith('-raw.html'))
english = 0
for p in paths:
    page = git('show', COMMIT + ':' + p).decode()
    base = os.path.basename(p)[:-len('-raw.html')]
    name = 'lo_%s.txt' % base
    if '- Swedish' in page or '"Swedish"' in page:
        shape = 'losv'
        body = caption(spoken(page))
    else:
        shape = 'locap-dev' if english % 2 == 0 else 'locap-held'
        english += 1
        body = caption(spoken(page), errs, name)
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape,
                                         'MarkusIsaksson1982/MarkusIsaksson1982.github.io', p))
src.close()
errs.close()
