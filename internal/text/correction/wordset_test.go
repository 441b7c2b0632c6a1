package correction

import (
	"strings"
	"testing"
)

func TestWordSetFindsItsWordsAndNoOther(t *testing.T) {
	e := testEngine(t)
	set := &e.d.ws.count
	tests := []struct {
		name string
		text string // the token read is the second
		want bool
	}{
		{"a word of the set", "three times more", true},
		{"in capitals", "three TIMES more", true},
		{"capitalized", "three Times more", true},
		{"at the text's end, hashed rune by rune", "three times", true},
		{"a word of more than eight letters", "three questions more", true},
		{"the same at the text's end", "three questions", true},
		{"a letter more", "three timess more", false},
		{"a letter less", "three tim more", false},
		{"a word of the same length and first letter", "three tides more", false},
		{"a rune from 0x80", "three tímes more", false},
		{"digits", "three 12345 more", false},
		{"a word of another set", "three chapter more", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sc scanner
			sc.init(e.d, tc.text)
			if got := sc.in(1, set); got != tc.want {
				t.Errorf("in(%q) = %v, want %v", tc.text, got, tc.want)
			}
			if got, want := sc.in(1, set), sc.isAny(1, set.words...); got != want {
				t.Errorf("in(%q) = %v, isAny = %v", tc.text, got, want)
			}
		})
	}
	t.Run("every word of every set", func(t *testing.T) {
		ws := e.d.ws
		for _, s := range []*wordSet{&ws.chapter, &ws.verse, &ws.rangeEnd, &ws.ofTo, &ws.andOr, &ws.writing, &ws.locative, &ws.count, &ws.determiner, &ws.begin,
			&ws.weak, &ws.nounBefore, &ws.indefinite, &ws.personAfter} {
			for _, w := range s.words {
				for _, text := range []string{"x " + w + " y", "x " + strings.ToUpper(w), "x " + w} {
					var sc scanner
					sc.init(e.d, text)
					if !sc.in(1, s) {
						t.Errorf("in(%q) = false, want true", text)
					}
				}
			}
		}
	})
	t.Run("a token before the text or past its end", func(t *testing.T) {
		var sc scanner
		sc.init(e.d, "times")
		if sc.in(-1, set) || sc.in(1, set) {
			t.Error("in reported a token that does not exist")
		}
	})
}
