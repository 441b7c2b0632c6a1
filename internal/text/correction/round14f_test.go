package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (F): a house church's recorded
// Bible studies in YouTube's auto-captions (see docs/performance.md,
// "Fourteenth round F").

func TestAContractionOfIsBeforeABookIsNoPossessive(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"it's genesis leaves the later genesis the book",
			"i'm sure it's genesis one probably\nquoting genesis chap 1 verse 26 today\nin the first couple verses of genesis you know in\nthe beginning god created",
			[]string{"genesis>Genesis book.lowercase review", "genesis>Genesis book.lowercase auto", "genesis>Genesis book.lowercase auto"}},
		{"that's revelation leaves the later revelation the book",
			"and that's revelation one for you\nin revelation chapter 4 verse 8 we read\nthe two witnesses of revelation and so you can see",
			[]string{"revelation>Revelation book.lowercase review", "revelation>Revelation book.lowercase auto", "revelation>Revelation book.lowercase auto"}},
		{"a possessive still makes the noun",
			"god's genesis of all things\nquoting genesis chap 1 verse 26 today\nin the first couple verses of genesis you know in\nthe beginning god created",
			[]string{"genesis>Genesis book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
	for w, want := range map[string]bool{"it's": true, "That's": true, "let's": true, "there's": true,
		"god's": false, "paul's": false, "john's": false, "'s": false} {
		if got := contractedIs(w); got != want {
			t.Errorf("contractedIs(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestOneBeforeAModalVerbIsThePronounNotAChapter(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"james one might go on", "jesus's brother was also named james one might go on\nthese are not the only examples",
			[]string{"james>James book.lowercase auto"}},
		{"john one would say", "the disciple was named john one would say\nthat he was loved",
			[]string{"john>John book.lowercase auto"}},
		{"james one is still a chapter", "so turn with me to james one and read it",
			[]string{"james one>James 1 book.lowercase auto"}},
		{"one before another verb is still a chapter", "in james one we read about trials",
			[]string{"james one>James 1 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{NormalizeReferences: true}, tests)
}
