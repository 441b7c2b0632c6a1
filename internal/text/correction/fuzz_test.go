package correction

import (
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
