package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// dashboardGet fetches path of the dashboard with a session cookie, without following
// redirects, and returns the status and body.
func dashboardGet(t *testing.T, u string, c *http.Cookie) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(c)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// gate is a url source that answers only once it is opened, so that a transcript stays pending
// while a page watches it.
type gate struct{ open chan struct{} }

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-g.open:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "We read from first corinthians 13 and from revelations 21 at capernum.\n")
}

// TestDashboardInBrowser drives the dashboard of the real `tcs dev` with a real Chromium, the
// way the staff of an organization use it.
func TestDashboardInBrowser(t *testing.T) {
	rc, receiverSrv, caFile := startReceiver(t)
	// A failed delivery waits an hour for its retry: what it gets next comes from a replay.
	stateDir := filepath.Join(t.TempDir(), "state")
	dev := startDev(t, stateDir, "--outbound-ca-file", caFile, "--webhook-retry-delays", "1h")
	for _, k := range []string{"TCS_DASHBOARD_URL", "TCS_DEMO_EMAIL", "TCS_DEMO_INVITE", "TCS_DEMO_EMAIL_B", "TCS_DEMO_INVITE_B"} {
		if dev.env[k] == "" {
			t.Fatalf("tcs dev prints no %s: %v", k, dev.env)
		}
	}
	api, dash := dev.env["TCS_URL"], dev.env["TCS_DASHBOARD_URL"]
	orgA, orgB := dev.env["TCS_ORG"], dev.env["TCS_ORG_B"]
	base := dash + "o/" + orgA
	ownerPassword := "a long demo password"
	b := newBrowser(t)
	// Every page the test comes to is checked for accessibility (axe-core).
	b.checkEveryPage(t)

	signIn := func(t *testing.T, email, password string) {
		t.Helper()
		b.open(t, dash+"signin")
		b.fill(t, "#email", email)
		b.fill(t, "#password", password)
		b.submit(t, "form button[type=submit]")
	}

	t.Run("/ redirects to the dashboard, which asks to sign in", func(t *testing.T) {
		b.open(t, api+"/")
		if h := b.text(t, "h1"); h != "Sign in" {
			t.Fatalf("/ shows %q, want the sign-in page", h)
		}
		b.shot(t, "signin")
	})

	t.Run("the demo owner's link, set password, sign in, sign out", func(t *testing.T) {
		if !strings.Contains(dev.env["TCS_DEMO_INVITE"], "/dashboard/reset#") {
			t.Fatalf("TCS_DEMO_INVITE=%s: want a link whose token is in the fragment", dev.env["TCS_DEMO_INVITE"])
		}
		b.openLink(t, dev.env["TCS_DEMO_INVITE"])
		if !strings.Contains(b.body(t), dev.env["TCS_DEMO_EMAIL"]) {
			t.Fatalf("the invitation does not name %s", dev.env["TCS_DEMO_EMAIL"])
		}
		b.shot(t, "invitation")
		b.fill(t, "#password", "short")
		b.fill(t, "#confirm", "short")
		b.submit(t, "form button[type=submit]")
		if e := b.text(t, "#password-error"); !strings.Contains(e, "at least 10") {
			t.Fatalf("a short password gives %q", e)
		}
		b.fill(t, "#password", ownerPassword)
		b.fill(t, "#confirm", ownerPassword)
		b.submit(t, "form button[type=submit]")
		if !strings.Contains(b.body(t), "Your password is set") {
			t.Fatalf("after setting the password: %s", b.body(t))
		}
		// The link works once.
		b.openLink(t, dev.env["TCS_DEMO_INVITE"])
		if !strings.Contains(b.body(t), "not valid") {
			t.Fatalf("a used invitation still offers a form: %s", b.body(t))
		}
		signIn(t, dev.env["TCS_DEMO_EMAIL"], ownerPassword)
		if h := b.text(t, "h1"); h != "Overview" {
			t.Fatalf("after sign-in: %q", h)
		}
		b.cookie(t, dash) // HttpOnly, SameSite=Lax
		b.submit(t, "header form button[type=submit]")
		if !strings.Contains(b.body(t), "You are signed out") {
			t.Fatalf("after sign-out: %s", b.body(t))
		}
		b.open(t, base+"/keys")
		if h := b.text(t, "h1"); h != "Sign in" {
			t.Fatalf("after sign-out, the keys page shows %q", h)
		}
	})

	t.Run("wrong password, then lockout that does not tell whether an email exists", func(t *testing.T) {
		b.openLink(t, dev.env["TCS_DEMO_INVITE_B"])
		b.fill(t, "#password", "the password of b")
		b.fill(t, "#confirm", "the password of b")
		b.submit(t, "form button[type=submit]")
		var messages []string
		for i := 0; i < 5; i++ {
			signIn(t, dev.env["TCS_DEMO_EMAIL_B"], "a wrong password")
			messages = append(messages, b.text(t, "#password-error"))
		}
		signIn(t, "nobody@nowhere.example", "a wrong password")
		unknown := b.text(t, "#password-error")
		signIn(t, dev.env["TCS_DEMO_EMAIL_B"], "the password of b")
		locked := b.text(t, "#password-error")
		b.shot(t, "signin-failed")
		for _, m := range append(messages, unknown, locked) {
			if m != messages[0] || !strings.Contains(m, "too many attempts") {
				t.Fatalf("sign-in failures differ or say too little: %q", append(messages, unknown, locked))
			}
		}
		if h := b.text(t, "h1"); h != "Sign in" {
			t.Fatalf("a locked account signed in: %q", h)
		}
	})

	signIn(t, dev.env["TCS_DEMO_EMAIL"], ownerPassword)

	t.Run("API key: create, use, reveal, revoke, refused", func(t *testing.T) {
		b.open(t, base+"/keys")
		b.submit(t, "main form button[type=submit]")
		if e := b.text(t, "#label-error"); !strings.Contains(e, "label is required") {
			t.Fatalf("an empty label gives %q", e)
		}
		b.fill(t, "#label", "browser test key")
		b.submit(t, "main form button[type=submit]")
		key := b.text(t, "#created-key")
		if !strings.HasPrefix(key, "sk_live_") {
			t.Fatalf("created key %q", key)
		}
		b.shot(t, "keys")
		if me := call(t, http.MethodGet, api+"/api/v1/me", key, ""); me.status != 200 || me.body["organization_id"] != orgA {
			t.Fatalf("the new key on /me: %d %s", me.status, me.raw)
		}
		body := b.waitFor(t, base+"/keys", "browser test key", 5*time.Second)
		row := regexp.MustCompile(`browser test key\s+(\S+)…`).FindStringSubmatch(body)
		if row == nil || !strings.HasPrefix(key, row[1]) {
			t.Fatalf("the list shows no prefix of the key:\n%s", body)
		}
		// Last used is recorded (at most once a minute) from the API's authentication.
		deadline := time.Now().Add(10 * time.Second)
		// Dates read as people read them: "Tue 24 Nov, 14:21", with the year when not this one.
		date := `[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}(?: \d{4})?, \d\d:\d\d`
		for !regexp.MustCompile(`browser test key\s+\S+\s+` + date + `\s+` + date).MatchString(body) {
			if time.Now().After(deadline) {
				t.Fatalf("no last-used time after a use:\n%s", body)
			}
			time.Sleep(300 * time.Millisecond)
			body = b.waitFor(t, base+"/keys", "browser test key", 5*time.Second)
		}
		b.submit(t, `button[aria-label="Reveal key browser test key"]`)
		if got := b.text(t, "#revealed-value"); got != key {
			t.Fatalf("revealed %q, want %q", got, key)
		}
		// Revoking asks first, saying what breaks; the key works until it is confirmed.
		b.submit(t, `a[aria-label="Revoke key browser test key…"]`)
		if !strings.Contains(b.body(t), "refused from the moment it is revoked") {
			t.Fatalf("the revocation is not confirmed first: %s", b.body(t))
		}
		b.shot(t, "keys-revoke-confirm")
		if me := call(t, http.MethodGet, api+"/api/v1/me", key, ""); me.status != 200 {
			t.Fatalf("a key whose revocation is not confirmed yet on /me: %d %s", me.status, me.raw)
		}
		b.submit(t, `button[aria-label="Revoke key browser test key"]`)
		if !strings.Contains(b.body(t), "is revoked") {
			t.Fatalf("after revoke: %s", b.body(t))
		}
		if me := call(t, http.MethodGet, api+"/api/v1/me", key, ""); me.status != 401 {
			t.Fatalf("a revoked key on /me: %d %s", me.status, me.raw)
		}
	})

	var endpointURL string
	t.Run("webhook endpoint: validation, create, signed event, failed delivery, replay", func(t *testing.T) {
		b.open(t, base+"/endpoints")
		b.fill(t, "#url", "https://10.1.2.3/hook")
		b.do(t, clickAll(`input[name=events]`))
		b.submit(t, "main form button[type=submit]")
		if e := b.text(t, "#url-error"); !strings.Contains(e, "private") {
			t.Fatalf("a private address gives %q", e)
		}
		if strings.Contains(b.body(t), "we_") {
			t.Fatal("a refused endpoint was created")
		}
		b.fill(t, "#url", receiverSrv.URL+"/hooks")
		b.do(t, clickAll(`input[name=events]:not(:checked):not([data-select-all])`))
		b.submit(t, "main form button[type=submit]")
		secret := b.text(t, "#created-secret")
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("created secret %q", secret)
		}
		b.shot(t, "endpoints")
		rc.mu.Lock()
		rc.secret = secret
		rc.mu.Unlock()
		endpointURL = eval[string](t, b, `document.querySelector('a[href*="/endpoints/we_"]').href`)

		tr := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY"], `{"source_type":"paste","content":"read revelations 21:4"}`)
		if tr.status != 201 {
			t.Fatalf("paste: %d %s", tr.status, tr.raw)
		}
		id := tr.body["id"].(string)
		// The receiver fails each first attempt; the page shows it with its status.
		b.waitFor(t, endpointURL, "HTTP 500", 30*time.Second)
		first, _, bad := rc.events(id)
		if len(first) == 0 || len(bad) > 0 {
			t.Fatalf("receiver: first attempts %v, bad signatures %v", first, bad)
		}
		b.shot(t, "endpoint-deliveries")
		// Replay the oldest failed delivery: the receiver accepts its second attempt.
		b.submitWith(t, "the replay of a failed delivery", chromedp.Evaluate[chromedp.Void](
			`[...document.querySelectorAll("tbody tr")].find(tr => tr.textContent.includes("HTTP 500")).querySelector('button[aria-label^="Replay"]').click()`))
		if !strings.Contains(b.body(t), "replayed") {
			t.Fatalf("after replay: %s", b.body(t))
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, accepted, _ := rc.events(id)
			if len(accepted) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the replayed delivery did not arrive")
			}
			time.Sleep(200 * time.Millisecond)
		}
		body := b.waitFor(t, endpointURL, "HTTP 200", 10*time.Second)
		if !strings.Contains(body, "replayed 1×") {
			t.Fatalf("the history does not show the replay:\n%s", body)
		}
		rc.mu.Lock()
		deliveryID := rc.accepted[0]["delivery_id"].(string)
		rc.mu.Unlock()
		b.open(t, base+"/deliveries/"+deliveryID)
		page := b.body(t)
		attempts := regexp.MustCompile(`(?s)1\s+[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}( \d{4})?, \d\d:\d\d\s+HTTP 500.*2\s+[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}( \d{4})?, \d\d:\d\d\s+HTTP 200`)
		if !attempts.MatchString(page) || !strings.Contains(page, `"delivery_id": "`+deliveryID+`"`) || !strings.Contains(page, "replayed 1×") {
			t.Fatalf("the delivery page lacks its attempts, replay or payload:\n%s", page)
		}
		b.shot(t, "delivery")
		b.waitFor(t, base+"/transcripts/"+id, "HTTP 200", 10*time.Second)
		b.shot(t, "transcript-deliveries")
	})

	t.Run("rotation: later deliveries are signed with the new secret", func(t *testing.T) {
		b.open(t, endpointURL)
		old := func() string { rc.mu.Lock(); defer rc.mu.Unlock(); return rc.secret }()
		// Rotating asks first, saying what breaks after 24 hours.
		b.submit(t, `a[href$="?confirm=rotate#confirm"]`)
		if !strings.Contains(b.body(t), "within 24 hours") {
			t.Fatalf("the rotation is not confirmed first: %s", b.body(t))
		}
		b.submit(t, `form[action$="/rotate"] button`)
		secret := b.text(t, "#ep-secret")
		if !strings.HasPrefix(secret, "whsec_") || secret == old {
			t.Fatalf("rotated secret %q (old %q)", secret, old)
		}
		b.open(t, endpointURL)
		b.submit(t, `form[action$="/reveal"] button`)
		if got := b.text(t, "#ep-secret"); got != secret {
			t.Fatalf("reveal after rotation = %q, want %q", got, secret)
		}
		rc.mu.Lock()
		rc.secret = secret
		rc.mu.Unlock()
		tr := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY"], `{"source_type":"paste","content":"from first corinthians 13"}`)
		id := tr.body["id"].(string)
		deadline := time.Now().Add(30 * time.Second)
		for {
			first, _, bad := rc.events(id)
			if len(bad) > 0 {
				t.Fatalf("deliveries after rotation fail verification with the new secret: %v", bad)
			}
			if len(first) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no delivery after rotation")
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("edit an endpoint's URL and events, validated like creation", func(t *testing.T) {
		b.open(t, endpointURL)
		b.do(t, clickAll("details summary"))
		b.fill(t, "#url", "http://hooks.example.org/x")
		b.submit(t, "details form button[type=submit]")
		if e := b.text(t, "#url-error"); !strings.Contains(e, "http is allowed only") {
			t.Fatalf("an http URL gives %q", e)
		}
		b.open(t, endpointURL)
		if !strings.Contains(b.body(t), receiverSrv.URL+"/hooks") {
			t.Fatal("a refused edit changed the URL")
		}
		b.do(t, clickAll("details summary"), clickAll(`details input[name=events][value^="ai_pass"]`))
		b.submit(t, "details form button[type=submit]")
		body := b.body(t)
		if !strings.Contains(body, "Endpoint saved") || strings.Contains(body, "(transcript.failed)\nThe AI check") ||
			!strings.Contains(body, "A transcript was added (transcript.created)\nA transcript is corrected and ready (transcript.completed)\nA transcript could not be corrected (transcript.failed)") {
			t.Fatalf("after unsubscribing from ai_pass events:\n%s", body)
		}
	})

	t.Run("a test event reaches the endpoint, signed", func(t *testing.T) {
		b.open(t, endpointURL)
		b.submit(t, `form[action$="/test"] button`)
		m := regexp.MustCompile(`Test event (evt_[a-z0-9]+) is on its way`).FindStringSubmatch(b.body(t))
		if m == nil {
			t.Fatalf("after sending a test event: %s", b.body(t))
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			first, _, bad := rc.events(m[1])
			if len(bad) > 0 {
				t.Fatalf("the test event fails verification: %v", bad)
			}
			if len(first) == 1 && first[0] == "test" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the test event did not arrive: %v", first)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("pause stops deliveries", func(t *testing.T) {
		b.open(t, endpointURL)
		b.submit(t, `form[action$="/pause"] button`)
		if !strings.Contains(b.body(t), "paused") {
			t.Fatalf("after pause: %s", b.body(t))
		}
		tr := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY"], `{"source_type":"paste","content":"at capernum"}`)
		id := tr.body["id"].(string)
		skipped := regexp.MustCompile(regexp.QuoteMeta(id) + `\s+Not sent: the endpoint was paused`)
		deadline := time.Now().Add(30 * time.Second)
		for body := ""; !skipped.MatchString(body); body = b.waitFor(t, endpointURL, id, 30*time.Second) {
			if time.Now().After(deadline) {
				t.Fatalf("no skipped delivery of %s:\n%s", id, body)
			}
		}
		if first, _, _ := rc.events(id); len(first) > 0 {
			t.Fatalf("a paused endpoint received %v", first)
		}
		b.submit(t, `form[action$="/resume"] button`)
	})

	t.Run("live progress of a url transcript without a reload", func(t *testing.T) {
		g := &gate{open: make(chan struct{})}
		src := httptest.NewServer(g)
		defer src.Close()
		defer func() {
			select {
			case <-g.open:
			default:
				close(g.open)
			}
		}()
		tr := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY"],
			fmt.Sprintf(`{"source_type":"url","source_format":"txt","url":%q}`, src.URL+"/sermon.txt"))
		if tr.status != 202 && tr.status != 201 {
			t.Fatalf("url create: %d %s", tr.status, tr.raw)
		}
		id := tr.body["id"].(string)
		b.open(t, base+"/transcripts/"+id)
		if s := b.text(t, "[data-field=status]"); s != "Being corrected" {
			t.Fatalf("status %q, want Being corrected", s)
		}
		b.do(t, markPage())
		close(g.open)
		b.do(t, pollText(`[data-field=status]`, "Ready"))
		if eval[int](t, b, `window.__stay || 0`) != 1 {
			t.Fatal("the page reloaded")
		}
		// The jobs are technical details, one click away.
		b.do(t, clickAll("details.tech > summary"))
		if jobs := b.text(t, "tbody[data-field=jobs]"); !strings.Contains(jobs, "succeeded") && !strings.Contains(jobs, "completed") {
			t.Fatalf("jobs after completion: %q", jobs)
		}
		b.open(t, base+"/transcripts/"+id)
		if !strings.Contains(b.body(t), "1 Corinthians") || !b.has(t, "del") {
			t.Fatalf("the completed transcript shows no content or changes:\n%s", b.body(t))
		}
		b.shot(t, "transcript")
		if !b.has(t, `a[href$="/transcripts/`+id+`/download"]`) {
			t.Fatal("no download link")
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/transcripts/"+id+"/download", nil)
		req.AddCookie(b.cookie(t, dash))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		file, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Disposition") != `attachment; filename="We-read-from-1-Corinthians-13-and-from-Revelation-21-at-Capernaum.txt"` ||
			string(file) != "We read from 1 Corinthians 13 and from Revelation 21 at Capernaum.\n" {
			t.Fatalf("download: %d %q %q", res.StatusCode, res.Header.Get("Content-Disposition"), file)
		}
		b.open(t, base+"/transcripts")
		b.shot(t, "transcripts")
		b.open(t, base+"/transcripts?limit=2")
		first := eval[string](t, b, `[...document.querySelectorAll("tbody tr[data-live]")].map(r => r.dataset.live).join(",")`)
		b.submit(t, `a[rel=next]`)
		second := eval[string](t, b, `[...document.querySelectorAll("tbody tr[data-live]")].map(r => r.dataset.live).join(",")`)
		if strings.Count(first, ",") != 1 || strings.Count(second, ",") != 1 || first == second || !strings.HasPrefix(first, id) {
			t.Fatalf("pages of 2: %q then %q (newest %s)", first, second, id)
		}
		// A filter the API refuses shows the API's message next to the field; nothing is listed.
		b.open(t, base+"/transcripts?status=done")
		if e := b.text(t, "#status-error"); !strings.Contains(e, "status") || b.has(t, "tbody tr[data-live]") {
			t.Fatalf("a bad status filter: %q", e)
		}
		b.open(t, base+"/transcripts?source_type=url")
		if got := eval[string](t, b, `[...document.querySelectorAll("tbody tr[data-live]")].map(r => r.dataset.live).join(",")`); got != id {
			t.Fatalf("source_type=url lists %q, want only %s", got, id)
		}
		b.open(t, base+"/")
		b.shot(t, "overview")
	})

	t.Run("a change shows the AI pass's verdict and reason", func(t *testing.T) {
		tr := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY"],
			`{"source_type":"paste","content":"Turn with me to first corinthians 13 and read revelations 21.","options":{"ai_pass":{"enabled":true}}}`)
		if tr.status != 201 && tr.status != 202 {
			t.Fatalf("paste with the AI pass: %d %s", tr.status, tr.raw)
		}
		body := b.waitFor(t, base+"/transcripts/"+tr.body["id"].(string), "AI check: Checked", 30*time.Second)
		if !regexp.MustCompile(`(AI agrees|AI disagrees|AI is not sure)\n\S`).MatchString(body) {
			t.Fatalf("no AI verdict with a reason on the page:\n%s", body)
		}
	})

	t.Run("a member of A reaches nothing of B", func(t *testing.T) {
		c := b.cookie(t, dash)
		trB := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY_B"], `{"source_type":"paste","content":"in B"}`)
		out, err := exec.Command(tcsBin, "admin", "webhook", "create", "--org", orgB, "--url", "https://hooks.example.com/b",
			"--events", "all", "--kubeconfig", dev.env["KUBECONFIG"]).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		epB := strings.Fields(string(out))[0]
		for _, u := range []string{
			dash + "o/" + orgB + "/", dash + "o/" + orgB + "/keys", dash + "o/" + orgB + "/transcripts",
			base + "/transcripts/" + trB.body["id"].(string), base + "/transcripts/" + trB.body["id"].(string) + "/download",
			base + "/endpoints/" + epB,
		} {
			status, body := dashboardGet(t, u, c)
			if status != http.StatusNotFound || strings.Contains(body, "in B") || strings.Contains(body, "hooks.example.com/b") {
				t.Errorf("GET %s = %d, want 404 with nothing of B", u, status)
			}
		}
		b.open(t, base+"/keys")
		csrf := b.csrf(t)
		if st := b.fetchStatus(t, base+"/endpoints/"+epB+"/delete", "csrf="+csrf); st != http.StatusNotFound {
			t.Fatalf("deleting B's endpoint from A: %d", st)
		}
	})

	t.Run("a member of two organizations switches between them; removal ends access at once", func(t *testing.T) {
		admin := func(args ...string) {
			t.Helper()
			out, err := exec.Command(tcsBin, append([]string{"admin", "member", "--kubeconfig", dev.env["KUBECONFIG"]}, args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("tcs admin member %v: %v\n%s", args, err, out)
			}
		}
		admin("add", "--org", orgB, "--email", dev.env["TCS_DEMO_EMAIL"], "--role", "member")
		// An invitation of an account grants nothing until its owner, signed in, accepts it.
		if status, _ := dashboardGet(t, dash+"o/"+orgB+"/", b.cookie(t, dash)); status != http.StatusNotFound {
			t.Fatalf("an invited member reaches B before accepting: %d", status)
		}
		b.open(t, base+"/")
		b.submit(t, "#pending-invitations")
		b.shot(t, "invitations")
		b.submit(t, `form[action$="/invitations/accept"] button`)
		if loc := eval[string](t, b, `location.pathname`); loc != "/dashboard/o/"+orgB+"/" {
			t.Fatalf("after accepting: %s", loc)
		}
		b.open(t, base+"/")
		b.do(t, selectValue("#org-switch", orgB))
		b.submit(t, "#switch-org button")
		if loc := eval[string](t, b, `location.pathname`); loc != "/dashboard/o/"+orgB+"/" {
			t.Fatalf("after switching: %s", loc)
		}
		if !strings.Contains(b.body(t), "Demo Church B") {
			t.Fatalf("the page does not name organization B: %s", b.body(t))
		}
		admin("remove", "--org", orgB, "--email", dev.env["TCS_DEMO_EMAIL"])
		b.open(t, dash+"o/"+orgB+"/")
		if h := b.text(t, "h1"); h != "Not found" {
			t.Fatalf("a removed member still reaches B: %q", h)
		}
	})

	t.Run("settings: the time zone dates are read in, charts, the API reference, all events", func(t *testing.T) {
		b.open(t, base+"/settings")
		b.do(t, selectValue("#time_zone", "Pacific/Auckland"), clickAll(`input[name=normalize_references]`))
		b.submit(t, "main form button[type=submit]")
		if body := b.body(t); !strings.Contains(body, "Settings saved") {
			t.Fatalf("after saving the settings:\n%s", body)
		}
		if got := eval[string](t, b, `document.querySelector("#time_zone").value`); got != "Pacific/Auckland" {
			t.Fatalf("the time zone after saving is %q", got)
		}
		b.shot(t, "settings")
		// The overview counts its days in Auckland and draws them, with the numbers one click away.
		b.open(t, base+"/")
		if !b.has(t, `svg[role=img][aria-labelledby="by-day-t"] rect.c-ok`) || !strings.Contains(eval[string](t, b, `document.querySelector("#by-day-t").textContent`), "in all") {
			t.Fatal("the overview draws no chart of the days")
		}
		today := time.Now().In(mustZone(t, "Pacific/Auckland")).Format("Mon 2 Jan")
		b.do(t, clickAll("details > summary"))
		if rows := eval[string](t, b, `[...document.querySelectorAll("tbody tr th[scope=row]")].map(th => th.textContent).join("|")`); !strings.Contains(rows, today) {
			t.Fatalf("the overview's days (%s) do not end with today in Auckland, %s", rows, today)
		}
		b.open(t, base+"/")
		b.shot(t, "overview-charts")
		// The IT volunteer finds the API reference and an example request beside the keys.
		b.open(t, base+"/keys")
		if got := b.text(t, "#example-curl"); !strings.Contains(got, "curl "+strings.TrimSuffix(api, "/")+"/api/v1/transcripts") {
			t.Fatalf("the example request is %q", got)
		}
		b.submit(t, `a[href$="/api"]`)
		if body := b.body(t); !strings.Contains(body, "GET /api/v1/transcripts") || !strings.Contains(body, "starting_after") {
			t.Fatalf("the API reference:\n%.2000s", body)
		}
		b.shot(t, "api-reference")
		// Deleting a transcript asks first, then deletes it for the API too.
		tr := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY"], `{"source_type":"paste","content":"to be deleted at capernum"}`)
		if tr.status != 201 {
			t.Fatalf("paste: %d %s", tr.status, tr.raw)
		}
		doomed := tr.body["id"].(string)
		b.open(t, base+"/transcripts/"+doomed)
		b.submit(t, `a[href$="?confirm=delete#confirm"]`)
		if body := b.body(t); !strings.Contains(body, "Delete this transcript?") {
			t.Fatalf("the deletion is not confirmed first:\n%s", body)
		}
		if got := call(t, http.MethodGet, api+"/api/v1/transcripts/"+doomed, dev.env["TCS_API_KEY"], ""); got.status != 200 {
			t.Fatalf("the transcript before the deletion is confirmed: %d", got.status)
		}
		b.submit(t, `form[action$="/delete"] button`)
		if body := b.body(t); !strings.Contains(body, "The transcript is deleted.") || strings.Contains(body, doomed) {
			t.Fatalf("after confirming the deletion:\n%s", body)
		}
		if got := call(t, http.MethodGet, api+"/api/v1/transcripts/"+doomed, dev.env["TCS_API_KEY"], ""); got.status != 404 {
			t.Fatalf("the deleted transcript on the API: %d, want 404", got.status)
		}
		// "All events" ticks every event.
		b.open(t, base+"/endpoints")
		b.do(t, clickAll(`input[data-select-all]`))
		if n := eval[int](t, b, `[...document.querySelectorAll('input[name=events]:not([data-select-all])')].filter(c => !c.checked).length`); n != 0 {
			t.Fatalf("%d events stay unticked after All events", n)
		}
	})

	t.Run("usable at phone width", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(375, 740))
		defer b.do(t, chromedp.EmulateViewport(1000, 760))
		b.open(t, endpointURL)
		delivery := eval[string](t, b, `new URL(document.querySelector('a[href*="/deliveries/evt_"]').href).pathname`)
		for _, p := range []string{"/", "/transcripts", "/keys", "/endpoints", endpointURL[len(base):], delivery[len("/dashboard/o/"+orgA):], "/members", "/audit", "/settings", "/api", "/glossary"} {
			b.open(t, base+p)
			// Nothing wider than the screen but scrollable tables.
			if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 375 {
				t.Errorf("%s is %d px wide at a 375 px screen", p, w)
			}
		}
		b.open(t, base+"/keys")
		b.shot(t, "keys-phone")
		b.open(t, base+"/")
		b.shot(t, "overview-phone")
		b.open(t, endpointURL)
		b.shot(t, "endpoint-phone")
	})

	t.Run("tables keep words whole at desktop width and say when they scroll at phone width", func(t *testing.T) {
		defer b.do(t, chromedp.EmulateViewport(1000, 760))
		b.open(t, endpointURL)
		delivery := eval[string](t, b, `new URL(document.querySelector('a[href*="/deliveries/evt_"]').href).pathname`)
		pages := []string{"/", "/transcripts", "/keys", "/endpoints", endpointURL[len(base):], delivery[len("/dashboard/o/"+orgA):], "/members", "/audit", "/glossary"}
		b.do(t, chromedp.EmulateViewport(1280, 900))
		for _, p := range pages {
			b.open(t, base+p)
			// A word of letters split over two lines in a table cell ("Stat|e").
			broken := eval[[]string](t, b, `(() => {
				const out = [];
				for (const cell of document.querySelectorAll(".table th, .table td")) {
					const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
					for (let n = walk.nextNode(); n; n = walk.nextNode()) {
						// Addresses and ids (code) may break anywhere; closed details are not read.
						if (n.parentElement.closest("details:not([open]) > :not(summary), .vh, code")) continue;
						for (const m of n.data.matchAll(/[A-Za-z]{2,}/g)) {
							const r = document.createRange();
							r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
							if (new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1) out.push(m[0]);
						}
					}
				}
				return out;
			})()`)
			if len(broken) > 0 {
				t.Errorf("%s at 1280 px breaks words in its tables: %q", p, broken)
			}
		}
		b.do(t, chromedp.EmulateViewport(375, 740))
		for _, p := range pages {
			b.open(t, base+p)
			// Tables in details ("The numbers") are checked as they show once opened.
			b.do(t, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details").forEach(d => d.open = true)`))
			hidden := eval[[]string](t, b, `[...document.querySelectorAll(".table")].filter(d => d.scrollWidth > d.clientWidth + 1 &&
				!(d.previousElementSibling && d.previousElementSibling.matches(".scroll-hint") && d.previousElementSibling.offsetParent)).map(d => d.getAttribute("aria-label") || d.id || "a table")`)
			if len(hidden) > 0 {
				t.Errorf("%s at 375 px has tables that scroll sideways without saying so: %q", p, hidden)
			}
		}
	})

	t.Run("a cross-site POST is refused", func(t *testing.T) {
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<form id="f" method="post" action="%s/keys"><input name="label" value="planted"></form><script>document.getElementById("f").submit()</script>`, base)
		}))
		defer evil.Close()
		b.open(t, evil.URL)
		b.do(t, pollText("h1", "Forbidden"))
		if !strings.Contains(b.body(t), "another site") {
			t.Fatalf("cross-site POST: %s", b.body(t))
		}
		b.open(t, base+"/keys")
		if strings.Contains(b.body(t), "planted") {
			t.Fatal("a cross-site POST created a key")
		}
		// Nor does a link make the dashboard say anything.
		b.open(t, base+"/keys?flash=Call+0800+to+verify+your+account")
		if strings.Contains(b.body(t), "Call 0800") {
			t.Fatal("a link put its text on a page")
		}
	})

	t.Run("members and audit trail", func(t *testing.T) {
		b.open(t, base+"/members")
		if role := eval[string](t, b, `document.querySelector("#role").value`); role != "member" {
			t.Fatalf("the invitation form offers the role %q first; want the least, member", role)
		}
		b.fill(t, "#email", "not an email")
		b.submit(t, "main form.card button[type=submit]")
		if e := b.text(t, "#email-error"); !strings.Contains(e, "email") {
			t.Fatalf("a bad email gives %q", e)
		}
		b.fill(t, "#email", "reader@demo-a.example")
		b.do(t, selectValue("#role", "member"))
		b.submit(t, "main form.card button[type=submit]")
		// The dashboard shows the inviter no link: without SMTP, the invitation is in the
		// service's log, for the operator.
		if html := eval[string](t, b, `document.documentElement.outerHTML`); tokenLink.MatchString(html) {
			t.Fatalf("the members page shows a link to the inviter:\n%s", html)
		}
		if body := b.body(t); !strings.Contains(body, "its email is in the service's log") {
			t.Fatalf("the inviter is not told where the invitation went:\n%s", body)
		}
		if row := b.text(t, `tr[data-invited="reader@demo-a.example"]`); !strings.Contains(row, "expires") {
			t.Fatalf("the invited row: %q", row)
		}
		if b.has(t, `#role-reader\@demo-a\.example`) {
			t.Fatal("an invited person is listed as a member")
		}
		b.shot(t, "members")
		link := waitLogLink(t, dev, "invitation", "reader@demo-a.example")

		// The new member sets a password and signs in: a member reads, but cannot create keys.
		b.submit(t, "header form button[type=submit]")
		b.openLink(t, link)
		if body := b.body(t); !strings.Contains(body, "Demo Church A") || !strings.Contains(body, dev.env["TCS_DEMO_EMAIL"]+" invited you") {
			t.Fatalf("the invitation page does not name the organization and inviter:\n%s", body)
		}
		b.fill(t, "#password", "the reader password")
		b.fill(t, "#confirm", "the reader password")
		b.submit(t, "form button[type=submit]")
		if body := b.body(t); !strings.Contains(body, "you joined Demo Church A") {
			t.Fatalf("after setting the password: %s", body)
		}
		signIn(t, "reader@demo-a.example", "the reader password")
		b.open(t, base+"/keys")
		if b.has(t, "#label") || b.has(t, `form[action$="/revoke"]`) || b.has(t, `a[href*="revoke="]`) {
			t.Fatal("a member is offered to create or revoke keys")
		}
		// A member may reveal a key, as the spec allows.
		b.submit(t, `form[action$="/reveal"] button`)
		if v := b.text(t, "#revealed-value"); !strings.HasPrefix(v, "sk_live_") {
			t.Fatalf("a member revealing a key sees %q", v)
		}
		if st := b.fetchStatus(t, base+"/keys", "label=sneaky&csrf="+b.csrf(t)); st != http.StatusForbidden {
			t.Fatalf("a member creating a key: %d", st)
		}
		if st := b.fetchStatus(t, base+"/members", "email=x@y.example&role=owner&csrf="+b.csrf(t)); st != http.StatusForbidden {
			t.Fatalf("a member inviting: %d", st)
		}
		if st := b.fetchStatus(t, base+"/members/invitations/revoke", "email=x@y.example&csrf="+b.csrf(t)); st != http.StatusForbidden {
			t.Fatalf("a member revoking an invitation: %d", st)
		}
		status, _ := dashboardGet(t, base+"/audit", b.cookie(t, dash))
		if status != http.StatusForbidden {
			t.Fatalf("a member reading the audit trail: %d", status)
		}

		// The owner changes the new member's role and reads the trail.
		b.submit(t, "header form button[type=submit]")
		signIn(t, dev.env["TCS_DEMO_EMAIL"], ownerPassword)
		b.open(t, base+"/members")
		setRole := func(role string) {
			t.Helper()
			b.submitWith(t, "the role form of reader@", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
				`(f => { f.querySelector("select").value = %q; f.querySelector("button").click() })(document.getElementById("role-reader@demo-a.example").form)`, role)))
			if body := b.body(t); !strings.Contains(body, "reader@demo-a.example is now "+role) {
				t.Fatalf("after changing the role to %s:\n%s", role, body)
			}
		}
		setRole("admin")
		setRole("member")
		// Removing a member asks first, saying they lose access at once; then removes.
		b.submit(t, `a[aria-label="Remove reader@demo-a.example…"]`)
		if body := b.body(t); !strings.Contains(body, "Remove reader@demo-a.example?") || !strings.Contains(body, "signed out of this organization at once") {
			t.Fatalf("the removal is not confirmed first:\n%s", body)
		}
		if !b.has(t, `#role-reader\@demo-a\.example`) {
			t.Fatal("the member is gone before the removal is confirmed")
		}
		b.submit(t, `button[aria-label="Remove reader@demo-a.example"]`)
		if body := b.body(t); !strings.Contains(body, "reader@demo-a.example was removed") || b.has(t, `#role-reader\@demo-a\.example`) {
			t.Fatalf("after confirming the removal:\n%s", body)
		}
		b.open(t, base+"/audit")
		body := b.body(t)
		// Each entry in a sentence staff read; the action's technical name one click away.
		owner := dev.env["TCS_DEMO_EMAIL"]
		for _, want := range []string{owner + " created the API key “browser test key”.", "reader@demo-a.example showed the API key “",
			owner + " added the webhook endpoint " + receiverSrv.URL + "/hooks.", owner + " invited reader@demo-a.example as member.",
			"reader@demo-a.example accepted the invitation and joined as member.", owner + " made reader@demo-a.example admin.",
			owner + " removed reader@demo-a.example from the organization.", owner + " changed the organization’s settings."} {
			if !strings.Contains(body, want) {
				t.Errorf("the audit trail does not say %q:\n%s", want, body)
			}
		}
		tech := eval[string](t, b, `[...document.querySelectorAll("table.audit details.tech")].map(d => d.textContent).join("\n")`)
		for _, want := range []string{"APIKeyCreated", "APIKeyRevealed", "APIKeyRevoked", "WebhookEndpointCreated", "WebhookSecretRotated", "WebhookEndpointPaused",
			"WebhookDeliveryReplayed", "MemberInvited", "InvitationAccepted", "MemberRoleChanged", "PasswordResetCompleted", "MemberRemoved", "SettingsChanged"} {
			if !strings.Contains(tech, want) {
				t.Errorf("the audit trail's technical details lack %s:\n%s", want, tech)
			}
			if strings.Contains(body, want) {
				t.Errorf("the audit trail shows the technical name %s outside its details", want)
			}
		}
		b.shot(t, "audit")
		assets, err := controlplane.FindAssets(testenv.Root())
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(filepath.Join(assets, "kubectl"), "--kubeconfig", dev.env["KUBECONFIG"], "-n", "tcs-system", "describe", "organization", strings.Replace(orgA, "_", "-", 1)).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "APIKeyRevoked") || !strings.Contains(string(out), dev.env["TCS_DEMO_EMAIL"]+" revoked API key") {
			t.Errorf("kubectl describe does not show the audit events (%v):\n%s", err, out)
		}
	})

	t.Run("a session survives a restart of the service", func(t *testing.T) {
		signIn(t, dev.env["TCS_DEMO_EMAIL"], ownerPassword)
		c := b.cookie(t, dash)
		dev.stop(t)
		again := startDev(t, stateDir, "--outbound-ca-file", caFile)
		status, body := dashboardGet(t, again.env["TCS_DASHBOARD_URL"]+"o/"+orgA+"/keys", c)
		if status != http.StatusOK || !strings.Contains(body, "API keys") {
			t.Fatalf("the session after a restart: %d\n%.500s", status, body)
		}
	})
}

// mustZone returns the time zone name.
func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
