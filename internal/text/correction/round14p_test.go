package correction

import (
	"slices"
	"testing"
)

// The tests of issue 24's fourteenth round (P): more churches' podcast feed
// transcripts in the caption shape (see docs/performance.md, "Fourteenth
// round P").

func TestABookAfterBasedOnBeforeAReferenceIsTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name   string
		sermon bool
		in     string
		want   []string
	}{
		{"based upon a book and its reference with the colon lost", true,
			"we're going\nto be giving out 429 bracelets\nbased upon acts 429 and we're going to ask you",
			[]string{"acts>Acts book.lowercase auto"}},
		{"based on a book and its reference", true,
			"the whole series is based on proverbs 1628 and we start today",
			[]string{"proverbs>Proverbs book.lowercase auto"}},
		{"based off of a book and its reference", true,
			"the whole series is based off of acts 429 and we start today",
			[]string{"acts>Acts book.lowercase auto"}},
		{"numbers before a number stay a suggestion", true,
			"the whole series is based on numbers 215 and we start today",
			[]string{"numbers>Numbers book.lowercase review"}},
		{"a count after the number is no reference", true,
			"the whole series is based on acts 3 times a week",
			nil},
		{"another verb before on is no cue", true,
			"the whole series is built on acts 429 and we start today",
			[]string{"acts>Acts book.lowercase review"}},
		{"outside a sermon the cue does not count", false,
			"the whole series is based upon acts 429 and we start today",
			[]string{"acts>Acts book.lowercase review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			if tt.sermon {
				in = captionSermon + in
			}
			got := compactAll(e.Correct(in, Options{}).Changes)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
