# Builds issue 24's seventh-round shapes of hack/correction-eval in
# /tmp/eval7/docs from repositories mirrored under /work/.mirror (fetch them
# first), none of which any rule was tuned on:
#   kogyt     the YouTube transcripts of one church's sermons and Bible
#             classes (mikesilla-KOG/SermonsKB, data/transcripts/*.json, the
#             15 that are not empty; no licence: text in /tmp only), as
#             YouTube's recognizer wrote them: two in the older lowercase shape
#             without punctuation, the others punctuated by the newer one;
#   kogcap    those punctuated ones in the caption shape (captionshape.py),
#             their lost capitals in /tmp/eval7/errors.tsv;
#   kjvasr    one sermon of a King James church as two Whisper runs wrote it
#             (Blakthorne/audio-tagger whisper_raw.txt, Whisper medium, and
#             Blakthorne/whispersermons src/python/test_mode_transcript.txt;
#             both MIT);
#   kjvcap    the same in the caption shape;
#   controls-changelog  30 episodes of the Changelog's podcasts as their
#             editors transcribed them (thechangelog/transcripts, CC BY-SA
#             4.0), every 60th file by name, speakers' names and timestamps
#             taken out, every other one in the caption shape: talk about
#             software, not the Bible.
import subprocess, re, os, hashlib, random, json
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/eval7/docs'
def git(repo, *a):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, repo)] + list(a), capture_output=True).stdout.decode('utf-8', 'replace')
def ls(repo, pat):
    return sorted(f for f in git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n') if re.search(pat, f))
random.seed(24)
for d in ['kogyt', 'kogcap', 'kjvasr', 'kjvcap', 'controls-changelog']:
    os.makedirs(OUT + '/' + d, exist_ok=True)
src = open('/tmp/eval7/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepo\tpath\n')
errs = open('/tmp/eval7/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')
def keep(shape, name, body, repo, path):
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape, repo, path))
R = 'mikesilla-KOG+SermonsKB'
i = 0
for f in ls(R, r'^data/transcripts/.*\.json$'):
    t = json.loads(git(R, 'show', 'HEAD:' + f))['transcript'].strip()
    if len(t) < 2000:
        continue
    name = 'kog_%02d.txt' % i
    i += 1
    keep('kogyt', name, t + '\n', 'mikesilla-KOG/SermonsKB', f)
    if re.search(r'[.?!]', t[:2000]):
        keep('kogcap', name, caption(t + '\n', errs, name), 'mikesilla-KOG/SermonsKB', f)
for name, repo, f in [('kjv_0.txt', 'Blakthorne+audio-tagger', 'whisper_raw.txt'),
                      ('kjv_1.txt', 'Blakthorne+whispersermons', 'src/python/test_mode_transcript.txt')]:
    t = git(repo, 'show', 'HEAD:' + f).strip() + '\n'
    keep('kjvasr', name, t, repo.replace('+', '/'), f)
    keep('kjvcap', name, caption(t, errs, name), repo.replace('+', '/'), f)
R = 'thechangelog+transcripts'
for k, f in enumerate(ls(R, r'^[a-z]+/[^/]+\.md$')[::60][:30]):
    t = git(R, 'show', 'HEAD:' + f)
    t = re.sub(r'\*\*[^*\n]{1,60}:\*\* ?', '', t)
    t = re.sub(r'\\\[\d+:\d+(:\d+)?\\\] ?', '', t)
    t = re.sub(r'\n{2,}', '\n', t).strip() + '\n'
    name = 'changelog_%02d.txt' % k
    if k % 2 == 1:
        t = caption(t)
        name = 'cap_' + name
    keep('controls-changelog', name, t, 'thechangelog/transcripts', f)
