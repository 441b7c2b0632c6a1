package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// axeScript returns the source of axe-core, the accessibility checker run in every page the
// browser tests visit: the file $TCS_AXE names (hack/axe.sh downloads it from the npm registry
// and prints its path), else the one it caches in bin/.
func axeScript(t *testing.T) string {
	t.Helper()
	p := os.Getenv("TCS_AXE")
	if p == "" {
		found, _ := filepath.Glob(filepath.Join(testenv.Root(), "bin", "axe-core-*.min.js"))
		if len(found) == 0 {
			t.Fatal("the browser tests need axe-core: run hack/axe.sh (make axe) and set TCS_AXE to the path it prints")
		}
		p = found[len(found)-1]
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("reading axe-core (TCS_AXE): %v", err)
	}
	return string(src)
}

// axeViolation is a rule of axe-core the page breaks, with the elements that break it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// axeRun runs axe-core, injected into the page when it is not there yet, on the WCAG 2.1 A and
// AA rules, and returns its violations as JSON.
const axeRun = `(async () => {
  const r = await axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, resultTypes: ["violations"]});
  return JSON.stringify(r.violations);
})()`

// checkEveryPage has the browser check the accessibility of every page it comes to through
// open and submit (see checkA11y), once per address and width.
func (b *browser) checkEveryPage(t *testing.T) {
	t.Helper()
	b.axe = axeScript(t)
	b.checked = map[string]bool{}
}

// checkA11y runs axe-core in the current page and fails t on every serious or critical
// violation, listing them with the elements at fault. Each address is checked once at each of
// desktop and phone width.
func (b *browser) checkA11y(t *testing.T) {
	t.Helper()
	if b.axe == "" {
		b.checkEveryPage(t)
	}
	// A page is checked once at desktop and once at phone width, where tables scroll.
	loc := eval[string](t, b, `(innerWidth < 600 ? "phone width: " : "") + location.pathname + location.search`)
	if b.checked[loc] {
		return
	}
	b.checked[loc] = true
	if bad := b.a11yViolations(t); len(bad) > 0 {
		t.Errorf("accessibility of %s: %d serious or critical violations (axe-core):\n  %s", loc, len(bad), strings.Join(bad, "\n  "))
	}
}

// a11yViolations returns the serious and critical violations axe-core finds in the current
// page, one line and its explanation each.
func (b *browser) a11yViolations(t *testing.T) []string {
	t.Helper()
	if b.axe == "" {
		b.checkEveryPage(t)
	}
	if !eval[bool](t, b, `typeof axe === "object"`) {
		eval[int](t, b, b.axe+"\n;0")
	}
	out := eval[string](t, b, axeRun, chromedp.EvalAwaitPromise)
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("reading axe-core's answer: %v", err)
	}
	var bad []string
	for _, v := range vs {
		if v.Impact != "serious" && v.Impact != "critical" {
			continue
		}
		for _, n := range v.Nodes {
			bad = append(bad, fmt.Sprintf("%s (%s, %s): %v\n    %s", v.ID, v.Impact, v.Help, n.Target, strings.ReplaceAll(n.Summary, "\n", "\n    ")))
		}
	}
	return bad
}

// The check finds what it is there to find: a field without a label and text too faint to
// read are serious violations; the same page with a label and dark text has none.
func TestTheAccessibilityCheckFindsViolations(t *testing.T) {
	b := newBrowser(t)
	for _, tc := range []struct {
		name, page string
		want       []string
	}{
		{"a field without a label and faint text", `<input type="text"><p style="color:#ccc">faint</p>`, []string{"color-contrast (serious", "label (critical"}},
		{"a labelled field and dark text", `<label for="f">Name</label><input type="text" id="f"><p style="color:#222">dark</p>`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := `<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1>` + tc.page + `</main></body></html>`
			b.do(t, chromedp.Navigate("data:text/html,"+url.PathEscape(page)), chromedp.WaitReady(chromedp.CSS("body")))
			got := b.a11yViolations(t)
			if len(got) != len(tc.want) {
				t.Fatalf("violations %q, want %d: %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("violation %d is %q, want %q", i, got[i], w)
				}
			}
		})
	}
}
