package pipeline

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

// decidedAt is the time of the decisions of the tests.
var decidedAt = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func accept(id string) Decision {
	return Decision{ChangeID: id, Action: ActionAccept, By: "key_a", At: decidedAt}
}
func reject(id string) Decision {
	return Decision{ChangeID: id, Action: ActionReject, By: "key_a", At: decidedAt}
}
func replace(id, repl string) Decision {
	return Decision{ChangeID: id, Action: ActionReplace, Replacement: repl, By: "key_a", At: decidedAt}
}
func add(start, end int, repl string) Decision {
	return Decision{Action: ActionAdd, Start: start, End: end, Replacement: repl, By: "member@example.org", At: decidedAt}
}

// docx returns a DOCX archive whose body is the paragraphs of text.
func docx(t testing.TB, paragraphs ...string) []byte {
	t.Helper()
	var body strings.Builder
	for _, p := range paragraphs {
		body.WriteString("<w:p><w:r><w:t>" + p + "</w:t></w:r></w:p>")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`},
	} {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// documentXML returns word/document.xml of a DOCX archive, without the xml:space attributes
// Rewrite adds to the runs it changes.
func documentXML(t testing.TB, archive []byte) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatalf("not a zip archive: %v", err)
	}
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return strings.ReplaceAll(string(b), ` xml:space="preserve"`, "")
		}
	}
	t.Fatal("no word/document.xml")
	return ""
}

// splice returns src with the spans of the applied changes replaced by what they write: what
// the reviewed content of a document whose changes each lie in one run, without escapes, is.
func splice(src string, changes []Change) string {
	var applied []Change
	for _, c := range changes {
		if c.IsApplied() {
			applied = append(applied, c)
		}
	}
	sort.Slice(applied, func(a, b int) bool { return applied[a].Start < applied[b].Start })
	var out strings.Builder
	at := 0
	for _, c := range applied {
		out.WriteString(src[at:c.Start])
		out.WriteString(c.Written())
		at = c.End
	}
	return out.String() + src[at:]
}

// sourceOf returns the bytes the offsets of the changes of a document of format f point into.
func sourceOf(t testing.TB, f formats.Format, doc []byte) string {
	if f == formats.DOCX {
		return documentXML(t, doc)
	}
	return string(doc)
}

// change returns the change of id in changes.
func change(t testing.TB, changes []Change, id string) Change {
	t.Helper()
	for _, c := range changes {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no change %s in %+v", id, changes)
	return Change{}
}

// plain returns the deterministic pass's changes as a stored change list holds them.
func plain(changes []correction.Change) []Change {
	out := make([]Change, len(changes))
	for i, c := range changes {
		out[i] = Change{Change: c}
	}
	return out
}

func TestDecideRewritesEachFormatByteExactly(t *testing.T) {
	// In every document chg_0001 ("Revelations") is applied automatically and chg_0002
	// ("capernum") is a suggestion; "past" is what people add a correction over.
	docs := []struct {
		format formats.Format
		doc    []byte
	}{
		{formats.TXT, []byte("read Revelations 21:4 past capernum\n")},
		{formats.SRT, []byte("1\r\n00:00:01,000 --> 00:00:02,000\r\nread <i>Revelations</i> 21:4\r\n\r\n2\r\n00:00:02,000 --> 00:00:03,000\r\npast capernum\r\n")},
		{formats.VTT, []byte("WEBVTT\n\nNOTE read Revelations\n\n00:00:01.000 --> 00:00:02.000 align:start\nread Revelations 21:4\n\n00:00:02.000 --> 00:00:03.000\n<v Pastor>past capernum\n")},
		{formats.Markdown, []byte("---\ntitle: capernum\n---\n# Notes\n\nread **Revelations** 21:4 `past capernum` past capernum\n")},
		{formats.HTML, []byte("<!doctype html><p class=\"past\">read <b>Revelations</b> 21:4 &amp; past capernum</p>")},
		{formats.JSON, []byte(`{"title":"past capernum","segments":[{"start":0.0,"text":"read Revelations 21:4"},{"start":2.5,"text":" past capernum \u2014 amen"}]}`)},
		{formats.DOCX, docx(t, "read Revelations 21:4", "past capernum")},
	}
	for _, d := range docs {
		p, _ := newProcessor(t)
		res, err := p.Correct(d.doc, d.format, correction.Options{})
		if err != nil {
			t.Fatalf("%s: %v", d.format, err)
		}
		if len(res.Changes) != 2 || res.Changes[0].Status != correction.StatusAutoApplied || res.Changes[1].Status != correction.StatusNeedsReview {
			t.Fatalf("%s: the deterministic pass found %+v", d.format, res.Changes)
		}
		src := sourceOf(t, d.format, d.doc)
		for _, c := range res.Changes {
			if src[c.Start:c.End] != c.Original {
				t.Fatalf("%s: change %s covers %q, its original is %q", d.format, c.ID, src[c.Start:c.End], c.Original)
			}
		}
		// The span of "past" in the text, not in the markup or the metadata before it.
		past := strings.LastIndex(src[:res.Changes[1].Start], "past")
		for _, tc := range []struct {
			name      string
			decisions []Decision
			applied   map[string]bool
		}{
			{"no decision keeps the deterministic content", nil, map[string]bool{"chg_0001": true, "chg_0002": false}},
			{"accept applies a suggestion", []Decision{accept("chg_0002")}, map[string]bool{"chg_0001": true, "chg_0002": true}},
			{"accept keeps an automatic change", []Decision{accept("chg_0001")}, map[string]bool{"chg_0001": true, "chg_0002": false}},
			{"reject takes an automatic change out", []Decision{reject("chg_0001")}, map[string]bool{"chg_0001": false, "chg_0002": false}},
			{"reject leaves a suggestion out", []Decision{reject("chg_0002")}, map[string]bool{"chg_0001": true, "chg_0002": false}},
			{"replace writes its own replacement", []Decision{replace("chg_0001", "Revelation (the Apocalypse)"), replace("chg_0002", "Capernaum")},
				map[string]bool{"chg_0001": true, "chg_0002": true}},
			{"add makes a new change", []Decision{add(past, past+4, "passed")}, map[string]bool{"chg_0001": true, "chg_0002": false, "chg_u0001": true}},
			{"the latest decision on a change wins", []Decision{accept("chg_0002"), reject("chg_0001"), reject("chg_0002"), accept("chg_0001"), replace("chg_0001", "Rev")},
				map[string]bool{"chg_0001": true, "chg_0002": false}},
			{"an added change can be rejected", []Decision{add(past, past+4, "passed"), reject("chg_u0001")}, map[string]bool{"chg_u0001": false}},
		} {
			t.Run(string(d.format)+": "+tc.name, func(t *testing.T) {
				rev, err := Decide(d.doc, d.format, plain(res.Changes), nil, tc.decisions)
				if err != nil {
					t.Fatal(err)
				}
				for id, want := range tc.applied {
					if c := change(t, rev.Changes, id); c.IsApplied() != want {
						t.Errorf("change %s applied %v, want %v", id, c.IsApplied(), want)
					}
				}
				if tc.decisions == nil && !bytes.Equal(rev.Content, res.Content) {
					t.Fatalf("content %q, want the deterministic pass's %q", rev.Content, res.Content)
				}
				got := sourceOf(t, d.format, rev.Content)
				if want := splice(src, rev.Changes); got != want {
					t.Fatalf("content\n%q\nwant\n%q", got, want)
				}
				if d.format == formats.DOCX {
					zr, err := zip.NewReader(bytes.NewReader(rev.Content), int64(len(rev.Content)))
					if err != nil || len(zr.File) != 2 {
						t.Fatalf("the reviewed DOCX is no archive of its two entries: %v", err)
					}
				}
			})
		}
	}
}

func TestRejectingEveryChangeGivesBackTheSubmittedDocument(t *testing.T) {
	// The formats package's own documents: captions with rolling lines, escapes in JSON,
	// markup in HTML and markdown.
	dir := filepath.Join("..", "formats", "testdata")
	for _, tc := range []struct {
		file   string
		format formats.Format
	}{
		{"sermon.srt", formats.SRT}, {"sermon.vtt", formats.VTT}, {"youtube_auto.vtt", formats.VTT},
		{"sermon_notes.md", formats.Markdown}, {"sermon.html", formats.HTML}, {"whisper.json", formats.JSON}, {"youtube.json3", formats.JSON},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			p, _ := newProcessor(t)
			res, err := p.Correct(doc, tc.format, correction.Options{NormalizeReferences: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Changes) == 0 {
				t.Fatal("the deterministic pass found nothing to decide on")
			}
			same, err := Decide(doc, tc.format, plain(res.Changes), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(same.Content, res.Content) {
				t.Fatalf("without decisions the content is\n%s\nwant the deterministic pass's\n%s", same.Content, res.Content)
			}
			var all []Decision
			for _, c := range res.Changes {
				all = append(all, reject(c.ID))
			}
			none, err := Decide(doc, tc.format, plain(res.Changes), nil, all)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(none.Content, doc) {
				t.Fatalf("with every change rejected the content is\n%s\nwant the submitted document", none.Content)
			}
			if none.Summary.AutoApplied != 0 || none.Decided != len(res.Changes) || none.Undecided != 0 || none.Summary.NeedsReview != 0 {
				t.Fatalf("summary %+v, decided %d, undecided %d", none.Summary, none.Decided, none.Undecided)
			}
		})
	}
}

func TestCorrectKeepsTheOriginalOfADOCXChange(t *testing.T) {
	p, _ := newProcessor(t)
	// document.xml is larger than the archive: offsets into it are past the archive's end.
	doc := docx(t, strings.Repeat("and so we read on ", 400)+"in Revelations 21:4")
	res, err := p.Correct(doc, formats.DOCX, correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Original != "Revelations" || res.Changes[0].End <= len(doc) {
		t.Fatalf("changes %+v of an archive of %d bytes", res.Changes, len(doc))
	}
}

func TestDecisionsAreRecordedOnTheChanges(t *testing.T) {
	in := []byte("read Revelations 21:4 past capernum\n")
	p, _ := newProcessor(t)
	res, err := p.Correct(in, formats.TXT, correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := accept("chg_0002")
	later := Decision{ChangeID: "chg_0002", Action: ActionReplace, Replacement: "Capernaum", By: "key_b", At: decidedAt.Add(time.Minute)}
	added := add(22, 26, "passed")
	added.Category = "glossary"
	rev, err := Decide(in, formats.TXT, plain(res.Changes), []Decision{first}, []Decision{later, added})
	if err != nil {
		t.Fatal(err)
	}
	if string(rev.Content) != "read Revelation 21:4 passed Capernaum\n" {
		t.Fatalf("content %q", rev.Content)
	}
	if ids := fmt.Sprint(changeIDs(rev.Changes)); ids != "[chg_0001 chg_u0001 chg_0002]" {
		t.Fatalf("changes in order %s, want them in text order", ids)
	}
	c := change(t, rev.Changes, "chg_0002")
	if c.Decision == nil || *c.Decision != later || c.Replacement != "Capernaum" || c.Status != correction.StatusNeedsReview {
		t.Fatalf("chg_0002 %+v, decision %+v", c, c.Decision)
	}
	if c := change(t, rev.Changes, "chg_0001"); c.Decision != nil || !c.IsApplied() {
		t.Fatalf("chg_0001 %+v", c)
	}
	u := change(t, rev.Changes, "chg_u0001")
	want := correction.Change{ID: "chg_u0001", Category: "glossary", Original: "past", Replacement: "passed", Start: 22, End: 26, Line: 1,
		Rule: RuleReviewAdded, Confidence: 1, Status: correction.StatusAutoApplied}
	if u.Change != want || u.Decision == nil || *u.Decision != added || !u.IsApplied() {
		t.Fatalf("added change %+v, decision %+v; want %+v", u.Change, u.Decision, want)
	}
	if rev.Decided != 2 || rev.Undecided != 0 || rev.Summary.Total != 3 || rev.Summary.AutoApplied != 3 || rev.Summary.NeedsReview != 0 ||
		rev.Summary.ByCategory["glossary"] != 1 || rev.Summary.ByCategory["bible"] != 1 || rev.Summary.ByCategory["place"] != 1 {
		t.Fatalf("summary %+v, decided %d, undecided %d", rev.Summary, rev.Decided, rev.Undecided)
	}
	if last, ok := rev.LastDecision(); !ok || last != added || len(rev.Log) != 3 || rev.Log[0] != first {
		t.Fatalf("log %+v", rev.Log)
	}
	// The list round-trips through JSON as the store keeps it, decision included.
	raw, err := json.Marshal(rev.Changes)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"decision":{"change_id":"chg_0002","action":"replace","replacement":"Capernaum","by":"key_b","at":"2026-11-24T12:01:00Z"}`)) {
		t.Fatalf("stored list %s", raw)
	}
	var back []Change
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if *back[2].Decision != later || back[2].Written() != "Capernaum" {
		t.Fatalf("decoded %+v", back[2])
	}
	// Undecided counts the suggestions no one decided on.
	open, err := Decide(in, formats.TXT, plain(res.Changes), nil, []Decision{reject("chg_0001")})
	if err != nil {
		t.Fatal(err)
	}
	if open.Undecided != 1 || open.Decided != 1 || open.Summary.NeedsReview != 1 || open.Summary.AutoApplied != 0 || open.Summary.Total != 2 {
		t.Fatalf("summary %+v, decided %d, undecided %d", open.Summary, open.Decided, open.Undecided)
	}
}

func changeIDs(changes []Change) []string {
	ids := make([]string, len(changes))
	for i, c := range changes {
		ids[i] = c.ID
	}
	return ids
}

func TestTheSameDecisionsTwiceGiveTheSameBytes(t *testing.T) {
	for _, tc := range []struct {
		format formats.Format
		doc    []byte
	}{
		{formats.TXT, []byte("read Revelations 21:4 past capernum\n")},
		{formats.HTML, []byte("<p>read <b>Revelations</b> 21:4 past capernum</p>")},
		{formats.DOCX, docx(t, "read Revelations 21:4", "past capernum")},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			p, _ := newProcessor(t)
			res, err := p.Correct(tc.doc, tc.format, correction.Options{})
			if err != nil {
				t.Fatal(err)
			}
			src := sourceOf(t, tc.format, tc.doc)
			past := strings.LastIndex(src, "past")
			decisions := []Decision{accept("chg_0002"), replace("chg_0001", "Revelation"), add(past, past+4, "passed")}
			once, err := Decide(tc.doc, tc.format, plain(res.Changes), nil, decisions)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Decide(tc.doc, tc.format, plain(res.Changes), nil, decisions)
			if err != nil {
				t.Fatal(err)
			}
			twice, err := Decide(tc.doc, tc.format, plain(res.Changes), decisions, decisions)
			if err != nil {
				t.Fatalf("sending the same decisions again: %v", err)
			}
			if !bytes.Equal(once.Content, again.Content) || !bytes.Equal(once.Content, twice.Content) {
				t.Fatalf("contents differ:\n%q\n%q\n%q", once.Content, again.Content, twice.Content)
			}
			a, _ := json.Marshal(once.Changes)
			b, _ := json.Marshal(twice.Changes)
			if !bytes.Equal(a, b) || len(twice.Changes) != 3 {
				t.Fatalf("change lists differ:\n%s\n%s", a, b)
			}
			if !strings.Contains(sourceOf(t, tc.format, once.Content), "passed") {
				t.Fatalf("the added change is not in %q", once.Content)
			}
		})
	}
}

func TestDecisionsOnTheAIPassesChanges(t *testing.T) {
	in := "read Revelations 21:4 past capernum\n"
	p, store := newProcessor(t)
	keys := KeysFor("org_a", "tr_1")
	res, err := p.Correct([]byte(in), formats.TXT, correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Save(t.Context(), keys, []byte(in), res); err != nil {
		t.Fatal(err)
	}
	// The pass rejects chg_0001, confirms chg_0002 and proposes chg_0003 ("read" → "Read").
	if _, err := p.Review(t.Context(), ReviewInput{Keys: keys, Format: formats.TXT, Apply: true},
		&scripted{verdicts: map[string]aipass.Verdict{"chg_0001": aipass.Rejected, "chg_0002": aipass.Confirmed}, propose: map[string]string{"read": "Read"}}); err != nil {
		t.Fatal(err)
	}
	raw, err := store.Get(t.Context(), keys.AIChanges)
	if err != nil {
		t.Fatal(err)
	}
	var changes []Change
	if err := json.Unmarshal(raw, &changes); err != nil {
		t.Fatal(err)
	}
	// A suggestion the pass confirmed is applied, but no person decided on it yet.
	for _, tc := range []struct {
		name      string
		decisions []Decision
		want      string
		undecided int
	}{
		{"no decision keeps the AI pass's content", nil, "read Revelations 21:4 past Capernaum\n", 2},
		{"accepting a proposal applies it", []Decision{accept("chg_0003")}, "Read Revelations 21:4 past Capernaum\n", 1},
		{"accepting a change the pass rejected applies it again", []Decision{accept("chg_0001")}, "read Revelation 21:4 past Capernaum\n", 2},
		{"rejecting a change the pass confirmed takes it out", []Decision{reject("chg_0002")}, "read Revelations 21:4 past capernum\n", 1},
		{"replacing a proposal writes the replacement", []Decision{replace("chg_0003", "We read")}, "We read Revelations 21:4 past Capernaum\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev, err := Decide([]byte(in), formats.TXT, changes, nil, tc.decisions)
			if err != nil {
				t.Fatal(err)
			}
			if string(rev.Content) != tc.want || rev.Undecided != tc.undecided {
				t.Fatalf("content %q, undecided %d; want %q, %d", rev.Content, rev.Undecided, tc.want, tc.undecided)
			}
			if c := change(t, rev.Changes, "chg_0001"); c.AIVerdict != aipass.Rejected || c.AIReason != "because rejected" {
				t.Fatalf("the verdict is lost: %+v", c)
			}
			if rev.Summary.AIFlagged != 1 || rev.Summary.ByCategory[aipass.CategoryAI] != 1 {
				t.Fatalf("summary %+v", rev.Summary)
			}
		})
	}
}

func TestInvalidDecisionsAreRefusedNamingTheField(t *testing.T) {
	txt := "read Revelations 21:4 past capernum\n"
	srt := "1\n00:00:01,000 --> 00:00:02,000\nread Revelations 21:4\n\n2\n00:00:02,000 --> 00:00:03,000\npast capernum\n"
	html := "<p>read <b>Revelations</b> 21:4 past ca<i>per</i>num &amp; more</p>"
	long := strings.Repeat("x", MaxReplacementBytes+1)
	tooMany := make([]Decision, MaxDecisionsPerCall+1)
	for i := range tooMany {
		tooMany[i] = accept("chg_0002")
	}
	srtPast := strings.Index(srt, "past")
	htmlPer := strings.Index(html, "ca<i>")
	for _, tc := range []struct {
		name      string
		format    formats.Format
		doc       string
		decisions []Decision
		param     string
		message   string
	}{
		{"more than a thousand decisions", formats.TXT, txt, tooMany, "decisions", "at most 1000"},
		{"an unknown change", formats.TXT, txt, []Decision{accept("chg_0002"), accept("chg_0009")}, "decisions[1].change_id", `no change "chg_0009"`},
		{"an accept without a change", formats.TXT, txt, []Decision{{Action: ActionAccept, By: "k"}}, "decisions[0].change_id", "change_id is required"},
		{"an unknown action", formats.TXT, txt, []Decision{{ChangeID: "chg_0001", Action: "approve", By: "k"}}, "decisions[0].action", `"approve" is no action`},
		{"no action", formats.TXT, txt, []Decision{{ChangeID: "chg_0001", By: "k"}}, "decisions[0].action", "an action is required"},
		{"no author", formats.TXT, txt, []Decision{{ChangeID: "chg_0001", Action: ActionAccept}}, "decisions[0].by", "who decided"},
		{"a replacement on an accept", formats.TXT, txt, []Decision{{ChangeID: "chg_0001", Action: ActionAccept, Replacement: "x", By: "k"}}, "decisions[0].replacement", "only replace and add"},
		{"a span on a reject", formats.TXT, txt, []Decision{{ChangeID: "chg_0001", Action: ActionReject, Start: 1, End: 2, By: "k"}}, "decisions[0].start", "only an add takes a span"},
		{"a category on a replace", formats.TXT, txt, []Decision{{ChangeID: "chg_0001", Action: ActionReplace, Replacement: "x", Category: "bible", By: "k"}}, "decisions[0].category", "only an add"},
		{"an add naming a change", formats.TXT, txt, []Decision{{ChangeID: "chg_0001", Action: ActionAdd, Start: 0, End: 4, Replacement: "x", By: "k"}}, "decisions[0].change_id", "names no change_id"},
		{"an empty replacement", formats.TXT, txt, []Decision{replace("chg_0001", "")}, "decisions[0].replacement", "is empty"},
		{"a replacement of 201 bytes", formats.TXT, txt, []Decision{replace("chg_0001", long)}, "decisions[0].replacement", "201 bytes; at most 200"},
		{"a replacement that is no UTF-8", formats.TXT, txt, []Decision{replace("chg_0001", "Rev\xff")}, "decisions[0].replacement", "not valid UTF-8"},
		{"a line break in a caption", formats.SRT, srt, []Decision{replace("chg_0001", "Revelation\n\n3\n")}, "decisions[0].replacement", "srt content cannot carry"},
		{"a line break in HTML", formats.HTML, html, []Decision{replace("chg_0001", "Reve\r\nlation")}, "decisions[0].replacement", "html content cannot carry"},
		{"a line break in an added HTML change", formats.HTML, html, []Decision{add(strings.Index(html, "past"), strings.Index(html, "past")+4, "pa\nssed")}, "decisions[0].replacement", "html content cannot carry"},
		{"an empty add span", formats.TXT, txt, []Decision{add(22, 22, "x")}, "decisions[0].end", "is empty"},
		{"an add span backwards", formats.TXT, txt, []Decision{add(26, 22, "x")}, "decisions[0].end", "is empty"},
		{"an add span starting outside the document", formats.TXT, txt, []Decision{add(-1, 4, "x")}, "decisions[0].start", "outside the document"},
		{"an add span ending outside the document", formats.TXT, txt, []Decision{add(30, 99, "x")}, "decisions[0].end", "outside the document of 36 bytes"},
		{"an add span too long", formats.TXT, strings.Repeat("a", 2000), []Decision{add(0, MaxAddedSpanBytes+1, "x")}, "decisions[0].end", "at most 1000"},
		{"an add span over a cue's timing line", formats.SRT, srt, []Decision{add(srtPast-20, srtPast+4, "x")}, "decisions[0].start", "not inside one stretch"},
		{"an add span in a timing line", formats.SRT, srt, []Decision{add(2, 6, "x")}, "decisions[0].start", "not inside one stretch"},
		{"an add span across markup", formats.HTML, html, []Decision{add(htmlPer, htmlPer+9, "x")}, "decisions[0].start", "not inside one stretch"},
		{"an add span in a tag", formats.HTML, html, []Decision{add(1, 2, "x")}, "decisions[0].start", "not inside one stretch"},
		{"an add span cutting a character reference", formats.HTML, html, []Decision{add(strings.Index(html, "&amp;")+1, strings.Index(html, " more"), "x")}, "decisions[0].start", "not inside one stretch"},
		{"an add span over an applied change", formats.TXT, txt, []Decision{add(10, 16, "x")}, "decisions[0].start", "overlaps change chg_0001"},
		{"an add span over an accepted suggestion", formats.TXT, txt, []Decision{accept("chg_0002"), add(30, 32, "x")}, "decisions[1].start", "overlaps change chg_0002"},
		{"an add span over an added change", formats.TXT, txt, []Decision{add(22, 26, "passed"), add(23, 25, "x")}, "decisions[1].start", "overlaps change chg_u0001"},
		{"accepting a suggestion under an added change", formats.TXT, txt, []Decision{add(28, 31, "Cap"), accept("chg_0002")}, "decisions[1].change_id", "overlaps change chg_u0001"},
		{"an invalid category", formats.TXT, txt, []Decision{{Action: ActionAdd, Start: 22, End: 26, Replacement: "x", Category: "Names!", By: "k"}}, "decisions[0].category", "no category name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newProcessor(t)
			res, err := p.Correct([]byte(tc.doc), tc.format, correction.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Decide([]byte(tc.doc), tc.format, plain(res.Changes), nil, tc.decisions)
			var de *DecisionError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a DecisionError", err)
			}
			if de.Param != tc.param || !strings.Contains(de.Message, tc.message) || !strings.HasPrefix(de.Message, tc.param) {
				t.Fatalf("error %q naming %s, want one naming %s saying %q", de.Message, de.Param, tc.param, tc.message)
			}
		})
	}
}

func TestAnAddWithinOneRunIsTaken(t *testing.T) {
	// The spans people select: a word before inline markup, one holding a character reference,
	// one in a JSON string with escapes, one in a cue with CRLF line ends.
	html := "<p>read <b>Revelations</b> 21:4 past caper<i>num</i> Tom &amp; Jerry</p>"
	json := `{"text":"Caf\u00e9 \"fellowship\" past"}`
	srt := "1\r\n00:00:01,000 --> 00:00:02,000\r\npast capernum\r\n"
	for _, tc := range []struct {
		name         string
		format       formats.Format
		doc          string
		start, end   int
		repl, want   string
		wantOriginal string
	}{
		{"a word before markup", formats.HTML, html, strings.Index(html, "caper"), strings.Index(html, "caper") + 5, "Caper",
			"<p>read <b>Revelation</b> 21:4 past Caper<i>num</i> Tom &amp; Jerry</p>", "caper"},
		{"a character reference", formats.HTML, html, strings.Index(html, "Tom"), strings.Index(html, "</p>"), "Tom & Jerry's",
			"<p>read <b>Revelation</b> 21:4 past caper<i>num</i> Tom &amp; Jerry's</p>", "Tom & Jerry"},
		{"JSON escapes", formats.JSON, json, strings.Index(json, "Caf"), strings.Index(json, " past"), `Café "Fellowship"`,
			`{"text":"Café \"Fellowship\" past"}`, `Café "fellowship"`},
		{"a CRLF cue", formats.SRT, srt, strings.Index(srt, "past"), strings.Index(srt, "past") + 4, "passed",
			"1\r\n00:00:01,000 --> 00:00:02,000\r\npassed capernum\r\n", "past"},
		{"a whole TXT line break kept", formats.TXT, "past\ncapernum", 0, 4, "passed\nby", "passed\nby\ncapernum", "past"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newProcessor(t)
			res, err := p.Correct([]byte(tc.doc), tc.format, correction.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var reject []Decision
			for _, c := range res.Changes {
				if c.Status == correction.StatusNeedsReview {
					reject = append(reject, Decision{ChangeID: c.ID, Action: ActionReject, By: "k"})
				}
			}
			rev, err := Decide([]byte(tc.doc), tc.format, plain(res.Changes), reject, []Decision{add(tc.start, tc.end, tc.repl)})
			if err != nil {
				t.Fatal(err)
			}
			if string(rev.Content) != tc.want {
				t.Fatalf("content\n%s\nwant\n%s", rev.Content, tc.want)
			}
			if u := change(t, rev.Changes, "chg_u0001"); u.Original != tc.wantOriginal || u.Category != CategoryCustom {
				t.Fatalf("added change %+v", u)
			}
		})
	}
}

func TestARecordedDecisionThatNoLongerAppliesIsStale(t *testing.T) {
	in := []byte("read Revelations 21:4 past capernum\n")
	p, _ := newProcessor(t)
	res, err := p.Correct(in, formats.TXT, correction.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Decide(in, formats.TXT, plain(res.Changes), []Decision{accept("chg_0042")}, []Decision{accept("chg_0001")})
	var de *DecisionError
	if !errors.Is(err, ErrStaleDecisions) || errors.As(err, &de) {
		t.Fatalf("err = %v, want ErrStaleDecisions and no DecisionError a client could fix", err)
	}
}
