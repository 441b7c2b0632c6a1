package apiserver

import (
	"net/http"
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
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
