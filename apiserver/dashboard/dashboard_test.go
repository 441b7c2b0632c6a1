package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCookie(t *testing.T) {
	for _, tc := range []struct {
		public     string
		name, path string
		secure     bool
		hsts       string
	}{
		// Over https: the __Host- prefix, which needs Secure, Path=/ and no Domain, and HSTS.
		{"https://tcs.example.org", "__Host-tcs_session", "/", true, "max-age=31536000"},
		// tcs dev on loopback: browsers refuse the prefix and Secure over http.
		{"http://127.0.0.1:8080", "tcs_session", "/dashboard/", false, ""},
	} {
		d, err := New(Options{PublicURL: tc.public})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		d.setCookie(rec, "token", 60)
		c := rec.Result().Cookies()
		if len(c) != 1 || c[0].Name != tc.name || !c[0].HttpOnly || c[0].SameSite != http.SameSiteLaxMode || c[0].Path != tc.path || c[0].Secure != tc.secure || c[0].Domain != "" {
			t.Errorf("public URL %s: cookie %+v, want %s, HttpOnly, SameSite=Lax, path %s, Secure=%t, no Domain", tc.public, c, tc.name, tc.path, tc.secure)
		}
		// The session is read back from the cookie of that name.
		r := httptest.NewRequest(http.MethodGet, tc.public+"/dashboard/", nil)
		r.AddCookie(&http.Cookie{Name: tc.name, Value: "token"})
		if got, err := r.Cookie(d.cookieName()); err != nil || got.Value != "token" {
			t.Errorf("public URL %s: the session is read from %q, the cookie set is %q", tc.public, d.cookieName(), tc.name)
		}
		// Every answer carries HSTS over https, and none over http.
		rec = httptest.NewRecorder()
		router(d).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.public+"/dashboard/static/nothing", nil))
		if got := rec.Header().Get("Strict-Transport-Security"); got != tc.hsts {
			t.Errorf("public URL %s: Strict-Transport-Security %q, want %q", tc.public, got, tc.hsts)
		}
	}
	if _, err := New(Options{PublicURL: "tcs.example.org"}); err == nil {
		t.Error("a public URL without a scheme was accepted")
	}
}

func TestOriginAllowed(t *testing.T) {
	d, err := New(Options{PublicURL: "https://tcs.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		host    string
		headers map[string]string
		ok      bool
	}{
		{"same origin by Sec-Fetch-Site", "tcs.example.org", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://tcs.example.org"}, true},
		{"typed by the user", "tcs.example.org", map[string]string{"Sec-Fetch-Site": "none"}, true},
		{"same site, other origin", "tcs.example.org", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "https://evil.example.org"}, false},
		{"cross site", "tcs.example.org", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, false},
		{"old browser, other origin", "tcs.example.org", map[string]string{"Origin": "https://evil.example"}, false},
		{"old browser, own origin", "tcs.example.org", map[string]string{"Origin": "https://tcs.example.org"}, true},
		{"behind a proxy that changes the Host", "tcs-internal:8080", map[string]string{"Origin": "https://tcs.example.org"}, true},
		{"not a browser", "tcs.example.org", nil, true},
	} {
		r := httptest.NewRequest(http.MethodPost, "https://"+tc.host+"/dashboard/signin", strings.NewReader(""))
		r.Host = tc.host
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		if got := d.originAllowed(r); got != tc.ok {
			t.Errorf("%s: allowed = %t, want %t", tc.name, got, tc.ok)
		}
	}
}

// A path under the dashboard's prefix that no route serves is answered as net/http's ServeMux
// answered it when it served the dashboard alone: with a slash appended when that is a page,
// 405 with the methods that path has, else not found; each with the dashboard's headers.
func TestUnmatchedPathsAreAnsweredAsBefore(t *testing.T) {
	d, err := New(Options{PublicURL: "https://tcs.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	h := router(d)
	for _, tc := range []struct {
		name, method, path string
		status             int
		location, allow    string
		body               string
	}{
		{"an organization's path without its slash is redirected to its overview", http.MethodGet, "/dashboard/o/org_a?x=1", http.StatusTemporaryRedirect, "/dashboard/o/org_a/?x=1", "", ""},
		{"the static files' path without its slash is redirected", http.MethodHead, "/dashboard/static", http.StatusTemporaryRedirect, "/dashboard/static/", "", ""},
		{"a form sent to a page is refused with the page's methods", http.MethodPost, "/dashboard/", http.StatusMethodNotAllowed, "", "GET, HEAD", "Method Not Allowed\n"},
		{"another method on a page and form names both", http.MethodPut, "/dashboard/signin", http.StatusMethodNotAllowed, "", "GET, HEAD, POST", "Method Not Allowed\n"},
		{"a form of an organization refuses a GET", http.MethodGet, "/dashboard/o/org_a/keys/k/revoke", http.StatusMethodNotAllowed, "", "POST", "Method Not Allowed\n"},
		{"a path without its slash counts the methods of the path with it", http.MethodPost, "/dashboard/o/org_a", http.StatusMethodNotAllowed, "", "GET, HEAD", "Method Not Allowed\n"},
		{"a path of no page is not found", http.MethodGet, "/dashboard/nosuch", http.StatusNotFound, "", "", "404 page not found\n"},
		{"a path below a page is not found", http.MethodGet, "/dashboard/o/org_a/transcripts/tr_1/extra", http.StatusNotFound, "", "", "404 page not found\n"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, "https://tcs.example.org"+tc.path, nil))
		if rec.Code != tc.status || rec.Header().Get("Location") != tc.location || rec.Header().Get("Allow") != tc.allow {
			t.Errorf("%s: %d, Location %q, Allow %q; want %d, %q, %q", tc.name, rec.Code, rec.Header().Get("Location"), rec.Header().Get("Allow"), tc.status, tc.location, tc.allow)
		}
		if tc.body != "" && rec.Body.String() != tc.body {
			t.Errorf("%s: body %q, want %q", tc.name, rec.Body, tc.body)
		}
		if rec.Header().Get("X-Frame-Options") != "DENY" || rec.Header().Get("Strict-Transport-Security") == "" {
			t.Errorf("%s: without the dashboard's headers: %v", tc.name, rec.Header())
		}
	}
}
