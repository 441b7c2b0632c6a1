package correction

import (
	"slices"
	"testing"
)

// The tests of issue 24's fourteenth round (R): bare, lowercase books where
// a Bible teacher's sentence puts a title (see docs/performance.md,
// "Fourteenth round R").

func TestABareBookWhereATitleStandsInATextOfManyBooksIsSuggested(t *testing.T) {
	e := testEngine(t)
	const cites = "we read genesis 1 and exodus 3 and romans 2 together\n"
	const run = "the books of moses genesis exodus leviticus numbers deuteronomy\n"
	runChanges := []string{"genesis>Genesis book.lowercase auto", "exodus>Exodus book.lowercase auto",
		"leviticus>Leviticus book.lowercase auto", "numbers>Numbers book.lowercase auto",
		"deuteronomy>Deuteronomy book.lowercase auto"}
	citeChanges := []string{"genesis>Genesis book.lowercase auto", "exodus>Exodus book.lowercase auto",
		"romans>Romans book.lowercase auto"}
	tests := []changeCase{
		{"after a verb of studying, in a text that cites three books",
			cites + "and when we studied revelation we saw the lamb on the throne",
			append(slices.Clone(citeChanges), "revelation>Revelation book.lowercase review")},
		{"after the lens of, in a text that cites three books",
			cites + "we also see it through the lens of\nchronicles where god's people struggle with empire",
			append(slices.Clone(citeChanges), "chronicles>Chronicles book.lowercase review")},
		{"at the end of a span of books, in a text that cites three books",
			cites + "he talked about how from genesis through to revelation there was a theme",
			append(slices.Clone(citeChanges), "genesis>Genesis book.lowercase auto", "revelation>Revelation book.lowercase review")},
		{"a word a misheard phrase gives, after in, once the text has named the book in a run",
			run + "what is the partnership going to look like in\nnumbers god shapes his partner",
			append(slices.Clone(runChanges), "numbers>Numbers book.lowercase review")},
		{"no title's place without three books named stays the word",
			"and when we studied revelation we saw the lamb on the throne",
			nil},
		{"a noun phrase with of after the word stays the noun",
			cites + "when we studied revelation of god in nature",
			citeChanges},
		{"safety in numbers stays the saying",
			run + "there is safety in numbers when we walk together",
			runChanges},
		{"in numbers stays the word when the text never named the book",
			cites + "they came in numbers to hear him",
			citeChanges},
	}
	checkCaptionCases(t, e, Options{}, tests)
}
