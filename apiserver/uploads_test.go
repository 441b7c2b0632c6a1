package apiserver

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"tcs.dev/tcs/internal/text/pipeline"
)

// grant asks for an upload grant and returns its body.
func (h *harness) grant(t *testing.T, key, body string) map[string]any {
	t.Helper()
	r := h.do(t, http.MethodPost, "/api/v1/transcripts/uploads", key, "application/json", []byte(body))
	if r.status != http.StatusCreated {
		t.Fatalf("upload grant: %d %s", r.status, r.raw)
	}
	for _, f := range []string{"upload_url", "transcript_id", "upload_headers"} {
		if r.body[f] == nil {
			t.Fatalf("grant lacks %s: %s", f, r.raw)
		}
	}
	return r.body
}

// put sends data to a grant's upload URL with its headers, overriding them with extra.
func put(t *testing.T, grant map[string]any, data []byte, extra map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, grant["upload_url"].(string), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range grant["upload_headers"].(map[string]any) {
		req.Header.Set(k, v.(string))
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func TestUploadFlow(t *testing.T) {
	h := newHarness(t)
	g := h.grant(t, h.keyA.Value, `{"filename":"sermon.srt","source_format":"srt"}`)
	id := g["transcript_id"].(string)
	if ct := g["upload_headers"].(map[string]any)["Content-Type"]; ct != "application/x-subrip" {
		t.Fatalf("Content-Type to send = %v", ct)
	}
	confirm := `{"source_type":"upload","transcript_id":"` + id + `"}`

	// Not a transcript yet.
	wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil), 404, ErrNotFound, "id")
	// Confirming before the file arrived.
	wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "", []byte(confirm)), 409, ErrConflict, "transcript_id")

	srt := []byte("1\n00:00:01,000 --> 00:00:02,000\nread revelations 3:20\n")
	if code := put(t, g, srt, map[string]string{"Content-Type": "text/plain"}); code != http.StatusForbidden {
		t.Fatalf("PUT with another Content-Type: %d, want 403", code)
	}
	if code := put(t, g, srt, nil); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("PUT: %d", code)
	}
	// Another organization's grant.
	wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyB.Value, "", []byte(confirm)), 403, ErrForbidden, "transcript_id")

	r := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "", []byte(confirm))
	if r.status != 202 || r.body["id"] != id || r.body["status"] != "pending" || r.body["source_type"] != "upload" || r.body["source_format"] != "srt" {
		t.Fatalf("confirm: %d %s", r.status, r.raw)
	}
	if jobs := r.body["jobs"].([]any); len(jobs) != 1 || jobs[0].(map[string]any)["type"] != "upload_ingest" {
		t.Fatalf("jobs %v", r.body["jobs"])
	}
	// Twice.
	wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "", []byte(confirm)), 409, ErrConflict, "transcript_id")
	stored, err := h.store.Get(t.Context(), pipeline.KeysFor(h.keyA.OrganizationID, id).Input)
	if err != nil || !bytes.Equal(stored, srt) {
		t.Fatalf("stored upload %q, %v", stored, err)
	}

	for _, tc := range []struct{ name, body, typ, param string }{
		{"unknown grant", `{"source_type":"upload","transcript_id":"tr_nothing0000000000000"}`, ErrNotFound, "transcript_id"},
		{"no transcript_id", `{"source_type":"upload"}`, ErrInvalidRequest, "transcript_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := map[string]int{ErrNotFound: 404, ErrInvalidRequest: 400}[tc.typ]
			wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "", []byte(tc.body)), status, tc.typ, tc.param)
		})
	}
	// A paste is no upload.
	p := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "hello"})
	wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "",
		[]byte(`{"source_type":"upload","transcript_id":"`+p.body["id"].(string)+`"}`)), 400, ErrInvalidRequest, "transcript_id")

	for _, tc := range []struct{ name, body, param string }{
		{"no filename", `{"source_format":"txt"}`, "filename"},
		{"path in filename", `{"filename":"../etc/passwd"}`, "filename"},
		{"bad format", `{"filename":"a.pdf","source_format":"pdf"}`, "source_format"},
		{"unknown field", `{"filename":"a.txt","size":3}`, "size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts/uploads", h.keyA.Value, "", []byte(tc.body)), 400, ErrInvalidRequest, tc.param)
		})
	}
	// The format follows the file name when source_format is absent.
	if g := h.grant(t, h.keyA.Value, `{"filename":"notes.docx"}`); !strings.Contains(g["upload_headers"].(map[string]any)["Content-Type"].(string), "wordprocessingml") {
		t.Fatalf("docx grant headers %v", g["upload_headers"])
	}
}

func TestUploadGrantExpires(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{uploadExpiry: time.Second})
	g := h.grant(t, h.keyA.Value, `{"filename":"a.txt"}`)
	// Signed expiries have a resolution of one second.
	time.Sleep(2100 * time.Millisecond)
	if code := put(t, g, []byte("text"), nil); code != http.StatusForbidden {
		t.Fatalf("PUT to an expired URL: %d, want 403", code)
	}
	confirm := `{"source_type":"upload","transcript_id":"` + g["transcript_id"].(string) + `"}`
	wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "", []byte(confirm)), 400, ErrInvalidRequest, "transcript_id")
}
