# Splits issue 24's seventh-round church captions (build_round7.py's kogyt
# and kogcap in /tmp/eval7/docs) into the half the eighth round's rules
# were written on and the half no rule was read against:
#   kogyt-dev, kogcap-dev    kog_00 to kog_07 (the rules were tuned on them)
#   kogyt-held, kogcap-held  kog_08 to kog_14 (judged, never read for a rule)
# in /tmp/eval8/docs. The documents keep their bytes, so the verdicts and
# known errors of testdata/eval apply unchanged.
import os, shutil
IN, OUT = '/tmp/eval7/docs', '/tmp/eval8/docs'
for shape in ['kogyt', 'kogcap']:
    for half in ['dev', 'held']:
        os.makedirs('%s/%s-%s' % (OUT, shape, half), exist_ok=True)
    for name in sorted(os.listdir('%s/%s' % (IN, shape))):
        half = 'dev' if int(name[4:6]) <= 7 else 'held'
        shutil.copy('%s/%s/%s' % (IN, shape, name), '%s/%s-%s/%s' % (OUT, shape, half, name))
