package correction

import "testing"

// TestTextEndsWithCue checks that a text may end right after a cue that
// announces a book ("the book of", "the letter to", "wrote to the"):
// the engine used to read the missing word after it and panic.
func TestTextEndsWithCue(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		in   string
		want int // changes
	}{
		{"book of", 0},
		{"read the book of", 0},
		{"the letter to", 0},
		{"he wrote to the", 0},
		{"the epistles of", 0},
		{"the book of first", 0},
		{"the book of romans", 1},
	}
	for _, tt := range tests {
		for _, opts := range []Options{{}, {NormalizeReferences: true}} {
			t.Run(tt.in, func(t *testing.T) {
				r := e.Correct(tt.in, opts)
				if len(r.Changes) != tt.want {
					t.Errorf("Correct(%q, %+v): %d changes %q, want %d", tt.in, opts, len(r.Changes), compactAll(r.Changes), tt.want)
				}
				checkChanges(t, tt.in, r.Changes)
			})
		}
	}
}
