package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (I): a Bible podcast's
// transcripts in the caption shape (see docs/performance.md, "Fourteenth
// round I").

func TestABookBetweenTwoMoreBooksIsTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"a book between two prophets' books",
			"god pronouncing woe through prophets like jonah or nahum\njeremiah lamentations habakkuk obadiah joel then god gives hope",
			[]string{"nahum>Nahum book.lowercase review", "lamentations>Lamentations book.lowercase auto",
				"habakkuk>Habakkuk book.lowercase review", "obadiah>Obadiah book.lowercase review"}},
		{"a book before two more",
			"everything about the books of moses genesis\nexodus leviticus numbers deuteronomy is about partnership",
			[]string{"genesis>Genesis book.lowercase auto", "exodus>Exodus book.lowercase auto",
				"leviticus>Leviticus book.lowercase auto", "numbers>Numbers book.lowercase auto",
				"deuteronomy>Deuteronomy book.lowercase auto"}},
		{"a history after a prophet's book and and",
			"there's success we see it in samuel and kings as god's people\nstruggle with identity",
			[]string{"kings>Kings book.lowercase auto"}},
		{"the king of kings is a title",
			"he's talking about the true king the king of kings and john says\nthe way you prepare",
			nil},
		{"a people after and is no list",
			"we see it in samuel and kings of the earth bowed down",
			nil},
		{"one book beside a word is no run",
			"the whole story of jeremiah lamentations of a people\nthat we read",
			nil},
	}
	checkCaptionCases(t, e, Options{}, tests)
}
