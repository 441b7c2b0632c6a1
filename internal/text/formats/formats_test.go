package formats

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		ok   bool
	}{
		{"txt", TXT, true},
		{"text", TXT, true},
		{"srt", SRT, true},
		{"vtt", VTT, true},
		{"WebVTT", VTT, true},
		{"markdown", Markdown, true},
		{" md ", Markdown, true},
		{"html", HTML, true},
		{"HTM", HTML, true},
		{"json", JSON, true},
		{"docx", DOCX, true},
		{"", "", false},
		{"pdf", "", false},
		{"doc", "", false},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Parse(%q) error %v is not ErrUnknownFormat", tt.in, err)
		}
	}
	if _, err := Extract([]byte("x"), Format("pdf")); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Extract with unknown format: err = %v", err)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name    string
		content []byte
		want    Format
	}{
		{"srt file", readTestdata(t, "sermon.srt"), SRT},
		{"srt crlf bom", crlfBOM(readTestdata(t, "sermon.srt")), SRT},
		{"srt timing first", []byte("00:00:01,000 --> 00:00:02,000\nhello\n"), SRT},
		{"youtube vtt", readTestdata(t, "youtube_auto.vtt"), VTT},
		{"vtt", readTestdata(t, "sermon.vtt"), VTT},
		{"markdown", readTestdata(t, "sermon_notes.md"), Markdown},
		{"markdown heading", []byte("Intro\n\n## Part one\ntext\n"), Markdown},
		{"markdown link", []byte("see [the notes](https://x.org)\n"), Markdown},
		{"html", readTestdata(t, "sermon.html"), HTML},
		{"html fragment", []byte("<p>first corinthians</p>"), HTML},
		{"whisper", readTestdata(t, "whisper.json"), JSON},
		{"json3", readTestdata(t, "youtube.json3"), JSON},
		{"json array", []byte(`[{"text":"a"}]`), JSON},
		{"broken json", []byte(`{"text": "a"`), TXT},
		{"plain", []byte("Good morning church. Turn to first corinthians.\n"), TXT},
		{"number line", []byte("3\nthings to say\n"), TXT},
		{"hashtag", []byte("#blessed\n"), TXT},
		{"empty", nil, TXT},
		{"docx", makeDOCX(t, `<w:p><w:r><w:t>x</w:t></w:r></w:p>`), DOCX},
		{"zip", makeZip(t, []docxEntry{{"a.txt", "x", 0}}), TXT},
	}
	for _, tt := range tests {
		if got := Sniff(tt.content); got != tt.want {
			t.Errorf("%s: Sniff = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// samples are the realistic documents in testdata and their formats.
var samples = []struct {
	file   string
	format Format
}{
	{"sermon.srt", SRT},
	{"youtube_auto.vtt", VTT},
	{"sermon.vtt", VTT},
	{"sermon_notes.md", Markdown},
	{"sermon.html", HTML},
	{"whisper.json", JSON},
	{"youtube.json3", JSON},
	{"sermon.srt", TXT},
}

func TestRewriteNilIsIdentity(t *testing.T) {
	for _, s := range samples {
		for _, variant := range []string{"lf", "crlf+bom"} {
			content := readTestdata(t, s.file)
			if variant != "lf" {
				content = crlfBOM(content)
			}
			v := mustExtract(t, content, s.format)
			if out := mustRewrite(t, v, nil); !bytes.Equal(out, content) {
				t.Errorf("%s %s %s: Rewrite(nil) changed the document", s.file, s.format, variant)
			}
			// Edits that replace text by itself change nothing either.
			var same []Edit
			for i := 0; i+5 <= len(v.Text); i += 7 {
				same = append(same, Edit{i, i + 5, v.Text[i : i+5]})
			}
			if out := mustRewrite(t, v, same); !bytes.Equal(out, content) {
				t.Errorf("%s %s %s: identity edits changed the document", s.file, s.format, variant)
			}
		}
	}
}

// TestGolden applies the test names to every sample and compares the
// result with testdata/<file>.<format>.golden (go test -update rewrites
// them).
func TestGolden(t *testing.T) {
	for _, s := range samples {
		content := readTestdata(t, s.file)
		v := mustExtract(t, content, s.format)
		edits := findNames(v.Text, sermonNames)
		if len(edits) == 0 {
			t.Errorf("%s: no names found in %q", s.file, v.Text)
		}
		out := mustRewrite(t, v, edits)
		golden := filepath.Join("testdata", s.file+"."+string(s.format)+".golden")
		if *update {
			if err := os.WriteFile(golden, out, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%s as %s: got\n%s\nwant\n%s", s.file, s.format, out, want)
		}
		// The output still parses, and the names are now correct.
		v2 := mustExtract(t, out, s.format)
		if left := findNames(v2.Text, sermonNames); len(left) > 0 {
			t.Errorf("%s: names left after rewrite: %v in %q", s.file, left, v2.Text)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		want   string
	}{
		{"sermon.srt", SRT, "Good morning church, please turn\nin your Bibles to first\ncorinthians thirteen, the love chapter.\n" +
			"Paul wrote this letter from ephesus\nto the church at Corinth.\nRemember what happened in\nCapernum when Jesus taught?\n" +
			"And in the book of Jerry Maya,\nchapter twenty nine, verse eleven."},
		{"youtube_auto.vtt", VTT, "good morning church turn with me\nto first corinthians thirteen\npaul wrote from ephesus to the first\n" +
			"corinthians church & to us\n[Music]"},
		{"sermon.vtt", VTT, "Open your Bibles to Jerry Maya\nchapter twenty nine.\nFor I know the plans I have for you,\ndeclares the Lord.\n" +
			"Jesus went down to Capernum & taught\non the sabbath <Mark 1>."},
		{"sermon.html", HTML, "Sermon: first corinthians 13\nLove & Patience\nTurn to first corinthians thirteen. Paul wrote from\n" +
			"ephesus\u00a0to Corinth.\nJesus taught in Capernum\u2014by the sea.\nJeremiah 29:11 \u2014 plans <to prosper>."},
		{"youtube.json3", JSON, "good morning turn to first\ncorinthians thirteen from ephesus"},
		{"whisper.json", JSON, " Good morning church. Turn to first corinthians thirteen. Paul wrote from ephesus \u2014 \"love never fails\".\n" +
			" Good morning church. Turn to first\n corinthians thirteen. Paul wrote from ephesus \u2014 \"love never fails\"."},
	}
	for _, tt := range tests {
		v := mustExtract(t, readTestdata(t, tt.file), tt.format)
		if v.Text != tt.want {
			t.Errorf("%s: Text =\n%q\nwant\n%q", tt.file, v.Text, tt.want)
		}
	}
}

func TestMarkdownSkips(t *testing.T) {
	v := mustExtract(t, readTestdata(t, "sermon_notes.md"), Markdown)
	for _, bad := range []string{"title:", "speaker", "example.org", "biblegateway", `"book"`, "indented code", "<span", "map", "png", "search key`"} {
		if strings.Contains(v.Text, bad) {
			t.Errorf("markdown text contains %q: %q", bad, v.Text)
		}
	}
	for _, good := range []string{"Love Never Fails: first corinthians 13", "notes on first corinthians", "Jerry Maya 29:11", "Capernum", "first corinthians  in inline HTML"} {
		if !strings.Contains(v.Text, good) {
			t.Errorf("markdown text lacks %q: %q", good, v.Text)
		}
	}
}

func TestHTMLSkips(t *testing.T) {
	v := mustExtract(t, readTestdata(t, "sermon.html"), HTML)
	for _, bad := range []string{"font-family", "var book", "draft", "example.org", "charset", "&amp;", "DOCTYPE"} {
		if strings.Contains(v.Text, bad) {
			t.Errorf("html text contains %q: %q", bad, v.Text)
		}
	}
	// Code is not prose: a library named like a biblical town stays out.
	v = mustExtract(t, []byte("<p>Install <code>capernum</code> and run <pre>jericho --walls\n</pre> in jerusalem, "+
		"<kbd>romans</kbd> <samp>bethel</samp> <var>acts</var> <tt>zion</tt></p>"), HTML)
	for _, bad := range []string{"capernum", "jericho", "romans", "bethel", "acts", "zion"} {
		if strings.Contains(v.Text, bad) {
			t.Errorf("html text contains code %q: %q", bad, v.Text)
		}
	}
	if !strings.Contains(v.Text, "in jerusalem") {
		t.Errorf("html text lacks the prose after the code: %q", v.Text)
	}
}

// TestExactSpan checks that an edit inside one run changes exactly the
// source bytes Source reports, in every sample.
func TestExactSpan(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		old    string
		nth    int
		repl   string
		want   string // the source bytes after the change, in place of the old ones
	}{
		{"sermon.srt", SRT, "Jerry Maya", 0, "Jeremiah", "Jeremiah"},
		{"sermon.srt", SRT, "ephesus", 0, "Ephesus", "Ephesus"},
		{"sermon.vtt", VTT, "<Mark 1>", 0, "<Mark 1:21>", "&lt;Mark 1:21&gt;"},
		{"sermon.vtt", VTT, "Capernum", 0, "Capernaum", "Capernaum"},
		{"sermon_notes.md", Markdown, "ephesus", 0, "Ephesus", "Ephesus"},
		{"sermon.html", HTML, "Capernum", 0, "Capernaum", "Capernaum"},
		{"sermon.html", HTML, "Love & Patience", 0, "Love & Patience!", "Love &amp; Patience!"},
		{"whisper.json", JSON, "ephesus \u2014 \"love", 1, "Ephesus - \"Love", `Ephesus - \"Love`},
		{"youtube.json3", JSON, "ephesus", 0, "Ephesus", "Ephesus"},
	}
	for _, tt := range tests {
		content := readTestdata(t, tt.file)
		v := mustExtract(t, content, tt.format)
		e := editAt(t, v, tt.old, tt.nth, tt.repl)
		s0, s1, _ := v.Source(e.Start, e.End)
		out := mustRewrite(t, v, []Edit{e})
		want := string(content[:s0]) + tt.want + string(content[s1:])
		if string(out) != want {
			t.Errorf("%s: %q -> %q: got\n%s\nwant\n%s", tt.file, tt.old, tt.repl, out, want)
		}
	}
}

// TestCrossRun checks edits whose range crosses a separator or markup.
func TestCrossRun(t *testing.T) {
	tests := []struct {
		name    string
		format  Format
		content string
		old     string
		repl    string
		want    string
	}{
		{
			name:    "srt across cues",
			format:  SRT,
			content: "1\n00:00:01,000 --> 00:00:02,000\nturn to first\n\n2\n00:00:02,000 --> 00:00:04,000\ncorinthians thirteen now\n",
			old:     "first\ncorinthians",
			repl:    "1 Corinthians",
			want:    "1\n00:00:01,000 --> 00:00:02,000\nturn to 1 Corinthians\n\n2\n00:00:02,000 --> 00:00:04,000\nthirteen now\n",
		},
		{
			name:    "srt crlf across lines of a cue",
			format:  SRT,
			content: "\ufeff1\r\n00:00:01,000 --> 00:00:02,000\r\nin the book of Jerry\r\nMaya we read\r\n",
			old:     "Jerry\nMaya",
			repl:    "Jeremiah",
			want:    "\ufeff1\r\n00:00:01,000 --> 00:00:02,000\r\nin the book of Jeremiah\r\nwe read\r\n",
		},
		{
			name:    "srt across three cues",
			format:  SRT,
			content: "1\n00:00:01,000 --> 00:00:02,000\nthe first\n\n2\n00:00:02,000 --> 00:00:03,000\nbook of\n\n3\n00:00:03,000 --> 00:00:04,000\nkings says\n",
			old:     "first\nbook of\nkings",
			repl:    "1 Kings",
			want:    "1\n00:00:01,000 --> 00:00:02,000\nthe 1 Kings\n\n2\n00:00:02,000 --> 00:00:03,000\n\n\n3\n00:00:03,000 --> 00:00:04,000\nsays\n",
		},
		{
			name:    "vtt across cues",
			format:  VTT,
			content: "WEBVTT\n\n00:01.000 --> 00:02.000\nturn to first\n\n00:02.000 --> 00:04.000 align:start\n<v Dan>corinthians thirteen\n",
			old:     "first\ncorinthians",
			repl:    "1 Corinthians",
			want:    "WEBVTT\n\n00:01.000 --> 00:02.000\nturn to 1 Corinthians\n\n00:02.000 --> 00:04.000 align:start\n<v Dan>thirteen\n",
		},
		{
			name:    "html across inline tag",
			format:  HTML,
			content: "<p>Turn to <b>first</b> corinthians thirteen.</p>",
			old:     "first corinthians",
			repl:    "1 Corinthians",
			want:    "<p>Turn to <b>1 Corinthians</b> thirteen.</p>",
		},
		{
			name:    "html word split by tag",
			format:  HTML,
			content: "<p>In Caper<i>num</i> he taught</p>",
			old:     "Capernum",
			repl:    "Capernaum",
			want:    "<p>In Capernaum<i></i> he taught</p>",
		},
		{
			name:    "markdown across emphasis",
			format:  Markdown,
			content: "Read *first* corinthians today.\n",
			old:     "first corinthians",
			repl:    "1 Corinthians",
			want:    "Read *1 Corinthians* today.\n",
		},
		{
			name:    "markdown across soft line break",
			format:  Markdown,
			content: "Read first\ncorinthians today.\n",
			old:     "first\ncorinthians",
			repl:    "1 Corinthians",
			want:    "Read 1 Corinthians\ntoday.\n",
		},
		{
			name:    "whisper segments",
			format:  JSON,
			content: `{"segments":[{"id":0,"text":" Turn to first"},{"id":1,"text":" corinthians thirteen."}]}`,
			old:     "first\n corinthians",
			repl:    "1 Corinthians",
			want:    `{"segments":[{"id":0,"text":" Turn to 1 Corinthians"},{"id":1,"text":"thirteen."}]}`,
		},
		{
			name:    "json3 events",
			format:  JSON,
			content: `{"events":[{"segs":[{"utf8":"to"},{"utf8":" first"}]},{"segs":[{"utf8":"corinthians"},{"utf8":" thirteen"}]}]}`,
			old:     "first\ncorinthians",
			repl:    "1 Corinthians",
			want:    `{"events":[{"segs":[{"utf8":"to"},{"utf8":" 1 Corinthians"}]},{"segs":[{"utf8":""},{"utf8":"thirteen"}]}]}`,
		},
		{
			name:    "replace a separator only",
			format:  SRT,
			content: "1\n00:00:01,000 --> 00:00:02,000\na\nb\n",
			old:     "\n",
			repl:    " and",
			want:    "1\n00:00:01,000 --> 00:00:02,000\na and\nb\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustExtract(t, []byte(tt.content), tt.format)
			out := mustRewrite(t, v, []Edit{editAt(t, v, tt.old, 0, tt.repl)})
			if string(out) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", out, tt.want)
			}
		})
	}
}

func TestYouTubeRolling(t *testing.T) {
	content := readTestdata(t, "youtube_auto.vtt")
	v := mustExtract(t, content, VTT)
	if n := strings.Count(v.Text, "first corinthians"); n != 1 {
		t.Errorf("View shows %q %d times, want once: %q", "first corinthians", n, v.Text)
	}
	out := mustRewrite(t, v, []Edit{editAt(t, v, "first corinthians", 0, "1 Corinthians")})
	got := string(out)
	if strings.Contains(got, "to first corinthians") {
		t.Errorf("a copy of the line was not corrected:\n%s", got)
	}
	if n := strings.Count(got, "to 1 Corinthians thirteen"); n != 2 {
		t.Errorf("want 2 corrected plain copies, got %d:\n%s", n, got)
	}
	if !strings.Contains(got, "to<00:00:03.000><c> 1 Corinthians</c><00:00:03.500><c></c><00:00:04.100><c> thirteen</c>") {
		t.Errorf("tagged line not corrected as expected:\n%s", got)
	}
	// Everything else is byte-identical.
	want := strings.ReplaceAll(string(content), "to first corinthians thirteen", "to 1 Corinthians thirteen")
	want = strings.Replace(want, "<c> first</c><00:00:03.500><c> corinthians</c>", "<c> 1 Corinthians</c><00:00:03.500><c></c>", 1)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSourceAndLine(t *testing.T) {
	content := readTestdata(t, "sermon.html")
	v := mustExtract(t, content, HTML)
	e := editAt(t, v, "Capernum", 0, "")
	s0, s1, ok := v.Source(e.Start, e.End)
	if !ok || string(content[s0:s1]) != "Capernum" {
		t.Errorf("Source(Capernum) = %d, %d, %v: %q", s0, s1, ok, content[s0:s1])
	}
	if got := v.Line(e.Start); got != 19 {
		t.Errorf("Line(Capernum) = %d, want 19", got)
	}
	e = editAt(t, v, "Love & Patience", 0, "")
	s0, s1, ok = v.Source(e.Start, e.End)
	if ok || string(content[s0:s1]) != "Love &amp; Patience" {
		t.Errorf("Source over an entity = %q, %v; want the covering range and ok=false", content[s0:s1], ok)
	}
	e = editAt(t, v, "first corinthians thirteen", 0, "")
	s0, s1, ok = v.Source(e.Start, e.End)
	if ok || string(content[s0:s1]) != "first</b> corinthians thirteen" {
		t.Errorf("Source across a tag = %q, %v", content[s0:s1], ok)
	}
	if _, _, ok := v.Source(-1, 3); ok {
		t.Error("Source(-1, 3) ok")
	}
	if _, _, ok := v.Source(3, len(v.Text)+1); ok {
		t.Error("Source past the end ok")
	}

	srt := crlfBOM(readTestdata(t, "sermon.srt"))
	v = mustExtract(t, srt, SRT)
	for _, c := range []struct {
		old  string
		line int
	}{{"Good morning", 3}, {"corinthians", 8}, {"Jerry Maya", 22}} {
		e := editAt(t, v, c.old, 0, "")
		if got := v.Line(e.Start); got != c.line {
			t.Errorf("SRT Line(%q) = %d, want %d", c.old, got, c.line)
		}
		s0, s1, ok := v.Source(e.Start, e.End)
		if !ok || string(srt[s0:s1]) != c.old {
			t.Errorf("SRT Source(%q) = %q, %v", c.old, srt[s0:s1], ok)
		}
	}
	e = editAt(t, v, "first\ncorinthians", 0, "")
	if _, _, ok := v.Source(e.Start, e.End); ok {
		t.Error("Source across cues ok")
	}

	j := readTestdata(t, "whisper.json")
	v = mustExtract(t, j, JSON)
	e = editAt(t, v, "\"love", 1, "")
	s0, s1, ok = v.Source(e.Start, e.End)
	if ok || string(j[s0:s1]) != `\"love` {
		t.Errorf("JSON Source over an escape = %q, %v", j[s0:s1], ok)
	}
	if got := v.Line(e.Start); got != 21 {
		t.Errorf("JSON Line = %d, want 21", got)
	}
}

func TestRewriteErrors(t *testing.T) {
	v := mustExtract(t, []byte("first corinthians"), TXT)
	for _, edits := range [][]Edit{
		{{-1, 2, "x"}},
		{{2, 1, "x"}},
		{{0, 100, "x"}},
		{{5, 8, "x"}, {6, 9, "y"}},
		{{5, 8, "x"}, {0, 1, "y"}},
	} {
		if _, err := v.Rewrite(edits); err == nil {
			t.Errorf("Rewrite(%v) succeeded", edits)
		}
	}
	// Adjacent edits and an insertion at an edit's start are fine.
	out, err := v.Rewrite([]Edit{{0, 0, ">"}, {0, 5, "1"}, {5, 5, ""}, {6, 17, "Corinthians"}})
	if err != nil || string(out) != ">1 Corinthians" {
		t.Errorf("Rewrite = %q, %v", out, err)
	}
	empty := mustExtract(t, []byte("1\n00:00:01,000 --> 00:00:02,000\n\n"), SRT)
	if empty.Text != "" {
		t.Errorf("Text = %q", empty.Text)
	}
	if _, err := empty.Rewrite([]Edit{{0, 0, "x"}}); err == nil {
		t.Error("inserting into a document without text succeeded")
	}
	if out, err := empty.Rewrite([]Edit{{0, 0, ""}}); err != nil || string(out) != "1\n00:00:01,000 --> 00:00:02,000\n\n" {
		t.Errorf("empty edit: %q, %v", out, err)
	}
}

func TestJSONErrors(t *testing.T) {
	for _, s := range []string{``, `{`, `{"text": "a"`, `{"text": "a\x"}`, `[1,]`, `{"a" 1}`, `01`, `"a" "b"`, "\"a\x01\"", strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if _, err := Extract([]byte(s), JSON); err == nil {
			t.Errorf("Extract(%q) succeeded", s)
		}
	}
}

func TestJSONEscapes(t *testing.T) {
	content := `{"text":"caf\u00e9 \ud83d\ude4f first\tcorinthians \"13\" a\/b","title":"first corinthians"}`
	v := mustExtract(t, []byte(content), JSON)
	if want := "caf\u00e9 \U0001F64F first\tcorinthians \"13\" a/b"; v.Text != want {
		t.Fatalf("Text = %q, want %q", v.Text, want)
	}
	out := mustRewrite(t, v, []Edit{editAt(t, v, "first\tcorinthians \"13\"", 0, "1 Corinthians \"13\"\n")})
	want := `{"text":"caf\u00e9 \ud83d\ude4f 1 Corinthians \"13\"\n a\/b","title":"first corinthians"}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	// An edit that starts inside a multi-byte escape takes the whole escape.
	e := editAt(t, v, "\u00e9", 0, "")
	out = mustRewrite(t, v, []Edit{{e.Start + 1, e.End, "\xa9!"}})
	if want := `{"text":"caf` + "\u00e9!" + ` \ud83d\ude4f`; !strings.HasPrefix(string(out), want) {
		t.Errorf("got %s", out)
	}
}

func TestVTTBlocks(t *testing.T) {
	v := mustExtract(t, readTestdata(t, "sermon.vtt"), VTT)
	for _, bad := range []string{"Sunday", "media team", "color", "fred", "intro", "-->", "line:", "Pastor", "comment"} {
		if strings.Contains(v.Text, bad) {
			t.Errorf("VTT text contains %q: %q", bad, v.Text)
		}
	}
}

func TestDOCX(t *testing.T) {
	body := `<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>Love &amp; first</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve"> corin</w:t></w:r><w:r><w:t>thians</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t xml:space="preserve">Paul wrote from ephesus </w:t></w:r><w:r><w:tab/><w:t>to</w:t><w:br/><w:t>Capernum</w:t></w:r><w:del><w:r><w:delText>ephesus</w:delText></w:r></w:del></w:p><w:p/>`
	content := makeDOCX(t, body)
	if Sniff(content) != DOCX {
		t.Fatal("Sniff did not find DOCX")
	}
	v := mustExtract(t, content, DOCX)
	if want := "Love & first corinthians\nPaul wrote from ephesus  to\nCapernum"; v.Text != want {
		t.Fatalf("Text = %q, want %q", v.Text, want)
	}
	if out := mustRewrite(t, v, nil); !bytes.Equal(out, content) {
		t.Error("Rewrite(nil) changed the archive")
	}
	if got := v.Line(strings.Index(v.Text, "Capernum")); got != 2 {
		t.Errorf("Line = %d, want paragraph 2", got)
	}
	out := mustRewrite(t, v, findNames(v.Text, sermonNames))
	names, got, raw := zipEntries(t, out)
	wantNames, orig, origRaw := zipEntries(t, content)
	if strings.Join(names, ",") != strings.Join(wantNames, ",") {
		t.Errorf("entries %v, want %v", names, wantNames)
	}
	for _, n := range names {
		if n == docxMain {
			continue
		}
		if !bytes.Equal(got[n], orig[n]) || !bytes.Equal(raw[n], origRaw[n]) {
			t.Errorf("entry %s changed", n)
		}
	}
	wantXML := strings.Replace(string(orig[docxMain]), body,
		`<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t xml:space="preserve">Love &amp; 1 Corinthians</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve"></w:t></w:r><w:r><w:t xml:space="preserve"></w:t></w:r></w:p>`+
			`<w:p><w:r><w:t xml:space="preserve">Paul wrote from Ephesus </w:t></w:r><w:r><w:tab/><w:t>to</w:t><w:br/><w:t xml:space="preserve">Capernaum</w:t></w:r><w:del><w:r><w:delText>ephesus</w:delText></w:r></w:del></w:p><w:p/>`, 1)
	if string(got[docxMain]) != wantXML {
		t.Errorf("document.xml =\n%s\nwant\n%s", got[docxMain], wantXML)
	}
	v2 := mustExtract(t, out, DOCX)
	if want := "Love & 1 Corinthians\nPaul wrote from Ephesus  to\nCapernaum"; v2.Text != want {
		t.Errorf("rewritten Text = %q, want %q", v2.Text, want)
	}
	if _, err := Extract(makeZip(t, []docxEntry{{"a.txt", "x", 0}}), DOCX); err == nil {
		t.Error("Extract of a zip without word/document.xml succeeded")
	}
	if _, err := Extract([]byte("not a zip"), DOCX); err == nil {
		t.Error("Extract of garbage as DOCX succeeded")
	}
}
