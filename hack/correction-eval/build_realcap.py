# Builds the "realcap" shape of hack/correction-eval in /tmp/eval2/docs/realcap
# from the realasr documents (run build_realasr.py first): the same sermons as
# YouTube auto-captions show them, lowercase, without punctuation, cut into cue
# lines of 5 to 12 words. They keep the recognizer's own mishearings, which
# the Whisper-made caption shape lacks. It writes:
#   /tmp/eval2/realcap_errors.tsv  the known errors: realasr's mishearings at
#       their caption offsets, and the Bible names (books, well-known places,
#       person-like books before a number) the source writes with a capital
#       inside a sentence, which the captions lose (as build.py does);
#   /tmp/eval2/realcap_source.tsv  for each caption word, its offsets, the
#       word as the source wrote it, and its document and offsets there, to
#       judge a change that restores the source's words, or that the source's
#       own change (judged in realasr) matches.
import re, os, glob, hashlib, random
ERRORS = os.path.join(os.path.dirname(__file__), '../../internal/text/correction/testdata/eval/errors.tsv')
PERSONLIKE = set('Matthew Mark Luke John James Peter Jude Timothy Titus Philemon Daniel Samuel Joshua Ruth Esther Job Jonah Amos Hosea Joel Micah Nahum Habakkuk Zephaniah Haggai Zechariah Malachi Ezra Nehemiah Isaiah Jeremiah Ezekiel Obadiah'.split())
BOOKS = set('Genesis Exodus Leviticus Numbers Deuteronomy Judges Kings Chronicles Psalms Psalm Proverbs Ecclesiastes Lamentations Acts Romans Corinthians Galatians Ephesians Philippians Colossians Thessalonians Hebrews Revelation'.split())
PLACES = set('Jerusalem Egypt Babylon Samaria Galilee Bethlehem Nazareth Capernaum Jericho Damascus Judea Canaan Sodom Gomorrah Nineveh Bethany Gethsemane Golgotha Corinth Ephesus Antioch Macedonia Philippi Athens Thessalonica Galatia Emmaus Bethsaida Gadara Shechem Hebron Bethel Sinai Moab Edom Assyria Tyre Sidon Patmos Tarshish Joppa Caesarea Colossae Laodicea Smyrna Pergamum Thyatira Sardis Philadelphia Lystra Derbe Iconium Cyprus Crete Malta Goshen Ur Haran Gilead Bashan Megiddo Armageddon'.split())
NUMW = set('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety chapter chapters verse verses'.split())
known = {}
for row in open(ERRORS).read().split('\n')[1:]:
    f = row.split('\t')
    if len(f) == 5 and f[0].startswith('tj_'):
        known.setdefault(f[1], []).append((int(f[2]), int(f[3]), f[4]))
os.makedirs('/tmp/eval2/docs/realcap', exist_ok=True)
random.seed(24)
errs = open('/tmp/eval2/realcap_errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
srcw = open('/tmp/eval2/realcap_source.tsv', 'w')
for path in sorted(glob.glob('/tmp/eval2/docs/realasr/*.txt')):
    name = os.path.basename(path)
    data = open(path, 'rb').read()
    sha = hashlib.sha256(data).hexdigest()[:16]
    text = data.decode()
    # pieces: (source start, source end, word as written, sentence start)
    pieces = []
    bstart = True
    for m in re.finditer(rb'\S+', data):
        raw = m.group().decode()
        stripped = re.sub(r"[^\w\s'\-]", ' ', raw)
        off = m.start()
        for pm in re.finditer(r'\S+', stripped):
            s = off + len(raw[:pm.start()].encode())
            pieces.append((s, s + len(pm.group().encode()), pm.group(), bstart))
            bstart = False
        if re.search(r'[.!?:]["\')\]]*$', raw) or data[m.end():m.end() + 1] == b'\n':
            bstart = True
    lines, cur, want = [], [], random.randint(5, 12)
    for p in pieces:
        cur.append(p)
        if len(cur) >= want:
            lines.append(cur)
            cur, want = [], random.randint(5, 12)
    if cur:
        lines.append(cur)
    out, pos, capof = [], 0, []
    for line in lines:
        words = []
        for p in line:
            w = p[2].lower()
            capof.append((pos, pos + len(w.encode()), p))
            words.append(w)
            pos += len(w.encode()) + 1
        out.append(' '.join(words))
    body = '\n'.join(out) + '\n'
    open('/tmp/eval2/docs/realcap/' + name, 'w').write(body)
    csha = hashlib.sha256(body.encode()).hexdigest()[:16]
    for k, (cs, ce, p) in enumerate(capof):
        srcw.write('%s\t%d\t%d\t%s\t%s\t%d\t%d\n' % (csha, cs, ce, p[2], sha, p[0], p[1]))
    # the mishearings, at their caption offsets
    for (s, e, want) in known.get(sha, []):
        cover = [c for c in capof if c[2][0] < e and c[2][1] > s]
        errs.write('%s\t%s\t%d\t%d\t%s\n' % (name, csha, cover[0][0], cover[-1][1], want))
    # the capitals the captions lose
    mis = set((s, e) for (s, e, _) in known.get(sha, []))
    for k, (cs, ce, p) in enumerate(capof):
        w = p[2]
        if p[3] or not w[:1].isupper() or any(s < p[1] and e > p[0] for (s, e) in mis):
            continue
        nxt = capof[k + 1][2][2].lower() if k + 1 < len(capof) else ''
        if w in BOOKS or w in PLACES or (w in PERSONLIKE and (nxt.isdigit() or nxt in NUMW)):
            errs.write('%s\t%s\t%d\t%d\t%s\n' % (name, csha, cs, ce, w))
