package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (K): Catholic Sunday reflections
// on the lectionary's readings in the caption shape (see
// docs/performance.md, "Fourteenth round K").

func TestActsAsALectionaryNamesAReadingIsTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"the reading from acts",
			"which jesus came to establish the reading from acts\ngives us a vivid description of peace in action",
			[]string{"acts>Acts book.lowercase auto"}},
		{"the selection from acts",
			"to continue his mission in the world the selection from\nacts gives us a dramatic model of how the spirit operates",
			[]string{"acts>Acts book.lowercase auto"}},
		{"the acts of apostles",
			"the faith of this early community described in the acts of apostles\nwe are not suggesting an abdication",
			[]string{"acts>Acts book.lowercase auto"}},
		{"a reading from acts of kindness is the noun",
			"he kept a reading from acts of kindness he had seen\nin his town",
			nil},
		{"acts after from and another word is the noun",
			"we turn away from acts that hurt our neighbor\nand ask forgiveness",
			nil},
	}
	checkCaptionCases(t, e, Options{}, tests)
}
