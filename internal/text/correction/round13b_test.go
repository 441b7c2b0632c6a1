package correction

import (
	"testing"
)

// The tests of issue 24's thirteenth round (B): the interpreted conference
// sermons of a Swedish church (see docs/performance.md, "Thirteenth round B").

func TestThePsalmsAndTheProverbsNamedTogetherAreTheBooks(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"the psalms the proverbs", "we have been called the psalms the proverbs they talk constantly about god's plans",
			[]string{"psalms>Psalms book.lowercase auto", "proverbs>Proverbs book.lowercase auto"}},
		{"the proverbs and the psalms", "go and read the proverbs and the psalms every day",
			[]string{"proverbs>Proverbs book.lowercase auto", "psalms>Psalms book.lowercase auto"}},
		{"the psalms or the proverbs", "pick the psalms or the proverbs and start there",
			[]string{"psalms>Psalms book.lowercase auto", "proverbs>Proverbs book.lowercase auto"}},
		{"psalms and hymns are songs", "we sing the psalms and hymns and spiritual songs", []string{}},
		{"psalms and proverbs without articles", "he wrote psalms and proverbs for his people", []string{}},
		{"the proverbs of a people", "the psalms and the proverbs of the old people of our village", []string{}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}
