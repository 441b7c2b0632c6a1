package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCookie(t *testing.T) {
	for _, tc := range []struct {
		public string
		secure bool
	}{{"https://tcs.example.org", true}, {"http://127.0.0.1:8080", false}} {
		d, err := New(Options{PublicURL: tc.public})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		d.setCookie(rec, "token", 60)
		c := rec.Result().Cookies()
		if len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteLaxMode || c[0].Path != "/dashboard/" || c[0].Secure != tc.secure {
			t.Errorf("public URL %s: cookie %+v, want HttpOnly, SameSite=Lax, path /dashboard/, Secure=%t", tc.public, c, tc.secure)
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
