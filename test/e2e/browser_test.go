package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// browser is a real headless Chromium driven over the DevTools protocol.
type browser struct {
	ctx   context.Context
	shots string
	// axe is the source of axe-core once checkEveryPage is called; checked holds the addresses
	// whose accessibility is checked.
	axe     string
	checked map[string]bool
}

// chromiumPath is the Chromium the browser tests run: $TCS_CHROMIUM, or Debian's (installed by
// hack/chromium.sh).
func chromiumPath(t *testing.T) string {
	p := os.Getenv("TCS_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the browser tests need Chromium at %s (hack/chromium.sh installs it; or set TCS_CHROMIUM): %v", p, err)
	}
	return p
}

// newBrowser starts Chromium with a fresh profile. Screenshots go to docs/dashboard/ when
// TCS_UPDATE_SCREENSHOTS=1, else to a temporary directory.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 760),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	shots := t.TempDir()
	if os.Getenv("TCS_UPDATE_SCREENSHOTS") == "1" {
		shots = filepath.Join(testenv.Root(), "docs", "dashboard")
	}
	return &browser{ctx: ctx, shots: shots}
}

// fatal fails t with err and what the page shows.
func (b *browser) fatal(t *testing.T, err error) {
	t.Helper()
	loc, _ := chromedp.Run(b.ctx, chromedp.Location())
	body, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	t.Fatalf("browser: %v\nat %s:\n%s", err, loc, body)
}

// do runs steps with a time limit.
func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.fatal(t, err)
	}
}

// eval evaluates a JavaScript expression.
func eval[T any](t *testing.T, b *browser, expr string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		b.fatal(t, err)
	}
	return v
}

// open navigates to url and waits for the page.
func (b *browser) open(t *testing.T, url string) {
	t.Helper()
	b.navigate(t, url)
	if b.checked != nil {
		b.checkA11y(t)
	}
}

// navigate navigates to url and waits for the page, without checking it.
func (b *browser) navigate(t *testing.T, url string) {
	t.Helper()
	b.do(t, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")))
}

// signInAsDemoOwner sets the password of the demo owner of dev from its invitation and signs in
// with it in the dashboard, as a church's first staff member does.
func (b *browser) signInAsDemoOwner(t *testing.T, dev *devProcess) {
	t.Helper()
	const password = "a long office password"
	b.openLink(t, dev.env["TCS_DEMO_INVITE"])
	b.fill(t, "#password", password)
	b.fill(t, "#confirm", password)
	b.submit(t, "form button[type=submit]")
	b.open(t, dev.env["TCS_DASHBOARD_URL"]+"signin")
	b.fill(t, "#email", dev.env["TCS_DEMO_EMAIL"])
	b.fill(t, "#password", password)
	b.submit(t, "form button[type=submit]")
}

// openLink opens an emailed link, whose page posts the token of its fragment, and waits for
// the page that answers; the token must be gone from the address by then.
func (b *browser) openLink(t *testing.T, link string) {
	t.Helper()
	// The page posts its token at once: it is checked once it has.
	b.navigate(t, link)
	deadline := time.Now().Add(20 * time.Second)
	for {
		done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && !document.querySelector("form[data-token-form]")`))
		if err == nil && done {
			break
		}
		if time.Now().After(deadline) {
			b.fatal(t, fmt.Errorf("the page of %s did not post its token", link))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if loc := eval[string](t, b, `location.href`); strings.Contains(loc, "#") {
		t.Fatalf("the token stays in the address: %s", loc)
	}
	if b.checked != nil {
		b.checkA11y(t)
	}
}

// submit clicks sel, a button that sends a form, and waits for the next page.
func (b *browser) submit(t *testing.T, sel string) {
	t.Helper()
	b.submitWith(t, sel, chromedp.Click(chromedp.CSS(sel)))
}

// submitWith runs click, which sends a form, and waits for the next page.
func (b *browser) submitWith(t *testing.T, sel string, click chromedp.Action[chromedp.Void]) {
	t.Helper()
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__page = 1`), click)
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Evaluations fail while the page navigates.
		done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.__page === undefined && document.readyState === "complete"`))
		if err == nil && done {
			if b.checked != nil {
				b.checkA11y(t)
			}
			return
		}
		if time.Now().After(deadline) {
			b.fatal(t, fmt.Errorf("no new page 20 s after clicking %s: %w", sel, err))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fill types value into the input sel.
func (b *browser) fill(t *testing.T, sel, value string) {
	t.Helper()
	b.do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ""`, sel)), chromedp.SendKeys(chromedp.CSS(sel), value))
}

// text returns the text of the first element sel.
func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		b.fatal(t, err)
	}
	return strings.TrimSpace(s)
}

// body returns the page's text.
func (b *browser) body(t *testing.T) string {
	t.Helper()
	return eval[string](t, b, `document.body.innerText`)
}

// has reports whether an element sel is on the page.
func (b *browser) has(t *testing.T, sel string) bool {
	t.Helper()
	return eval[int](t, b, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)) > 0
}

// The widths of the screenshots: a desktop's and a phone's.
const (
	desktopWidth, desktopHeight = 1280, 900
	phoneWidth, phoneHeight     = 390, 844
)

// shot saves PNGs of the page as name.png at desktop width and name-phone.png at phone width,
// and leaves the viewport as it was; a name ending in -phone is taken at the viewport as it is.
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	if strings.HasSuffix(name, "-phone") {
		b.capture(t, name)
		return
	}
	size := eval[[]int64](t, b, `[window.innerWidth, window.innerHeight]`)
	b.do(t, chromedp.EmulateViewport(desktopWidth, desktopHeight))
	b.capture(t, name)
	b.do(t, chromedp.EmulateViewport(phoneWidth, phoneHeight))
	// The part of the page a form's answer points to (#csv) is where the phone's screen is too.
	b.do(t, chromedp.Evaluate[chromedp.Void](`location.hash && document.getElementById(location.hash.slice(1))?.scrollIntoView()`))
	b.capture(t, name+"-phone")
	b.do(t, chromedp.EmulateViewport(size[0], size[1]))
}

// capture saves a PNG of the viewport as name.png.
func (b *browser) capture(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.fatal(t, err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor reloads url until its text contains want.
func (b *browser) waitFor(t *testing.T, url, want string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		// The page is read as it loads, before live progress changes it; checked once it shows want.
		b.navigate(t, url)
		body := b.body(t)
		if strings.Contains(body, want) {
			if b.checked != nil {
				b.checkA11y(t)
			}
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not show %q after %s:\n%s", url, want, timeout, body)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// cookie returns the dashboard's session cookie of the browser, which must be HttpOnly and
// SameSite=Lax.
func (b *browser) cookie(t *testing.T, base string) *http.Cookie {
	t.Helper()
	res, err := chromedp.Run(b.ctx, func(ctx context.Context, tg *chromedp.Target) (network.GetCookiesResult, error) {
		return cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
	})
	if err != nil {
		b.fatal(t, err)
	}
	for _, k := range res.Cookies {
		if k.Name == "tcs_session" {
			if !k.HTTPOnly || k.SameSite != network.CookieSameSiteLax {
				t.Fatalf("the session cookie is not HttpOnly with SameSite=Lax: %+v", k)
			}
			return &http.Cookie{Name: k.Name, Value: k.Value}
		}
	}
	t.Fatal("no session cookie")
	return nil
}

// csrf returns the CSRF token of the page's forms.
func (b *browser) csrf(t *testing.T) string {
	t.Helper()
	s := eval[string](t, b, `(document.querySelector('input[name=csrf]') || {}).value || ""`)
	if s == "" {
		t.Fatal("the page has no CSRF token")
	}
	return s
}

// fetchStatus posts form from the page with fetch, as a script of the page would, and returns
// the status.
func (b *browser) fetchStatus(t *testing.T, url, form string) int {
	t.Helper()
	return eval[int](t, b, fmt.Sprintf(`fetch(%q, {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: %q, redirect: "manual"}).then(r => r.status)`, url, form),
		chromedp.EvalAwaitPromise)
}

// clickAll clicks every element sel.
func clickAll(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelectorAll(%q).forEach(e => e.click())`, sel))
}

// markPage marks the current page, so that a test can tell it was not reloaded.
func markPage() chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`window.__stay = 1`)
}

// pollText waits until the text of the first element sel is want.
func pollText(sel, want string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent === %q`, sel, want),
		chromedp.WithPollingTimeout(25*time.Second), chromedp.WithPollingInterval(100*time.Millisecond))
}

// selectValue chooses value in the select sel.
func selectValue(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = %q`, sel, value))
}
