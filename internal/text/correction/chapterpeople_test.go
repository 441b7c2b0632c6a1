package correction

import (
	"slices"
	"strings"
	"testing"
)

// personChanges returns the compact form of the changes of category
// person among cs.
func personChanges(cs []Change) []string {
	out := []string{}
	for _, c := range cs {
		if c.Category == CategoryPerson {
			out = append(out, compact(c))
		}
	}
	return out
}

func TestPeopleOfTheCitedChapters(t *testing.T) {
	e := testEngine(t)
	lecture := strings.Repeat("the superior temporal gyrus of the brain is where the signal goes and the study measured it in each of the patients ", 10)
	tests := []struct {
		name string
		in   string
		opts Options
		want []string
	}{
		{"a person of a cited chapter heard without a cue is suggested",
			captionSermon + "turn with me to john 18 10\nthen simon peter having a sword\ncut off malcus ear", Options{},
			[]string{"malcus>Malchus person.fuzzy review"}},
		{"the chapter may be cited after the name: the whole document is the evidence",
			captionSermon + "the leader of the synagogue\ngyrus came to his house\nand we read in mark 5 22 that he fell at his feet", Options{},
			[]string{"gyrus>Jairus person.fuzzy review"}},
		{"a name with its first letter heard another way is suggested by its sound",
			captionSermon + "in philippians 4 2 paul says i beseech yodius\nand synteki that they be of the same mind", Options{},
			[]string{"yodius>Euodias person.fuzzy review", "synteki>Syntyche person.fuzzy review"}},
		{"a name with its end cut off is suggested",
			captionSermon + "mark chapter 10 verse 49\nblind bartimae is here\njesus stood still", Options{},
			[]string{"bartimae>Bartimaeus person.fuzzy review"}},
		{"of the names of that sound the nearest is suggested",
			captionSermon + "in ruth 4 20 and in matthew 1 4\namminadab was the father of nashon", Options{},
			[]string{"nashon>Nahshon person.fuzzy review"}},
		{"every place the sermon says the word is suggested",
			captionSermon + "in ruth 1 2 the names of his two sons were malhon and kilion\nboth malhon and kilion died", Options{},
			[]string{"malhon>Mahlon person.fuzzy review", "kilion>Chilion person.fuzzy review",
				"malhon>Mahlon person.fuzzy review", "kilion>Chilion person.fuzzy review"}},
		{"the person category suggests them too",
			captionSermon + "turn with me to john 18 10\nthen simon peter having a sword\ncut off malcus ear", Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}},
			[]string{"malcus>Malchus person.fuzzy review"}},
		{"without a citation of the chapter nor the words of the verse nothing is suggested",
			captionSermon + "and then simon peter\ncame to malcus and went home", Options{}, []string{}},
		{"a citation of the book alone is no evidence",
			captionSermon + "in philippians 2 3 paul wrote to yodius\nand synteki and they were glad", Options{}, []string{}},
		{"a name the Bible says in many chapters is left: a modern surname near it is no mishearing",
			captionSermon + "in luke 23 1 they led him\ni remember david platt an american pastor", Options{}, []string{}},
		{"a word of another sound is left",
			captionSermon + "turn with me to john 18 10\nthen simon peter cut off the marcos ear", Options{}, []string{}},
		{"an English word is left",
			captionSermon + "in mark 5 22 the ruler came\nthe gyros were good", Options{}, []string{}},
		{"outside a sermon nothing is suggested",
			lecture + "see mark 5 in the table where the gyrus is shown", Options{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.Find(tc.in, tc.opts)
			checkChanges(t, tc.in, cs)
			if got := personChanges(cs); !slices.Equal(got, tc.want) {
				t.Errorf("Find(…%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
		})
	}
}

func TestPeopleOfTheQuotedVerses(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a person the sermon quotes the verse of is suggested without a citation",
			captionSermon + "in philemon paul says i beseech yodius\nand and synteki that they be of the same\nmind in the lord",
			[]string{"yodius>Euodias person.fuzzy review", "synteki>Syntyche person.fuzzy review"}},
		{"two words of the verse around the word suffice",
			captionSermon + "peter was going after the man's head\nbut ended up cutting off malcus ear",
			[]string{"malcus>Malchus person.fuzzy review"}},
		{"every place the sermon says the word is suggested",
			captionSermon + "peter cut off malcus ear\nand jesus healed him\n" + strings.Repeat("and the lord is good\n", 20) + "so malcus went home",
			[]string{"malcus>Malchus person.fuzzy review", "malcus>Malchus person.fuzzy review"}},
		{"a quoted verse is the cue a name heard wrong without one lacks",
			captionSermon + "melkizedek was a priest of the most high god",
			[]string{"melkizedek>Melchizedek person.fuzzy review"}},
		{"one word of the verse is not enough",
			captionSermon + "peter went to see malcus\nat his ear doctor", []string{}},
		{"words of the verse far from the word are not enough",
			captionSermon + "i beseech you to be of the same mind\n" + strings.Repeat("and the lord is good\n", 10) + "yodius came to church", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.Find(tc.in, Options{})
			checkChanges(t, tc.in, cs)
			if got := personChanges(cs); !slices.Equal(got, tc.want) {
				t.Errorf("Find(…%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
		})
	}
}

func TestPeopleOfTheCitedChaptersAtEveryPlaceOfTheScannersWindow(t *testing.T) {
	// The scanner reads the text a window of tokens at a time; the name
	// may fall on either side of its edge.
	e := testEngine(t)
	for n := range 300 {
		in := captionSermon + "turn to john 18 10\n" + strings.Repeat("we ", n) + "cut off malcus ear\n"
		if got := personChanges(e.Find(in, Options{})); !slices.Equal(got, []string{"malcus>Malchus person.fuzzy review"}) {
			t.Fatalf("after %d filler words: %q, want Malchus suggested", n, got)
		}
	}
}

func TestPeopleOfEveryChapterAreRead(t *testing.T) {
	// Every chapter of the index is one of the versification's, and its
	// people are names of five letters or more, none a place or a book.
	e := testEngine(t)
	d := e.d
	if len(d.chapterPeople) != numChapters {
		t.Fatalf("%d chapters, want %d", len(d.chapterPeople), numChapters)
	}
	n := 0
	for k, ps := range d.chapterPeople {
		for _, p := range ps {
			n++
			if len(p.lower) < 5 || d.placeKeys[p.lower] || d.isBookWord(p.lower) {
				t.Errorf("chapter %d: %q is no person's name the index keeps", k, p.name)
			}
		}
	}
	want := map[string]int{"Malchus": 1, "Jairus": 2, "Bartimaeus": 1, "Euodias": 1}
	for name, chapters := range want {
		got := 0
		for _, ps := range d.chapterPeople {
			for _, p := range ps {
				if p.name == name {
					got++
				}
			}
		}
		if got != chapters {
			t.Errorf("%s is named in %d chapters, want %d", name, got, chapters)
		}
	}
	if n < 3000 {
		t.Errorf("%d names of chapters, want the KJV's people", n)
	}
}
