package formats

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// checkView asserts the invariants every View must hold: Rewrite(nil)
// returns the input, Source ranges that are ok hold the bytes of the text,
// Line is in range, and edits, including ones across runs, rewrite without
// error and change nothing outside their source range.
func checkView(t *testing.T, content []byte, f Format) {
	v, err := Extract(content, f)
	if err != nil {
		if (f == TXT || f == SRT || f == VTT || f == Markdown) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Extract(%s) failed: %v", f, err)
		}
		return
	}
	out, err := v.Rewrite(nil)
	if err != nil {
		t.Fatalf("Rewrite(nil): %v", err)
	}
	if !bytes.Equal(out, content) {
		t.Fatalf("Rewrite(nil) changed the document")
	}
	src := v.src
	n := len(v.Text)
	step := max(1, n/40)
	for a := 0; a <= n; a += step {
		for _, b := range []int{a, a + 1, a + 3, a + step, n} {
			if b > n {
				continue
			}
			s0, s1, ok := v.Source(a, b)
			if s0 < 0 || s1 < s0 || s1 > len(src) {
				t.Fatalf("Source(%d, %d) = %d, %d out of range %d", a, b, s0, s1, len(src))
			}
			if ok && string(src[s0:s1]) != v.Text[a:b] {
				t.Fatalf("Source(%d, %d) = %q, text %q", a, b, src[s0:s1], v.Text[a:b])
			}
		}
		if l := v.Line(a); l < 1 || f != DOCX && l > bytes.Count(src, []byte{'\n'})+1 {
			t.Fatalf("Line(%d) = %d", a, l)
		}
	}
	// One edit inside a run changes exactly its source range.
	if n > 0 {
		a, b := n/3, n/3+min(4, n-n/3)
		if s0, s1, ok := v.Source(a, b); ok && len(v.mirrors) == 0 {
			out, err := v.Rewrite([]Edit{{a, b, "Zz"}})
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			if f == DOCX {
				return
			}
			if !bytes.HasPrefix(out, src[:s0]) || !bytes.HasSuffix(out, src[s1:]) {
				t.Fatalf("edit of [%d, %d) changed bytes outside source [%d, %d)", a, b, s0, s1)
			}
		}
	}
	// Edits across runs, awkward replacements.
	var edits []Edit
	for a := 0; a+2 <= n; a += max(3, n/7) {
		edits = append(edits, Edit{a, min(a+2+n/9, n), "1 K&<\"\\\n>"})
		if edits[len(edits)-1].End+1 <= n {
			edits = append(edits, Edit{edits[len(edits)-1].End + 1, edits[len(edits)-1].End + 1, "x"})
		}
		a = edits[len(edits)-1].End
	}
	out, err = v.Rewrite(edits)
	if err != nil {
		t.Fatalf("Rewrite(%v): %v", edits, err)
	}
	if _, err := Extract(out, f); err != nil && (f == TXT || f == SRT || f == VTT || f == Markdown || f == DOCX) {
		t.Fatalf("Extract of rewritten %s: %v", f, err)
	}
	if _, err := v.Rewrite(findNames(v.Text, sermonNames)); err != nil {
		t.Fatalf("Rewrite names: %v", err)
	}
}

func addSeeds(f *testing.F, files ...string) {
	for _, file := range files {
		b := readTestdata(f, file)
		f.Add(b)
		f.Add(crlfBOM(b))
	}
}

func FuzzTXT(f *testing.F) {
	addSeeds(f, "sermon.srt")
	f.Add([]byte("first\r\ncorinthians"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) { checkView(t, b, TXT) })
}

func FuzzSRT(f *testing.F) {
	addSeeds(f, "sermon.srt")
	f.Add([]byte("1\n00:00:01,000 --> 00:00:02,000\n<i>a</i>{\\an8}b\n2\n00:00:02,000 --> 00:00:03,000\nc\n"))
	f.Add([]byte("00:00:01,000 --> 00:00:02,000\n\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) { checkView(t, b, SRT) })
}

func FuzzVTT(f *testing.F) {
	addSeeds(f, "youtube_auto.vtt", "sermon.vtt")
	f.Add([]byte("WEBVTT\n\n00:01.000 --> 00:02.000\na<00:01.500><c> b</c>\n\n00:02.000 --> 00:03.000\na b\nc &amp; d\n"))
	f.Fuzz(func(t *testing.T, b []byte) { checkView(t, b, VTT) })
}

func FuzzMarkdown(f *testing.F) {
	addSeeds(f, "sermon_notes.md")
	f.Add([]byte("*a* `b` [c](d) <e> ![f](g)\n\n    h\n"))
	f.Fuzz(func(t *testing.T, b []byte) { checkView(t, b, Markdown) })
}

func FuzzHTML(f *testing.F) {
	addSeeds(f, "sermon.html")
	f.Add([]byte("<p>a &amp; <b>b</b>&#x41;<script>c</script></p>"))
	f.Fuzz(func(t *testing.T, b []byte) { checkView(t, b, HTML) })
}

func FuzzJSON(f *testing.F) {
	addSeeds(f, "whisper.json", "youtube.json3")
	f.Add([]byte(`{"text":"a\u00e9\ud83d\ude4f\"b","segs":[{"utf8":"c"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) { checkView(t, b, JSON) })
}

// FuzzDOCX fuzzes the body of word/document.xml inside a valid archive.
func FuzzDOCX(f *testing.F) {
	f.Add(`<w:p><w:r><w:t>first &amp;</w:t></w:r><w:r><w:t xml:space="preserve"> corinthians</w:t><w:tab/><w:t>x</w:t></w:r></w:p><w:p/>`)
	f.Add(`<w:p><!-- <w:t>no</w:t> --><w:r><w:t a=">">yes</w:t></w:r></w:p>`)
	f.Fuzz(func(t *testing.T, body string) {
		if strings.Contains(body, "\x00") {
			return
		}
		checkView(t, makeDOCX(t, body), DOCX)
	})
}

// FuzzSniff: Sniff never fails, and a document of any format, read within small limits,
// either extracts or fails with ErrTooLarge or a format error, never beyond the limits.
func FuzzSniff(f *testing.F) {
	addSeeds(f, "sermon.srt", "sermon.vtt", "sermon_notes.md", "sermon.html", "whisper.json")
	f.Add(makeDOCX(f, `<w:p><w:r><w:t>first corinthians</w:t></w:r></w:p>`))
	f.Add([]byte(strings.Repeat("> ", 200) + "a"))
	f.Add([]byte(strings.Repeat("&nGt;", 300)))
	small := Limits{MaxText: 1000, MaxRuns: 50, MaxEscapes: 50, MaxTokens: 400, MaxMarkdownTokens: 200,
		MaxMarkdownLinkCost: 20_000, MaxDepth: 20, MaxDocxXML: 4000, MaxEntries: 20}
	f.Fuzz(func(t *testing.T, content []byte) {
		format := Sniff(content)
		v, err := ExtractWithin(content, format, small)
		if err != nil {
			return
		}
		if len(v.Text) > small.MaxText || len(v.runs) > small.MaxRuns {
			t.Fatalf("%s within the limits gave %d bytes of text and %d runs", format, len(v.Text), len(v.runs))
		}
	})
}
