package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestAPersonOfACitedChapterHeardWithASoundLost(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a sound of the name not heard in a long word is the person of the cited chapter",
			captionSermon + "turn to genesis 39 1 joseph was bought by potterer\nan officer of pharaoh\nand potterer made him overseer",
			[]string{"genesis>Genesis book.lowercase auto", "potterer>Potiphar person.fuzzy review", "potterer>Potiphar person.fuzzy review"}},
		{"a doubled sound heard once is the person of the cited chapter",
			captionSermon + "in daniel 4 8 the king speaks to daniel\nwhose name was beltesar after his god",
			[]string{"daniel>Daniel book.lowercase auto", "beltesar>Belteshazzar person.fuzzy review"}},
		{"a person heard with a sound lost and the apostrophe of the possessive lost",
			captionSermon + "genesis 39 7 and after these things\npotterers wife cast her eyes upon joseph",
			[]string{"genesis>Genesis book.lowercase auto", "potterers>Potiphar's person.fuzzy review"}},
		{"a sound heard for another is no person",
			captionSermon + "in acts 18 8 the ruler of the synagogue believed\nand christos was baptized with his house",
			[]string{"acts>Acts book.lowercase auto"}},
		{"a short word with a sound not heard is no person",
			captionSermon + "in second timothy 3 8 they resisted moses\nand janel was there as well",
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

func TestANameReadInAListIsAPersonOfThePassage(t *testing.T) {
	e := testEngine(t)
	filler := strings.Repeat("and we talked about the week and the weather and the children ", 6)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a short word among the names of the passage read is its person",
			captionSermon + "nehemiah 8 7 also jeshua and bani sheriah\njamin akkub and the levites",
			[]string{"sheriah>Sherebiah person.fuzzy review"}},
		{"a word heard with a vowel more among the names read is its person",
			captionSermon + "exodus 24 9 then went up moses and aaron nadab abaihu\nand seventy of the elders of israel",
			[]string{"abaihu>Abihu person.fuzzy review"}},
		{"a name of the passage heard with a sound lost and half its letters changed, among names",
			captionSermon + "nehemiah 8 7 also jeshua and bani and azariah\njezeb hanan and the levites",
			[]string{"jezeb>Jozabad person.fuzzy review"}},
		{"the same word not among names is no person",
			captionSermon + "nehemiah 8 7 the levites read the law\nand then sheriah said hello to everyone",
			[]string(nil)},
		{"names read far from the passage's book are no person of it",
			captionSermon + "nehemiah 8 7 the levites read the law\n" + filler + "\nalso trelk and vorn sheriah\nplimk quzzo and the levites", // words of no list: the rule of companions (round 12C) finds Sherebiah beside jeshua, bani, jamin and akkub
			[]string(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range compactAll(e.Correct(tt.in, Options{}).Changes) {
				if strings.Contains(c, "person.") {
					got = append(got, c)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
