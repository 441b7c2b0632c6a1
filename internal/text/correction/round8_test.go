package correction

import (
	"slices"
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
