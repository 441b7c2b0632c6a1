# Builds issue 24's fourteenth-round (M) shapes of hack/correction-eval in
# /tmp/e14m/docs from one repository mirrored under /work/.mirror (fetch it
# first; not licensed for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   vodm-dev, vodm-held  the WebVTT transcripts that the podcast feeds of
#       churches publish (podcast:transcript), as bobbigmac/vodcasts keeps
#       them (site/assets/transcripts/<feed>/*.vtt): eighteen feeds whose
#       names begin with a letter from M to Z, none that build_round14j.py
#       used and none of a church or speaker an earlier round used (not Tim
#       Keller's nor Redeemer's): Baptist, Methodist, Presbyterian, Lutheran,
#       Church of Christ and non-denominational churches of the US, a Welsh
#       preacher's (the MLJ Trust), Spurgeon's sermons read aloud, a
#       missionary's Bible studies (Paul Washer) and a radio ministry (Truth
#       for Life); the cue timings dropped, the cues joined, in the caption
#       shape of captionshape.py (lowercase, no punctuation, cues of 5 to 12
#       words), their lost capitals in /tmp/e14m/errors.tsv.
# The split is by document, alternating in feed and date order: the even ones
# dev (where rules may be written), the odd ones held (judged before and
# after, never read for a rule).
from vodcasts import build
FEEDS = [('mark-gungor-video', 1), ('markle-church-of-christ', 2), ('menlochurchvideo', 1),
         ('mlj-trust-sermons', 2), ('mount-calvary-lutheran-sa', 1), ('mrc-sermons', 1),
         ('northridge', 1), ('oak-hills-church', 1), ('paul-washer-sermons', 2),
         ('perdido-bay-methodist', 1), ('reformation-baptist-church', 1),
         ('saint-andrews-presbyterian-yakima', 1), ('spurgeon-sermons-official', 1),
         ('st-matthews-methodist', 1), ('truth-for-life-sermons', 2),
         ('the-church-at-brook-hills', 1), ('watts-chapel', 1), ('westwood-baptist', 1)]
build('/tmp/e14m', 'vodm', 'vodm', FEEDS, 2424)
