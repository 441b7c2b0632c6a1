package correction

import (
	"slices"
	"strings"
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

func TestABookHeardWithAnotherFirstSoundIsTheBookOfTheOtherLetters(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"hosea heard with a j is Hosea, not Joshua",
			"Thou hast fallen by thine iniquity, Josea 14:1.",
			[]string{"Josea 14:1>Hosea 14:1 book.fuzzy auto"}},
		{"the same without its colon is suggested",
			"Thou hast fallen by thine iniquity, Josea 141, or the Virgin of Israel is fallen.",
			[]string{"Josea 141>Hosea 14:1 book.fuzzy review"}},
		{"a book two letters away in its sound stays the book found by sound",
			"Read Joshue 1:9 again.",
			[]string{"Joshue 1:9>Joshua 1:9 book.fuzzy auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestARecognizersDashBetweenChapterAndVerseIsTheVerse(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	sermon := sermonOpening + strings.Repeat("And so the Lord is good to us, and we will pray for the church today. Amen.\n", 14) +
		"As Luke 2444 indicates, the Psalms spoke of him.\n"
	glued := "Luke 2444>Luke 24:44 reference.normalize auto"
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a dash in a sermon that glues verses and writes no colon joins chapter and verse",
			sermon + "Those who pierced him, which references Revelation 1-7. But these don't match.",
			[]string{glued, "Revelation 1-7>Revelation 1:7 reference.normalize auto"}},
		{"a verse lower than its chapter is read so too",
			sermon + "Declare along with Paul, the apostle, from Romans 9-5, that Christ is over all.",
			[]string{glued, "Romans 9-5>Romans 9:5 reference.normalize auto"}},
		{"a period with no space between chapter and verse is the verse too",
			sermon + "Speak they of the world. First John 4.15. Their conversation is worldly.",
			[]string{glued, "First John 4.15>1 John 4:15 book.spoken_ordinal auto"}},
		{"a period with a space ends the sentence",
			sermon + "Speak they of the world, as in First John 4. 15 of them were there.",
			[]string{glued, "First John 4>1 John 4 book.spoken_ordinal auto"}},
		{"two chapters in a row stay a range",
			sermon + "Paul asks for the collection in 2 Corinthians 8-9 at length.",
			[]string{glued, "2 Corinthians 8-9>2 Corinthians 8–9 reference.normalize auto"}},
		{"in a sermon that writes colons a dash is a range",
			sermon + "Read John 3:16 and then the sermon in Matthew 5-7.",
			[]string{glued, "Matthew 5-7>Matthew 5–7 reference.normalize auto"}},
		{"in a sermon that glues no verse a dash is a range",
			sermonOpening + strings.Repeat("And so the Lord is good to us, and we will pray for the church today. Amen.\n", 14) +
				"Those who pierced him, which references Revelation 1-7.",
			[]string{"Revelation 1-7>Revelation 1–7 reference.normalize auto"}},
		{"outside a sermon a dash is a range",
			"Read Matthew 5-7 before the meeting.",
			[]string{"Matthew 5-7>Matthew 5–7 reference.normalize auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestThePeopleOfAPlaceTakeTheirCapitalInASermonsCaptions(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"the kjv's people of israel take their capital",
			captionSermon + "when the israelites came out of the land they sang",
			[]string{"israelites>Israelites place.lowercase auto"}},
		{"the singular of a people the places list take their capital",
			captionSermon + "we do not want to be the laodicean church which said we are rich",
			[]string{"laodicean>Laodicean place.lowercase auto"}},
		{"an english adjective of a people stays",
			captionSermon + "paul had the right of roman citizens in the city",
			[]string(nil)},
		{"a people's name inside a longer word stays",
			"jerusalemite romansque",
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

func TestABookBeforeAChapterAndVerseGluedInTwoReadingsIsTheBook(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"john before 114, 1:14 or 11:4, is the book and no reference is written",
			captionSermon + "he writes of his glorious experience here in john 114 and the word was made flesh",
			[]string{"john>John book.lowercase auto"}},
		{"one reading only is the reference",
			captionSermon + "he writes of his glorious experience here in john 316 for god so loved the world",
			[]string{"john 316>John 3:16 book.lowercase auto"}},
		{"outside a sermon a word before such a number is no book",
			"the budget numbers 215 and 300 were reported by the city council at the meeting tonight",
			[]string(nil)},
		{"no reading at all is no book",
			captionSermon + "he writes of his glorious experience here in john 999 and the word was made flesh",
			[]string(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
