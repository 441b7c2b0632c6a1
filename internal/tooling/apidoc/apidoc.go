// Package apidoc checks HTTP responses against the API's OpenAPI document, for the tests of
// the API server and the end-to-end tests of the binary alike, and checks that the document and
// the API agree on which requests are allowed (CheckAgreement).
package apidoc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Doc is a validated OpenAPI document with a router over its operations.
type Doc struct {
	doc    *openapi3.T
	router routers.Router
}

// Load parses and validates the OpenAPI document data.
func Load(data []byte) (*Doc, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing the OpenAPI document: %w", err)
	}
	return &Doc{doc: doc, router: router}, nil
}

// T returns the parsed document.
func (d *Doc) T() *openapi3.T { return d.doc }

var requestIDPattern = regexp.MustCompile(`^req_[a-z0-9]+$`)

// Check returns why the response to method rawURL is not one the document allows, or nil: it
// must have a status documented for the route, the documented headers (X-Request-Id always)
// and a body of the documented schema, and an error's request_id must be its X-Request-Id. A
// path the API does not serve must answer 404 and a method it does not serve on a path 405,
// both with the error object.
func (d *Doc) Check(method, rawURL string, status int, header http.Header, body []byte) error {
	if id := header.Get("X-Request-Id"); !requestIDPattern.MatchString(id) {
		return fmt.Errorf("X-Request-Id %q is not req_…", id)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	if method == http.MethodPut && strings.HasPrefix(u.Path, "/uploads/") {
		// The router serves every path below /uploads/ with the presigned-upload handler.
		u.Path, u.RawPath = "/uploads/", ""
	}
	req, err := http.NewRequest(method, u.String(), nil)
	if err != nil {
		return err
	}
	route, params, err := d.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		return d.checkRouterError("UnknownRoute", http.StatusNotFound, status, header, body)
	case errors.Is(err, routers.ErrMethodNotAllowed):
		return d.checkRouterError("MethodNotAllowed", http.StatusMethodNotAllowed, status, header, body)
	case err != nil:
		return err
	}
	resp := route.Operation.Responses.Status(status)
	if resp == nil {
		return fmt.Errorf("status %d is not documented for %s %s", status, route.Method, route.Path)
	}
	if len(resp.Value.Content) == 0 && len(body) > 0 {
		return fmt.Errorf("status %d of %s %s has no body, got %d bytes", status, route.Method, route.Path, len(body))
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err
	}
	if method == http.MethodHead {
		// openapi3filter skips HEAD responses; their headers are checked here.
		for name, h := range resp.Value.Headers {
			if h.Value.Required && header.Get(name) == "" {
				return fmt.Errorf("required header %s is missing", name)
			}
		}
		return nil
	}
	return checkRequestID(header, body)
}

// checkRouterError checks the answer to a path or method the API does not serve against the
// document's shared response name.
func (d *Doc) checkRouterError(name string, want, status int, header http.Header, body []byte) error {
	if status != want {
		return fmt.Errorf("the document has no such route, so the answer must be %d, not %d", want, status)
	}
	resp := d.doc.Components.Responses[name]
	if resp == nil || resp.Value == nil {
		return fmt.Errorf("the document has no components.responses.%s", name)
	}
	if mt, _, err := mime.ParseMediaType(header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type %q, want application/json", header.Get("Content-Type"))
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	schema := resp.Value.Content.Get("application/json").Schema.Value
	if err := schema.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("the body does not match components.responses.%s: %w", name, err)
	}
	return checkRequestID(header, body)
}

// checkRequestID checks that an error's request_id is the X-Request-Id of its response, unless
// the response is the replay of an earlier one (which keeps the first request's id).
func checkRequestID(header http.Header, body []byte) error {
	if header.Get("Idempotent-Replayed") == "true" {
		return nil
	}
	var e struct {
		Error *struct {
			RequestID *string `json:"request_id"`
		} `json:"error"`
	}
	// Only the API's error object has a request_id (a failed job's error and the upload
	// handler's errors have none).
	if !json.Valid(body) {
		return nil
	}
	_ = json.Unmarshal(body, &e) // JSON of another shape leaves e.Error nil
	if e.Error == nil || e.Error.RequestID == nil {
		return nil
	}
	if *e.Error.RequestID != header.Get("X-Request-Id") {
		return fmt.Errorf("error.request_id %q differs from X-Request-Id %q", *e.Error.RequestID, header.Get("X-Request-Id"))
	}
	return nil
}

// CheckRequest returns why a request is not one the document allows, or nil: its path and
// query parameters, its headers and its body against the operation's schemas. Credentials
// are not checked (the API's own to refuse); a JSON body is checked against its schema, any
// other body only for its Content-Type. A request of a route the document does not have is
// not checked: Check holds that the API answers it 404 or 405.
func (d *Doc) CheckRequest(method, rawURL string, header http.Header, body []byte) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	if method == http.MethodPut && strings.HasPrefix(u.Path, "/uploads/") {
		u.Path, u.RawPath = "/uploads/", ""
	}
	req, err := http.NewRequest(method, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	route, params, err := d.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrPathNotFound), errors.Is(err, routers.ErrMethodNotAllowed):
		return nil
	case err != nil:
		return err
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}
	if rb := route.Operation.RequestBody; rb != nil && rb.Value != nil && len(body) > 0 {
		ct := header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case rb.Value.Content.Get("application/json") != nil && (ct == "" || err == nil && holdsJSON(mt)):
			// The document's UnsupportedMediaType response: a body without a Content-Type,
			// of a +json type, or form-urlencoded (what curl -d sends) is read as JSON.
			req.Header.Set("Content-Type", "application/json")
		case err != nil || rb.Value.Content.Get(mt) == nil:
			return fmt.Errorf("Content-Type %q is not one the document allows for %s %s", ct, route.Method, route.Path)
		case mt != "application/json":
			opts.ExcludeRequestBody = true // a body of bytes: its Content-Type is what is checked
		}
	}
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route, Options: opts,
	})
}

// CheckAgreement returns why the API's answer status to a request and the document disagree,
// or nil: a request the document forbids must be refused with a 4xx, so that an answer of 2xx
// is always to a request the document allows. The API may refuse more than the document says
// (its own, more precise checks); it may not accept more.
func (d *Doc) CheckAgreement(method, rawURL string, header http.Header, body []byte, status int) error {
	err := d.CheckRequest(method, rawURL, header, body)
	if err == nil || status >= 400 && status < 500 {
		return nil
	}
	return fmt.Errorf("the API answered %d to a request the document forbids (want a 4xx; fix the document or the server): %w", status, err)
}

// holdsJSON reports whether a body of media type mt is read as JSON by the API's JSON routes.
func holdsJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "application/x-www-form-urlencoded"
}
