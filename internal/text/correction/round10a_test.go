package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestANameTheKJVWritesOnlyInItsListsIsAPersonOfTheCitedChapter(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a name the KJV writes only after a comma is a person of the cited chapter",
			captionSermon + "in second timothy 4 10 paul writes that demas has deserted him\nand gone to thessalonica crecience has gone to galatia",
			[]string{"second timothy>2 Timothy book.spoken_ordinal auto", "thessalonica>Thessalonica place.lowercase auto", "crecience>Crescens person.fuzzy review", "galatia>Galatia place.lowercase auto"}},
		{"the same word in a sermon that cites another chapter is no person",
			captionSermon + "in john 3 2 nicodemus came to jesus by night\nand crecience has gone to galatia",
			[]string{"john>John book.lowercase auto", "galatia>Galatia place.lowercase auto"}},
		{"a name of a list read from the cited passage",
			captionSermon + "nehemiah 8 7 also jeshua bani sherebiah jamin akkub\nshabbethai hadijah kelita azariah",
			[]string{"nehemiah>Nehemiah book.lowercase auto", "hadijah>Hodijah person.fuzzy review"}},
		{"an untranslated word the KJV glosses names no one",
			captionSermon + "in mark 5 41 he took the damsel by the hand\nand said unto her talitha cumi",
			[]string{"mark>Mark book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTheListedNamesAreKJVNamesOutsideKJVNamesTxt(t *testing.T) {
	d := testEngine(t).d
	for _, w := range []string{"hodijah", "crescens", "zereth", "mispereth"} {
		if _, ok := d.kjvNames[w]; !ok {
			t.Errorf("%q is not a KJV name", w)
		}
	}
	for _, w := range []string{"talitha", "selah", "revilest"} {
		if _, ok := d.kjvNames[w]; ok {
			t.Errorf("%q is a KJV name", w)
		}
	}
}

func TestAPersonNamedInManyChaptersIsReadInThePassageTheTextReads(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a person of many chapters heard wrong right after the passage's book and chapter",
			captionSermon + "turn to second samuel 18 9 and apsolum met the servants of david\nand apsolum rode upon a mule",
			[]string{"second samuel>2 Samuel book.spoken_ordinal auto", "apsolum>Absalom person.fuzzy review", "apsolum>Absalom person.fuzzy review"}},
		{"a person of many chapters said among the names of the passage read",
			captionSermon + "nehemiah 8 7 also jeshua bani sherebiah jamin akkub\nshabbethai hodijah massia kelita azariah",
			[]string{"nehemiah>Nehemiah book.lowercase auto", "massia>Maaseiah person.fuzzy review"}},
		{"the same word far from the passage's book is no person",
			captionSermon + "turn to second samuel 18 9 and the servants of david\n" +
				strings.Repeat("and so the lord is good to us and we will pray for the church today amen\n", 5) +
				"and apsolum rode upon a mule",
			[]string{"second samuel>2 Samuel book.spoken_ordinal auto"}},
		{"the same word in a sermon that cites another chapter is no person",
			captionSermon + "turn to john 3 2 nicodemus came to jesus by night\nand apsolum rode upon a mule",
			[]string{"john>John book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAPlaceOfAChapterNextToACitedOneIsSuggestedWhereAPlaceIsSaid(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a place of the chapter before the cited one after in",
			captionSermon + "turn to colossians 2 6 as ye have received christ\nso walk ye in him like the church in kolassi",
			[]string{"colossians>Colossians book.lowercase auto", "kolassi>Colosse place.fuzzy review"}},
		{"the same word not after a word a place is said after is no place",
			captionSermon + "turn to colossians 2 6 as ye have received christ\nso walk ye in him like kolassi said",
			[]string{"colossians>Colossians book.lowercase auto"}},
		{"the same word two chapters from the cited one is no place",
			captionSermon + "turn to colossians 3 1 if ye then be risen with christ\nseek those things like the church in kolassi",
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

func TestALongNameOfACitedChapterHeardWithTwoSoundsLost(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a long name heard with two of its sounds lost is the person of the cited chapter",
			captionSermon + "colossians 4 10 aistarus my fellowprisoner saluteth you\nand marcus sister's son to barnabas",
			[]string{"colossians>Colossians book.lowercase auto", "aistarus>Aristarchus person.fuzzy review"}},
		{"the same word in a sermon that cites another chapter is no person",
			captionSermon + "john 3 2 nicodemus came to jesus by night\nand aistarus saluteth you",
			[]string{"john>John book.lowercase auto"}},
		{"a word with a sound the name lacks is no person",
			captionSermon + "colossians 4 10 aistapus my fellowprisoner saluteth you\nand marcus sister's son to barnabas",
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

func TestAWordOfFourLettersInAListReadIsANameOfThePassage(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a word of four letters beside a name found in the list read is a name of the passage",
			captionSermon + "exodus 24 9 then went up moses and aaron\nnaab and abaihu and seventy of the elders of israel",
			[]string{"exodus>Exodus book.lowercase auto", "naab>Nadab person.fuzzy review", "abaihu>Abihu person.fuzzy review", "israel>Israel place.lowercase auto"}},
		{"the same word where no name of the list is found is left",
			captionSermon + "exodus 24 9 then went up moses and aaron\nnaav and seventy of the elders of israel", // naab: Nadab by its companions (round 13A)
			[]string{"exodus>Exodus book.lowercase auto", "israel>Israel place.lowercase auto"}},
		{"an English word of four letters in the list is left",
			captionSermon + "exodus 24 9 then went moses aaron abaihu\nupon the mount",
			[]string{"exodus>Exodus book.lowercase auto", "abaihu>Abihu person.fuzzy review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
