package correction

import (
	"slices"
	"testing"
)

func TestPersonCategory(t *testing.T) {
	e := testEngine(t)
	persons := Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}}
	tests := []struct {
		name string
		in   string
		opts Options
		want []string
	}{
		{"off by default", sermonOpening + "king nebuchadnezzar had a dream", Options{}, []string{}},
		{"a lowercase name gets its capital", sermonOpening + "king nebuchadnezzar had a dream", persons,
			[]string{"nebuchadnezzar>Nebuchadnezzar person.lowercase auto"}},
		{"a misspelled name is suggested", sermonOpening + "melkizedek was a priest and zaccheus climbed a tree", persons,
			[]string{"melkizedek>Melchizedek person.fuzzy review", "zaccheus>Zacchaeus person.fuzzy review"}},
		{"a name written right is left", sermonOpening + "Bartimaeus cried out", persons, []string{}},
		{"short names are left", sermonOpening + "dan and ham and job", persons, []string{}},
		{"nothing outside a sermon", podcastText + "nebuchadnezzar is a band name", persons, []string{}},
		{"alone", sermonOpening + "king nebuchadnezzar in egypt", Options{Categories: []string{CategoryPerson}},
			[]string{"nebuchadnezzar>Nebuchadnezzar person.lowercase auto"}},
		{"among the other changes", sermonOpening + "in romans 8 nebuchadnezzar went to egypt", persons,
			[]string{"romans>Romans book.lowercase auto", "nebuchadnezzar>Nebuchadnezzar person.lowercase auto", "egypt>Egypt place.lowercase auto"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.Find(tc.in, tc.opts)
			checkChanges(t, tc.in, cs)
			if got := compactAll(cs); !slices.Equal(got, tc.want) {
				t.Errorf("Find(…%q) = %q, want %q", tc.in[max(0, len(tc.in)-50):], got, tc.want)
			}
		})
	}
	r := e.Correct(sermonOpening+"king nebuchadnezzar in egypt", persons)
	if r.Summary.ByCategory[CategoryPerson] != 1 || r.Summary.ByCategory[CategoryPlace] != 1 {
		t.Errorf("summary %+v, want one person and one place", r.Summary)
	}
}
