package e2e

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// dashClient is a signed-in member of the dashboard of a running tcs, over plain HTTP as a
// script (not a browser) would use it.
type dashClient struct {
	http   *http.Client
	cookie *http.Cookie
}

// reply is an answer of the dashboard, its body read.
type reply struct {
	StatusCode int
	Header     http.Header
	cookies    []*http.Cookie
}

// Cookies returns the cookies the answer sets.
func (r *reply) Cookies() []*http.Cookie { return r.cookies }

// do sends a request with the session cookie, without following redirects, and returns the
// answer with its body read.
func (c *dashClient) do(t *testing.T, method, u string, form url.Values) (*reply, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.cookie != nil {
		req.AddCookie(c.cookie)
	}
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &reply{StatusCode: res.StatusCode, Header: res.Header, cookies: res.Cookies()}, string(b)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signInOverHTTP sets the password of the invitation link and signs in with it.
func signInOverHTTP(t *testing.T, dash, invite, email, password string) *dashClient {
	t.Helper()
	c := &dashClient{http: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	target, form := passwordForm(t, invite, password)
	if res, body := c.do(t, http.MethodPost, target, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("setting the password: %d\n%.500s", res.StatusCode, body)
	}
	res, body := c.do(t, http.MethodPost, dash+"signin", url.Values{"email": {email}, "password": {password}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in: %d\n%.500s", res.StatusCode, body)
	}
	for _, ck := range res.Cookies() {
		if strings.HasSuffix(ck.Name, "tcs_session") && ck.Value != "" {
			c.cookie = ck
		}
	}
	if c.cookie == nil {
		t.Fatalf("signing in set no cookie: %v", res.Header["Set-Cookie"])
	}
	return c
}

// TestTrustBoundaries drives the real `tcs dev` over HTTP at the service's trust boundaries:
// the session cookie and headers over plain http, one "not found" for whatever is not the
// member's, the audit trail outliving its Events, and delivery errors that name no address.
func TestTrustBoundaries(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	dev := startDev(t, stateDir)
	api, dash := dev.env["TCS_URL"], dev.env["TCS_DASHBOARD_URL"]
	orgA, orgB := dev.env["TCS_ORG"], dev.env["TCS_ORG_B"]
	base := dash + "o/" + orgA
	c := signInOverHTTP(t, dash, dev.env["TCS_DEMO_INVITE"], dev.env["TCS_DEMO_EMAIL"], "a long demo password")

	t.Run("over plain http the session cookie has no __Host- prefix and no HSTS is sent", func(t *testing.T) {
		if c.cookie.Name != "tcs_session" {
			t.Errorf("the session cookie is %q, want tcs_session (browsers refuse __Host- over http)", c.cookie.Name)
		}
		res, _ := c.do(t, http.MethodGet, base+"/", nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("the overview: %d", res.StatusCode)
		}
		if h := res.Header.Get("Strict-Transport-Security"); h != "" {
			t.Errorf("HSTS %q over plain http", h)
		}
	})

	t.Run("whatever is not the member's reads exactly as what does not exist", func(t *testing.T) {
		trB := call(t, http.MethodPost, api+"/api/v1/transcripts", dev.env["TCS_API_KEY_B"], `{"source_type":"paste","content":"in B"}`)
		if trB.status != 201 {
			t.Fatalf("a transcript of B: %d %s", trB.status, trB.raw)
		}
		idB := trB.body["id"].(string)
		out, err := exec.Command(tcsBin, "admin", "webhook", "create", "--org", orgB, "--url", "https://hooks.example.com/b",
			"--events", "all", "--kubeconfig", dev.env["KUBECONFIG"]).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		epB := strings.Fields(string(out))[0]
		for _, pair := range [][2]string{
			{dash + "o/" + orgB + "/", dash + "o/org_doesnotexist0000000000/"},
			{dash + "o/" + orgB + "/keys", dash + "o/org_doesnotexist0000000000/keys"},
			{base + "/transcripts/" + idB, base + "/transcripts/tr_doesnotexist00000000"},
			{base + "/transcripts/" + idB + "/download", base + "/transcripts/tr_doesnotexist00000000/download"},
			{base + "/endpoints/" + epB, base + "/endpoints/we_doesnotexist00000000"},
		} {
			other, missing := pair[0], pair[1]
			resO, bodyO := c.do(t, http.MethodGet, other, nil)
			resM, bodyM := c.do(t, http.MethodGet, missing, nil)
			// The pages differ only where they show their own path.
			pathO, _ := url.Parse(other)
			pathM, _ := url.Parse(missing)
			bodyO = strings.ReplaceAll(bodyO, pathO.Path, "PATH")
			bodyM = strings.ReplaceAll(bodyM, pathM.Path, "PATH")
			if resO.StatusCode != http.StatusNotFound || resM.StatusCode != http.StatusNotFound || bodyO != bodyM {
				t.Errorf("GET %s = %d and GET %s = %d, want the same 404 page; the first says\n%.2000s\nthe second\n%.2000s", other, resO.StatusCode, missing, resM.StatusCode, bodyO, bodyM)
			}
			for _, leak := range []string{"does not have access", "in B", "hooks.example.com"} {
				if strings.Contains(bodyO, leak) {
					t.Errorf("GET %s says %q", other, leak)
				}
			}
		}
	})

	t.Run("a reveal stays in the audit trail after its Event is gone", func(t *testing.T) {
		_, keys := c.do(t, http.MethodGet, base+"/keys", nil)
		m := regexp.MustCompile(`/keys/(key_[a-z0-9]+)/reveal`).FindStringSubmatch(keys)
		csrf := csrfInput.FindStringSubmatch(keys)
		if m == nil || csrf == nil {
			t.Fatalf("the keys page offers no key to reveal:\n%.2000s", keys)
		}
		res, body := c.do(t, http.MethodPost, base+"/keys/"+m[1]+"/reveal", url.Values{"csrf": {csrf[1]}})
		if res.StatusCode != http.StatusOK || !strings.Contains(body, "sk_live_") {
			t.Fatalf("revealing %s: %d\n%.1000s", m[1], res.StatusCode, body)
		}
		// kube-apiserver deletes Events after its event TTL; here they go at once.
		assets, err := controlplane.FindAssets(testenv.Root())
		if err != nil {
			t.Fatal(err)
		}
		kubectl := func(args ...string) string {
			t.Helper()
			out, err := exec.Command(filepath.Join(assets, "kubectl"), append([]string{"--kubeconfig", dev.env["KUBECONFIG"], "-n", "tcs-system"}, args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl %v: %v\n%s", args, err, out)
			}
			return string(out)
		}
		if out := kubectl("get", "events", "--field-selector", "reason=APIKeyRevealed", "-o", "name"); strings.TrimSpace(out) == "" {
			t.Fatal("the reveal sent no Event, the notification it still is")
		}
		kubectl("delete", "events", "--all")
		if out := kubectl("get", "events", "--field-selector", "reason=APIKeyRevealed", "-o", "name"); strings.TrimSpace(out) != "" {
			t.Fatalf("Events left: %s", out)
		}

		want := dev.env["TCS_DEMO_EMAIL"] + " revealed API key " + m[1]
		if _, audit := c.do(t, http.MethodGet, base+"/audit", nil); !strings.Contains(audit, "APIKeyRevealed") || !strings.Contains(audit, want) {
			t.Errorf("the audit page lost the reveal with its Event:\n%.3000s", audit)
		}
		out, err := exec.Command(tcsBin, "admin", "audit", "list", "--org", orgA, "--since", "1h", "--limit", "10",
			"--results-dsn", "sqlite://"+filepath.Join(stateDir, "results.db")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "APIKeyRevealed") || !strings.Contains(string(out), want) {
			t.Errorf("tcs admin audit list (%v):\n%s", err, out)
		}
		// Another organization's trail does not have it.
		out, err = exec.Command(tcsBin, "admin", "audit", "list", "--org", orgB,
			"--results-dsn", "sqlite://"+filepath.Join(stateDir, "results.db")).CombinedOutput()
		if err != nil || strings.Contains(string(out), m[1]) {
			t.Errorf("tcs admin audit list --org B (%v):\n%s", err, out)
		}
	})

	t.Run("a failed delivery tells members the host, not the address it resolved to", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		out, err := exec.Command(tcsBin, "admin", "webhook", "create", "--org", orgA, "--url", "https://localhost:"+port+"/hook",
			"--events", "all", "--kubeconfig", dev.env["KUBECONFIG"]).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		ep := strings.Fields(string(out))[0]
		_, page := c.do(t, http.MethodGet, base+"/endpoints/"+ep, nil)
		csrf := csrfInput.FindStringSubmatch(page)
		if csrf == nil {
			t.Fatalf("the endpoint page has no form:\n%.1000s", page)
		}
		if res, body := c.do(t, http.MethodPost, base+"/endpoints/"+ep+"/test", url.Values{"csrf": {csrf[1]}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sending a test event: %d\n%.1000s", res.StatusCode, body)
		}
		var delivery string
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			_, page = c.do(t, http.MethodGet, base+"/endpoints/"+ep, nil)
			if m := regexp.MustCompile(`/deliveries/(evt_[a-z0-9]+)`).FindStringSubmatch(page); m != nil {
				_, delivery = c.do(t, http.MethodGet, base+"/deliveries/"+m[1], nil)
				if strings.Contains(delivery, "refused the connection") {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no failed attempt shown after 30 s:\n%.3000s", delivery)
			}
		}
		if !strings.Contains(delivery, "the host localhost refused the connection") {
			t.Errorf("the delivery page does not name the host:\n%.3000s", delivery)
		}
		for _, internal := range []string{"127.0.0.1", "[::1]", "dial tcp"} {
			if strings.Contains(delivery, internal) {
				t.Errorf("the delivery page shows %q:\n%.3000s", internal, delivery)
			}
		}
	})
}
