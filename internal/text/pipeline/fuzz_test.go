package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

// fuzzFormats are the formats FuzzDecide writes documents in.
var fuzzFormats = []formats.Format{formats.TXT, formats.SRT, formats.VTT, formats.Markdown, formats.HTML, formats.JSON, formats.DOCX}

// fuzzDocument returns text as a document of format f: a cue, segment or paragraph per line.
func fuzzDocument(t *testing.T, f formats.Format, text string) []byte {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	switch f {
	case formats.SRT:
		for i, l := range lines {
			fmt.Fprintf(&b, "%d\n00:00:%02d,000 --> 00:00:%02d,500\n%s\n\n", i+1, i%60, i%60, l)
		}
	case formats.VTT:
		b.WriteString("WEBVTT\n\n")
		for i, l := range lines {
			// Numbered, so that no line repeats the previous cue's (rolling captions).
			fmt.Fprintf(&b, "00:00:%02d.000 --> 00:00:%02d.500\n%d %s\n\n", i%60, i%60, i, l)
		}
	case formats.HTML:
		for _, l := range lines {
			b.WriteString("<p>" + l + "</p>\n")
		}
	case formats.JSON:
		segs := make([]map[string]any, len(lines))
		for i, l := range lines {
			segs[i] = map[string]any{"id": i, "text": l}
		}
		raw, err := json.Marshal(map[string]any{"title": text, "segments": segs})
		if err != nil {
			t.Skip("not JSON-encodable")
		}
		return raw
	case formats.DOCX:
		paragraphs := make([]string, len(lines))
		for i, l := range lines {
			paragraphs[i] = html.EscapeString(l)
		}
		return docx(t, paragraphs...)
	default:
		return []byte(text)
	}
	return []byte(b.String())
}

// fuzzReplacements are the replacements of the fuzzed decisions: some valid, some not.
var fuzzReplacements = []string{"Capernaum", "passed", "é è", "Rev", "", "a\nb", strings.Repeat("x", MaxReplacementBytes+1)}

// fuzzDecisions reads decisions from ops, five bytes each, for changes and a source of size n.
func fuzzDecisions(ops []byte, changes []correction.Change, n int) []Decision {
	var out []Decision
	for ; len(ops) >= 5 && len(out) < 64; ops = ops[5:] {
		d := Decision{Action: []string{ActionAccept, ActionReject, ActionReplace, ActionAdd}[ops[0]%4], By: "fuzz", At: decidedAt}
		if d.Action == ActionAdd {
			d.Start = int(ops[1]) * n / 256
			d.End = d.Start + 1 + int(ops[2])%16
		} else if k := int(ops[1]) % (len(changes) + 1); k < len(changes) {
			d.ChangeID = changes[k].ID
		} else {
			d.ChangeID = "chg_u0001"
		}
		if d.Action == ActionAdd || d.Action == ActionReplace {
			d.Replacement = fuzzReplacements[int(ops[3])%len(fuzzReplacements)]
		}
		out = append(out, d)
	}
	return out
}

// FuzzDecide applies random decisions to random documents of every format and checks that
// the reviewed content differs from the submitted document only in the spans of the applied
// changes, which hold what the changes write.
func FuzzDecide(f *testing.F) {
	f.Add(uint8(0), "read Revelations 21:4 past capernum", []byte{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 128, 4, 1, 0})
	f.Add(uint8(1), "turn with me to first\ncorinthians thirteen\npast capernum", []byte{2, 0, 0, 0, 0, 3, 200, 3, 1, 0})
	f.Add(uint8(2), "read Revelations 21:4\npast capernum", []byte{0, 1, 0, 0, 0, 3, 10, 5, 2, 0, 1, 0, 0, 0, 0})
	f.Add(uint8(3), "# Notes\n\nread **Revelations** `capernum` 21:4 past capernum", []byte{3, 140, 3, 0, 0, 0, 1, 0, 0, 0})
	f.Add(uint8(4), "read <b>Revelations</b> 21:4 &amp; past ca<i>per</i>num", []byte{3, 30, 7, 1, 0, 2, 0, 0, 3, 0})
	f.Add(uint8(5), "read Revelations 21:4 \"past\" capernum\u2014amen", []byte{0, 1, 0, 0, 0, 3, 100, 6, 0, 0})
	f.Add(uint8(6), "read Revelations 21:4\npast capernum & more", []byte{3, 200, 3, 1, 0, 1, 0, 0, 0, 0})
	engine, err := correction.NewEngine()
	if err != nil {
		f.Fatal(err)
	}
	p := New(engine, nil)
	f.Fuzz(func(t *testing.T, which uint8, text string, ops []byte) {
		if len(text) > 2000 {
			return
		}
		format := fuzzFormats[int(which)%len(fuzzFormats)]
		doc := fuzzDocument(t, format, text)
		res, err := p.Correct(doc, format, correction.Options{})
		if err != nil {
			return // not a document of its format
		}
		src := sourceOf(t, format, doc)
		rev, err := Decide(doc, format, plain(res.Changes), nil, fuzzDecisions(ops, res.Changes, len(src)))
		var de *DecisionError
		if errors.As(err, &de) {
			if de.Param == "" || !strings.HasPrefix(de.Message, de.Param) {
				t.Fatalf("a decision error that names nothing: %+v", de)
			}
			return
		}
		if err != nil {
			t.Fatalf("Decide: %v", err)
		}
		checkOutside(t, src, sourceOf(t, format, rev.Content), rev.Changes)
	})
}

// checkOutside checks that out is src with the spans of the applied changes replaced by what
// they write. Where a change's span is not its original verbatim (it crosses runs, or
// escapes are re-encoded) what it writes is not known here: the check then goes from either
// end up to that change, and the blanks a change across runs removes after it are allowed.
func checkOutside(t *testing.T, src, out string, changes []Change) {
	t.Helper()
	type part struct {
		text   string
		loose  bool // an applied change whose bytes are not known
		strip  bool // a gap after a loose change: its leading blanks may be gone
		change string
	}
	var parts []part
	at, prevLoose := 0, false
	for _, c := range changes {
		if !c.IsApplied() {
			continue
		}
		if c.Start < at {
			t.Fatalf("applied changes overlap at %s: %+v", c.ID, changes)
		}
		parts = append(parts, part{text: src[at:c.Start], strip: prevLoose})
		// A line break in the original may be a separator whose source bytes are the same.
		loose := src[c.Start:c.End] != c.Original || strings.Contains(c.Original, "\n")
		parts = append(parts, part{text: c.Written(), loose: loose, change: c.ID})
		at, prevLoose = c.End, loose
	}
	parts = append(parts, part{text: src[at:], strip: prevLoose})
	left, right := 0, len(out)
	i := 0
	for ; i < len(parts) && !parts[i].loose; i++ {
		if !strings.HasPrefix(out[left:], parts[i].text) {
			t.Fatalf("after byte %d the content is %q, want %q (part %d, change %q) in\n%q", left, clip(out[left:]), clip(parts[i].text), i, parts[i].change, out)
		}
		left += len(parts[i].text)
	}
	if i == len(parts) {
		if left != len(out) {
			t.Fatalf("the content goes on after the document: %q", out[left:])
		}
		return
	}
	for j := len(parts) - 1; j > i && !parts[j].loose; j-- {
		want := parts[j].text
		if parts[j].strip {
			want = strings.TrimLeft(want, " \t")
		}
		if !strings.HasSuffix(out[:right], want) {
			t.Fatalf("before byte %d the content is %q, want %q (part %d) in\n%q", right, out[:right], want, j, out)
		}
		right -= len(want)
	}
	if left > right {
		t.Fatalf("the kept parts overlap in %q", out)
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
