package correction

import (
	"slices"
	"testing"
)

func TestTheNumberAfterARangeIsTheOrdinalOfTheNextBook(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a book's ordinal after a range through is the book's",
			"look with me at 2 corinthians chapter 3 in verses 7 through 18 2 corinthians\nchapter 3 verses 7 through 18 now in this passage he is contrasting",
			[]string{"2 corinthians chapter 3>2 Corinthians 3 book.lowercase auto",
				"2 corinthians\nchapter 3 verses 7 through 18>2 Corinthians 3:7–18 book.lowercase auto"}},
		{"a book's ordinal after a range to is the book's",
			"look at 1 peter chapter 3 with me and verses 1\nto 6 1 peter chapter\n3 and 1 to 6 here is what peter says",
			[]string{"1 peter chapter 3>1 Peter 3 book.lowercase auto",
				"1 peter chapter\n3>1 Peter 3 book.lowercase auto"}},
		{"a number after a verse with no range before stays the verse's",
			"as we read in romans 8 28 1 john says little children",
			[]string{"romans>Romans book.lowercase auto"}},
		{"a number after a range whose book has no such chapter stays apart",
			"read verses 7 through 18 2 john chapter 9 where the elder writes",
			[]string{"john chapter 9>John 9 book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAnEnglishWordWithAnArticleOrBeforeOfIsNoPlace(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"the word for the place near its story is suggested",
			captionSermon + "the blood he shed on cavalry for our sins when he was crucified",
			[]string{"cavalry>Calvary place.real_word review"}},
		{"after a it is the horsemen",
			captionSermon + "coming swiftly like an invading army like a cavalry when he was crucified for our sins",
			[]string(nil)},
		{"before of it is the horsemen",
			captionSermon + "they ride with the cavalry of the invading army though he was crucified for our sins",
			[]string(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
