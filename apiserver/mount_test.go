package apiserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
)

// The routes another front-end registers with Mount are served on the API's router, labelled in
// the metrics by their own templates, beside the API's routes and its JSON not-found answer.
func TestMountedRoutesShareTheAPIRouter(t *testing.T) {
	s := New(Options{})
	s.Mount(func(r *mux.Router) {
		r.HandleFunc("/front/{id}", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("front " + mux.Vars(r)["id"]))
		}).Methods(http.MethodGet)
	})
	h := s.Handler()
	for _, tc := range []struct {
		path, label string
		status      int
		body        string
	}{
		{"/front/x1", "/front/{id}", http.StatusOK, "front x1"},
		{"/healthz", "/healthz", http.StatusOK, ""},
		{"/front", "unmatched", http.StatusNotFound, ""},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.status || (tc.body != "" && rec.Body.String() != tc.body) {
			t.Errorf("GET %s: %d %q, want %d %q", tc.path, rec.Code, rec.Body, tc.status, tc.body)
		}
		if tc.status == http.StatusNotFound && rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("GET %s: not the API's JSON not-found answer: %s", tc.path, rec.Header().Get("Content-Type"))
		}
		if got := routeTemplate(s.router(), httptest.NewRequest(http.MethodGet, tc.path, nil)); got != tc.label {
			t.Errorf("GET %s is labelled %q, want %q", tc.path, got, tc.label)
		}
	}
}
