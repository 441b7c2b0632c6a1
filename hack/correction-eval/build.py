# Builds the evaluation documents of hack/correction-eval in /tmp/eval/docs from
# public repositories mirrored under /work/.mirror (see
# internal/text/correction/testdata/eval/README.md): Whisper transcripts of two
# churches' services, as lowercase captions without punctuation (cue lines kept)
# and as punctuated text, and podcasts as controls; and the known errors of the
# captions (/tmp/eval/errors.tsv): the Bible names the Whisper text capitalizes
# that the lowercase captions lose. Nothing it writes is kept in the repository
# but the hashes, offsets and names of errors.tsv.
import subprocess, re, os, random, hashlib
M='/work/.mirror'
def ls(repo, pat):
    out=subprocess.run(['git','--git-dir=%s/%s/repo'%(M,repo),'ls-tree','-r','--name-only','HEAD'],capture_output=True,text=True).stdout.split('\n')
    return sorted(f for f in out if re.search(pat,f))
def show(repo,f):
    return subprocess.run(['git','--git-dir=%s/%s/repo'%(M,repo),'show','HEAD:'+f],capture_output=True).stdout.decode('utf-8','replace')
ts=re.compile(r'^\[[\d.]+ --> [\d.]+\]\s*')
def segs(text):
    return [ts.sub('',l).strip() for l in text.split('\n') if l.strip()]
def caption(lines):
    out=[]
    for l in lines:
        l=l.lower()
        l=re.sub(r"[^\w\s'\-]",' ',l)   # no punctuation, as YouTube auto-captions
        l=re.sub(r'\s+',' ',l).strip()
        if l: out.append(l)
    return '\n'.join(out)+'\n'
random.seed(24)
for d in ['captions','asr','controls']:
    os.makedirs('/tmp/eval/docs/'+d,exist_ok=True)
def pick(repo, n_cap, n_asr, tag):
    fs=ls(repo,r'_transcript\.txt$'); random.shuffle(fs)
    for i,f in enumerate(fs[:n_cap+n_asr]):
        lines=segs(show(repo,f))
        name='%s_%02d.txt'%(tag,i)
        if i<n_cap:
            open('/tmp/eval/docs/captions/'+name,'w').write(caption(lines))
        else:
            open('/tmp/eval/docs/asr/'+name,'w').write('\n'.join(lines)+'\n')
        open('/tmp/eval/sources.tsv','a').write('%s\t%s\t%s\n'%(name,repo,f))
pick('willtheorangeguy+HCC-Sermon-Transcripts',22,14,'hcc')
pick('willtheorangeguy+LCRC-Sermon-Transcripts',22,14,'lcrc')
# controls: TWIML Whisper srt (half as lowercase captions), Lenny's podcast
srt=ls('bahree+whisper',r'^twiml-episodes-whisper-transcribed/.*\.srt$'); random.shuffle(srt)
for i,f in enumerate(srt[:24]):
    t=show('bahree+whisper',f)
    lines=[l.strip() for l in t.split('\n') if l.strip() and not re.match(r'^\d+$',l.strip()) and '-->' not in l]
    name='twiml_%02d.txt'%i
    body=caption(lines) if i%2==0 else '\n'.join(lines)+'\n'
    open('/tmp/eval/docs/controls/'+('cap_' if i%2==0 else '')+name,'w').write(body)
    open('/tmp/eval/sources.tsv','a').write('%s\t%s\t%s\n'%(name,'bahree/whisper',f))
ep=ls('ebuntario+lennys-podcast-transcripts',r'^episodes/[^/]+/transcript\.md$'); random.shuffle(ep)
for i,f in enumerate(ep[:10]):
    t=show('ebuntario+lennys-podcast-transcripts',f)
    t=t.split('## Transcript',1)[-1]
    name='lenny_%02d.txt'%i
    open('/tmp/eval/docs/controls/'+name,'w').write(t)
    open('/tmp/eval/sources.tsv','a').write('%s\t%s\t%s\n'%(name,'ebuntario/lennys-podcast-transcripts',f))

# Known errors of the caption shape: the Bible names the Whisper text
# capitalizes that the lowercase captions lose.
PERSONLIKE=set('Matthew Mark Luke John James Peter Jude Timothy Titus Philemon Daniel Samuel Joshua Ruth Esther Job Jonah Amos Hosea Joel Micah Nahum Habakkuk Zephaniah Haggai Zechariah Malachi Ezra Nehemiah Isaiah Jeremiah Ezekiel Obadiah'.split())
BOOKS=set('Genesis Exodus Leviticus Numbers Deuteronomy Judges Kings Chronicles Psalms Psalm Proverbs Ecclesiastes Lamentations Acts Romans Corinthians Galatians Ephesians Philippians Colossians Thessalonians Hebrews Revelation'.split())
PLACES=set('Jerusalem Egypt Babylon Samaria Galilee Bethlehem Nazareth Capernaum Jericho Damascus Judea Canaan Sodom Gomorrah Nineveh Bethany Gethsemane Golgotha Corinth Ephesus Antioch Macedonia Philippi Athens Thessalonica Galatia Emmaus Bethsaida Gadara Shechem Hebron Bethel Sinai Moab Edom Assyria Tyre Sidon Patmos Tarshish Joppa Caesarea Colossae Laodicea Smyrna Pergamum Thyatira Sardis Philadelphia Lystra Derbe Iconium Cyprus Crete Malta Samaria Goshen Ur Haran Gilead Bashan Megiddo Armageddon'.split())
NUMW=set('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety chapter chapters verse verses'.split())
import glob
def toks(line):
    line=re.sub(r"[^\w\s'\-]",' ',line)
    return re.findall(r"\S+",re.sub(r'\s+',' ',line).strip())
with open('/tmp/eval/errors.tsv','w') as out:
    out.write('name\tdoc\tstart\tend\texpected\n')
    for row in open('/tmp/eval/sources.tsv'):
        name,repo,f=row.rstrip('\n').split('\t')
        p='/tmp/eval/docs/captions/'+name
        if not os.path.exists(p): continue
        data=open(p,'rb').read()
        sha=hashlib.sha256(data).hexdigest()[:16]
        lines=segs(show(repo,f))
        pos=0
        for l in lines:
            t=toks(l)
            if not t: continue
            tl=[w.lower() for w in t]
            off=pos
            for i,w in enumerate(t):
                start=off
                nxt=tl[i+1] if i+1<len(t) else ''
                # A capital on a cue line's first word may be a sentence's.
                ok=False
                if i>0 and w[0].isupper():
                    if w in BOOKS or w in PLACES:
                        ok=True
                    elif w in PERSONLIKE and (nxt.isdigit() or nxt in NUMW):
                        ok=True
                if ok:
                    out.write('%s\t%s\t%d\t%d\t%s\n'%(name,sha,start,start+len(w.encode()),w))
                off+=len(w.encode())+1
            pos=off

# A city-council control: tasks extracted from US city council meeting
# transcripts (the Description column, 600 KB).
import csv, io
rows = csv.reader(io.StringIO(show('paulcesartoux+classification-US-cities-meeting-transcripts', 'Projet/dataset/training_data.csv')))
next(rows)
out, n = [], 0
for row in rows:
    d = row[1].replace(' | ', '\n')
    out.append(d)
    n += len(d)
    if n > 600000:
        break
open('/tmp/eval/docs/controls/council_tasks.txt', 'w').write('\n'.join(out) + '\n')
open('/tmp/eval/sources.tsv', 'a').write('council_tasks.txt\tpaulcesartoux/classification-US-cities-meeting-transcripts\tProjet/dataset/training_data.csv\n')
