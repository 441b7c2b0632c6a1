# Builds issue 24's third-round shapes of hack/correction-eval in
# /tmp/eval3/docs from repositories mirrored under /work/.mirror (none of them
# licensed: their text stays in /tmp, only hashes, offsets and verdicts are
# kept):
#   newasr    the sermon transcripts of jformoe/sermon-transcripts (Calvary
#             Chapel Eureka; YouTube transcripts of two preachers), the body
#             after the header's "---";
#   newcap    the same as YouTube auto-captions show them (lowercase, no
#             punctuation, cue lines of 5 to 12 words), with the known errors
#             build_realcap.py finds (the Bible names written with a capital
#             inside a sentence) in /tmp/eval3/newcap_errors.tsv;
#   controls-council  the minutes and meeting pages of the Township of
#             Nipissing's council (chriswjohnston/council-meetings), one
#             document a year, every other year in the caption shape: text
#             that is not about the Bible.
# chiefofsinners/sermon-transcripts, also mirrored, holds no transcript (its
# data/sermons is empty).
import subprocess, re, os, hashlib, random, html
M = '/work/.mirror'
OUT = '/tmp/eval3/docs'
def git(repo, *a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, repo)] + list(a), capture_output=True).stdout.decode('utf-8', 'replace')
def ls(repo, pat):
    return sorted(f for f in git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n') if re.search(pat, f))
from captionshape import caption
random.seed(24)
for d in ['newasr', 'newcap', 'controls-council']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/eval3/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepo\tpath\n')
def keep(shape, name, body, repo, path):
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape, repo, path))
errs = open('/tmp/eval3/newcap_errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
R = 'jformoe+sermon-transcripts'
for i, f in enumerate(ls(R, r'^data/processed/.*\.txt$')):
    t = git(R, 'show', 'HEAD:' + f)
    t = t.split('\n---\n', 1)[1].strip() + '\n'
    name = 'jf_%02d.txt' % i
    keep('newasr', name, t, 'jformoe/sermon-transcripts', f)
    keep('newcap', name, caption(t, errs, name), 'jformoe/sermon-transcripts', f)
R = 'chriswjohnston+council-meetings'
years = {}
for f in ls(R, r'^docs/20\d\d/([a-z]+-\d+-\d+/index|files/minutes-[^/]*)\.html$'):
    t = git(R, 'show', 'HEAD:' + f)
    t = re.sub(r'(?s)<(script|style|nav|header|footer).*?</\1>', '', t)
    t = re.sub(r'<[^>]+>', '\n', t)
    t = html.unescape(t)
    t = '\n'.join(l.strip() for l in t.split('\n') if len(l.strip()) > 2)
    years.setdefault(f[5:9], []).append(t)
for i, y in enumerate(sorted(years)):
    body = '\n'.join(years[y]) + '\n'
    name = 'nipissing_%s.txt' % y
    if i % 2 == 0:
        body = caption(body)
        name = 'cap_' + name
    keep('controls-council', name, body, 'chriswjohnston/council-meetings', 'docs/%s/' % y)
