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
PERSONLIKE = set('Matthew Mark Luke John James Peter Jude Timothy Titus Philemon Daniel Samuel Joshua Ruth Esther Job Jonah Amos Hosea Joel Micah Nahum Habakkuk Zephaniah Haggai Zechariah Malachi Ezra Nehemiah Isaiah Jeremiah Ezekiel Obadiah'.split())
BOOKS = set('Genesis Exodus Leviticus Numbers Deuteronomy Judges Kings Chronicles Psalms Psalm Proverbs Ecclesiastes Lamentations Acts Romans Corinthians Galatians Ephesians Philippians Colossians Thessalonians Hebrews Revelation'.split())
PLACES = set('Jerusalem Egypt Babylon Samaria Galilee Bethlehem Nazareth Capernaum Jericho Damascus Judea Canaan Sodom Gomorrah Nineveh Bethany Gethsemane Golgotha Corinth Ephesus Antioch Macedonia Philippi Athens Thessalonica Galatia Emmaus Bethsaida Gadara Shechem Hebron Bethel Sinai Moab Edom Assyria Tyre Sidon Patmos Tarshish Joppa Caesarea Colossae Laodicea Smyrna Pergamum Thyatira Sardis Philadelphia Lystra Derbe Iconium Cyprus Crete Malta Goshen Ur Haran Gilead Bashan Megiddo Armageddon'.split())
NUMW = set('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety chapter chapters verse verses'.split())
def caption(text, errs=None, name=None):
    """The caption shape of a punctuated text, and its lost capitals."""
    data = text.encode()
    pieces, bstart = [], True
    for m in re.finditer(rb'\S+', data):
        raw = m.group().decode()
        stripped = re.sub(r"[^\w\s'\-]", ' ', raw)
        for pm in re.finditer(r'\S+', stripped):
            s = m.start() + len(raw[:pm.start()].encode())
            pieces.append((s, s + len(pm.group().encode()), pm.group(), bstart))
            bstart = False
        if re.search(r'[.!?:]["\')\]]*$', raw) or data[m.end():m.end() + 1] == b'\n':
            bstart = True
    out, cur, want, pos, capof = [], [], random.randint(5, 12), 0, []
    for p in pieces:
        w = p[2].lower()
        capof.append((pos, pos + len(w.encode()), p))
        cur.append(w)
        pos += len(w.encode()) + 1
        if len(cur) >= want:
            out.append(' '.join(cur))
            cur, want = [], random.randint(5, 12)
    if cur:
        out.append(' '.join(cur))
    body = '\n'.join(out) + '\n'
    if errs is not None:
        csha = hashlib.sha256(body.encode()).hexdigest()[:16]
        for k, (cs, ce, p) in enumerate(capof):
            w = p[2]
            if p[3] or not w[:1].isupper():
                continue
            nxt = capof[k + 1][2][2].lower() if k + 1 < len(capof) else ''
            if w in BOOKS or w in PLACES or (w in PERSONLIKE and (nxt.isdigit() or nxt in NUMW)):
                errs.write('%s\t%s\t%d\t%d\t%s\n' % (name, csha, cs, ce, w))
    return body
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
