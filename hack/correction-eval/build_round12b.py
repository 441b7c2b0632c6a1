# Builds issue 24's twelfth-round (B) shapes of hack/correction-eval in
# /tmp/e12b/docs from repositories no earlier round used (fetch them first;
# mirrored under /work/.mirror). No licence is given by any of them: the text
# stays in /tmp, hashes and verdicts are committed.
#
# Sermons of two churches, split by document: the even ones of each pick are
# dev (where rules may be written), the odd ones held (judged before and
# after, never read for a rule); each also in the caption shape
# (captionshape.py), its lost capitals in /tmp/e12b/errors.tsv.
#   kelasr-dev, kelasr-held, kelcap-dev, kelcap-held
#       siludose/keller-sermons: Tim Keller's sermons at Redeemer Presbyterian
#       Church (New York) as the Gospel in Life podcast's recognizer wrote
#       them (punctuated, paragraphs; sermons/*/transcript.md without the
#       Markdown headings a formatter added), 16 of 97, every 6th by name.
#   lhpasr-dev, lhpasr-held, lhpcap-dev, lhpcap-held
#       jobian-ai/LHP-Sermons: Living Hope Presbyterian Church's sermons as
#       Whisper wrote them (the raw .txt files of 2025), and those of 2024 as
#       Whisper wrote them and a chat model punctuated them (the .md without a
#       summary's suffix), every 2nd by name.
#
# Controls, not about the Bible:
#   controls-hsv, controls-hsv-cap
#       Caden-Helbling/hsv-city-council-transcripts: the Huntsville, Alabama
#       city council's meetings as Whisper (medium) wrote them, every 2nd of
#       the regular meetings, and the same in the caption shape.
#   controls-vc
#       Virtual-Coffee/podcast-transcripts: a developer community's podcast,
#       its edited subtitles (episodes/*.srt) joined into text, every 8th.
import subprocess, os, hashlib, random, re
from captionshape import caption
M = '/work/.mirror'
OUT = '/tmp/e12b/docs'
random.seed(2412)
src = open('/tmp/e12b/sources.tsv', 'w')
src.write('name\tdoc\tshape\trepo\tpath\n')
errs = open('/tmp/e12b/errors.tsv', 'w')
errs.write('name\tdoc\tstart\tend\texpected\n')


def git(repo, *args):
    return subprocess.run(['git', '--git-dir=%s/%s/repo' % (M, repo.replace('/', '+'))] + list(args),
                          capture_output=True, check=True, text=True).stdout


def keep(shape, name, body, repo, path):
    os.makedirs(OUT + '/' + shape, exist_ok=True)
    open('%s/%s/%s' % (OUT, shape, name), 'w').write(body)
    src.write('%s\t%s\t%s\t%s\t%s\n' % (name, hashlib.sha256(body.encode()).hexdigest()[:16], shape, repo, path))


def files(repo, under):
    return sorted(p for p in git(repo, 'ls-tree', '-r', '--name-only', 'HEAD', under).split('\n') if p)


def sermons(repo, tag, picked, clean):
    for i, p in enumerate(picked):
        half = 'dev' if i % 2 == 0 else 'held'
        name = '%s_%02d.txt' % (tag, i)
        t = clean(git(repo, 'show', 'HEAD:' + p)).strip() + '\n'
        keep(tag + 'asr-' + half, name, t, repo, p)
        keep(tag + 'cap-' + half, name, caption(t, errs, name), repo, p)


def unheaded(md):
    body = '\n'.join(l for l in md.split('\n') if not l.startswith('#'))
    return re.sub(r'\n{3,}', '\n\n', body)


R1 = 'siludose/keller-sermons'
kel = [p for p in files(R1, 'sermons/') if p.endswith('/transcript.md') and p.count('/') == 2]
sermons(R1, 'kel', kel[::6], unheaded)

R2 = 'jobian-ai/LHP-Sermons'
lhp = [p for p in files(R2, 'sermons/')
       if (p.startswith('sermons/2025/') and p.endswith('.txt'))
       or (p.startswith('sermons/2024/') and p.endswith('.md') and '(' not in p and not p.endswith('README.md'))]
sermons(R2, 'lhp', lhp[::2], lambda t: t)

R3 = 'Caden-Helbling/hsv-city-council-transcripts'
hsv = [p for p in files(R3, 'meetings/') if p.endswith('city-council-meeting/transcript/whisper-medium.txt')]
for i, p in enumerate(hsv[::2]):
    name = 'hsv_%02d.txt' % i
    t = git(R3, 'show', 'HEAD:' + p).strip() + '\n'
    keep('controls-hsv', name, t, R3, p)
    keep('controls-hsv-cap', name, caption(t), R3, p)

R4 = 'Virtual-Coffee/podcast-transcripts'
vc = [p for p in files(R4, 'episodes/') if p.endswith('.srt')]
for i, p in enumerate(vc[::8]):
    name = 'vc_%02d.txt' % i
    lines = [l.strip() for l in git(R4, 'show', 'HEAD:' + p).replace('\r', '').split('\n')]
    text = [l for l in lines if l and not l.isdigit() and '-->' not in l]
    keep('controls-vc', name, ' '.join(text) + '\n', R4, p)
