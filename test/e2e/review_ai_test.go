package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// aiSermon is a paste whose AI check, by the offline rules provider, agrees with two
// suggestions (rom 8, heb 11: abbreviations followed by a chapter) and is not sure of two
// (capernum with no cue for a place, effesus two letters from Ephesus).
const aiSermon = "This evening we read rom 8 and then heb 11.\nThey sailed past capernum that night.\nThen paul went to effesus by the sea.\n"

// TestStaffReviewWithTheAICheckInBrowser is issue #23's review in a real Chromium against the
// real `tcs dev` where the AI check has been through the transcript: the staff member sees in
// the text which suggestions it agrees with and accepts all of those at once, the others left
// as they were, and the API records the same decisions. Then, at a phone's width, a missed
// correction is added by selecting its words (the form comes up in view, big enough to tap)
// and, with JavaScript off, by typing them.
func TestStaffReviewWithTheAICheckInBrowser(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(dev.stderr.String())
		}
	})
	api, key, org := dev.env["TCS_URL"], dev.env["TCS_API_KEY"], dev.env["TCS_ORG"]
	b := newBrowser(t)
	b.checkEveryPage(t)
	b.do(t, chromedp.EmulateViewport(1280, 900))
	b.signInAsDemoOwner(t, dev)

	body, _ := json.Marshal(map[string]any{"source_type": "paste", "content": aiSermon, "title": "Evening service",
		"options": map[string]any{"ai_pass": map[string]any{"enabled": true}}})
	created := call(t, http.MethodPost, api+"/api/v1/transcripts?wait=true&timeout=60", key, string(body))
	if created.status != 200 && created.status != 201 && created.status != 202 {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	id := created.body["id"].(string)
	url := api + "/api/v1/transcripts/" + id
	poll(t, url, key)
	changes := func() map[string]map[string]any {
		t.Helper()
		a := call(t, http.MethodGet, url+"/changes?limit=100", key, "")
		out := map[string]map[string]any{}
		for _, c := range a.body["data"].([]any) {
			ch := c.(map[string]any)
			out[ch["original"].(string)] = ch
		}
		return out
	}
	before := changes()
	var agreed, unsure []string
	for _, original := range []string{"rom", "heb", "capernum", "effesus"} {
		c := before[original]
		if c == nil || c["status"] != "needs_review" || c["applied"] != false {
			t.Fatalf("the paste's %q is not an open suggestion: %v", original, c)
		}
		if c["ai_verdict"] == "confirmed" {
			agreed = append(agreed, "c-"+c["id"].(string))
		} else {
			unsure = append(unsure, "c-"+c["id"].(string))
		}
	}
	if len(agreed) != 2 || len(unsure) != 2 {
		t.Fatalf("the AI check agrees with %v and not with %v; the test needs two of each", agreed, unsure)
	}
	page := dev.env["TCS_DASHBOARD_URL"] + "o/" + org + "/transcripts/" + id
	b.waitFor(t, page, "Review the changes", 30*time.Second)

	t.Run("the text shows which suggestions the AI check agrees with", func(t *testing.T) {
		marked := eval[[]string](t, b, `[...document.querySelectorAll("#review-text details.chg-ai")].map(d => d.id)`)
		if !slices.Equal(marked, agreed) {
			t.Fatalf("the suggestions marked as agreed are %v, want %v", marked, agreed)
		}
		if label := eval[string](t, b, `document.querySelector("#`+agreed[0]+` summary .vh").textContent`); !strings.Contains(label, "The AI check agrees") {
			t.Fatalf("a screen reader hears %q for an agreed suggestion", label)
		}
		if mark := eval[string](t, b, `getComputedStyle(document.querySelector("#`+agreed[0]+` summary"), "::after").content`); !strings.Contains(mark, "AI") {
			t.Fatal("the agreed suggestion has no visible mark")
		}
		if got := b.text(t, "#accept-confirmed"); got != "Accept all 2 suggestions the AI check agreed with AI ✓" {
			t.Fatalf("the button says %q", got)
		}
		b.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById("review").scrollIntoView()`))
		b.shot(t, "review-ai")
	})

	t.Run("the focus ring and the fields' borders stand out at least 3:1", func(t *testing.T) {
		b.do(t, chromedp.Focus(chromedp.CSS("#add-words")))
		colors := eval[map[string]string](t, b, `(() => {
			const f = getComputedStyle(document.activeElement);
			return {ring: f.outlineColor, ringStyle: f.outlineStyle, border: f.borderTopColor,
				card: getComputedStyle(document.getElementById("review")).backgroundColor, page: getComputedStyle(document.body).backgroundColor};
		})()`)
		if colors["ringStyle"] == "none" {
			t.Fatalf("a focused field has no focus ring: %v", colors)
		}
		for _, pair := range [][2]string{{"ring", "card"}, {"ring", "page"}, {"border", "card"}} {
			if c := contrast(t, colors[pair[0]], colors[pair[1]]); c < 3 {
				t.Errorf("the %s (%s) on the %s (%s) is %.2f:1, under 3:1", pair[0], colors[pair[0]], pair[1], colors[pair[1]], c)
			}
		}
		b.do(t, chromedp.Blur(chromedp.CSS("#add-words")))
	})

	t.Run("accept all the AI check agreed with", func(t *testing.T) {
		b.submit(t, "#accept-confirmed")
		if f := b.text(t, ".flash"); f != "Accepted the 2 suggestions the AI check agreed with." {
			t.Fatalf("after accepting all: %q", f)
		}
		for _, c := range agreed {
			if k := eval[string](t, b, `document.getElementById("`+c+`").className`); k != "chg chg-applied chg-decided" {
				t.Errorf("accepted %s is marked %q", c, k)
			}
		}
		for _, c := range unsure {
			if k := eval[string](t, b, `document.getElementById("`+c+`").className`); k != "chg chg-suggested" {
				t.Errorf("untouched %s is marked %q", c, k)
			}
		}
		if b.has(t, "#accept-confirmed") {
			t.Error("the button stays with nothing left to accept")
		}
		after := changes()
		for _, original := range []string{"rom", "heb"} {
			c := after[original]
			d, _ := c["decision"].(map[string]any)
			if c["applied"] != true || d == nil || d["action"] != "accept" || d["by"] != dev.env["TCS_DEMO_EMAIL"] {
				t.Errorf("the API's %q after accepting all: %v", original, c)
			}
		}
		for _, original := range []string{"capernum", "effesus"} {
			if c := after[original]; c["applied"] != false || c["decision"] != nil {
				t.Errorf("the API's %q was touched: %v", original, c)
			}
		}
		tr := call(t, http.MethodGet, url, key, "")
		if want := strings.NewReplacer("rom 8", "Romans 8", "heb 11", "Hebrews 11").Replace(aiSermon); tr.body["content"] != want {
			t.Fatalf("the API's content is %q, want %q", tr.body["content"], want)
		}
	})

	t.Run("at phone width a missed correction is added by selecting its words", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(390, 844))
		defer b.do(t, chromedp.EmulateViewport(1280, 900))
		b.open(t, page)
		// A selection made as on a touch screen: no mouseup, only the selection changing.
		b.do(t, chromedp.Evaluate[chromedp.Void](`(() => {
			const span = [...document.querySelectorAll("#review-text span[data-src]")].find(s => s.textContent.includes("that night"));
			span.scrollIntoView({block: "end"});
			const node = span.firstChild, at = node.data.indexOf("night");
			const r = document.createRange();
			r.setStart(node, at); r.setEnd(node, at + 5);
			getSelection().removeAllRanges(); getSelection().addRange(r);
		})()`))
		b.do(t, chromedp.WaitVisible(chromedp.CSS("#add-fix.floating")))
		// The form is on the screen, whole, below the selected words, with controls a finger hits.
		geometry := eval[map[string]float64](t, b, `(() => {
			const f = document.getElementById("add-fix").getBoundingClientRect();
			const s = getSelection().getRangeAt(0).getBoundingClientRect();
			const tap = Math.min(...[...document.querySelectorAll("#add-fix button:not([hidden]), #add-fix input:not([type=hidden])")].filter(e => e.offsetParent).map(e => e.getBoundingClientRect().height));
			return {top: f.top, bottom: f.bottom, left: f.left, right: f.right, selTop: s.top, selBottom: s.bottom, tap: tap, width: innerWidth, height: innerHeight};
		})()`)
		if g := geometry; g["top"] < 0 || g["left"] < 0 || g["right"] > g["width"] || g["bottom"] > g["height"] {
			t.Errorf("the form is not all on a %vx%v screen: %v", g["width"], g["height"], g)
		}
		if g := geometry; g["selTop"] < 0 || g["selBottom"] > g["top"] {
			t.Errorf("the selected words are hidden by the form: %v", geometry)
		}
		if geometry["tap"] < 44 {
			t.Errorf("a field or button of the form is %v px high, under the 44 px a finger needs", geometry["tap"])
		}
		if bad := b.a11yViolations(t); len(bad) > 0 {
			t.Errorf("accessibility of the form on a selection: %s", strings.Join(bad, "\n  "))
		}
		if w := eval[string](t, b, `document.querySelector("#add-words").value`); w != "night" {
			t.Fatalf("the form has the words %q", w)
		}
		b.fill(t, "#add-replacement", "evening")
		b.shot(t, "review-add-selected-phone")
		b.submit(t, "#add-fix button[type=submit]")
		if f := b.text(t, ".flash"); !strings.HasPrefix(f, "Added: “night” is now “evening”") {
			t.Fatalf("after adding: %q", f)
		}
		if n := eval[int](t, b, `[...document.querySelectorAll("#review-text details.chg-decided summary span[aria-hidden]")].filter(s => s.textContent === "evening").length`); n != 1 {
			t.Fatalf("the added correction is not in the text:\n%s", b.body(t))
		}
	})

	t.Run("at phone width with JavaScript off a missed correction is added by typing its words", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(390, 844))
		defer b.do(t, chromedp.EmulateViewport(1280, 900))
		b.scripts(t, false)
		checked := b.checked
		b.checked = nil
		defer func() { b.scripts(t, true); b.checked = checked }()
		b.open(t, page)
		if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("the page is %d px wide at a 390 px screen", w)
		}
		tap := eval[float64](t, b, `Math.min(...[...document.querySelectorAll("#add-fix button[type=submit], #add-fix input:not([type=hidden])")].map(e => e.getBoundingClientRect().height))`)
		if tap < 44 {
			t.Errorf("a field or button of the form is %v px high, under the 44 px a finger needs", tap)
		}
		b.fill(t, "#add-words", "paul")
		b.fill(t, "#add-replacement", "Paul")
		b.do(t, chromedp.Evaluate[chromedp.Void](`document.getElementById("add-fix").scrollIntoView()`))
		b.shot(t, "review-add-nojs-phone")
		b.submit(t, "#add-fix button[type=submit]")
		if f := b.text(t, ".flash"); !strings.HasPrefix(f, "Added: “paul” is now “Paul”") {
			t.Fatalf("after adding: %q", f)
		}
		tr := call(t, http.MethodGet, url, key, "")
		want := strings.NewReplacer("rom 8", "Romans 8", "heb 11", "Hebrews 11", "night", "evening", "paul", "Paul").Replace(aiSermon)
		if tr.body["content"] != want {
			t.Fatalf("the API's content is %q, want %q", tr.body["content"], want)
		}
	})
}

// contrast returns the contrast ratio of two CSS colors as getComputedStyle writes them
// (rgb(r, g, b)), by WCAG 2's relative luminance.
func contrast(t *testing.T, a, b string) float64 {
	t.Helper()
	lum := func(c string) float64 {
		var r, g, bl float64
		if _, err := fmt.Sscanf(c, "rgb(%g, %g, %g)", &r, &g, &bl); err != nil {
			t.Fatalf("color %q: %v", c, err)
		}
		ch := func(v float64) float64 {
			v /= 255
			if v <= 0.04045 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(bl)
	}
	x, y := lum(a), lum(b)
	return (max(x, y) + 0.05) / (min(x, y) + 0.05)
}
