package correction

import (
	"slices"
	"testing"
)

// The tests of issue 24's twelfth round (A): the YouTube captions of guest
// preachers and a priest's meditations (see docs/performance.md, "Twelfth round
// A").

func TestANameOfNumberedBooksWithoutItsNumberWritesNoReference(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"a letter to Timothy without its number", "he lists 21 qualifications in timothy 1 19 holding faith",
			[]string{"timothy>Timothy book.lowercase auto"}},
		{"a book of Samuel without its number", "open your bibles to samuel chapter 16 and we see",
			[]string{"samuel>Samuel book.lowercase auto"}},
		{"the first letter of St Peter", "at the first letter of st peter chapter 1 verse 18 he read",
			[]string{"peter>Peter book.lowercase auto"}},
		{"the readers of a letter and a count", "he says to the corinthians five times i have received",
			[]string{"corinthians>Corinthians book.lowercase auto"}},
		{"a book of its own keeps its reference", "turn to romans 8 28 and we know",
			[]string{"romans 8 28>Romans 8:28 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{NormalizeReferences: true}, tests)
}

func TestAVerseNamedAgainAfterABareNumberIsLeftAsWritten(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"a bare number before the word verse", "it says this romans 8 4 verse 14 for as many as are led",
			[]string{"romans>Romans book.lowercase auto"}},
		{"a bare verse and its range", "romans 8 28 and 29 for whom he did foreknow",
			[]string{"romans 8 28 and 29>Romans 8:28–29 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{NormalizeReferences: true}, tests)
}

func TestAVerseGluedToTheWordVerseShortenedIsRead(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"ver and a digit", "i love acts chap 1 ver8 that you shall receive power",
			[]string{"acts chap 1 ver8>Acts 1:8 book.lowercase auto"}},
		{"vers and two digits", "he says in john 8 vers12 i'm the light of the world",
			[]string{"john 8 vers12>John 8:12 book.lowercase auto"}},
		{"the word alone is no verse", "the model is called version2 and john 3 ver",
			[]string{"john 3>John 3 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{NormalizeReferences: true}, tests)
}

func TestAPluralBookAfterTheIsTheBookWhereASermonCitesIt(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"told in the psalms", "we're told in the psalms that the lord is my shepherd", []string{"psalms>Psalms book.lowercase auto"}},
		{"a phrase from the psalms", "a phrase from the psalms that we sing", []string{"psalms>Psalms book.lowercase auto"}},
		{"the psalms say", "the psalms say the lord will give his benefits", []string{"psalms>Psalms book.lowercase auto"}},
		{"told in the acts", "as we are told in the acts they were first called christians", []string{"acts>Acts book.lowercase auto"}},
		{"psalms sung are songs", "and we still sing those psalms today", []string{}},
		{"one of the proverbs is a proverb", "one of the proverbs says a soft answer", []string{}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestABookNamedWithOneOfItsChaptersIsTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"a verb book and a digit", "when um uh acts the 2 chapter uh we read", []string{"acts>Acts book.lowercase auto"}},
		{"a first name and an ordinal", "and john the 10th chapter talks about the shepherd", []string{"john>John book.lowercase auto"}},
		{"no chapter after the ordinal", "when um uh acts the 2 of us we read", []string{}},
		{"another chapter of a book", "we're going through another chapter of acts this week", []string{"acts>Acts book.lowercase auto"}},
		{"a chapter of a life", "this is another chapter of my life", []string{}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestAPlaceThatIsAlsoAWordIsThePlaceAfterAPlaceNoun(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"the territory of", captionSermon + "he set out for the territory of tyre there he went", []string{"tyre>Tyre place.lowercase auto"}},
		{"beside another place", captionSermon + "came into this region of tyre and sidon",
			[]string{"tyre>Tyre place.lowercase auto", "sidon>Sidon place.lowercase auto"}},
		{"the word alone is the word", captionSermon + "a flat tyre and a spare tyre", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compactAll(e.Correct(tt.in, Options{}).Changes)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestATitleOfTheDouayBibleKeepsItsName(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"the book of Sirach by its Latin title", "we're told in the book of ecclesiasticus quoted by st josemaria",
			[]string{"ecclesiasticus>Ecclesiasticus book.lowercase auto"}},
		{"the book of Tobit by the name of its son", "and in the book of tobias the angel raphael says",
			[]string{"tobias>Tobias book.lowercase auto"}},
		{"the book's own name", "and in the book of sirach the wise man says",
			[]string{"sirach>Sirach book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}
