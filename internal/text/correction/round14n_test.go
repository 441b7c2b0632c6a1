package correction

import (
	"slices"
	"strings"
	"testing"
)

// The tests of issue 24's fourteenth round (N): a misheard place is not made
// automatically into another place when the document writes a place of the
// same sound (see docs/performance.md, "Fourteenth round N").

func TestAMisheardPlaceIsThePlaceOfItsSoundTheTextWrites(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"the text writes Bithynia more often than Bethany: a suggestion of Bithynia",
			"they tried to go into Bithynia but the spirit did not let them\nBithynia is north of Asia\nnot Bethany where Lazarus lived\nso they came into bethanya and were stopped",
			[]string{"bethanya>Bithynia place.fuzzy review"}},
		{"the text writes Bethany more often: the match stays automatic",
			"Bethany is where Lazarus lived\nthey stayed in Bethany for a night\nnot Bithynia in the north\nso they came into bethanya and rested",
			[]string{"bethanya>Bethany place.fuzzy auto"}},
		{"the text writes no other place of the sound: the match stays automatic",
			"they went out and came into bethanya and rested",
			[]string{"bethanya>Bethany place.fuzzy auto"}},
		{"a place of another sound the text writes does not matter",
			"they tried to go into Mysia and then to Troas\nMysia and Troas again\nso they came into bethanya and rested",
			[]string{"bethanya>Bethany place.fuzzy auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compactAll(e.Correct(captionSermon+tt.in, Options{}).Changes)
			// Only the misheard word's change: the names the text writes are changed too.
			got = slices.DeleteFunc(got, func(c string) bool { return !strings.HasPrefix(c, "bethanya>") })
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWordCountCountsWholeWordsInAnyCase(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"in any case", "Bithynia and bithynia and BITHYNIA", 3},
		{"not inside another word", "bithynias and xbithynia", 0},
		{"at the ends of the text", "bithynia is not\nbithynia", 2},
		{"none", "bethany", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wordCount(tt.text, "bithynia"); got != tt.want {
				t.Errorf("wordCount(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}
