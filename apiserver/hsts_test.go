package apiserver

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestStrictTransportSecurity checks that every answer of the API, a 404 included, tells
// browsers to keep to https when the service is reached over it, and that none does over http.
func TestStrictTransportSecurity(t *testing.T) {
	for _, tc := range []struct {
		hsts bool
		want string
	}{{true, "max-age=31536000"}, {false, ""}} {
		h := New(Options{StrictTransportSecurity: tc.hsts}).Handler()
		for _, path := range []string{"/api/v1/openapi.json", "/api/v1/nothing"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if got := rec.Header().Get("Strict-Transport-Security"); got != tc.want {
				t.Errorf("StrictTransportSecurity %v: GET %s (%d) has HSTS %q, want %q", tc.hsts, path, rec.Code, got, tc.want)
			}
		}
	}
}
