package apiserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/tooling/apidoc"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// servedRoutes are the routes Server.Handler serves, as OpenAPI method and path template. The
// document must describe exactly these; TestOpenAPIRoutes also checks that the router serves
// each of them.
var servedRoutes = []struct{ method, path string }{
	{http.MethodGet, "/healthz"},
	{http.MethodHead, "/healthz"},
	{http.MethodGet, "/api/v1/openapi.json"},
	{http.MethodGet, "/api/v1/me"},
	{http.MethodPost, "/api/v1/transcripts"},
	{http.MethodGet, "/api/v1/transcripts"},
	{http.MethodPost, "/api/v1/transcripts/uploads"},
	{http.MethodGet, "/api/v1/transcripts/{id}"},
	{http.MethodDelete, "/api/v1/transcripts/{id}"},
	{http.MethodGet, "/api/v1/transcripts/{id}/changes"},
	{http.MethodPost, "/api/v1/transcripts/{id}/ai_pass"},
	{http.MethodPost, "/api/v1/transcripts/{id}/decisions"},
	{http.MethodGet, "/api/v1/jobs/{id}"},
	{http.MethodPut, "/uploads/"},
}

// loadedOpenAPI is the embedded document, parsed once for every request the tests send.
var loadedOpenAPI = sync.OnceValues(func() (*apidoc.Doc, error) { return apidoc.Load(openAPIDocument) })

// openAPIDoc returns the embedded document, parsed once.
func openAPIDoc(t *testing.T) *apidoc.Doc {
	t.Helper()
	doc, err := loadedOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// loadOpenAPI parses and validates the embedded document.
func loadOpenAPI(t *testing.T) *apidoc.Doc {
	t.Helper()
	doc, err := apidoc.Load(openAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestOpenAPIDocument(t *testing.T) {
	doc := loadOpenAPI(t).T()
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	// The document is plain JSON without duplicate members or trailing data.
	dec := json.NewDecoder(bytes.NewReader(openAPIDocument))
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		t.Fatalf("openapi.json is not one JSON value: %v", err)
	}
	// Every operation answers errors with the error object and sends X-Request-Id.
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				if resp.Value.Headers["X-Request-Id"] == nil {
					t.Errorf("%s %s %s: no X-Request-Id header", method, path, status)
				}
			}
			if op.Security != nil && len(*op.Security) == 0 {
				continue // public route
			}
			if op.Responses.Status(http.StatusUnauthorized) == nil {
				t.Errorf("%s %s: authenticated but no 401", method, path)
			}
		}
	}
}

func TestOpenAPIRoutes(t *testing.T) {
	doc := loadOpenAPI(t).T()
	var documented, served []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	for _, r := range servedRoutes {
		served = append(served, r.method+" "+r.path)
	}
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("documented operations\n  %s\ndiffer from the served routes\n  %s", strings.Join(documented, "\n  "), strings.Join(served, "\n  "))
	}

	// Each listed route is served by the real router: it answers neither the router's 404 nor
	// its 405. Authenticated routes answer 401 without a key, before touching the cluster.
	store, err := blob.Open(t.Context(), t.TempDir(), blob.Options{SigningSecret: []byte("route-test-secret"), UploadBaseURL: "http://127.0.0.1/uploads/"})
	if err != nil {
		t.Fatal(err)
	}
	h := New(Options{Store: store}).Handler()
	for _, r := range servedRoutes {
		path := strings.ReplaceAll(r.path, "{id}", "tr_0000000000000000000")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.method, path, nil))
		body := rec.Body.String()
		if rec.Code == http.StatusMethodNotAllowed || rec.Code == http.StatusNotFound && strings.Contains(body, "Unrecognized request URL") {
			hint := ""
			if r.path == "/api/v1/openapi.json" {
				hint = " (mount Server.openAPI in Handler)"
			}
			t.Errorf("%s %s is documented but not served: %d %s%s", r.method, r.path, rec.Code, body, hint)
		}
	}
}

func TestOpenAPIDocsCopy(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(docs, openAPIDocument) {
		t.Fatal("docs/openapi.json differs from apiserver/openapi.json: copy it (cp apiserver/openapi.json docs/openapi.json)")
	}
}

func TestOpenAPIHandler(t *testing.T) {
	rec := httptest.NewRecorder()
	(&Server{}).openAPI(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || !bytes.Equal(rec.Body.Bytes(), openAPIDocument) {
		t.Fatalf("%d %q, %d bytes", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
}

// TestOpenAPIResponses validates real answers of a server in front of the control plane
// against the document: status documented for the route, headers and body schema.
func TestOpenAPIResponses(t *testing.T) {
	doc := loadOpenAPI(t)
	h := newHarness(t)
	send := func(method, path, key, body, idem, contentType string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, h.url+path, strings.NewReader(body))
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		t.Logf("%s %s: %d", method, path, res.StatusCode)
		if err := doc.Check(method, req.URL.String(), res.StatusCode, res.Header, raw); err != nil {
			t.Errorf("%s %s: %d %s\n%v", method, path, res.StatusCode, raw, err)
		}
		if err := doc.CheckAgreement(method, req.URL.String(), req.Header, []byte(body), res.StatusCode); err != nil {
			t.Errorf("%s %s: %v", method, path, err)
		}
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	check := func(method, path, key, body, idem string) map[string]any {
		t.Helper()
		ct := ""
		if body != "" {
			ct = "application/json"
		}
		return send(method, path, key, body, idem, ct)
	}
	firstJob := func(tr map[string]any) string {
		if jobs, ok := tr["jobs"].([]any); ok && len(jobs) > 0 {
			id, _ := jobs[0].(map[string]any)["id"].(string)
			return id
		}
		t.Errorf("no jobs in %v", tr)
		return "job_none00"
	}
	a := h.keyA.Value
	check(http.MethodGet, "/healthz", "", "", "")
	check(http.MethodGet, "/api/v1/me", a, "", "")
	check(http.MethodGet, "/api/v1/me", "", "", "")
	check(http.MethodGet, "/api/v1/me", "sk_live_"+strings.Repeat("x", 32), "", "")
	check(http.MethodPatch, "/api/v1/me", a, "", "")
	check(http.MethodGet, "/api/v1/nothing", a, "", "")
	paste := `{"source_type":"paste","content":"Open Revelations 3:20 in Jerusalem.\nsecond line"}`
	tr := check(http.MethodPost, "/api/v1/transcripts", a, paste, "")
	id, _ := tr["id"].(string)
	check(http.MethodPost, "/api/v1/transcripts", a, paste, "replay-1")
	check(http.MethodPost, "/api/v1/transcripts", a, paste, "replay-1")
	check(http.MethodPost, "/api/v1/transcripts", a, `{"source_type":"paste"}`, "")
	check(http.MethodPost, "/api/v1/transcripts", a, `{"source_type":"paste","content":"x","options":{"ai_pass":{"enabled":true}}}`, "")
	remote := check(http.MethodPost, "/api/v1/transcripts", a, `{"source_type":"url","url":"http://127.0.0.1:1/a.txt","source_format":"txt"}`, "")
	check(http.MethodGet, "/api/v1/transcripts/"+remote["id"].(string), a, "", "")
	check(http.MethodGet, "/api/v1/jobs/"+firstJob(remote), a, "", "")
	// No reconciler runs here: a synchronous wait times out.
	check(http.MethodPost, "/api/v1/transcripts?wait=true&timeout=5", a, `{"source_type":"youtube","url":"https://youtu.be/Cn4sEntP1aY"}`, "")
	check(http.MethodPost, "/api/v1/transcripts", a, `{"source_type":"youtube","url":"https://www.youtube.com/@somechannel"}`, "")
	check(http.MethodPost, "/api/v1/transcripts?wait=maybe", a, paste, "")
	send(http.MethodPost, "/api/v1/transcripts", a, paste, "", "text/plain")
	check(http.MethodPost, "/api/v1/transcripts", a, paste, strings.Repeat("k", 256))
	check(http.MethodPost, "/api/v1/transcripts", a, `{"source_type":"upload","transcript_id":"tr_unknown"}`, "")
	check(http.MethodGet, "/api/v1/transcripts/"+id, a, "", "")
	check(http.MethodGet, "/api/v1/transcripts/"+id, h.keyB.Value, "", "")
	check(http.MethodGet, "/api/v1/transcripts/tr_missing", a, "", "")
	check(http.MethodGet, "/api/v1/transcripts?limit=2", a, "", "")
	check(http.MethodGet, "/api/v1/transcripts?limit=0", a, "", "")
	check(http.MethodGet, "/api/v1/transcripts/"+id+"/changes", a, "", "")
	decision := `{"decisions":[{"change_id":"chg_0001","action":"reject"}],"review_version":0}`
	check(http.MethodPost, "/api/v1/transcripts/"+id+"/decisions", a, decision, "decide-1")
	check(http.MethodPost, "/api/v1/transcripts/"+id+"/decisions", a, decision, "decide-1")
	check(http.MethodPost, "/api/v1/transcripts/"+id+"/decisions", a, decision, "") // the review moved
	check(http.MethodPost, "/api/v1/transcripts/"+id+"/decisions", a, `{"decisions":[{"change_id":"chg_0099","action":"accept"}]}`, "")
	check(http.MethodPost, "/api/v1/transcripts/"+id+"/decisions", a, `{"decisions":[]}`, "")
	check(http.MethodPost, "/api/v1/transcripts/"+remote["id"].(string)+"/decisions", a, `{"decisions":[{"action":"add","start":0,"end":4,"replacement":"Look"}]}`, "")
	check(http.MethodGet, "/api/v1/transcripts/"+id+"/changes?decided=true", a, "", "")
	check(http.MethodGet, "/api/v1/transcripts?needs_review=true", a, "", "")
	check(http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", a, "", "")
	check(http.MethodGet, "/api/v1/jobs/"+firstJob(tr), a, "", "")
	check(http.MethodGet, "/api/v1/jobs/job_missing00", a, "", "")
	grant := check(http.MethodPost, "/api/v1/transcripts/uploads", a, `{"filename":"a.txt"}`, "")
	if u, ok := grant["upload_url"].(string); ok {
		path := strings.TrimPrefix(u, h.url)
		confirm := `{"source_type":"upload","transcript_id":"` + grant["transcript_id"].(string) + `"}`
		check(http.MethodPost, "/api/v1/transcripts", a, confirm, "")                 // the file has not arrived
		send(http.MethodPut, path, "", "Revelations", "", "application/octet-stream") // another Content-Type
		send(http.MethodPut, path, "", "Revelations", "", "text/plain; charset=utf-8")
		up := check(http.MethodPost, "/api/v1/transcripts", a, confirm, "")
		check(http.MethodGet, "/api/v1/jobs/"+firstJob(up), a, "", "")
		check(http.MethodPost, "/api/v1/transcripts", a, confirm, "") // confirmed twice
	} else {
		t.Errorf("no upload_url in %v", grant)
	}
	check(http.MethodPost, "/api/v1/transcripts/uploads", a, `{"filename":"a/b.txt"}`, "")
	check(http.MethodDelete, "/api/v1/transcripts/"+id, a, "", "")
	check(http.MethodDelete, "/api/v1/transcripts/"+id, a, "", "")
}
