package apiserver

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// jobTypes returns the types of a transcript answer's jobs.
func jobTypes(r response) []string {
	var out []string
	jobs, _ := r.body["jobs"].([]any)
	for _, j := range jobs {
		out = append(out, j.(map[string]any)["type"].(string))
	}
	return out
}

// TestAIPassRequests checks how the API queues AI passes; no controller runs here, so a
// queued pass stays queued.
func TestAIPassRequests(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name, body string
		status     int
		jobs       string
	}{
		{"paste", `{"source_type":"paste","content":"read revelations 21:4","options":{"ai_pass":{"enabled":true,"apply":true}}}`, 201, "correction,ai_pass"},
		{"url", `{"source_type":"url","url":"http://127.0.0.1:9/a.txt","source_format":"txt","options":{"ai_pass":{"enabled":true}}}`, 202, "url_fetch,ai_pass"},
		{"youtube", `{"source_type":"youtube","url":"https://youtu.be/Cn4sEntP1aY","options":{"ai_pass":{"enabled":true}}}`, 202, "youtube_fetch,ai_pass"},
		{"disabled", `{"source_type":"paste","content":"read revelations 21:4","options":{"ai_pass":{"enabled":false,"apply":true}}}`, 201, "correction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "", []byte(tc.body))
			wantStatus := "queued"
			if tc.name == "disabled" {
				wantStatus = "idle"
			}
			if r.status != tc.status || r.body["ai_pass_status"] != wantStatus || strings.Join(jobTypes(r), ",") != tc.jobs {
				t.Fatalf("%d %s; want %d, ai_pass_status %s, jobs %s", r.status, r.raw, tc.status, wantStatus, tc.jobs)
			}
			id := r.body["id"].(string)
			if tc.name == "paste" {
				pass, _ := r.body["ai_pass"].(map[string]any)
				jobs := r.body["jobs"].([]any)
				if r.body["content"] != "read Revelation 21:4" || pass["apply"] != true || pass["job_id"] != jobs[1].(map[string]any)["id"] || pass["started_at"] != nil {
					t.Fatalf("paste answer %s", r.raw)
				}
				job := h.do(t, http.MethodGet, "/api/v1/jobs/"+pass["job_id"].(string), h.keyA.Value, "", nil)
				if job.status != 200 || job.body["type"] != "ai_pass" || job.body["status"] != "queued" {
					t.Fatalf("job %d %s", job.status, job.raw)
				}
				// The transcript is not finished while its pass is queued: polls get a hint.
				got := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
				if got.header.Get("Retry-After") == "" {
					t.Fatalf("no Retry-After while the AI pass is queued")
				}
			}
			if wantStatus == "queued" {
				wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", h.keyA.Value, "", nil), 409, ErrConflict, "")
			}
		})
	}

	r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "read revelations 21:4"})
	path := "/api/v1/transcripts/" + r.body["id"].(string) + "/ai_pass"
	for _, tc := range []struct{ name, body, param string }{
		{"apply not a boolean", `{"apply":"yes"}`, "apply"},
		{"unknown member", `{"apply":true,"model":"gpt"}`, "model"},
		{"not an object", `[true]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, h.do(t, http.MethodPost, path, h.keyA.Value, "", []byte(tc.body)), 400, ErrInvalidRequest, tc.param)
		})
	}
	q := h.do(t, http.MethodPost, path, h.keyA.Value, "application/json", []byte(`{"apply":true}`))
	pass, _ := q.body["ai_pass"].(map[string]any)
	if q.status != 202 || q.body["ai_pass_status"] != "queued" || pass["apply"] != true || strings.Join(jobTypes(q), ",") != "correction,ai_pass" || q.body["content"] != "read Revelation 21:4" {
		t.Fatalf("trigger: %d %s", q.status, q.raw)
	}
	wantError(t, h.do(t, http.MethodPost, path, h.keyA.Value, "", nil), 409, ErrConflict, "")

	// Once that pass completed, the rules provider is not asked the same question again; a
	// pass with other settings runs.
	id := r.body["id"].(string)
	done := &tcsv1.Transcript{}
	if err := h.client.Get(t.Context(), client.ObjectKey{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, done); err != nil {
		t.Fatal(err)
	}
	done.StartAIPass("rules", aipass.NewRules().Model(), metav1.Now())
	done.CompleteAIPass(metav1.Now())
	if err := h.client.Status().Update(t.Context(), done); err != nil {
		t.Fatal(err)
	}
	again := h.do(t, http.MethodPost, path, h.keyA.Value, "", []byte(`{"apply":true}`))
	wantError(t, again, 409, ErrConflict, "")
	if msg := again.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "same verdicts") {
		t.Fatalf("409 message %q", msg)
	}
	if other := h.do(t, http.MethodPost, path, h.keyA.Value, "", []byte(`{"apply":false}`)); other.status != 202 || other.body["ai_pass_status"] != "queued" {
		t.Fatalf("a pass with other settings: %d %s", other.status, other.raw)
	}

	// Who may trigger, and a retried trigger: the Idempotency-Key replays the 202, where a
	// second trigger without it is a conflict.
	fresh := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "read revelations 21:4"})
	freshPath := "/api/v1/transcripts/" + fresh.body["id"].(string) + "/ai_pass"
	for _, tc := range []struct {
		name, path, auth string
		status           int
		typ, param       string
	}{
		{"no key", freshPath, "", 401, ErrUnauthorized, ""},
		{"malformed key", freshPath, "Bearer nope", 401, ErrUnauthorized, ""},
		{"another organization's transcript", freshPath, "Bearer " + h.keyB.Value, 403, ErrForbidden, "id"},
		{"unknown transcript", "/api/v1/transcripts/tr_doesnotexist000000000/ai_pass", "Bearer " + h.keyA.Value, 404, ErrNotFound, "id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, h.request(t, http.MethodPost, tc.path, tc.auth, "", nil), tc.status, tc.typ, tc.param)
		})
	}
	first := h.post(t, freshPath, h.keyA.Value, "trigger-1", "")
	replay := h.post(t, freshPath, h.keyA.Value, "trigger-1", "")
	if first.status != 202 || replay.status != 202 || !bytes.Equal(first.raw, replay.raw) || replay.header.Get(HeaderIdempotentReplayed) != "true" {
		t.Fatalf("trigger %d %s, replay %d %s", first.status, first.raw, replay.status, replay.raw)
	}
	wantError(t, h.post(t, freshPath, h.keyA.Value, "trigger-2", ""), 409, ErrConflict, "")

	// A failed transcript has nothing to validate.
	failed := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "read revelations 21:4"})
	tr := &tcsv1.Transcript{}
	key := client.ObjectKey{Namespace: h.namespace, Name: tcsv1.TranscriptName(failed.body["id"].(string))}
	if err := h.client.Get(t.Context(), key, tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.Phase = tcsv1.PhaseFailed
	tr.Status.Error = &tcsv1.TranscriptError{Type: "server_error", Message: "lost"}
	if err := h.client.Status().Update(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts/"+tr.Spec.ID+"/ai_pass", h.keyA.Value, "", nil), 409, ErrConflict, "")
}

func TestChangeFilters(t *testing.T) {
	h := newHarness(t)
	// chg_0001 "first corinthians" (auto, confirmed by the rules), chg_0002 "Revelations" read
	// as an English word (needs review, rejected), chg_0003 "capernum" (needs review, uncertain).
	text := "Turn to first corinthians 13:4.\nThe Revelations of the prophets were many.\nThey sailed past capernum.\n"
	r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": text})
	id := r.body["id"].(string)
	ids := func(query string) string {
		t.Helper()
		a := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id+"/changes"+query, h.keyA.Value, "", nil)
		if a.status != 200 {
			t.Fatalf("%s: %d %s", query, a.status, a.raw)
		}
		var out []string
		for _, c := range a.body["data"].([]any) {
			out = append(out, c.(map[string]any)["id"].(string))
		}
		return strings.Join(out, ",")
	}
	if got := ids("?category=place"); got != "chg_0003" {
		t.Fatalf("category=place: %s", got)
	}
	if got := ids("?status=needs_review"); got != "chg_0002,chg_0003" {
		t.Fatalf("status=needs_review: %s", got)
	}
	if got := ids("?applied=true"); got != "chg_0001" {
		t.Fatalf("applied=true: %s", got)
	}
	if got := ids("?ai_verdict=confirmed"); got != "" {
		t.Fatalf("verdicts before any AI pass: %s", got)
	}

	// The AI pass's list, as its controller writes it.
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	tr := &tcsv1.Transcript{}
	if err := h.client.Get(t.Context(), client.ObjectKey{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		t.Fatal(err)
	}
	keys := pipeline.KeysFor(tr.Spec.Organization, id)
	rev, err := pipeline.New(engine, h.store).Review(t.Context(), pipeline.ReviewInput{Keys: keys, Format: formats.TXT}, aipass.NewRules())
	if err != nil {
		t.Fatal(err)
	}
	if rev.Confirmed != 1 || rev.Rejected != 1 || rev.Uncertain != 1 {
		t.Fatalf("the rules judged %+v", rev)
	}
	tr.Status.ChangesRef = keys.AIChanges
	if err := h.client.Status().Update(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ query, want string }{
		{"?ai_verdict=confirmed", "chg_0001"},
		{"?ai_verdict=rejected", "chg_0002"},
		{"?ai_verdict=flagged", "chg_0002,chg_0003"},
		{"?ai_verdict=flagged&category=bible", "chg_0002"},
		{"?ai_verdict=flagged&limit=1&starting_after=chg_0002", "chg_0003"},
		{"?applied=false", "chg_0002,chg_0003"},
	} {
		if got := ids(tc.query); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct{ query, param string }{
		{"?status=applied", "status"}, {"?ai_verdict=maybe", "ai_verdict"}, {"?applied=yes", "applied"},
		{"?ai_verdict=confirmed&starting_after=chg_0002", "starting_after"},
	} {
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+id+"/changes"+tc.query, h.keyA.Value, "", nil), 400, ErrInvalidRequest, tc.param)
	}
}
