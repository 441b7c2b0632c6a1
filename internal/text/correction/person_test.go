package correction

import (
	"slices"
	"strings"
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

func TestPersonsHeardWrongAreSuggestedByDefault(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		opts Options
		want []string
	}{
		{"a name heard wrong after named is suggested, and again where the sermon says the word",
			captionSermon + "now there was a man\nnamed zacheus which was the chief\namong the publicans and zacheus made haste",
			Options{}, []string{"zacheus>Zacchaeus person.fuzzy review", "zacheus>Zacchaeus person.fuzzy review"}},
		{"a name heard wrong after the daughter of is suggested",
			captionSermon + "and jesus raised the daughter of jairas\nfrom the dead", Options{},
			[]string{"jairas>Jairus person.fuzzy review"}},
		{"a long name heard as one and the rest is suggested",
			captionSermon + "the lord give mercy unto the house of one siphorus\nfor he oft refreshed me", Options{},
			[]string{"one siphorus>Onesiphorus person.fuzzy review"}},
		{"a lowercase name written right is left by default",
			captionSermon + "king nebuchadnezzar made an image of gold", Options{}, []string{}},
		{"a name heard wrong without a cue is left by default",
			captionSermon + "melkizedek came to see abraham", Options{}, []string{}},
		{"categories without person leave the names heard wrong",
			captionSermon + "now there was a man\nnamed zacheus which was the chief", Options{Categories: []string{CategoryBible, CategoryPlace}},
			[]string{}},
		{"outside a sermon nothing is suggested", "we hired a guy named zacheus last year. " + podcastText, Options{}, []string{}},
		{"an English word after named is left", captionSermon + "a new ministry named outreach began", Options{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.Find(tc.in, tc.opts)
			checkChanges(t, tc.in, cs)
			if got := compactAll(cs); !slices.Equal(got, tc.want) {
				t.Errorf("Find(…%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
			for _, c := range cs {
				if c.Category == CategoryPerson && c.Status == StatusAutoApplied && len(tc.opts.Categories) == 0 {
					t.Errorf("%q applied by default, want a suggestion only", c.Original)
				}
			}
		})
	}
}

func TestPersonsHeardWrongAtEveryPlaceOfTheScannersWindow(t *testing.T) {
	// The scanner reads the text a window of tokens at a time; the cue
	// word and the name after it may fall on either side of its edge.
	e := testEngine(t)
	for _, tail := range []string{"a ruler named jairas came\n", "the sons of skeva came\n", "the house of one siphorus came\n"} {
		for n := range 300 {
			in := captionSermon + strings.Repeat("we ", n) + tail
			if got := compactAll(e.Find(in, Options{})); len(got) != 1 {
				t.Fatalf("%q after %d filler words: %q, want one suggestion", tail, n, got)
			}
		}
	}
}

func TestPersonsByDefaultMatchTheExplicitCategory(t *testing.T) {
	// The suggestions made by default are those the person category
	// makes of names heard after a cue: the same spans and names.
	e := testEngine(t)
	in := captionSermon + "now there was a man\nnamed zacheus and the sons of skeva and one siphorus\nzacheus came down\n"
	def := e.Find(in, Options{})
	all := e.Find(in, Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}})
	var a, b []string
	for _, c := range def {
		if c.Category == CategoryPerson {
			a = append(a, compact(c))
		}
	}
	for _, c := range all {
		if c.Category == CategoryPerson && c.Rule == "person.fuzzy" {
			b = append(b, compact(c))
		}
	}
	if len(a) != 4 || !slices.Equal(a, b) {
		t.Errorf("by default %q, with the person category %q; want the same four", a, b)
	}
}

func TestPersonHeardAfterAFalseStart(t *testing.T) {
	e := testEngine(t)
	persons := Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a name begun and said again after named is the name said again",
			captionSermon + "there was a man named zache zacheus\nwhich was the chief",
			[]string{"zacheus>Zacchaeus person.fuzzy review"}},
		{"a name begun and said again after the daughter of, across a cue line",
			captionSermon + "he raised the daughter of jaira\njairas from the dead",
			[]string{"jairas>Jairus person.fuzzy review"}},
		{"a name said twice after named is suggested at both",
			captionSermon + "there was a man named zacheus zacheus",
			[]string{"zacheus>Zacchaeus person.fuzzy review", "zacheus>Zacchaeus person.fuzzy review"}},
		{"a word after the name that does not begin with it is not taken",
			captionSermon + "there was a man named zacheus and he climbed",
			[]string{"zacheus>Zacchaeus person.fuzzy review"}},
	}
	for _, tc := range tests {
		for _, opts := range []Options{{}, persons} {
			t.Run(tc.name, func(t *testing.T) {
				cs := e.Find(tc.in, opts)
				checkChanges(t, tc.in, cs)
				if got := compactAll(cs); !slices.Equal(got, tc.want) {
					t.Errorf("Find(…%q, %v) = %q, want %q", tc.in[max(0, len(tc.in)-60):], opts.Categories, got, tc.want)
				}
			})
		}
	}
}
