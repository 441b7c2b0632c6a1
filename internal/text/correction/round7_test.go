package correction

import (
	"slices"
	"testing"
)

func TestABookThatIsAlsoAVerbStaysTheVerb(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"acts before like is the verb after the sermon cites Acts",
			sermonOpening + "in acts 2 they prayed and when the other person acts like they do not care",
			[]string{"acts>Acts book.lowercase auto"}},
		{"judges after god is the verb after the sermon cites Judges",
			sermonOpening + "in judges 2 it is dark and god judges the heart",
			[]string{"judges>Judges book.lowercase auto"}},
		{"the bare return of a cited book is the book after a preposition",
			sermonOpening + "in acts 2 they prayed and later in acts we see the church grow",
			[]string{"acts>Acts book.lowercase auto", "acts>Acts book.lowercase auto"}},
		{"the end of judges is the book",
			sermonOpening + "in judges 2 it is dark and the end of judges is darker",
			[]string{"judges>Judges book.lowercase auto", "judges>Judges book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAModernNameIsNoPersonOfTheCitedChapters(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a woman of the congregation named like Stephen of Acts 6",
			captionSermon + "in acts 6 5 they chose stephen a man full of faith\nokay i'm going to ask ernan and stephanie\nstephanie come out",
			[]string{"acts>Acts book.lowercase auto"}},
		{"a name no list holds is still the person of the cited chapter",
			captionSermon + "the leader of the synagogue\ngyrus came to his house\nand we read in mark 5 22 that he fell at his feet",
			[]string{"gyrus>Jairus person.fuzzy review", "mark>Mark book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBooksInAListOrARangeAreBooks(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a range of books through a person's name, in a sermon",
			sermonOpening + "when you read genesis through malachi if you let god open it",
			[]string{"genesis>Genesis book.lowercase auto", "malachi>Malachi book.lowercase auto"}},
		{"an English-word book beside a book that is nothing else",
			sermonOpening + "he was steeped in the proverbs and ecclesiastes",
			[]string{"proverbs>Proverbs book.lowercase auto", "ecclesiastes>Ecclesiastes book.lowercase auto"}},
		{"a person's name listed after a book that is nothing else",
			sermonOpening + "three times deuteronomy matthew and it says it",
			[]string{"deuteronomy>Deuteronomy book.lowercase auto", "matthew>Matthew book.lowercase auto"}},
		{"a book beside only English words stays English",
			sermonOpening + "the numbers and acts of the board were read",
			[]string{}},
		{"a range of people stays people outside a text about scripture",
			podcastText + "from genesis through malachi the robots are named",
			[]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTheReadersOfALetterTakeTheirCapitalInASermon(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"who wrote corinthians", sermonOpening + "who wrote corinthians paul did",
			[]string{"corinthians>Corinthians book.lowercase auto"}},
		{"the know-it-all thessalonians", sermonOpening + "for the know-it-all thessalonians who are concerned",
			[]string{"thessalonians>Thessalonians book.lowercase auto"}},
		{"outside a sermon the word is left", "who wrote corinthians in the travel guide", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAShortPasteIsReadByItsOwnWords(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"acts of the apostles makes revelations the book, and capernum is suggested",
			"in revelations and acts of the apostles, capernum",
			[]string{"revelations>Revelation book.misspelling auto", "acts of the apostles>Acts of the Apostles book.lowercase auto",
				"capernum>Capernaum place.fuzzy review"}},
		{"the same as typed with capitals",
			"In Revelations and Acts of the Apostles, Capernum",
			[]string{"Revelations>Revelation book.misspelling auto", "Capernum>Capernaum place.fuzzy review"}},
		{"revelations alone is only suggested", "we read in revelations about the churches",
			[]string{"revelations>Revelation book.misspelling review"}},
		{"a capitalised word near a place is not suggested in a text about something else",
			podcastText + "we met Capernum at the conference", []string{}},
		{"a modern name near a place is left", "We met Marian at the cafe", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAPersonsNameBeforeChapterIsTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a chapter number the recognizer garbled", sermonOpening + "jesus said to the woman in john chapter 8om where are your accusers",
			[]string{"john>John book.lowercase auto"}},
		{"a chapter the book does not have, across a cue line", sermonOpening + "also in the new testament james chapter\n125 he who looks into the perfect law",
			[]string{"james>James book.lowercase auto"}},
		{"outside a text about scripture the name stays", podcastText + "and then the james chapter is long in the novel",
			[]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
