# Builds issue 24's fourteenth-round (P) shapes of hack/correction-eval in
# /tmp/e14p/docs from one repository mirrored under /work/.mirror (fetch it
# first; not licensed for reuse here: the text stays in /tmp, only hashes,
# offsets and verdicts are committed).
#   vodp-dev, vodp-held  the WebVTT transcripts that the podcast feeds of
#       churches publish (podcast:transcript), as bobbigmac/vodcasts keeps
#       them (site/assets/transcripts/<feed>/*.vtt): feeds whose names begin
#       with a letter from L to Z, none that build_round14j.py,
#       build_round14l.py or build_round14m.py used and none of a church or
#       speaker an earlier round used (not Tim Keller's nor Redeemer's); not
#       a news programme (pray-in-jesus-name-pijn-news) nor a German one
#       (vcc-jesus-zentrum-channel); one of Reality LA's two feeds; the cue
#       timings dropped, the cues joined, in the caption shape of
#       captionshape.py (lowercase, no punctuation, cues of 5 to 12 words),
#       their lost capitals in /tmp/e14p/errors.tsv.
# The split is by document, alternating in feed and date order: the even ones
# dev (where rules may be written), the odd ones held (judged before and
# after, never read for a rule).
from vodcasts import build
FEEDS = [('lake-hills-church-mobile', 1), ('legacy-church-with-pastor-steve', 1),
         ('life-vineyard-church', 1), ('light-and-truth', 1), ('onechurchtv', 1),
         ('pastor-jonathan-sermons', 1), ('potential-church', 1), ('preach-the-word', 1),
         ('reality-la-bible-teaching', 1), ('revived-thoughts', 1),
         ('richwoods-christian-church', 1), ('river-valley-church-video', 1),
         ('riverview-church-video-message', 1), ('salem-fields', 1),
         ('san-ramon-valley-bible-church-video-services', 1), ('sanctus-church-video', 1),
         ('skylark-church', 1), ('sonlife-community-church-sermon', 1), ('south-run-baptist', 1),
         ('sugar-creek-baptist-church', 1), ('the-well-video', 1), ('trbc', 1),
         ('tulsa-church-of-god', 1), ('watermark-porch-video', 1), ('west-point-baptist-church', 1)]
build('/tmp/e14p', 'vodp', 'vodp', FEEDS, 2426)
