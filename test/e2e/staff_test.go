package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// saveDownloads has the browser save what it downloads into dir, under the names the server
// gives.
func (b *browser) saveDownloads(t *testing.T, dir string) {
	t.Helper()
	_, err := chromedp.Run(b.ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
	})
	if err != nil {
		b.fatal(t, err)
	}
}

// download clicks the link sel and returns the file the browser saves as name in dir.
func (b *browser) download(t *testing.T, sel, dir, name string) []byte {
	t.Helper()
	b.do(t, chromedp.Click(chromedp.CSS(sel)))
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil && len(data) > 0 {
			return data
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("clicking %s saved no %s in 20 s; the folder has %v", sel, name, names)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// makeDOCX returns a minimal Word document of one paragraph of text.
func makeDOCX(t *testing.T, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p><w:sectPr/></w:body></w:document>`},
	} {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(w, f.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestStaffAddFinishAndFindInBrowser is the work of a church office in a real Chromium against
// the real `tcs dev`: a new organization's first screen, adding a caption file, a Word document
// and a paste from the dashboard, following the progress, downloading the corrected files
// (compared with the API's bytes), copying the text, and finding transcripts by title and by
// what needs review.
func TestStaffAddFinishAndFindInBrowser(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	dev := startDev(t, stateDir)
	api, dash, org := dev.env["TCS_URL"], dev.env["TCS_DASHBOARD_URL"], dev.env["TCS_ORG"]
	base := dash + "o/" + org
	b := newBrowser(t)
	// Every page the test comes to is checked for accessibility (axe-core).
	b.checkEveryPage(t)
	downloads := t.TempDir()
	b.saveDownloads(t, downloads)

	b.signInAsDemoOwner(t, dev)

	t.Run("a new organization's overview says what to do first", func(t *testing.T) {
		b.open(t, base+"/")
		if !b.has(t, "#first-steps") || b.has(t, "main table") {
			t.Fatalf("the overview of an organization without transcripts:\n%s", b.body(t))
		}
		b.shot(t, "overview-first")
		b.do(t, chromedp.EmulateViewport(390, 844))
		b.shot(t, "overview-first-phone")
		b.do(t, chromedp.EmulateViewport(1280, 900))
		b.submit(t, "#add-first")
		if h := b.text(t, "h1"); h != "Add a transcript" {
			t.Fatalf("the call to add a first sermon leads to %q", h)
		}
	})

	srt := "1\n00:00:01,000 --> 00:00:04,000\nTurn with me to first corinthians 13.\n\n2\n00:00:04,000 --> 00:00:07,000\nLove is patient.\n"
	srtFile := filepath.Join(t.TempDir(), "Sunday service 23 Nov.srt")
	if err := os.WriteFile(srtFile, []byte(srt), 0o644); err != nil {
		t.Fatal(err)
	}
	var srtID string
	t.Run("a refusal shows next to its field, then a caption file is added and followed live", func(t *testing.T) {
		b.open(t, base+"/transcripts/new")
		b.shot(t, "add-transcript")
		// With JavaScript, only the chosen source's fields show.
		if b.has(t, `[data-source=file]:not([hidden])`) {
			t.Fatal("the file field shows while paste is chosen")
		}
		b.submit(t, "form[data-add-form] button[type=submit]")
		if e := b.text(t, "#content-error"); !strings.Contains(e, "Paste the text") {
			t.Fatalf("an empty paste gives %q", e)
		}
		if got := eval[string](t, b, `document.querySelector("#content").getAttribute("aria-describedby")`); got != "content-error" {
			t.Fatalf("the text field is described by %q, not its error", got)
		}
		b.shot(t, "add-transcript-refused")
		b.do(t, chromedp.Click(chromedp.CSS(`input[name=source][value=file]`)),
			chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{srtFile}))
		b.submit(t, "form[data-add-form] button[type=submit]")
		path := eval[string](t, b, `location.pathname`)
		srtID = path[strings.LastIndex(path, "/")+1:]
		if !strings.HasPrefix(srtID, "tr_") || b.text(t, "h1") != "Sunday service 23 Nov" {
			t.Fatalf("after adding a file: %s, h1 %q", path, b.text(t, "h1"))
		}
		// The live stream takes it to completed without a reload, even when it completed
		// before the stream opened.
		b.do(t, markPage(), pollText(`[data-field=status]`, "Ready"))
		if eval[int](t, b, `window.__stay || 0`) != 1 {
			t.Fatal("the page reloaded")
		}
	})

	t.Run("the corrected file downloads named after its title, as the API's content", func(t *testing.T) {
		b.open(t, base+"/transcripts/"+srtID)
		b.shot(t, "transcript-finish")
		got := b.download(t, "#download-file", downloads, "Sunday-service-23-Nov.srt")
		tr := call(t, http.MethodGet, api+"/api/v1/transcripts/"+srtID, dev.env["TCS_API_KEY"], "")
		content, _ := tr.body["content"].(string)
		if tr.status != 200 || string(got) != content || !strings.Contains(content, "00:00:01,000 --> 00:00:04,000\nTurn with me to 1 Corinthians 13.") {
			t.Fatalf("downloaded %q; the API's content is %q (%d)", got, content, tr.status)
		}
		text := b.download(t, "#download-text", downloads, "Sunday-service-23-Nov.txt")
		if string(text) != "Turn with me to 1 Corinthians 13.\nLove is patient." {
			t.Fatalf("the plain text download is %q", text)
		}
		// The same text is in a read-only area, selectable with JavaScript off, and the copy
		// button copies it.
		if area := eval[string](t, b, `document.querySelector("#plain-text[readonly]").value`); area != string(text) {
			t.Fatalf("the text area holds %q", area)
		}
		b.do(t, chromedp.Click(chromedp.CSS(`button[data-copy=plain-text]`)), pollText(`button[data-copy=plain-text]`, "Copied"))
	})

	t.Run("a Word document stays a Word document", func(t *testing.T) {
		docx := makeDOCX(t, "Turn with me to first corinthians 13.")
		file := filepath.Join(t.TempDir(), "Notes for Advent.docx")
		if err := os.WriteFile(file, docx, 0o644); err != nil {
			t.Fatal(err)
		}
		b.open(t, base+"/transcripts/new")
		b.do(t, chromedp.Click(chromedp.CSS(`input[name=source][value=file]`)), chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file}))
		b.fill(t, "#title", "Advent notes, week 1")
		b.submit(t, "form[data-add-form] button[type=submit]")
		path := eval[string](t, b, `location.pathname`)
		id := path[strings.LastIndex(path, "/")+1:]
		b.do(t, pollText(`[data-field=status]`, "Ready"))
		b.open(t, base+"/transcripts/"+id)
		got := b.download(t, "#download-file", downloads, "Advent-notes-week-1.docx")
		stored, err := os.ReadFile(filepath.Join(stateDir, "objects", "transcripts", org, id, "content"))
		if err != nil || !bytes.Equal(got, stored) || !bytes.HasPrefix(got, []byte("PK")) {
			t.Fatalf("downloaded %d bytes; the stored corrected document is %d bytes (%v)", len(got), len(stored), err)
		}
		if text := b.download(t, "#download-text", downloads, "Advent-notes-week-1.txt"); string(text) != "Turn with me to 1 Corinthians 13." {
			t.Fatalf("the Word document's text is %q", text)
		}
	})

	t.Run("a paste with a suggestion is counted and found as needing review", func(t *testing.T) {
		b.open(t, base+"/transcripts/new")
		b.fill(t, "#content", "in genesis god made the heavens")
		b.fill(t, "#title", "Creation, Bible study")
		b.submit(t, "form[data-add-form] button[type=submit]")
		if h := b.text(t, "h1"); h != "Creation, Bible study" {
			t.Fatalf("after a paste: %q\n%s", h, b.body(t))
		}
		b.open(t, base+"/transcripts")
		if c := b.text(t, "#review-count"); !strings.HasPrefix(c, "1 transcript has suggestions to review") {
			t.Fatalf("review count %q", c)
		}
		names := eval[string](t, b, `[...document.querySelectorAll("tbody tr[data-live] td:first-child")].map(td => td.innerText).join("|")`)
		if names != "Creation, Bible study|Advent notes, week 1|Sunday service 23 Nov" || strings.Contains(names, "tr_") {
			t.Fatalf("the list names %q, want titles", names)
		}
		b.shot(t, "transcripts-review")
		b.submit(t, "#review-count a")
		if names := eval[string](t, b, `[...document.querySelectorAll("tbody tr[data-live] td:first-child")].map(td => td.innerText).join("|")`); names != "Creation, Bible study" {
			t.Fatalf("the review filter lists %q", names)
		}
	})

	t.Run("find by title and by date, and an empty result says how to clear it", func(t *testing.T) {
		b.open(t, base+"/transcripts")
		b.fill(t, "#q", "SUNDAY")
		b.submit(t, "form.filters button[type=submit]")
		if got := eval[string](t, b, `[...document.querySelectorAll("tbody tr[data-live]")].map(r => r.dataset.live).join(",")`); got != srtID {
			t.Fatalf("a search for SUNDAY lists %q, want %s", got, srtID)
		}
		if typ := eval[string](t, b, `document.querySelector("#from").type`); typ != "date" {
			t.Fatalf("the date filter is an input of type %q", typ)
		}
		today := time.Now().UTC().Format("2006-01-02")
		b.open(t, base+"/transcripts?from="+today+"&to="+today)
		if n := eval[int](t, b, `document.querySelectorAll("tbody tr[data-live]").length`); n != 3 {
			t.Fatalf("today's transcripts: %d rows, want 3", n)
		}
		b.open(t, base+"/transcripts?q=pentecost")
		if e := b.text(t, "#empty"); !strings.Contains(e, "No transcript matches") {
			t.Fatalf("an empty search says %q", e)
		}
		b.shot(t, "transcripts-no-match")
		b.submit(t, "#empty a")
		if n := eval[int](t, b, `document.querySelectorAll("tbody tr[data-live]").length`); n != 3 || eval[string](t, b, `location.search`) != "" {
			t.Fatalf("clear filters: %d rows at %q", n, eval[string](t, b, `location.search`))
		}
	})

	t.Run("at phone width", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(390, 844))
		defer b.do(t, chromedp.EmulateViewport(1280, 900))
		for _, p := range []string{"/transcripts/new", "/transcripts", "/transcripts/" + srtID} {
			b.open(t, base+p)
			if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
				t.Errorf("%s is %d px wide at a 390 px screen", p, w)
			}
		}
		b.open(t, base+"/transcripts/new")
		b.shot(t, "add-transcript-phone")
		b.open(t, base+"/transcripts/"+srtID)
		b.shot(t, "transcript-finish-phone")
	})
}
