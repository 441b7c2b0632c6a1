package pipeline

import (
	"strings"
	"testing"

	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

func TestMarkShowsTheReviewedTextWithEachChangeInPlace(t *testing.T) {
	docs := []struct {
		format formats.Format
		doc    []byte
	}{
		{formats.TXT, []byte("read Revelations 21:4 past capernum\n")},
		{formats.SRT, []byte("1\r\n00:00:01,000 --> 00:00:02,000\r\nread <i>Revelations</i> 21:4\r\n\r\n2\r\n00:00:02,000 --> 00:00:03,000\r\npast capernum\r\n")},
		{formats.Markdown, []byte("---\ntitle: capernum\n---\n# Notes\n\nread **Revelations** 21:4 `past capernum` past capernum\n")},
		{formats.HTML, []byte("<!doctype html><p class=\"past\">read <b>Revelations</b> 21:4 &amp; past capernum</p>")},
		{formats.DOCX, docx(t, "read Revelations 21:4", "past capernum")},
	}
	for _, d := range docs {
		p, _ := newProcessor(t)
		res, err := p.Correct(d.doc, d.format, correction.Options{})
		if err != nil {
			t.Fatalf("%s: %v", d.format, err)
		}
		src := sourceOf(t, d.format, d.doc)
		past := strings.LastIndex(src[:res.Changes[1].Start], "past")
		for _, tc := range []struct {
			name      string
			decisions []Decision
		}{
			{"before any decision", nil},
			{"after an accept, a reject and an add", []Decision{accept("chg_0002"), reject("chg_0001"), add(past, past+4, "passed")}},
			{"after a replace", []Decision{replace("chg_0001", "Revelation")}},
		} {
			t.Run(string(d.format)+": "+tc.name, func(t *testing.T) {
				rev, err := Decide(d.doc, d.format, plain(res.Changes), nil, tc.decisions)
				if err != nil {
					t.Fatal(err)
				}
				m, err := Mark(d.doc, d.format, rev.Changes)
				if err != nil {
					t.Fatal(err)
				}
				reviewed, err := formats.Extract(rev.Content, d.format)
				if err != nil {
					t.Fatal(err)
				}
				var text strings.Builder
				seen := map[int]bool{}
				for _, pc := range m.Pieces {
					text.WriteString(pc.Text)
					if pc.Change >= 0 {
						seen[pc.Change] = true
						if c := rev.Changes[pc.Change]; c.IsApplied() && pc.Text != c.Written() || !c.IsApplied() && pc.Text != c.Original {
							t.Errorf("change %s shows %q", c.ID, pc.Text)
						}
					}
					if pc.Src >= 0 && src[pc.Src:pc.Src+len(pc.Text)] != pc.Text {
						t.Errorf("text %q is said to be at %d of the document, which holds %q there", pc.Text, pc.Src, src[pc.Src:pc.Src+len(pc.Text)])
					}
				}
				if text.String() != reviewed.Text {
					t.Errorf("marked text\n%q\nwant the reviewed content's\n%q", text.String(), reviewed.Text)
				}
				if len(seen)+len(m.Apart) != len(rev.Changes) {
					t.Errorf("%d changes shown in place and %d apart, want %d in all", len(seen), len(m.Apart), len(rev.Changes))
				}
			})
		}
	}
}

func TestMarkShowsAChangeOverlappingAnAppliedOneApart(t *testing.T) {
	doc := []byte("read Revelations now\n")
	yes, no := true, false
	changes := []Change{
		{Change: correction.Change{ID: "chg_0001", Original: "Revelations", Replacement: "Revelation", Start: 5, End: 16, Status: correction.StatusAutoApplied}, Applied: &yes},
		{Change: correction.Change{ID: "chg_0002", Original: "Revelations now", Replacement: "Revelation, now", Start: 5, End: 20, Status: correction.StatusNeedsReview}, Applied: &no},
	}
	m, err := Mark(doc, formats.TXT, changes)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Apart) != 1 || m.Apart[0] != 1 {
		t.Fatalf("apart %v, want the suggestion overlapping the applied change", m.Apart)
	}
	if len(m.Pieces) != 3 || m.Pieces[1].Change != 0 || m.Pieces[1].Text != "Revelation" {
		t.Fatalf("pieces %+v", m.Pieces)
	}
}
