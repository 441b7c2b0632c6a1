package correction

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzCorrect(f *testing.F) {
	for _, s := range []string{
		"",
		"first corinthians chapter thirteen verse four",
		"Revelations 21:4 and psalms 23 in jerusalem",
		"one john 4 8 — capernum, gethsemene",
		"number 12 on the list, my job, mark my words",
		"Psalms 120–134 and II Kings 5:1-3",
		"psalm one hundred and nineteen verse one hundred five",
		"\xff\xfe romans 8 28 \xc3",
		"Ǆ romans Ǆ 1 jn 4:8",
		"song of\nsongs 2\n4",
		"god jesus bible amen church in acts 2 and the psalms, the corinthian church, nebuchadnezar and melkizedek",
		"jesus god verse amen: psalm one forty-five, romans 828, 1 peter 5-7, jude three, la casa de mi padre en sion",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	e, err := NewEngine()
	if err != nil {
		f.Fatal(err)
	}
	all := []string{CategoryBible, CategoryPlace, CategoryPerson}
	f.Fuzz(func(t *testing.T, text string, norm bool) {
		for _, opts := range []Options{{NormalizeReferences: norm}, {NormalizeReferences: norm, Categories: all}} {
			checkFuzz(t, e, text, opts)
		}
	})
}

// checkFuzz checks one Correct call of FuzzCorrect.
func checkFuzz(t *testing.T, e *Engine, text string, opts Options) {
	t.Helper()
	r := e.Correct(text, opts)
	if Apply(text, nil) != text {
		t.Fatal("Apply(text, nil) != text")
	}
	prevEnd := 0
	for _, c := range r.Changes {
		if c.Start < prevEnd || c.End < c.Start || c.End > len(text) {
			t.Fatalf("bad span %+v", c)
		}
		prevEnd = c.End
		if text[c.Start:c.End] != c.Original {
			t.Fatalf("Original %q != text %q", c.Original, text[c.Start:c.End])
		}
		if utf8.ValidString(text) && (c.Start < len(text) && !utf8.RuneStart(text[c.Start]) || c.End < len(text) && !utf8.RuneStart(text[c.End])) {
			t.Fatalf("change splits a rune: %+v", c)
		}
		if c.Replacement == c.Original {
			t.Fatalf("no-op change %+v", c)
		}
	}
	if utf8.ValidString(text) && !utf8.ValidString(r.Content) {
		t.Fatal("valid input gave invalid output")
	}
	for _, c := range r.Changes {
		if c.Reference != nil && (c.Reference.Chapter < 1 || c.Reference.OSIS == "" || !opts.NormalizeReferences) {
			t.Fatalf("bad reference %+v of %+v", *c.Reference, c)
		}
	}
}

func FuzzCorrectWithGlossary(f *testing.F) {
	for _, s := range []string{
		"",
		"today pastor okonquo will preach at beth el\ntabernacle",
		"pastor okonko and sister\nadaeza, pastor-okonquo, pastor o'konkwo",
		"the bethlehem quire sang in bethlehem; the have a cook youth 2 4",
		"from caper naum to capernaum, the galilee kids and grays",
		"see https://example.org/pastor-okonquo and `pastor okonquo`",
		"\xff\xfe pastor okonquo \xc3 Ǆ pastor Ǆ okonquo",
	} {
		f.Add(s, "Pastor Okonkwo", "pastor okonquo", true, true, uint8(0))
		f.Add(s, "O'Brien Chapel", "obrien chapel", false, true, uint8(90))
		f.Add(s, "Ǆemal", "dzemal", true, false, uint8(60))
	}
	e, err := NewEngine()
	if err != nil {
		f.Fatal(err)
	}
	base := testGlossary(f)
	all := []string{CategoryBible, CategoryPlace, CategoryPerson, "name", "church", CategoryGlossary}
	f.Fuzz(func(t *testing.T, text, term, form string, sounds, auto bool, pct uint8) {
		g, err := NewGlossary([]GlossaryEntry{
			{Term: term, Forms: []string{form}, SoundsLike: sounds, Auto: auto, Category: "name"},
			{Term: "Bethel Tabernacle", Forms: []string{"beth el tabernacle"}, Auto: true, Category: "church"},
		})
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "entries[") {
				t.Fatalf("NewGlossary: %v is no *FieldError of an entry", err)
			}
			g = base
		}
		th := Thresholds{AutoApply: float64(pct%101) / 100, Suggest: float64(pct%101) / 200}
		if err := th.Validate(); err != nil {
			t.Fatalf("Validate(%+v): %v", th, err)
		}
		for _, opts := range []Options{{Glossary: g}, {Glossary: g, Categories: all, Thresholds: th}} {
			checkFuzz(t, e, text, opts)
			r := e.Correct(text, opts)
			if r.Content != Apply(text, r.Changes) {
				t.Fatal("Content is not the automatic changes applied")
			}
			if !reflect.DeepEqual(r.Summary, Summarize(r.Changes)) {
				t.Fatalf("Summary %+v of changes %+v", r.Summary, r.Changes)
			}
			for i, c := range r.Changes {
				if want := fmt.Sprintf("chg_%04d", i+1); c.ID != want {
					t.Fatalf("change %d has ID %q", i, c.ID)
				}
				if c.Confidence < opts.Thresholds.Suggest || c.Status == StatusAutoApplied && c.Confidence < opts.Thresholds.AutoApply {
					t.Fatalf("change %+v outside the thresholds %+v", c, opts.Thresholds)
				}
				if strings.HasPrefix(c.Rule, "glossary.") && c.Replacement != term && c.Replacement != "Bethel Tabernacle" && g != base {
					t.Fatalf("glossary change %+v does not write a term", c)
				}
			}
		}
	})
}
