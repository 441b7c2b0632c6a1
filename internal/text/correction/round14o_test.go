package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (O): the transcripts that more
// churches' podcast feeds publish, in the caption shape (see
// docs/performance.md, "Fourteenth round O").

func TestADashAfterANumberedBookNamedOnceIsLeftAsWritten(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []changeCase{
		{"the other book of the name named before it",
			"i looked in 1 corinthians 10 12 to 14 it talks about temptation\nso in 2 corinthians 4-8 we are hard-pressed on every side",
			[]string{"1 corinthians 10 12 to 14>1 Corinthians 10:12–14 book.lowercase auto",
				"2 corinthians>2 Corinthians book.lowercase auto"}},
		{"the other book of the name spelled out",
			"paul wrote in first corinthians 13 of love\nand in second corinthians 4-8 we are hard-pressed",
			[]string{"first corinthians 13>1 Corinthians 13 book.spoken_ordinal auto",
				"second corinthians>2 Corinthians book.spoken_ordinal auto"}},
		{"the same book named again stays a range",
			"in 2 corinthians 8-9 paul writes of the collection\nand 2 corinthians 9 is on giving gladly",
			[]string{"2 corinthians 8-9>2 Corinthians 8–9 book.lowercase auto",
				"2 corinthians 9>2 Corinthians 9 book.lowercase auto"}},
		{"a name with no number may be either book and stays a range",
			"paul wrote to the corinthians more than once\nso in 2 corinthians 4-8 we are hard-pressed",
			[]string{"corinthians>Corinthians book.lowercase auto", "2 corinthians 4-8>2 Corinthians 4–8 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, norm, tests)
}

func TestAChapterTheSermonCitedIsSuggestedBeforeOf(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"the chapter cited before",
			"turn with me to genesis 38 verse 1\nit came to pass\nout of this crazy story of genesis 38 of\nwho god is and his",
			[]string{"genesis>Genesis book.lowercase auto", "genesis>Genesis book.lowercase review"}},
		{"another chapter cited before",
			"turn with me to genesis 37 verse 1\nit came to pass\nout of this crazy story of genesis 38 of\nwho god is and his",
			[]string{"genesis>Genesis book.lowercase auto"}},
		{"numbers before of counts",
			"turn with me to numbers 20 verse 1\nit came to pass\nthe story of numbers 20 of them\nwho god is and his",
			[]string{"numbers>Numbers book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}
