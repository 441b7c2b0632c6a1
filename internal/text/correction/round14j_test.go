package correction

import (
	"slices"
	"testing"
)

// The tests of issue 24's fourteenth round (J): the transcripts that many
// churches' podcast feeds publish, in the caption shape (see
// docs/performance.md, "Fourteenth round J").

func TestADashAfterABookNamedOnceIsLeftAsWritten(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []changeCase{
		{"a chapter and its verse in captions naming the book once",
			"the word has spread far and wide acts 1-8 is our ministry mandate\nfirst in jerusalem then to judea",
			[]string{"acts>Acts book.lowercase auto", "jerusalem>Jerusalem place.lowercase auto",
				"judea>Judea place.lowercase auto"}},
		{"a range of chapters the captions name the book of again",
			"we read matthew 5-7 the sermon on the mount\nand matthew 6 is the lord's prayer",
			[]string{"matthew 5-7>Matthew 5–7 book.lowercase auto", "matthew 6>Matthew 6 book.lowercase auto"}},
		{"two chapters in a row stay a range",
			"paul writes of the collection in 2 corinthians 8-9\nand of giving gladly",
			[]string{"2 corinthians 8-9>2 Corinthians 8–9 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, norm, tests)
}

func TestADashInPunctuatedTextIsARange(t *testing.T) {
	e := testEngine(t)
	got := compactAll(e.Correct(sermonOpening+"Acts 1-8 is our ministry mandate.", Options{NormalizeReferences: true}).Changes)
	want := []string{"Acts 1-8>Acts 1–8 reference.normalize auto"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
