package correction

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// testGlossary is the glossary of a church: its pastor, its own name, a
// ministry, a member, its youth group named after a book, a hymn, a
// place the engine knows, and its kids' ministry written in lowercase.
func testGlossary(t testing.TB) *Glossary {
	t.Helper()
	g, err := NewGlossary([]GlossaryEntry{
		{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo", "pastor o'konkwo"}, SoundsLike: true, Auto: true, Category: "name"},
		{Term: "Bethel Tabernacle", Forms: []string{"beth el tabernacle", "bethal tabernacle"}, Auto: true, Category: "church"},
		{Term: "Sister Adaeze", Forms: []string{"sister adeze"}, SoundsLike: true, Category: "name"},
		{Term: "Pastor Kofi", SoundsLike: true, Auto: true, Category: "name"},
		{Term: "Habakkuk Youth", Forms: []string{"have a cook youth"}, Auto: true},
		{Term: "Bethlehem Choir", Forms: []string{"bethlehem quire"}, Auto: true, Category: "ministry"},
		{Term: "Capernaum", Forms: []string{"caper naum"}, SoundsLike: true, Auto: true, Category: "ministry"},
		{Term: "galilee kids", Auto: true, Category: "ministry"},
		{Term: "Grace", Forms: []string{"grays"}, Auto: true, Category: "church"},
		{Term: "Blessed Assurance", Forms: []string{"blessed ensurance"}, Category: "hymn"},
		{Term: "Chloé Mensah", Forms: []string{"chloe mensa"}, Auto: true, Category: "name"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGlossary(t *testing.T) {
	e := testEngine(t)
	g := testGlossary(t)
	tests := []struct {
		name    string
		text    string
		cats    []string
		want    string
		changes []string
	}{
		{"a listed form is replaced by the term", "today pastor okonquo will preach", nil,
			"today Pastor Okonkwo will preach", []string{"pastor okonquo>Pastor Okonkwo glossary.form auto"}},
		{"a form matches whatever its case", "Today PASTOR Okonquo will preach", nil,
			"Today Pastor Okonkwo will preach", []string{"PASTOR Okonquo>Pastor Okonkwo glossary.form auto"}},
		{"a form with an apostrophe", "pastor o'konkwo said", nil,
			"Pastor Okonkwo said", []string{"pastor o'konkwo>Pastor Okonkwo glossary.form auto"}},
		{"a form across a caption line break", "welcome to beth el\ntabernacle this morning", nil,
			"welcome to Bethel Tabernacle this morning", []string{"beth el\ntabernacle>Bethel Tabernacle glossary.form auto"}},
		{"a form across a CRLF line break", "welcome to beth\r\nel tabernacle", nil,
			"welcome to Bethel Tabernacle", []string{"beth\r\nel tabernacle>Bethel Tabernacle glossary.form auto"}},
		{"two line breaks part the words", "welcome to beth el\n\ntabernacle", nil,
			"welcome to beth el\n\ntabernacle", []string{}},
		{"a form is matched as whole words only", "the beth el tabernacles and xpastor okonquo", nil,
			"the beth el tabernacles and xpastor okonquo", []string{}},
		{"a hyphen parts the words of a form", "pastor-okonquo said", nil,
			"Pastor Okonkwo said", []string{"pastor-okonquo>Pastor Okonkwo glossary.form auto"}},
		{"the term in another case gets its own", "welcome to bethel tabernacle", nil,
			"welcome to Bethel Tabernacle", []string{"bethel tabernacle>Bethel Tabernacle glossary.form auto"}},
		{"the term in capitals is a heading", "WELCOME TO BETHEL TABERNACLE", nil,
			"WELCOME TO BETHEL TABERNACLE", []string{}},
		{"a single English word is not changed for its case", "by grace we are saved at grays", nil,
			"by grace we are saved at Grace", []string{"grays>Grace glossary.form auto"}},
		{"a sound-alike of a misheard name is suggested", "pastor okonko will preach", nil,
			"pastor okonko will preach", []string{"pastor okonko>Pastor Okonkwo glossary.sound review"}},
		{"a sound-alike across a line break", "sister\nadaeza led worship", nil,
			"sister\nadaeza led worship", []string{"sister\nadaeza>Sister Adaeze glossary.sound review"}},
		{"a sound-alike on a caption of many names", "and pastor kofee prayed", nil,
			"and pastor kofee prayed", []string{"pastor kofee>Pastor Kofi glossary.sound review"}},
		{"no sound-alike on an English word", "pastor coffee and pastor okinawa", nil,
			"pastor coffee and pastor okinawa", []string{}},
		{"no sound-alike of the term spelled right", "Pastor Kofi and pastor kofi", nil,
			"Pastor Kofi and Pastor Kofi", []string{"pastor kofi>Pastor Kofi glossary.form auto"}},
		{"no sound-alike without the other words", "okonko will preach", nil,
			"okonko will preach", []string{}},
		{"no sound-alike for an entry without sounds_like", "sing blessed asurance", nil,
			"sing blessed asurance", []string{}},
		{"a term with accents in another case", "thank you chloé mensah and CHLOÉ Mensah", nil,
			"thank you Chloé Mensah and Chloé Mensah",
			[]string{"chloé mensah>Chloé Mensah glossary.form auto", "CHLOÉ Mensah>Chloé Mensah glossary.form auto"}},
		{"a form without the accents", "thank you chloe mensa", nil,
			"thank you Chloé Mensah", []string{"chloe mensa>Chloé Mensah glossary.form auto"}},
		{"an entry without auto makes suggestions", "sing blessed ensurance and greet sister adeze", nil,
			"sing blessed ensurance and greet sister adeze",
			[]string{"blessed ensurance>Blessed Assurance glossary.form review", "sister adeze>Sister Adaeze glossary.form review"}},
		{"the glossary wins over an overlapping engine change", "the bethlehem quire sang in bethlehem", nil,
			"the Bethlehem Choir sang in Bethlehem",
			[]string{"bethlehem quire>Bethlehem Choir glossary.form auto", "bethlehem>Bethlehem place.lowercase auto"}},
		{"the glossary wins over an overlapping book", "the have a cook youth 2 4 and have a cook 2 4", nil,
			"the Habakkuk Youth 2 4 and Habakkuk 2 4",
			[]string{"have a cook youth>Habakkuk Youth glossary.form auto", "have a cook>Habakkuk book.abbreviation auto"}},
		{"a term the engine knows only adds its forms", "from caper naum to capernaum and capernum", nil,
			"from Capernaum to Capernaum and Capernaum",
			[]string{"caper naum>Capernaum glossary.form auto", "capernaum>Capernaum place.lowercase auto", "capernum>Capernaum place.fuzzy auto"}},
		{"a term written right holds the engine off", "the galilee kids met in galilee", nil,
			"the galilee kids met in Galilee", []string{"galilee>Galilee place.lowercase auto"}},
		{"the category filter keeps a glossary category", "pastor okonquo in bethlehem at bethal tabernacle", []string{"name"},
			"Pastor Okonkwo in bethlehem at bethal tabernacle", []string{"pastor okonquo>Pastor Okonkwo glossary.form auto"}},
		{"the category filter keeps an engine category", "pastor okonquo in bethlehem at bethal tabernacle", []string{"place"},
			"pastor okonquo in Bethlehem at bethal tabernacle",
			[]string{"bethlehem>Bethlehem place.lowercase auto", "bethal>Bethel place.fuzzy review"}},
		{"the category filter of both", "pastor okonquo in bethlehem at bethal tabernacle", []string{"church", "place"},
			"pastor okonquo in Bethlehem at Bethel Tabernacle",
			[]string{"bethlehem>Bethlehem place.lowercase auto", "bethal tabernacle>Bethel Tabernacle glossary.form auto"}},
		{"an entry without a category is of the glossary category", "the have a cook youth", []string{CategoryGlossary},
			"the Habakkuk Youth", []string{"have a cook youth>Habakkuk Youth glossary.form auto"}},
		{"a URL is not changed", "see https://example.org/pastor-okonquo and pastor.okonquo@example.org", nil,
			"see https://example.org/pastor-okonquo and pastor.okonquo@example.org", []string{}},
		{"code is not changed", "run `pastor okonquo` now", nil, "run `pastor okonquo` now", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Glossary: g, Categories: tt.cats}
			r := e.Correct(tt.text, opts)
			if r.Content != tt.want {
				t.Errorf("content\n got %q\nwant %q", r.Content, tt.want)
			}
			if got := compactAll(r.Changes); !reflect.DeepEqual(got, tt.changes) {
				t.Errorf("changes\n got %q\nwant %q", got, tt.changes)
			}
			checkGlossaryChanges(t, tt.text, r)
			if found := e.Find(tt.text, opts); !reflect.DeepEqual(found, r.Changes) {
				t.Errorf("Find and Correct differ:\n%v\n%v", found, r.Changes)
			}
		})
	}
}

// checkGlossaryChanges checks the invariants of a result with a glossary:
// spans, IDs, lines, the category and confidence of each rule, and the
// summary of the final statuses.
func checkGlossaryChanges(t *testing.T, text string, r Result) {
	t.Helper()
	prevEnd := 0
	for i, c := range r.Changes {
		if c.Start < prevEnd || c.End <= c.Start || c.End > len(text) || text[c.Start:c.End] != c.Original {
			t.Fatalf("change %d: bad span %+v", i, c)
		}
		prevEnd = c.End
		if want := 1 + strings.Count(text[:c.Start], "\n"); c.Line != want {
			t.Errorf("change %d: line %d, want %d", i, c.Line, want)
		}
		switch c.Rule {
		case RuleGlossaryForm:
			if c.Confidence != glossaryFormConf {
				t.Errorf("change %d: confidence %v", i, c.Confidence)
			}
		case RuleGlossarySound:
			if c.Confidence != glossarySoundConf || c.Status != StatusNeedsReview {
				t.Errorf("change %d: a sound-alike with confidence %v, %s", i, c.Confidence, c.Status)
			}
		}
	}
	checkIDs(t, r.Changes)
	if want := Summarize(r.Changes); !reflect.DeepEqual(r.Summary, want) {
		t.Errorf("summary %+v, want %+v", r.Summary, want)
	}
	if want := Apply(text, r.Changes); r.Content != want {
		t.Errorf("content %q, want the automatic changes applied: %q", r.Content, want)
	}
}

func TestGlossarySummary(t *testing.T) {
	e := testEngine(t)
	r := e.Correct("pastor okonquo and sister adeze in bethlehem, and the have a cook youth", Options{Glossary: testGlossary(t)})
	want := Summary{Total: 4, AutoApplied: 3, NeedsReview: 1,
		ByCategory: map[string]int{"name": 2, CategoryPlace: 1, CategoryGlossary: 1}}
	if !reflect.DeepEqual(r.Summary, want) {
		t.Errorf("summary %+v, want %+v", r.Summary, want)
	}
}

func TestGlossaryWithThresholds(t *testing.T) {
	e := testEngine(t)
	g := testGlossary(t)
	const text = "pastor okonquo and pastor okonko"
	tests := []struct {
		name    string
		th      Thresholds
		changes []string
	}{
		{"a form above auto_apply is applied", Thresholds{AutoApply: 0.9},
			[]string{"pastor okonquo>Pastor Okonkwo glossary.form auto", "pastor okonko>Pastor Okonkwo glossary.sound review"}},
		{"a form below auto_apply is suggested", Thresholds{AutoApply: 0.96},
			[]string{"pastor okonquo>Pastor Okonkwo glossary.form review", "pastor okonko>Pastor Okonkwo glossary.sound review"}},
		{"a sound-alike below suggest is dropped", Thresholds{AutoApply: 0.9, Suggest: 0.8},
			[]string{"pastor okonquo>Pastor Okonkwo glossary.form auto"}},
		{"a sound-alike above auto_apply is not promoted", Thresholds{AutoApply: 0.5},
			[]string{"pastor okonquo>Pastor Okonkwo glossary.form auto", "pastor okonko>Pastor Okonkwo glossary.sound review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Correct(text, Options{Glossary: g, Thresholds: tt.th})
			if got := compactAll(r.Changes); !reflect.DeepEqual(got, tt.changes) {
				t.Errorf("changes\n got %q\nwant %q", got, tt.changes)
			}
			checkGlossaryChanges(t, text, r)
		})
	}
}

// TestGlossaryOnLongText checks matches past the scanner's first window
// and at the very end of a text, in a text the engine changes too.
func TestGlossaryOnLongText(t *testing.T) {
	e := testEngine(t)
	g := testGlossary(t)
	text := buildSermon(64<<10) + " pastor okonquo\nand sister adaeza. " + buildSermon(8<<10) + " at beth el tabernacle"
	for _, cats := range [][]string{nil, {"name", "church"}} {
		r := e.Correct(text, Options{Glossary: g, Categories: cats})
		checkGlossaryChanges(t, text, r)
		var got []string
		for _, c := range r.Changes {
			if strings.HasPrefix(c.Rule, "glossary.") {
				got = append(got, compact(c))
			}
		}
		want := []string{"pastor okonquo>Pastor Okonkwo glossary.form auto", "sister adaeza>Sister Adaeze glossary.sound review",
			"beth el tabernacle>Bethel Tabernacle glossary.form auto"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("categories %v: glossary changes\n got %q\nwant %q", cats, got, want)
		}
		engine := e.Find(text, Options{Categories: cats})
		if n := len(r.Changes) - len(got); n != len(engine) {
			t.Errorf("categories %v: %d engine changes with the glossary, %d without", cats, n, len(engine))
		}
	}
}

func TestGlossaryConcurrent(t *testing.T) {
	e := testEngine(t)
	g := testGlossary(t)
	text := buildSermon(16<<10) + " pastor okonquo and pastor okonko"
	want := e.Correct(text, Options{Glossary: g})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := e.Correct(text, Options{Glossary: g}); !reflect.DeepEqual(got, want) {
				t.Error("a concurrent Correct differs")
			}
		}()
	}
	wg.Wait()
}

func TestNewGlossaryBounds(t *testing.T) {
	long := strings.Repeat("a", 101)
	forms := func(n int) []string {
		var fs []string
		for i := range n {
			fs = append(fs, fmt.Sprintf("form %d", i))
		}
		return fs
	}
	many := make([]GlossaryEntry, MaxGlossaryEntries+1)
	for i := range many {
		many[i] = GlossaryEntry{Term: fmt.Sprintf("Term %d", i)}
	}
	ok := GlossaryEntry{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo"}}
	tests := []struct {
		name    string
		entries []GlossaryEntry
		field   string // "" for valid
		msg     string
	}{
		{"no entries are valid", nil, "", ""},
		{"the largest glossary is valid", many[:MaxGlossaryEntries], "", ""},
		{"the longest term and forms are valid", []GlossaryEntry{{Term: long[:100], Forms: append(forms(19), long[:100]), Category: "a" + strings.Repeat("_", 31)}}, "", ""},
		{"a form repeated in its own entry is valid", []GlossaryEntry{{Term: "Grace", Forms: []string{"grays", "Grays", "grace"}}}, "", ""},
		{"too many entries", many, "entries", "entries: at most 1000 entries, got 1001"},
		{"an empty term", []GlossaryEntry{ok, {Term: ""}}, "entries[1].term", "entries[1].term: must be 1 to 100 bytes long, got 0"},
		{"a term too long", []GlossaryEntry{{Term: long}}, "entries[0].term", "entries[0].term: must be 1 to 100 bytes long, got 101"},
		{"a term without a word", []GlossaryEntry{{Term: "!?"}}, "entries[0].term", "entries[0].term: must hold a letter or a digit"},
		{"a term of invalid UTF-8", []GlossaryEntry{{Term: "Ok\xffnkwo"}}, "entries[0].term", "entries[0].term: must be valid UTF-8"},
		{"a term with a space at its end", []GlossaryEntry{{Term: "Okonkwo "}}, "entries[0].term", "entries[0].term: must not begin or end with a space"},
		{"a term with a line break", []GlossaryEntry{{Term: "Pastor\nOkonkwo"}}, "entries[0].term", "entries[0].term: must not hold a control character (U+000A)"},
		{"too many forms", []GlossaryEntry{{Term: "Okonkwo", Forms: forms(21)}}, "entries[0].forms", "entries[0].forms: at most 20 forms, got 21"},
		{"an empty form", []GlossaryEntry{{Term: "Okonkwo", Forms: []string{"okonquo", ""}}}, "entries[0].forms[1]", "entries[0].forms[1]: must be 1 to 100 bytes long, got 0"},
		{"a form too long", []GlossaryEntry{{Term: "Okonkwo", Forms: []string{long}}}, "entries[0].forms[0]", "entries[0].forms[0]: must be 1 to 100 bytes long, got 101"},
		{"a form without a word", []GlossaryEntry{{Term: "Okonkwo", Forms: []string{"--"}}}, "entries[0].forms[0]", "entries[0].forms[0]: must hold a letter or a digit"},
		{"a form of another entry's term", []GlossaryEntry{ok, {Term: "Okonkwo", Forms: []string{"x", "PASTOR okonkwo"}}}, "entries[1].forms[1]", "entries[1].forms[1]: the same words as entries[0].term"},
		{"a form of another entry's form", []GlossaryEntry{ok, {Term: "Okonkwo", Forms: []string{"pastor-okonquo"}}}, "entries[1].forms[0]", "entries[1].forms[0]: the same words as entries[0].forms[0]"},
		{"a term of another entry's term", []GlossaryEntry{ok, {Term: "pastor okonkwo"}}, "entries[1].term", "entries[1].term: the same words as entries[0].term"},
		{"a term of another entry's form", []GlossaryEntry{ok, {Term: "Pastor Okonquo"}}, "entries[1].term", "entries[1].term: the same words as entries[0].forms[0]"},
		{"a category with a capital", []GlossaryEntry{{Term: "Okonkwo", Category: "Name"}}, "entries[0].category", `entries[0].category: must match ^[a-z][a-z0-9_]{0,31}$, got "Name"`},
		{"a category opening with a digit", []GlossaryEntry{{Term: "Okonkwo", Category: "1st"}}, "entries[0].category", `entries[0].category: must match ^[a-z][a-z0-9_]{0,31}$, got "1st"`},
		{"a category too long", []GlossaryEntry{{Term: "Okonkwo", Category: "a" + strings.Repeat("b", 32)}}, "entries[0].category",
			fmt.Sprintf(`entries[0].category: must match ^[a-z][a-z0-9_]{0,31}$, got "a%s"`, strings.Repeat("b", 32))},
		{"a category with a dash", []GlossaryEntry{{Term: "Okonkwo", Category: "first-name"}}, "entries[0].category", `entries[0].category: must match ^[a-z][a-z0-9_]{0,31}$, got "first-name"`},
		{"the bible category", []GlossaryEntry{{Term: "Okonkwo", Category: "bible"}}, "entries[0].category", `entries[0].category: "bible" is a category of the engine`},
		{"the place category", []GlossaryEntry{{Term: "Okonkwo", Category: "place"}}, "entries[0].category", `entries[0].category: "place" is a category of the engine`},
		{"the person category", []GlossaryEntry{{Term: "Okonkwo", Category: "person"}}, "entries[0].category", `entries[0].category: "person" is a category of the engine`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewGlossary(tt.entries)
			if tt.field == "" {
				if err != nil || g == nil || g.Len() != len(tt.entries) {
					t.Fatalf("NewGlossary() = %v, %v; want a glossary of %d entries", g, err, len(tt.entries))
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("NewGlossary() = %v, want a *FieldError", err)
			}
			if g != nil || fe.Field != tt.field || err.Error() != tt.msg {
				t.Errorf("NewGlossary() = %q (field %q), want %q (field %q)", err, fe.Field, tt.msg, tt.field)
			}
		})
	}
}

func TestNewGlossaryKeepsNoAlias(t *testing.T) {
	entries := []GlossaryEntry{{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo"}, Auto: true}}
	g, err := NewGlossary(entries)
	if err != nil {
		t.Fatal(err)
	}
	entries[0].Term, entries[0].Forms[0] = "Changed", "changed"
	r := testEngine(t).Correct("pastor okonquo", Options{Glossary: g})
	if r.Content != "Pastor Okonkwo" {
		t.Errorf("content %q: the glossary follows changes of the caller's entries", r.Content)
	}
}

func TestIsEnglishWord(t *testing.T) {
	for w, want := range map[string]bool{
		"a": true, "aardvark": true, "coffee": true, "grace": true, "zygote": true, "zyzzyva": false,
		"okonkwo": false, "kofi": false, "": false, "coffe": false, "coffeee": false, "zzz": false,
	} {
		if got := isEnglishWord(w); got != want {
			t.Errorf("isEnglishWord(%q) = %v, want %v", w, got, want)
		}
	}
}
