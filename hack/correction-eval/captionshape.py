# The caption shape of issue 24's evaluation (lowercase, no punctuation, cue
# lines of 5 to 12 words, drawn from the random module the builder seeds) and
# the Bible names a punctuated text writes with a capital inside a sentence,
# which that shape loses: the known errors of a caption document. Shared by
# build_round3.py and build_round7.py.
import re, hashlib, random
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
