package correction

import (
	"slices"
	"testing"
)

// TestYouTubeCaptionRules holds the rules issue 24's fourth round took from
// real YouTube auto-captions of sermons (lowercase, no punctuation, one cue
// a line); the examples are written in that shape, not copied.
func TestYouTubeCaptionRules(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string // compact changes, in order, with NormalizeReferences
	}{
		{"a cited book that the sermon also uses as a noun stays the noun when it comes back bare",
			captionSermon + "turn to revelation 4\nand see his throne\nthis revelation changed me\nso god wants to give us revelation\nabout our lives",
			[]string{"revelation 4>Revelation 4 book.lowercase auto"}},
		{"a cited book that the sermon never uses as a noun comes back as the book",
			captionSermon + "turn to revelation 4\nand see his throne\nwhen you read revelation\nyou see the lamb",
			[]string{"revelation 4>Revelation 4 book.lowercase auto", "revelation>Revelation book.lowercase auto"}},
		{"no before the word is a noun use",
			captionSermon + "read revelation 4 with me\nsome prophecy brings no revelation\nbut it can bring revelation to you",
			[]string{"revelation 4>Revelation 4 book.lowercase auto"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := compactAll(e.Find(tc.in, Options{NormalizeReferences: true}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Find(...%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
		})
	}
}
