package correction

import (
	"strings"
	"testing"
	"time"
)

// TestCorrectCostIsLinearInRepeatedEvidence shows that the rules that read
// the whole text for a word or a book (soundWritten, loneRange,
// loneNumbered, dashAgain, nounUse, citedAhead, booksNamed, namedBook) read it once per name, not
// once per mention: four times the text costs about four times the time,
// where reading it per mention would cost sixteen. Each size's time is the
// least of three runs, taken in the same run of the test.
func TestCorrectCostIsLinearInRepeatedEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("times Correct on texts of 0.2 and 0.8 MB")
	}
	e := testEngine(t)
	opening := "good morning church turn with me to acts 16 verse 7 and romans 8 28\n"
	for _, tc := range []struct {
		name string
		line string
	}{
		{"a misheard place said again and again", "and paul went to bethanya with silas\n"},
		{"a dash after a book said again and again", "and in 2 timothy 1-5 we read\n"},
		{"a numbered book beside another of its name", "as 1 corinthians says and in 2 corinthians 4-8 too\n"},
		{"a bare book and its chapter", "so in acts 1-8 we read and genesis 38 of who god is and the revelation\n"},
		{"a bare book among many places", "the gospel of mark in egypt and jerusalem and judea and samaria then in numbers we see\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cost := func(n int) time.Duration {
				text := opening + strings.Repeat(tc.line, n/len(tc.line))
				best := time.Duration(1 << 62)
				for range 3 {
					start := time.Now()
					e.Correct(text, Options{NormalizeReferences: true})
					best = min(best, time.Since(start))
				}
				return best
			}
			small, large := cost(200_000), cost(800_000)
			if ratio := float64(large) / float64(small); ratio > 10 {
				t.Errorf("0.8 MB took %v, %.1f times the %v of 0.2 MB: the cost grows with the square of the text", large, ratio, small)
			}
		})
	}
}
