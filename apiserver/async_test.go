package apiserver

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/text/pipeline"
)

func TestCreateRemoteSources(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name, body string
		status     int
		typ, param string
		jobType    string
	}{
		{"youtube watch link", `{"source_type":"youtube","url":"https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s"}`, 202, "", "", "youtube_fetch"},
		{"youtube short link", `{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ?si=abc","title":"Sunday"}`, 202, "", "", "youtube_fetch"},
		{"youtube without url", `{"source_type":"youtube"}`, 400, ErrInvalidRequest, "url", ""},
		{"youtube channel", `{"source_type":"youtube","url":"https://www.youtube.com/@gracechurch"}`, 422, ErrUnprocessable, "url", ""},
		{"youtube playlist", `{"source_type":"youtube","url":"https://www.youtube.com/playlist?list=PL1234567890"}`, 422, ErrUnprocessable, "url", ""},
		{"youtube other host", `{"source_type":"youtube","url":"https://vimeo.com/123"}`, 400, ErrInvalidRequest, "url", ""},
		{"youtube with source_format", `{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ","source_format":"vtt"}`, 400, ErrInvalidRequest, "source_format", ""},
		{"url", `{"source_type":"url","url":"http://127.0.0.1:9/sermon.txt","source_format":"txt"}`, 202, "", "", "url_fetch"},
		{"url docx", `{"source_type":"url","url":"https://example.org/sermon.docx","source_format":"docx"}`, 202, "", "", "url_fetch"},
		{"url without format", `{"source_type":"url","url":"https://example.org/a.txt"}`, 400, ErrInvalidRequest, "source_format", ""},
		{"url ftp", `{"source_type":"url","url":"ftp://example.org/a.txt","source_format":"txt"}`, 400, ErrInvalidRequest, "url", ""},
		{"url credentials", `{"source_type":"url","url":"https://user:pw@example.org/a.txt","source_format":"txt"}`, 400, ErrInvalidRequest, "url", ""},
		{"url private literal", `{"source_type":"url","url":"http://10.1.2.3/a.txt","source_format":"txt"}`, 400, ErrInvalidRequest, "url", ""},
		{"url metadata", `{"source_type":"url","url":"http://169.254.169.254/latest/","source_format":"txt"}`, 400, ErrInvalidRequest, "url", ""},
		{"bad language", `{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ","options":{"language":"en us!"}}`, 400, ErrInvalidRequest, "options.language", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json", []byte(tc.body))
			if tc.typ != "" {
				wantError(t, r, tc.status, tc.typ, tc.param)
				return
			}
			if r.status != tc.status || r.body["status"] != "pending" || r.body["ai_pass_status"] != "idle" {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			jobs, _ := r.body["jobs"].([]any)
			if len(jobs) != 1 {
				t.Fatalf("jobs = %v", r.body["jobs"])
			}
			job := jobs[0].(map[string]any)
			id := r.body["id"].(string)
			if job["type"] != tc.jobType || job["id"] != tcsv1.JobID(id, 1) {
				t.Fatalf("job %v of %s", job, id)
			}
			// The job and the transcript can be polled at once.
			j := h.do(t, http.MethodGet, "/api/v1/jobs/"+job["id"].(string), h.keyA.Value, "", nil)
			if j.status != 200 || j.body["object"] != "job" || j.body["status"] != "queued" || j.body["transcript_id"] != id ||
				j.body["type"] != tc.jobType || j.body["progress"] != 0.0 || j.header.Get("Retry-After") == "" {
				t.Fatalf("job: %d %s", j.status, j.raw)
			}
			g := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
			if g.status != 200 || g.body["status"] != "pending" || g.header.Get("Retry-After") == "" {
				t.Fatalf("poll: %d %s (Retry-After %q)", g.status, g.raw, g.header.Get("Retry-After"))
			}
			wantError(t, h.do(t, http.MethodGet, "/api/v1/jobs/"+job["id"].(string), h.keyB.Value, "", nil), 403, ErrForbidden, "id")
		})
	}
	wantError(t, h.do(t, http.MethodGet, "/api/v1/jobs/job_nothere00000000000001", h.keyA.Value, "", nil), 404, ErrNotFound, "id")
	wantError(t, h.do(t, http.MethodGet, "/api/v1/jobs/tr_abc", h.keyA.Value, "", nil), 404, ErrNotFound, "id")
}

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

// complete plays the reconciler: it completes transcript id with content.
func (h *harness) complete(t *testing.T, id, content string) {
	t.Helper()
	org := h.keyA.OrganizationID
	keys := pipeline.KeysFor(org, id)
	if err := h.store.Put(t.Context(), keys.Content, []byte(content), "text/plain"); err != nil {
		t.Fatal(err)
	}
	tr := &tcsv1.Transcript{}
	if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	tr.Status.Phase = tcsv1.PhaseCompleted
	tr.Status.ContentRef = keys.Content
	tr.Status.CompletedAt = &now
	tr.Status.ChangesSummary = &tcsv1.ChangesSummary{}
	if err := h.client.Status().Update(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
}

func TestSynchronousWait(t *testing.T) {
	h := newHarness(t)
	body := []byte(`{"source_type":"url","url":"http://127.0.0.1:9/a.txt","source_format":"txt"}`)

	t.Run("returns the completed transcript", func(t *testing.T) {
		done := make(chan response, 1)
		go func() {
			done <- h.do(t, http.MethodPost, "/api/v1/transcripts?wait=true&timeout=20", h.keyA.Value, "", body)
		}()
		// Find the transcript the request created, then complete it as the reconciler would.
		var id string
		deadline := time.Now().Add(10 * time.Second)
		for id == "" && time.Now().Before(deadline) {
			var list tcsv1.TranscriptList
			if err := h.client.List(t.Context(), &list); err != nil {
				t.Fatal(err)
			}
			for _, tr := range list.Items {
				if tr.Namespace == h.namespace && tr.Status.Phase == tcsv1.PhasePending {
					id = tr.Spec.ID
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		if id == "" {
			t.Fatal("the synchronous request created no pending transcript")
		}
		start := time.Now()
		h.complete(t, id, "the corrected text")
		r := <-done
		if r.status != 200 || r.body["id"] != id || r.body["status"] != "completed" || r.body["content"] != "the corrected text" {
			t.Fatalf("wait: %d %s", r.status, r.raw)
		}
		if waited := time.Since(start); waited > 5*time.Second {
			t.Fatalf("the wait ended %s after completion: not driven by the watch", waited)
		}
	})

	t.Run("times out, limits concurrency", func(t *testing.T) {
		var wg sync.WaitGroup
		results := make([]response, 3)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = h.do(t, http.MethodPost, "/api/v1/transcripts?wait=true&timeout=5", h.keyA.Value, "", body)
			}()
		}
		time.Sleep(1500 * time.Millisecond) // the three hold their slots now
		over := h.do(t, http.MethodPost, "/api/v1/transcripts?wait=true&timeout=5", h.keyA.Value, "", body)
		wantError(t, over, http.StatusTooManyRequests, ErrRateLimited, "")
		if over.header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		// Another organization has slots of its own.
		other := h.do(t, http.MethodPost, "/api/v1/transcripts?wait=true&timeout=5", h.keyB.Value, "", body)
		wg.Wait()
		for _, r := range append(results, other) {
			wantError(t, r, http.StatusGatewayTimeout, ErrTimeout, "")
			if id, _ := r.body["id"].(string); !strings.HasPrefix(id, "tr_") {
				t.Fatalf("504 without the transcript id: %s", r.raw)
			}
		}
		// The transcripts go on: they are pending, not gone.
		g := h.do(t, http.MethodGet, "/api/v1/transcripts/"+results[0].body["id"].(string), h.keyA.Value, "", nil)
		if g.status != 200 || g.body["status"] != "pending" {
			t.Fatalf("after the timeout: %d %s", g.status, g.raw)
		}
	})
}
