# Builds issue 24's fourteenth-round (L) shapes of hack/correction-eval in
# /tmp/e14l/docs from one repository mirrored under /work/.mirror (fetch it
# first; not licensed for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   vodl-dev, vodl-held  the WebVTT transcripts that the podcast feeds of
#       more unrelated churches publish (podcast:transcript), as
#       bobbigmac/vodcasts keeps them (site/assets/transcripts/<feed>/*.vtt):
#       only feeds whose names begin with a letter from A to L, none that
#       round 14J (build_round14j.py) used and none whose church or speaker an
#       earlier round used: Baptist, Methodist, Calvary Chapel and other
#       churches' sermons and classes, a Catholic bishop's homily; the cue
#       timings dropped, the cues joined, in the caption shape of
#       captionshape.py (lowercase, no punctuation, cues of 5 to 12
#       words), their lost capitals in /tmp/e14l/errors.tsv.
# The split is by document, alternating in feed and date order: the even ones
# dev (where rules may be written), the odd ones held (judged before and
# after, never read for a rule).
from vodcasts import build
FEEDS = [('amazing-grace-baptist-mount-airy', 1), ('antioch-church', 1), ('atlanta-first-umc', 1),
         ('bishop-barron-sermons', 1), ('bridgetown', 1), ('buford-road-baptist', 1),
         ('calvary-chapel-fort-lauderdale', 1), ('church-of-the-highlands-weekend-video', 1),
         ('concord-baptist-church', 1), ('desiring-god-messages', 1), ('eaglebrook', 1),
         ('elevation-steven-furtick', 1), ('fresh-life-church', 1), ('harvest-baptist-ga', 1),
         ('james-river', 1), ('lancaster-baptist', 1), ('life-church-craig-groeschel', 1),
         ('first-baptist-columbia-wf', 1), ('godspeak-calvary', 1), ('dungeness-community-church', 1)]
build('/tmp/e14l', 'vodl', 'vodl', FEEDS, 2421)
