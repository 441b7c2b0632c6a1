# Builds issue 24's fourth-round shapes of hack/correction-eval in
# /tmp/eval4/docs: real YouTube auto-captions, as youtube-transcript-api
# fetched them (one caption cue a line, as a user pastes them), from two
# repositories mirrored under /work/.mirror (neither licensed: the text stays
# in /tmp, only hashes, offsets and verdicts are kept):
#   ytcap       sermons of Houston Faith Church (NSA-in-My-Walls/HFC-QA-BOT,
#               sermon_transcripts/*.json) from the channel's older videos,
#               whose captions YouTube's recognizer wrote all lowercase and
#               without punctuation: the two pastors and guest preachers;
#               the rules of the fourth round were tuned on these;
#   ytcap-held  other sermons of the same shape, speakers and guests, read
#               only to judge: held out from the tuning;
#   ytcap-fresh more sermons of the same shape, speakers and guests, added
#               after the round's rules were written and measured once, at
#               the end: held out from the tuning and from the reading that
#               found the round's wrong changes;
#   ytmixed     newer videos of the same channel, whose captions capitalize
#               names but have no punctuation;
#   controls-yt lowercase auto-captions of political live streams and
#               debates (sungorilla2036/infrared-transcripts at 93bab0ae,
#               folders "Infrared" and "Black Lenin"): text not about the
#               Bible, of many speakers.
# /tmp/eval4/candidates.tsv lists, for the caption shapes, each word that is a
# book's or a well-known place's name, or a person-like book's name before a
# number, with its context: the candidates of the known errors, each read and
# kept or dropped by hand into testdata/eval/errors.tsv.
import subprocess, re, os, hashlib, random, json
M = '/work/.mirror'
OUT = '/tmp/eval4/docs'
HFC = 'NSA-in-My-Walls+HFC-QA-BOT'
IR = 'sungorilla2036+infrared-transcripts'
IRC = '93bab0ae78da04a6c202bd4eb8ab69fc8384c1a7'
def git(repo, *a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, repo)] + list(a), capture_output=True).stdout
def ls(repo, rev, pat):
    return sorted(f for f in git(repo, 'ls-tree', '-r', '--name-only', rev).decode().split('\n') if re.search(pat, f))
def cues(repo, rev, f):
    try:
        segs = json.loads(git(repo, 'show', rev + ':' + f))
    except ValueError:
        return None
    return [s['text'].replace('\n', ' ').strip() for s in segs if s.get('text', '').strip()]
def caseratio(lines):
    t = ''.join(lines)
    letters = sum(c.isalpha() for c in t)
    return sum(c.isupper() for c in t) / max(letters, 1)
for d in ['ytcap', 'ytcap-held', 'ytcap-fresh', 'ytmixed', 'controls-yt']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
sources = open('/tmp/eval4/sources.tsv', 'w')
titles = {e.get('id'): e.get('title') or '' for e in json.loads(git(HFC, 'show', 'HEAD:videos.json')).get('entries', [])}
def speaker(t):
    if 'Chas and Joni' in t: return 'both'
    if 'Chas' in t: return 'chas'
    if 'Joni' in t: return 'joni'
    return 'guest'
lower, mixed = {'chas': [], 'joni': [], 'guest': [], 'both': []}, []
for f in ls(HFC, 'HEAD', r'^sermon_transcripts/.*\.json$'):
    c = cues(HFC, 'HEAD', f)
    if not c or sum(len(x) for x in c) < 20000:
        continue
    vid = os.path.basename(f)[:-5]
    r = caseratio(c)
    if r < 0.002:
        lower[speaker(titles.get(vid, ''))].append((vid, f))
    elif r > 0.01:
        mixed.append((vid, f))
random.seed(2404)
picked, fresh = [], []
for sp, n, nf in [('chas', 8, 4), ('joni', 6, 3), ('guest', 10, 6)]:
    fs = lower[sp][:]
    random.shuffle(fs)
    picked += [(sp, x) for x in fs[:n]]
    fresh += [(sp, x) for x in fs[n:n + nf]]
random.shuffle(mixed)
def write(shape, name, repo, path, lines):
    body = '\n'.join(lines) + '\n'
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    sha = hashlib.sha256(body.encode()).hexdigest()[:16]
    sources.write('%s\t%s\t%s\t%s\t%s\n' % (name, sha, shape, repo, path))
    return body
caps = []
for i, (sp, (vid, f)) in enumerate(picked):
    shape = 'ytcap' if i % 2 == 0 else 'ytcap-held'
    name = 'hfc_%s_%s.txt' % (sp, vid)
    caps.append((shape, name, write(shape, name, 'NSA-in-My-Walls/HFC-QA-BOT', f, cues(HFC, 'HEAD', f))))
for sp, (vid, f) in fresh:
    name = 'hfc_%s_%s.txt' % (sp, vid)
    caps.append(('ytcap-fresh', name, write('ytcap-fresh', name, 'NSA-in-My-Walls/HFC-QA-BOT', f, cues(HFC, 'HEAD', f))))
for vid, f in mixed[:8]:
    write('ytmixed', 'hfcmix_%s.txt' % vid, 'NSA-in-My-Walls/HFC-QA-BOT', f, cues(HFC, 'HEAD', f))
irs = []
for f in ls(IR, IRC, r'^(Infrared|Black Lenin)/.*\.json$'):
    c = cues(IR, IRC, f)
    if c and 20000 < sum(len(x) for x in c) < 200000 and caseratio(c) < 0.002:
        irs.append((f, c))
random.shuffle(irs)
for f, c in irs[:20]:
    write('controls-yt', 'ir_%s' % f.replace('/', '_').replace(' ', ''), 'sungorilla2036/infrared-transcripts@' + IRC[:7], f, c)

PERSONLIKE = set('matthew mark luke john james peter jude timothy titus philemon daniel samuel joshua ruth esther job jonah amos hosea joel micah nahum habakkuk zephaniah haggai zechariah malachi ezra nehemiah isaiah jeremiah ezekiel obadiah'.split())
BOOKS = set('genesis exodus leviticus numbers deuteronomy judges kings chronicles psalms psalm proverbs ecclesiastes lamentations acts romans corinthians galatians ephesians philippians colossians thessalonians hebrews revelation'.split())
PLACES = set('jerusalem egypt babylon samaria galilee bethlehem nazareth capernaum jericho damascus judea canaan sodom gomorrah nineveh bethany gethsemane golgotha corinth ephesus antioch macedonia philippi athens thessalonica galatia emmaus bethsaida gadara shechem hebron bethel sinai moab edom assyria tyre sidon patmos tarshish joppa caesarea colossae laodicea smyrna pergamum thyatira sardis philadelphia lystra derbe iconium cyprus crete malta goshen ur haran gilead bashan megiddo armageddon'.split())
NUMW = set('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety chapter chapters verse verses'.split())
with open('/tmp/eval4/candidates.tsv', 'w') as out:
    for shape, name, body in caps:
        data = body.encode()
        sha = hashlib.sha256(data).hexdigest()[:16]
        ws = [(m.start(), m.end(), m.group().decode()) for m in re.finditer(rb"[a-z][a-z'\-]*|\d+", data)]
        for i, (s, e, w) in enumerate(ws):
            nxt = ws[i + 1][2] if i + 1 < len(ws) else ''
            if w in BOOKS or w in PLACES or (w in PERSONLIKE and (nxt.isdigit() or nxt in NUMW)):
                ctx = data[max(0, s - 60):e + 60].decode('utf-8', 'replace').replace('\n', ' / ')
                exp = 'Psalm' if w == 'psalm' else w[0].upper() + w[1:]
                out.write('%s\t%s\t%d\t%d\t%s\t%s\t%s\n' % (name, sha, s, e, exp, shape, ctx))
sources.close()
