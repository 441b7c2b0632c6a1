package apiserver

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/limits"
)

// Every way a title, a URL or a filename enters a transcript refuses one beyond its limit
// with a 400 naming it, and nothing is created.
func TestTitlesURLsAndFilenamesBeyondTheirLimitsAreRefused(t *testing.T) {
	h := newHarness(t)
	long := func(n int) string { return strings.Repeat("a", n) }
	longURL := "https://www.youtube.com/watch?v=dQw4w9WgXcQ&x=" + long(limits.MaxURL)
	before := h.transcriptCount(t)
	for _, tc := range []struct {
		name, path string
		body       map[string]any
		param      string
	}{
		{"a paste's title", "/api/v1/transcripts", map[string]any{"source_type": "paste", "content": "hi", "title": long(limits.MaxTitle + 1)}, "title"},
		{"a paste's title of 1.4 MB", "/api/v1/transcripts", map[string]any{"source_type": "paste", "content": "hi", "title": long(1400 << 10)}, "title"},
		{"a youtube source's title", "/api/v1/transcripts", map[string]any{"source_type": "youtube", "url": "https://youtu.be/dQw4w9WgXcQ", "title": long(limits.MaxTitle + 1)}, "title"},
		{"a youtube source's url", "/api/v1/transcripts", map[string]any{"source_type": "youtube", "url": longURL}, "url"},
		{"a url source's url", "/api/v1/transcripts", map[string]any{"source_type": "url", "source_format": "txt", "url": "https://example.com/" + long(limits.MaxURL)}, "url"},
		{"a url source's title", "/api/v1/transcripts", map[string]any{"source_type": "url", "source_format": "txt", "url": "https://example.com/a.txt", "title": long(limits.MaxTitle + 1)}, "title"},
		{"an upload grant's title", "/api/v1/transcripts/uploads", map[string]any{"filename": "a.txt", "title": long(1400 << 10)}, "title"},
		{"an upload grant's filename", "/api/v1/transcripts/uploads", map[string]any{"filename": long(limits.MaxFilename+1) + ".txt"}, "filename"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(tc.body)
			r := h.do(t, http.MethodPost, tc.path, h.keyA.Value, "application/json", b)
			wantError(t, r, http.StatusBadRequest, ErrInvalidRequest, tc.param)
			if len(r.raw) > 1024 {
				t.Errorf("the answer is %d bytes: it repeats the input", len(r.raw))
			}
		})
	}
	if after := h.transcriptCount(t); after != before {
		t.Fatalf("%d transcripts made by refused requests", after-before)
	}
	// At the limit, an upload grant's title is kept.
	title := strings.Repeat("é", limits.MaxTitle/2)
	b, _ := json.Marshal(map[string]any{"filename": "a.txt", "title": title})
	if r := h.do(t, http.MethodPost, "/api/v1/transcripts/uploads", h.keyA.Value, "application/json", b); r.status != http.StatusCreated {
		t.Fatalf("grant with a title of %d bytes: %d %s", len(title), r.status, r.raw)
	}
}

// A job id of many digits is answered 404 at once, after a few reads at most.
func TestALongJobIDIsNotFoundAtOnce(t *testing.T) {
	h := newHarness(t)
	id := "job_" + strings.Repeat("7", 55)
	start := time.Now()
	wantError(t, h.do(t, http.MethodGet, "/api/v1/jobs/"+id, h.keyA.Value, "", nil), http.StatusNotFound, ErrNotFound, "id")
	if n := len(tcsv1.TranscriptIDsOfJob(id)); n > tcsv1.MaxJobSeqDigits {
		t.Fatalf("the job id leads to %d transcripts", n)
	}
	t.Logf("GET /jobs/{55 digits}: 404 in %v", time.Since(start))
}

// Error messages repeat no more than a few bytes of a request's method, path, ids, query
// values or headers.
func TestErrorMessagesDoNotRepeatUnboundedInput(t *testing.T) {
	h := newHarness(t)
	huge := strings.Repeat("Z", 20<<10)
	for _, tc := range []struct {
		name         string
		method, path string
		contentType  string
		body         string
		status       int
	}{
		{"a method of 20 KB", huge, "/api/v1/me", "", "", http.StatusMethodNotAllowed},
		{"a path of 20 KB", http.MethodGet, "/api/v1/" + huge, "", "", http.StatusNotFound},
		{"a transcript id of 20 KB", http.MethodGet, "/api/v1/transcripts/tr_" + huge, "", "", http.StatusNotFound},
		{"a job id of 20 KB", http.MethodGet, "/api/v1/jobs/job_" + huge, "", "", http.StatusNotFound},
		{"a list filter of 20 KB", http.MethodGet, "/api/v1/transcripts?status=" + huge, "", "", http.StatusBadRequest},
		{"a cursor of 20 KB", http.MethodGet, "/api/v1/transcripts?starting_after=tr_" + huge, "", "", http.StatusBadRequest},
		{"a Content-Type of 20 KB", http.MethodPost, "/api/v1/transcripts", "text/" + huge, `{}`, http.StatusUnsupportedMediaType},
		{"a parameter name of 20 KB", http.MethodPost, "/api/v1/transcripts", "application/json", `{"source_type":"paste","content":"a","` + huge + `":1}`, http.StatusBadRequest},
		{"a source_type of 20 KB", http.MethodPost, "/api/v1/transcripts", "application/json", `{"source_type":"` + huge + `"}`, http.StatusBadRequest},
		{"a source_format of 20 KB", http.MethodPost, "/api/v1/transcripts", "application/json", `{"source_type":"paste","content":"a","source_format":"` + huge + `"}`, http.StatusBadRequest},
		{"an upload id of 20 KB", http.MethodPost, "/api/v1/transcripts", "application/json", `{"source_type":"upload","transcript_id":"tr_` + huge + `"}`, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(t, tc.method, tc.path, h.keyA.Value, tc.contentType, []byte(tc.body))
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tc.status, r.raw)
			}
			if len(r.raw) > 1024 || strings.Contains(string(r.raw), strings.Repeat("Z", 100)) {
				t.Fatalf("the answer (%d bytes) repeats the input: %.300s", len(r.raw), r.raw)
			}
		})
	}
}

// A paste whose text, once its character references are decoded, is longer than a paste may
// be is refused with a 400 naming content, and nothing is created or left in the object store
// (the input is stored while it is corrected).
func TestAPasteWhoseTextGoesBeyondThePasteCapIsRefused(t *testing.T) {
	h := newHarness(t)
	before := h.transcriptCount(t)
	objects := func() []string {
		var out []string
		if err := filepath.WalkDir(h.storeDir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, path)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	stored := objects()
	content := strings.Repeat("a", limits.MaxPasteContent/2) + strings.Repeat("&nGt;", limits.MaxPasteContent/10)
	r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "source_format": "html", "content": content})
	wantError(t, r, http.StatusBadRequest, ErrInvalidRequest, "content")
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "longer than 2000000 bytes") {
		t.Fatalf("message %q does not name the limit", msg)
	}
	if after := h.transcriptCount(t); after != before {
		t.Fatalf("%d transcripts made", after-before)
	}
	if now := objects(); len(now) != len(stored) {
		t.Fatalf("objects in the store: %q, want those of before: %q", now, stored)
	}
}
