package correction

import (
	"slices"
	"testing"
)

func TestANameOfFourLettersSaidBesideTheNamesOfItsChaptersIsSuggested(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"a person after his brother and beside a person of its chapter",
			"he fed his burning wrath toward his brother amna now absalom is not going to give any hint",
			[]string{"amna>Amnon person.fuzzy review"}},
		{"a person of the cited chapter beside a person of its chapter",
			"exodus 24 9 then went up moses and aaron\nnaab and seventy of the elders of israel", // round 10A's row, which left it
			[]string{"exodus>Exodus book.lowercase auto", "naab>Nadab person.fuzzy review", "israel>Israel place.lowercase auto"}},
		{"a place after city of beside people of its chapter",
			"fighting against the ammonites and the syrians at the royal city of raba what did joab say to his brother abishai",
			[]string{"ammonites>Ammonites place.lowercase auto", "syrians>Syrians place.lowercase auto", "raba>Rabbah place.fuzzy review"}},
		{"a place beside a place of its chapter",
			"the spirit of the lord began to move upon him at times in the camp of dan between zora and eshtaol",
			[]string{"zora>Zorah place.fuzzy review", "eshtaol>Eshtaol place.lowercase auto"}},
		{"the same person beside one name only",
			"he fed his burning wrath toward amna now absalom is not going to give any hint",
			nil},
		{"a modern wife beside a name of her chapters",
			"we caught up with some old connections including adam and his wife dana and we are having lunch",
			nil},
		{"a name of another first letter",
			"in egypt we find two chief egyptian deities were osiris and isis of crete the sun and the moon gods",
			[]string{"egypt>Egypt place.lowercase auto", "egyptian>Egyptian place.lowercase auto", "crete>Crete place.lowercase review"}},
		{"a word of a line of another language",
			"gud tog ett brännjärn och han bara sa till aaron och moses att nadab var här",
			nil},
		{"a person after city of",
			"the royal city of ribi what did joab say to his brother abishai",
			nil},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestAWordOfFourLettersIsSuggestedWhenPeopleAreAskedFor(t *testing.T) {
	e := testEngine(t)
	in := captionSermon + "he fed his burning wrath toward his brother amna now absalom is not going to give any hint"
	got := compactAll(e.Correct(in, Options{Categories: []string{CategoryPerson}}).Changes)
	if !slices.Contains(got, "amna>Amnon person.fuzzy review") {
		t.Errorf("got %q, want amna>Amnon among them", got)
	}
}

func TestSplitFourKeepsTheWordsOfFourLettersApart(t *testing.T) {
	for _, tt := range []struct {
		name       string
		spans      [][2]int32
		rare, four [][2]int32
	}{
		{"none", nil, nil, nil},
		{"both kinds in order", [][2]int32{{0, 4}, {5, 10}, {11, 15}, {16, 36}}, [][2]int32{{5, 10}, {16, 36}}, [][2]int32{{0, 4}, {11, 15}}},
		{"longer words only", [][2]int32{{0, 5}}, [][2]int32{{0, 5}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rare, four := splitFour(tt.spans)
			if !slices.Equal(rare, tt.rare) || !slices.Equal(four, tt.four) {
				t.Errorf("splitFour = %v, %v, want %v, %v", rare, four, tt.rare, tt.four)
			}
		})
	}
}
