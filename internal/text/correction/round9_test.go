package correction

import (
	"slices"
	"testing"
)

func TestANumberWordBeforeOfCountsAndNamesNoChapter(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one of the things after a book's name is no chapter",
			"As we walk through the book of Isaiah, one of the things we will see is hope.",
			[]string(nil)},
		{"one of the disciples after a person who is also a book is no reference",
			"Did you touch him? And Peter, one of Jesus's disciples, speaks up.",
			[]string(nil)},
		{"a lowercase book before one of keeps its capital and gets no chapter",
			captionSermon + "the gospel of john one of the things we explore",
			[]string{"john>John book.lowercase auto"}},
		{"the word chapter still names the chapter before of",
			"Turn to Isaiah chapter one of your Bibles.",
			[]string{"Isaiah chapter one>Isaiah 1 reference.normalize auto"}},
		{"a number word not before of is still the chapter",
			"The book of Isaiah one says come now, let us reason together.",
			[]string{"Isaiah one>Isaiah 1 reference.normalize auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAWordAfterAPossessiveIsNoPersonOfTheCitedChapters(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a word heard like a person of the cited chapter is suggested as that person",
			captionSermon + "in second timothy 4 21 paul writes that eubulus greeteth thee\nand pudens and linus and cardia and all the brethren",
			[]string{"second timothy>2 Timothy book.spoken_ordinal auto", "cardia>Claudia person.fuzzy review"}},
		{"the same word after your is a thing someone has",
			captionSermon + "in second timothy 4 21 paul writes that eubulus greeteth thee\nand the paraclete speaks to your cardia your heart",
			[]string{"second timothy>2 Timothy book.spoken_ordinal auto"}},
		{"the same word after their is a thing someone has",
			captionSermon + "in second timothy 4 21 paul writes that eubulus greeteth thee\nand god speaks to their cardia and their minds",
			[]string{"second timothy>2 Timothy book.spoken_ordinal auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAPlaceOfACitedChapterHeardWrongIsSuggested(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a place of the cited chapter heard with a vowel changed",
			captionSermon + "colossians 4 13 for i bear him record that he hath a great zeal\nfor them that are in laodicea and them in heropoulos",
			[]string{"colossians>Colossians book.lowercase auto", "laodicea>Laodicea place.lowercase auto", "heropoulos>Hierapolis place.fuzzy review"}},
		{"the same word in a sermon that cites another chapter is no place",
			captionSermon + "john 3 16 for god so loved the world\nand them that are in heropoulos",
			[]string{"john>John book.lowercase auto"}},
		{"a people's word is not the place's name",
			captionSermon + "acts 14 11 and when the people saw what paul had done\nthey lifted up their voices in the lycanian language",
			[]string{"acts>Acts book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAPersonHeardWithAnotherFirstVowelIsThePersonOfTheCitedChapter(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a name beginning with a vowel heard with another vowel and a sound lost",
			captionSermon + "colossians 4 12 and they have been a comfort to me\napapris who is one of you a servant of christ",
			[]string{"colossians>Colossians book.lowercase auto", "apapris>Epaphras person.fuzzy review"}},
		{"a consonant heard for another at the start is still no person",
			captionSermon + "colossians 4 12 and they have been a comfort to me\nbapapris who is one of you a servant of christ",
			[]string{"colossians>Colossians book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
