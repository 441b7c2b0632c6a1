package aipass

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"tcs.dev/tcs/internal/text/correction"
)

func TestSplitTextWhole(t *testing.T) {
	text := "In the beginning was Genisis. Then Exodos."
	changes := []correction.Change{
		{ID: "chg_0001", Start: 21, End: 28},
		{ID: "chg_0002", Start: 35, End: 41},
		{ID: "chg_0003", Start: 40, End: 99}, // out of range: not sent
	}
	got := splitText(text, changes, len(text), 10)
	if len(got) != 1 {
		t.Fatalf("%d excerpts, want 1", len(got))
	}
	if e := got[0]; len(e.passages) != 1 || e.passages[0] != (span{0, len(text)}) || fmt.Sprint(e.changes) != "[0 1]" {
		t.Errorf("excerpt %+v, want the whole text with changes 0 and 1", e)
	}
	if got := splitText("", nil, 100, 10); got != nil {
		t.Errorf("empty text: %+v, want no excerpt", got)
	}
}

// multibyteText returns a text of about n bytes, full of multi-byte runes, sentences and
// lines, and changes at every occurrence of "Génesis".
func multibyteText(n int) (string, []correction.Change) {
	parts := []string{
		"Ἐν ἀρχῇ ἦν ὁ λόγος — said the preacher. ",
		"Read Génesis with me!\n",
		"Καφές, café, 珈琲 and “quotes”… ",
		"averyveryveryverylongwordwithoutanyspacesinsideitatallforsure",
		"Génesis? ",
		strings.Repeat("ῇ珈", 60),
		"Génesis",
		strings.Repeat("ῇ珈", 60),
		"\n",
		"Amen 🙏🏽 amen. ",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(parts[i%len(parts)])
	}
	text := b.String()
	var changes []correction.Change
	for off := 0; ; {
		i := strings.Index(text[off:], "Génesis")
		if i < 0 {
			break
		}
		s := off + i
		changes = append(changes, correction.Change{ID: fmt.Sprintf("chg_%04d", len(changes)+1), Start: s, End: s + len("Génesis")})
		off = s + 1
	}
	return text, changes
}

func TestSplitTextProperties(t *testing.T) {
	text, changes := multibyteText(20000)
	for _, chunkBytes := range []int{100, 300, 1000, 4000, 19000} {
		for _, contextBytes := range []int{0, 20, 120, 400} {
			t.Run(fmt.Sprintf("chunk=%d,context=%d", chunkBytes, contextBytes), func(t *testing.T) {
				excerpts := splitText(text, changes, chunkBytes, contextBytes)
				if len(excerpts) == 0 || (chunkBytes <= 300 && len(excerpts) < 2) {
					t.Fatalf("%d excerpts of a %d-byte text", len(excerpts), len(text))
				}
				owner := make([]int, len(changes))
				for i := range owner {
					owner[i] = -1
				}
				for ei, e := range excerpts {
					if len(e.passages) == 0 {
						t.Fatalf("excerpt %d has no passage", ei)
					}
					if n := e.size(); n > chunkBytes && len(e.passages) > 1 {
						t.Errorf("excerpt %d: %d bytes in %d passages, want at most %d", ei, n, len(e.passages), chunkBytes)
					}
					for pi, p := range e.passages {
						if p.start >= p.end || (pi > 0 && e.passages[pi-1].end > p.start) {
							t.Errorf("excerpt %d: passages %v are not ordered, disjoint and non-empty", ei, e.passages)
						}
						if (p.start < len(text) && !utf8.RuneStart(text[p.start])) || (p.end < len(text) && !utf8.RuneStart(text[p.end])) {
							t.Errorf("excerpt %d: passage %v cuts a rune", ei, p)
						}
					}
					if !utf8.ValidString(e.render(text)) {
						t.Errorf("excerpt %d is not valid UTF-8", ei)
					}
					for _, ci := range e.changes {
						if owner[ci] >= 0 {
							t.Errorf("change %d in excerpts %d and %d", ci, owner[ci], ei)
						}
						owner[ci] = ei
						c := changes[ci]
						n := e.passageOf(c.Start, c.End)
						if n < 0 {
							t.Errorf("change %d [%d,%d) is in no passage of excerpt %d: %v", ci, c.Start, c.End, ei, e.passages)
							continue
						}
						p := e.passages[n]
						if lo, hi := max(0, c.Start-contextBytes), min(len(text), c.End+contextBytes); p.start > lo || p.end < hi {
							t.Errorf("passage %v holds less than [%d,%d) around change %d", p, lo, hi, ci)
						}
					}
				}
				for ci, ei := range owner {
					if ei < 0 {
						t.Errorf("change %d is in no excerpt", ci)
					}
				}
			})
		}
	}
}

func TestBoundaries(t *testing.T) {
	text := "First sentence here. Second one starts here and goes on. Third\nline"
	at := func(s string) int {
		i := strings.Index(text, s)
		if i < 0 {
			t.Fatalf("%q not in text", s)
		}
		return i
	}
	greek := "αβγδεζηθ"
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"start at the sentence", startBoundary(text, at("one"), 20), at("Second")},
		{"start after a space", startBoundary(text, at("starts")+2, 5), at("starts")},
		{"start at the text", startBoundary(text, 3, 20), 0},
		{"start after a line break", startBoundary(text, at("line")+2, 10), at("line")},
		{"start in a rune", startBoundary(greek, 5, 1), 4},
		{"end at the sentence", endBoundary(text, at("and"), 20), at(" Third")},
		{"end before a space", endBoundary(text, at("goes")+1, 4), at("goes") + 4},
		{"end before a line break", endBoundary(text, at("Third")+1, 10), at("\nline")},
		{"end at the text", endBoundary(text, len(text)-2, 10), len(text)},
		{"end in a rune", endBoundary(greek, 5, 1), 6},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestLocate(t *testing.T) {
	text := "Jobs in Nazereth. Nazereth again, and Job in Nazereth."
	e := &excerpt{passages: []span{{0, len(text)}}}
	first := strings.Index(text, "Nazereth")
	second := strings.Index(text[first+1:], "Nazereth") + first + 1
	third := strings.LastIndex(text, "Nazereth")
	job := strings.Index(text, "Job ")
	changes := []correction.Change{{Start: first, End: first + 8}}
	for _, tc := range []struct {
		name     string
		original string
		taken    []span
		want     int // -1: not found
	}{
		{"skips a change", "Nazereth", nil, second},
		{"skips taken", "Nazereth", []span{{second, second + 8}}, third},
		{"whole words only", "Job", nil, job},
		{"not there", "Bethlehemm", nil, -1},
		{"empty", "", nil, -1},
	} {
		s, ok := locate(text, e, tc.original, changes, tc.taken)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("%s: found at %v", tc.name, s)
		case tc.want >= 0 && (!ok || s != span{tc.want, tc.want + len(tc.original)}):
			t.Errorf("%s: %v, %v, want [%d,%d)", tc.name, s, ok, tc.want, tc.want+len(tc.original))
		}
	}
	// Only the excerpt's passages are searched.
	e2 := &excerpt{passages: []span{{0, 16}}}
	if s, ok := locate(text, e2, "Nazereth", changes, nil); ok {
		t.Errorf("found %v outside the passages", s)
	}
}

func TestSnippet(t *testing.T) {
	text := "a long line of words before\nthe Genisis and after it many more words"
	i := strings.Index(text, "Genisis")
	got := snippet(text, span{0, len(text)}, i, i+len("Genisis"), 12)
	if want := "…before the [[Genisis]] and after…"; got != want {
		t.Errorf("snippet %q, want %q", got, want)
	}
	got = snippet(text, span{i - 4, i + 11}, i, i+len("Genisis"), 40)
	if want := "the [[Genisis]] and"; got != want {
		t.Errorf("snippet within a passage %q, want %q", got, want)
	}
}
