package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestGlossaryInBrowser is an office keeping its own words in a real Chromium against the real
// `tcs dev`: the empty glossary's explanation, an entry added from the form, a pasted transcript
// corrected by it, a CSV file refused with its line and column, one imported, and the glossary
// exported as the same file; every page checked for accessibility and shown at desktop and
// phone width.
func TestGlossaryInBrowser(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	api, dash, org := dev.env["TCS_URL"], dev.env["TCS_DASHBOARD_URL"], dev.env["TCS_ORG"]
	base := dash + "o/" + org
	b := newBrowser(t)
	b.checkEveryPage(t)
	downloads := t.TempDir()
	b.saveDownloads(t, downloads)

	b.signInAsDemoOwner(t, dev)
	b.do(t, chromedp.EmulateViewport(1280, 900))

	t.Run("the navigation leads to a glossary that says what it is for", func(t *testing.T) {
		b.open(t, base+"/")
		b.submitWith(t, "nav a[href$='/glossary']", chromedp.Click(chromedp.CSS(`nav a[href$="/glossary"]`)))
		if h := b.text(t, "h1"); h != "Glossary" {
			t.Fatalf("the navigation's Glossary link leads to %q", h)
		}
		if e := b.text(t, "#empty"); !strings.Contains(e, "names of your pastors, your church, local places") || !strings.Contains(e, "Pastor Okonkwo") {
			t.Fatalf("the empty glossary says %q", e)
		}
		b.shot(t, "glossary-empty")
	})

	t.Run("an entry added from the form corrects a pasted transcript", func(t *testing.T) {
		b.open(t, base+"/glossary")
		b.fill(t, "#term", "Pastor Okonkwo")
		b.fill(t, "#forms", "pastor okonquo")
		b.fill(t, "#category", "name")
		b.do(t, chromedp.Click(chromedp.CSS(`input[name=apply][value=auto]`)))
		b.submit(t, "#add button[type=submit]")
		if f := b.text(t, ".flash"); !strings.Contains(f, "“Pastor Okonkwo” is added") {
			t.Fatalf("after adding: %q\n%s", f, b.body(t))
		}
		row := b.text(t, "table.glossary tbody tr")
		for _, want := range []string{"Pastor Okonkwo", "pastor okonquo", "automatic", dev.env["TCS_DEMO_EMAIL"]} {
			if !strings.Contains(row, want) {
				t.Errorf("the entry's row %q does not say %q", row, want)
			}
		}
		// The page comes back at the entry added; its picture is of the top of the page.
		b.do(t, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.shot(t, "glossary")

		b.open(t, base+"/transcripts/new")
		b.fill(t, "#content", "This morning we welcome pastor okonquo to the pulpit.")
		b.fill(t, "#title", "Welcome of the guest pastor")
		b.submit(t, "form[data-add-form] button[type=submit]")
		b.do(t, pollText(`[data-field=status]`, "Ready"))
		path := eval[string](t, b, `location.pathname`)
		id := path[strings.LastIndex(path, "/")+1:]
		tr := call(t, http.MethodGet, api+"/api/v1/transcripts/"+id, dev.env["TCS_API_KEY"], "")
		content, _ := tr.body["content"].(string)
		if content != "This morning we welcome Pastor Okonkwo to the pulpit." {
			t.Fatalf("the pasted transcript reads %q (%d)", content, tr.status)
		}
		b.open(t, base+"/transcripts/"+id)
		if !strings.Contains(b.body(t), "we welcome Pastor Okonkwo to the pulpit") {
			t.Fatalf("the transcript's page does not show the correction:\n%s", b.body(t))
		}
	})

	t.Run("a CSV file is refused with its line and column, then imported and exported", func(t *testing.T) {
		dir := t.TempDir()
		bad := filepath.Join(dir, "bad.csv")
		good := filepath.Join(dir, "words.csv")
		const header = "term,forms,sounds_like,auto,category\n"
		want := header + "Bethel Tabernacle,bethel tabernackle|beth el tabernacle,false,true,church\nAbeokuta,abeokouta,true,false,local\n"
		if err := os.WriteFile(bad, []byte(header+"Bethel Tabernacle,,perhaps,true,church\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(good, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		b.open(t, base+"/glossary")
		b.do(t, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{bad}))
		b.submit(t, `form[enctype="multipart/form-data"] button[type=submit]`)
		if e := b.text(t, "#file-error"); !strings.HasPrefix(e, "Line 2, column 3 (sounds alike):") {
			t.Fatalf("a bad file gives %q", e)
		}
		b.shot(t, "glossary-import-refused")
		b.do(t, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{good}))
		b.submit(t, `form[enctype="multipart/form-data"] button[type=submit]`)
		if f := b.text(t, ".flash"); !strings.Contains(f, "2 entries") {
			t.Fatalf("after importing: %q", f)
		}
		if terms := eval[string](t, b, `[...document.querySelectorAll("table.glossary tbody th")].map(th => th.innerText).join("|")`); terms != "Bethel Tabernacle|Abeokuta" {
			t.Fatalf("after importing, the glossary lists %q", terms)
		}
		got := b.download(t, "#export", downloads, "glossary-"+org+".csv")
		if string(got) != want {
			t.Fatalf("the export is\n%s\nwant the file imported:\n%s", got, want)
		}
	})

	t.Run("an entry is changed in its own form", func(t *testing.T) {
		b.open(t, base+"/glossary")
		b.submitWith(t, "Change", chromedp.Click(chromedp.CSS(`a[aria-label="Change Abeokuta"]`)))
		if got := eval[string](t, b, `document.querySelector("#edit #term").value + "|" + document.querySelector("#edit #forms").value`); got != "Abeokuta|abeokouta" {
			t.Fatalf("the edit form holds %q", got)
		}
		b.shot(t, "glossary-edit")
		b.fill(t, "#forms", "abeokouta\nabbey okuta")
		b.submit(t, "#edit button[type=submit]")
		if f := b.text(t, ".flash"); f != "“Abeokuta” is saved." {
			t.Fatalf("after saving: %q", f)
		}
		if forms := b.text(t, `table.glossary tbody tr:nth-child(2) ul.forms`); forms != "abeokouta\nabbey okuta" {
			t.Fatalf("after saving, the wrong forms are %q", forms)
		}
	})

	t.Run("deleting asks to confirm", func(t *testing.T) {
		b.open(t, base+"/glossary")
		b.submitWith(t, "Delete…", chromedp.Click(chromedp.CSS(`a[aria-label="Delete Abeokuta…"]`)))
		if h := b.text(t, "#confirm-h"); h != "Delete “Abeokuta” from the glossary?" {
			t.Fatalf("the confirmation asks %q", h)
		}
		b.shot(t, "glossary-delete-confirm")
		b.submit(t, "#confirm button[type=submit]")
		if terms := eval[string](t, b, `[...document.querySelectorAll("table.glossary tbody th")].map(th => th.innerText).join("|")`); terms != "Bethel Tabernacle" {
			t.Fatalf("after deleting, the glossary lists %q", terms)
		}
	})
}
