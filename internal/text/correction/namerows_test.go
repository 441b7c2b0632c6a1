package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestANameHeardAmongTheNamesOfAKJVRowIsSuggested(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		text string
		want []string // the changes of the names heard wrong
	}{
		{"the third of a row after two said right", "the king commanded to bring shadrach meshach and abedo and they brought these men",
			[]string{"abedo>Abednego person.fuzzy review"}},
		{"the second and third after the first said right", "they had robes and hats on shadrach\nmhach and abedo and the fire did not burn them",
			[]string{"mhach>Meshach place.fuzzy review", "abedo>Abednego person.fuzzy review"}},
		{"a row of names with of between them", "the time would fail me to tell of gideon and of barak and of samson and of jefta and of david",
			[]string{"jefta>Jephthae person.fuzzy review"}},
		{"no name of the row said right", "if he did it for shakra mhach and abedo he will do it for you", nil},
		{"a word of another letter", "they brought shadrach meshach and obedo before the king", nil},
		{"a sentence's end between the names", "it was shadrach. meshach. abedo came later", nil},
	}
	heard := []string{"abedo", "mhach", "jefta", "shakra", "obedo"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range compactAll(e.Correct(captionSermon+tc.text, Options{}).Changes) {
				if w, _, _ := strings.Cut(c, ">"); slices.Contains(heard, w) {
					got = append(got, c)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Correct(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}
