package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// scripts turns the page's JavaScript on or off, as a browser with JavaScript disabled.
func (b *browser) scripts(t *testing.T, on bool) {
	t.Helper()
	_, err := chromedp.Run(b.ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on})
	})
	if err != nil {
		b.fatal(t, err)
	}
}

// TestStaffReviewInBrowser is the staff journey of issue #23's proof in a real Chromium
// against the real `tcs dev`: sign in, add a sermon file, review every suggestion (accept one
// with the keyboard, undo an automatic change, replace one with JavaScript off), add a
// correction the engine missed by selecting its words, download the file and compare its
// bytes with the API's content.
func TestStaffReviewInBrowser(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dev.stderr.String())
		}
	})
	api, dash, org := dev.env["TCS_URL"], dev.env["TCS_DASHBOARD_URL"], dev.env["TCS_ORG"]
	base := dash + "o/" + org
	b := newBrowser(t)
	b.checkEveryPage(t)
	downloads := t.TempDir()
	b.saveDownloads(t, downloads)
	b.do(t, chromedp.EmulateViewport(1280, 900))

	b.signInAsDemoOwner(t, dev)

	// An automatic change (revelations), two suggestions (capernum, effesus) and a name the
	// engine leaves as it was heard (Jarius).
	sermon := "This morning we read revelations 21 together.\nThey walked past capernum, and Jarius met them at the well.\nThen paul went to effesus by the sea.\n"
	file := filepath.Join(t.TempDir(), "Sermon 30 Nov.txt")
	if err := os.WriteFile(file, []byte(sermon), 0o644); err != nil {
		t.Fatal(err)
	}
	b.open(t, base+"/transcripts/new")
	b.do(t, chromedp.Click(chromedp.CSS(`input[name=source][value=file]`)), chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file}))
	b.submit(t, "form[data-add-form] button[type=submit]")
	path := eval[string](t, b, `location.pathname`)
	id := path[strings.LastIndex(path, "/")+1:]
	page := base + "/transcripts/" + id
	b.waitFor(t, page, "Review the changes", 60*time.Second)
	changeIDs := eval[[]string](t, b, `[...document.querySelectorAll("#review-text details[data-change]")].map(d => d.id)`)
	if len(changeIDs) != 3 {
		t.Fatalf("the text shows changes %v, want 3:\n%s", changeIDs, b.body(t))
	}
	auto, capernum, effesus := changeIDs[0], changeIDs[1], changeIDs[2]
	kinds := eval[string](t, b, `[...document.querySelectorAll("#review-text details[data-change]")].map(d => d.className).join("|")`)
	if kinds != "chg chg-applied|chg chg-suggested|chg chg-suggested" {
		t.Fatalf("the changes are marked %q", kinds)
	}
	if !b.has(t, "#review-keys:not([hidden])") {
		t.Fatal("the keyboard shortcuts are not announced")
	}
	b.shot(t, "review")

	t.Run("j goes to a change and a accepts it", func(t *testing.T) {
		b.do(t, chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
		if open := eval[string](t, b, `document.activeElement.closest("details").id + (document.activeElement.closest("details").open ? " open" : "")`); open != capernum+" open" {
			t.Fatalf("after j j the focus is on %q, want %s open", open, capernum)
		}
		b.shot(t, "review-change")
		// Keys typed in a field are text, not shortcuts.
		b.do(t, chromedp.Focus(chromedp.CSS("#add-words")), chromedp.KeyEvent("a"))
		if path := eval[string](t, b, `location.pathname + document.querySelector("#add-words").value`); path != "/dashboard/o/"+org+"/transcripts/"+id+"a" {
			t.Fatalf("typing a in a field: %q", path)
		}
		b.do(t, chromedp.Evaluate[chromedp.Void](`document.querySelector("#add-words").value = ""`))
		b.do(t, chromedp.Focus(chromedp.CSS("#"+capernum+" summary")))
		b.submitWith(t, "the a key", chromedp.KeyEvent("a"))
		if f := b.text(t, ".flash"); !strings.HasPrefix(f, "Accepted: “capernum” is now “Capernaum”") {
			t.Fatalf("after a: %q", f)
		}
		if c := eval[string](t, b, `[...document.getElementById("`+capernum+`").classList].filter(c => c !== "current").join(" ")`); c != "chg chg-applied chg-decided" {
			t.Fatalf("the accepted suggestion is marked %q", c)
		}
	})

	t.Run("an automatic change is undone where it stands", func(t *testing.T) {
		b.do(t, chromedp.Click(chromedp.CSS("#"+auto+" summary span[aria-hidden]")))
		b.submit(t, "#"+auto+` button[data-key=r]`)
		if f := b.text(t, ".flash"); !strings.HasPrefix(f, "Undone: “revelations” stays as it was.") {
			t.Fatalf("after undoing: %q", f)
		}
	})

	t.Run("with JavaScript off a suggestion is replaced through its form", func(t *testing.T) {
		b.scripts(t, false)
		// axe-core runs as a script of the page: the pages without JavaScript are the same
		// markup as those checked with it.
		checked := b.checked
		b.checked = nil
		defer func() { b.scripts(t, true); b.checked = checked }()
		b.open(t, page)
		if b.has(t, "#review-keys:not([hidden])") {
			t.Fatal("the shortcuts are announced without the script that makes them work")
		}
		b.do(t, chromedp.Click(chromedp.CSS("#"+effesus+" summary span[aria-hidden]")))
		b.fill(t, "#repl-"+strings.TrimPrefix(effesus, "c-"), "Ephesus")
		b.submit(t, "#"+effesus+" form.replace button")
		if f := b.text(t, ".flash"); !strings.HasPrefix(f, "Replaced with “Ephesus”, where the text had “effesus”.") {
			t.Fatalf("after replacing: %q", f)
		}
		// A missed correction by its words, with no selection.
		b.fill(t, "#add-words", "the")
		b.fill(t, "#add-replacement", "that")
		b.submit(t, "#add-fix button[type=submit]")
		if e := b.text(t, "#add-error"); !strings.Contains(e, "is 2 times in the text") {
			t.Fatalf("words there twice: %q", e)
		}
		b.shot(t, "review-nojs-error")
	})

	t.Run("a missed correction is added by selecting its words", func(t *testing.T) {
		b.open(t, page)
		b.do(t, chromedp.Evaluate[chromedp.Void](`(() => {
			const text = document.getElementById("review-text");
			const span = [...text.querySelectorAll("span[data-src]")].find(s => s.textContent.includes("Jarius"));
			const node = span.firstChild, at = node.data.indexOf("Jarius");
			const r = document.createRange();
			r.setStart(node, at); r.setEnd(node, at + 6);
			getSelection().removeAllRanges(); getSelection().addRange(r);
			text.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
		})()`))
		b.do(t, chromedp.WaitVisible(chromedp.CSS("#add-fix.floating")))
		start := eval[string](t, b, `document.querySelector("#add-fix [name=start]").value + "-" + document.querySelector("#add-fix [name=end]").value`)
		at := strings.Index(sermon, "Jarius")
		if want := strings.Join([]string{strconv.Itoa(at), strconv.Itoa(at + 6)}, "-"); start != want {
			t.Fatalf("the selection gives the span %s, want %s", start, want)
		}
		b.fill(t, "#add-replacement", "Jairus")
		b.shot(t, "review-add")
		b.submit(t, "#add-fix button[type=submit]")
		if f := b.text(t, ".flash"); !strings.HasPrefix(f, "Added: “Jarius” is now “Jairus”") {
			t.Fatalf("after adding: %q", f)
		}
		if n := eval[int](t, b, `document.querySelectorAll("#review-text details.chg-decided").length`); n != 4 {
			t.Fatalf("%d changes are decided, want 4:\n%s", n, b.body(t))
		}
		b.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById("review").scrollIntoView()`))
		b.shot(t, "review-done")
	})

	t.Run("the download is the reviewed content", func(t *testing.T) {
		got := b.download(t, "#download-file", downloads, "Sermon-30-Nov.txt")
		tr := call(t, http.MethodGet, api+"/api/v1/transcripts/"+id, dev.env["TCS_API_KEY"], "")
		content, _ := tr.body["content"].(string)
		want := "This morning we read revelations 21 together.\nThey walked past Capernaum, and Jairus met them at the well.\nThen paul went to Ephesus by the sea.\n"
		if tr.status != 200 || string(got) != content || content != want {
			t.Fatalf("downloaded %q; the API's content is %q (%d); want %q", got, content, tr.status, want)
		}
	})

	t.Run("at phone width", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(390, 844))
		defer b.do(t, chromedp.EmulateViewport(1280, 900))
		b.open(t, page)
		if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("the review is %d px wide at a 390 px screen", w)
		}
		b.shot(t, "review-phone")
		b.do(t, chromedp.Click(chromedp.CSS("#"+effesus+" summary span[aria-hidden]")))
		b.shot(t, "review-change-phone")
	})
}
