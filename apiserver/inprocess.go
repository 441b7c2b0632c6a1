package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/gorilla/mux"
)

// ReadError is an error answer of the API to an in-process read: its status and error object.
type ReadError struct {
	Status  int
	Type    string
	Param   string
	Message string
}

func (e *ReadError) Error() string { return e.Message }

// Read answers a GET of path (below /api/v1, such as "/transcripts" or
// "/transcripts/tr_…/changes") with query, as the API answers organization org, and decodes
// the JSON answer into out. It runs the API's own handlers, so another front-end of the
// same process (the dashboard) reads transcripts, changes and jobs through the same code,
// rules and filters as API callers, with neither an API key nor the rate limits.
func (s *Server) Read(ctx context.Context, org, path string, query url.Values, out any) error {
	r := mux.NewRouter()
	for _, route := range []struct {
		path string
		h    http.HandlerFunc
	}{
		{"/transcripts", s.listTranscripts},
		{"/transcripts/{id}", s.getTranscript},
		{"/transcripts/{id}/changes", s.listChanges},
		{"/jobs/{id}", s.getJob},
	} {
		r.HandleFunc(route.path, route.h).Methods(http.MethodGet)
	}
	u := &url.URL{Path: path, RawQuery: query.Encode()}
	ctx = context.WithValue(ctx, principalKey, Principal{OrganizationID: org, KeyID: "dashboard", Label: "dashboard"})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	rec := httptest.NewRecorder()
	var match mux.RouteMatch
	if !r.Match(req, &match) {
		return &ReadError{Status: http.StatusNotFound, Type: ErrNotFound, Message: "No such page."}
	}
	r.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		var body struct {
			Error struct {
				Type    string `json:"type"`
				Param   string `json:"param"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		return &ReadError{Status: rec.Code, Type: body.Error.Type, Param: body.Error.Param, Message: body.Error.Message}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		return fmt.Errorf("decoding %s: %w", path, err)
	}
	return nil
}
