package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/controllers"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// TestFirstTransitionHasOneWriter shows that the API server alone writes a transcript's first
// status transition, which its answer shows, even with the transcript reconciler running and
// the request slow to write it: a reconciler that wrote it too would take it first here.
func TestFirstTransitionHasOneWriter(t *testing.T) {
	h := newHarness(t)
	// A source that never answers keeps the fetch running, so that nothing after the first
	// transition writes the phase.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)
	h.runTranscriptReconciler(t, hang.URL)
	// The request pauses between creating the transcript and writing its first transition.
	h.srv.hooks.afterEffect = func(context.Context, string) { time.Sleep(time.Second) }

	for _, tc := range []struct {
		name, body, jobType string
	}{
		{"url", `{"source_type":"url","url":"` + hang.URL + `/a.txt","source_format":"txt"}`, tcsv1.JobURLFetch},
		{"youtube", `{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ"}`, tcsv1.JobYouTubeFetch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.post(t, "/api/v1/transcripts", h.keyA.Value, "first-"+tc.name, tc.body)
			if r.status != http.StatusAccepted || r.body["status"] != "pending" || r.body["ai_pass_status"] != "idle" {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			id := r.body["id"].(string)
			tr := &tcsv1.Transcript{}
			if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
				t.Fatal(err)
			}
			if len(tr.Status.Jobs) == 0 || tr.Status.Jobs[0].Type != tc.jobType || tr.Status.Jobs[0].IdempotencyRecord == "" {
				t.Fatalf("the first job is not the request's: %+v", tr.Status.Jobs)
			}
			if got := tr.EmittedEventTypes(); len(got) != 1 || got[0] != tcsv1.EventTranscriptCreated {
				t.Fatalf("events %v, want one transcript.created", got)
			}
			if owner := phaseWriter(t, tr); owner != statuspatch.OwnerAPI {
				t.Fatalf("status.phase written by %q, want %q only", owner, statuspatch.OwnerAPI)
			}
		})
	}
}

// phaseWriter returns the field manager that last wrote tr's status.phase.
func phaseWriter(t *testing.T, tr *tcsv1.Transcript) string {
	t.Helper()
	owner := ""
	for _, m := range tr.ManagedFields {
		if m.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Status map[string]json.RawMessage `json:"f:status"`
		}
		if err := json.Unmarshal(m.FieldsV1.GetRawBytes(), &fields); err != nil {
			t.Fatal(err)
		}
		if _, ok := fields.Status["f:phase"]; ok {
			if owner != "" {
				t.Fatalf("status.phase has two managers, %s and %s", owner, m.Manager)
			}
			owner = m.Manager
		}
	}
	return owner
}

// runTranscriptReconciler runs the transcript reconciler, with its default adoption delay,
// on h's namespace and object store until the test ends; youtube is the base URL of YouTube.
func (h *harness) runTranscriptReconciler(t *testing.T, youtube string) {
	t.Helper()
	mgr := env.NewManager(t, h.namespace)
	blobs, err := blob.OpenDir(h.storeDir)
	if err != nil {
		t.Fatal(err)
	}
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	outbound := sources.NewClient(sources.ClientOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	r := &controllers.TranscriptReconciler{
		Client: mgr.GetClient(), Processor: pipeline.New(engine, blobs), Store: blobs,
		Sources: &sources.Fetcher{YouTube: &sources.YouTube{BaseURL: youtube, Client: outbound}, Client: outbound},
	}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(testenv.Run(t, mgr))
}
