package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (L): the transcripts that more
// churches' podcast feeds publish, in the caption shape (see
// docs/performance.md, "Fourteenth round L").

func TestADashRepeatingTheVersesOfAChapterCitedBeforeIsLeftAsWritten(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []changeCase{
		{"the verses of the chapter said before, said again without it",
			"the plans he has for you in jeremiah 2911\nbut in 2 timothy 3 1-5 paul warns timothy of the last days\nso in 2 timothy 1-5 i'll read that to you",
			[]string{"jeremiah 2911>Jeremiah 29:11 book.lowercase auto", "2 timothy 3 1-5>2 Timothy 3:1–5 book.lowercase auto",
				"2 timothy>2 Timothy book.lowercase auto"}},
		{"the same in captions that glue no chapter and verse",
			"but in 2 timothy 3 1-5 paul warns timothy of the last days\nso in 2 timothy 1-5 i'll read that to you",
			[]string{"2 timothy 3 1-5>2 Timothy 3:1–5 book.lowercase auto", "2 timothy>2 Timothy book.lowercase auto"}},
		{"a chapter and its verse never said before as the verses of another chapter",
			"the plans he has for you in jeremiah 2911\nso in 2 timothy 1-5 i'll read that to you",
			[]string{"jeremiah 2911>Jeremiah 29:11 book.lowercase auto", "2 timothy 1-5>2 Timothy 1:5 book.lowercase auto"}},
		{"the same numbers after another book",
			"the plans he has for you in jeremiah 2911\nbut in romans 3 1-5 paul asks what advantage the jew has\nso in 2 timothy 1-5 i'll read that to you",
			[]string{"jeremiah 2911>Jeremiah 29:11 book.lowercase auto", "romans 3 1-5>Romans 3:1–5 book.lowercase auto",
				"2 timothy 1-5>2 Timothy 1:5 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, norm, tests)
}
