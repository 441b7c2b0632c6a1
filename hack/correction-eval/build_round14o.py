# Builds issue 24's fourteenth-round (O) shapes of hack/correction-eval in
# /tmp/e14o/docs from one repository mirrored under /work/.mirror (fetch it
# first; not licensed for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   vodo-dev, vodo-held  the WebVTT transcripts that the podcast feeds of
#       more unrelated churches publish (podcast:transcript), as
#       bobbigmac/vodcasts keeps them (site/assets/transcripts/<feed>/*.vtt):
#       feeds whose names begin with a letter from A to K that no earlier
#       round (14J, 14L, 14M) used, nor their churches or speakers; the cue
#       timings dropped, the cues joined, in the caption shape of
#       captionshape.py (lowercase, no punctuation, cues of 5 to 12 words),
#       their lost capitals in /tmp/e14o/errors.tsv.
# The split is by document, alternating in feed and date order: the even ones
# dev (where rules may be written), the odd ones held (judged before and
# after, never read for a rule).
from vodcasts import build
FEEDS = [('between-sermons-video', 1), ('btic-podcast-video', 1), ('calvary-chapel-anne-arundel', 1),
         ('cbcaiken-sermons', 1), ('church-on-the-rock', 1), ('city-chapel-church', 1),
         ('connexus-church', 1), ('crossway-milford-sermons', 1), ('emmanuel-church', 1),
         ('encounter-church', 1), ('exceed-life-church', 1), ('first-church-warsaw-methodist', 1),
         ('heritage', 1), ('faith-christian-churchs', 1)]
build('/tmp/e14o', 'vodo', 'vodo', FEEDS, 2426)
