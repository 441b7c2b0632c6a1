# Builds issue 24's twelfth-round (A) shapes of hack/correction-eval in
# /tmp/eval12a/docs from two repositories mirrored under /work/.mirror (fetch
# them first), neither licensed for reuse here: the text stays in /tmp, only
# hashes, offsets and verdicts are committed.
#   guestcap-dev, guestcap-held  YouTube's own auto-captions (one caption cue
#       a line, as youtube-transcript-api fetched them and a user pastes them)
#       of the guest preachers of Houston Faith Church whom no round used
#       (NSA-in-My-Walls/HFC-QA-BOT, sermon_transcripts/*.json): one video per
#       named guest (the title names the speaker), the channel's two pastors,
#       the untitled and conference videos and the four guests of rounds 4-11
#       (Zachary Bigley, Brad Sullivan, Aaron Hankins, Lora Allison) left out;
#       the older videos all lowercase, the newer ones with names capitalised
#       by the recognizer (guestmix-dev, guestmix-held), no punctuation in
#       either;
#   fcap-dev, fcap-held  the spoken meditations of a Catholic priest (Fr. Conor
#       Donnelly, frconor-ebook/meditations, _meditations/*.md), proofread
#       transcripts, in the caption shape of captionshape.py: the front matter,
#       the byline and the parenthesised citations the proofreader added
#       ("(Matt. 25:21,23)", never spoken) dropped first; their lost capitals
#       in /tmp/eval12a/errors.tsv.
# The split is by speaker (guests) and by meditation (every 24th by name): the
# even ones dev (where rules may be written), the odd ones held (judged before
# and after, never read for a rule).
import subprocess, os, hashlib, random, json, re
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/eval12a/docs'
HFC = 'NSA-in-My-Walls+HFC-QA-BOT'
FR = 'frconor-ebook+meditations'
random.seed(2412)
shapes = ['guestcap-dev', 'guestcap-held', 'guestmix-dev', 'guestmix-held', 'fcap-dev', 'fcap-held']
for d in shapes:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/eval12a/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepository\tpath\n')
errs = open('/tmp/eval12a/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def git(repo, *a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, repo)] + list(a), capture_output=True, check=True).stdout
def keep(shape, name, body, repo, path):
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape, repo, path))

# The guests.
USED = {'Zachary Bigley', 'Brad Sullivan', 'Aaron Hankins', 'Lora Allison'}
SPEAKER = re.compile(r"(?:Apostle|Dr\.|Evangelist|Pastors?|Revs?\.?|Rev)\s+([A-Z][A-Za-z']+(?:\s+(?:&\s+)?[A-Z][A-Za-z'.]+){1,3})"
                     r"|^(Marty Blackwelder|Mark & Trina Hankins|Mark Hankins)")
titles = {e.get('id'): e.get('title') or '' for e in json.loads(git(HFC, 'show', 'HEAD:videos.json')).get('entries', [])}
bysp = {}
for f in sorted(git(HFC, 'ls-tree', '-r', '--name-only', 'HEAD').decode().split('\n')):
    if not f.startswith('sermon_transcripts/') or not f.endswith('.json'):
        continue
    vid = os.path.basename(f)[:-5]
    t = titles.get(vid, '')
    if 'Chas' in t or 'Joni' in t:
        continue
    m = SPEAKER.search(t)
    if not m:
        continue
    sp = (m.group(1) or m.group(2)).split(' 20')[0].strip()
    sp = re.sub(r'\s+(?:\d.*|AM|PM)$', '', sp).replace('Mark Hankins', 'Mark & Trina Hankins')
    if sp in USED:
        continue
    try:
        segs = json.loads(git(HFC, 'show', 'HEAD:' + f))
    except ValueError:
        continue
    cues = [s['text'].replace('\n', ' ').strip() for s in segs if s.get('text', '').strip()]
    if sum(len(x) for x in cues) < 20000:
        continue
    bysp.setdefault(sp, []).append((vid, f, cues))
for i, sp in enumerate(sorted(bysp)):
    vid, f, cues = random.choice(bysp[sp])
    text = ''.join(cues)
    upper = sum(c.isupper() for c in text) / max(sum(c.isalpha() for c in text), 1)
    half = 'dev' if i % 2 == 0 else 'held'
    shape = ('guestcap-' if upper < 0.002 else 'guestmix-') + half
    keep(shape, 'hfg_%s.txt' % vid, '\n'.join(cues) + '\n', 'NSA-in-My-Walls/HFC-QA-BOT', f)

# The meditations.
def spoken(md):
    body = md.split('\n---\n', 1)[1] if md.startswith('---\n') else md
    body = re.sub(r'^By Fr\. Conor Donnelly\s*$', '', body, flags=re.M)
    body = re.sub(r'^\*\(Proofread\)\*\s*$', '', body, flags=re.M)
    body = re.sub(r'\s*\((?:[^()]*\d[^()]*)\)', '', body)  # citations: "(Matt. 25:21,23)", "(cf. 1 Pet. 4:10)"
    body = body.replace('\\[', '').replace('\\]', '').replace('*', '')
    return re.sub(r'\n{3,}', '\n\n', body).strip() + '\n'
meds = sorted(p for p in git(FR, 'ls-tree', '-r', '--name-only', 'HEAD', '_meditations/').decode().split('\n') if p.endswith('.md'))
for i, p in enumerate(meds[::24]):
    half = 'dev' if i % 2 == 0 else 'held'
    name = 'fr_%02d.txt' % i
    keep('fcap-' + half, name, caption(spoken(git(FR, 'show', 'HEAD:' + p).decode()), errs, name), 'frconor-ebook/meditations', p)
src.close()
errs.close()
