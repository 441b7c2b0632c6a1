package apiserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/metrics"
)

// TestMetricsOfRequests drives real requests and reads the registry the server records into.
func TestMetricsOfRequests(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, harnessOptions{metrics: m})
	ctx := t.Context()
	org, err := orgs.Create(ctx, h.client, h.namespace, "One a minute", nil)
	if err != nil {
		t.Fatal(err)
	}
	org.Spec.Limits = &tcsv1.LimitOverrides{CreatePerMinute: ptr.To[int32](1)}
	if err := h.client.Update(ctx, org); err != nil {
		t.Fatal(err)
	}
	key, err := orgs.CreateKey(ctx, h.client, h.namespace, org.Spec.ID, "small")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.do(t, http.MethodGet, "/api/v1/me", key.Value, "", nil).status != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the new key never authenticated")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The limits reach the cache a moment after the update.
	content := "turn to first corinthians 13 4 and revelations 21"
	if r := h.paste(t, key.Value, map[string]any{"source_type": "paste", "content": content}); r.status != 201 {
		t.Fatalf("paste: %d %s", r.status, r.raw)
	}
	refused := h.paste(t, key.Value, map[string]any{"source_type": "paste", "content": content})
	for refused.status != http.StatusTooManyRequests {
		if time.Now().After(deadline) {
			t.Fatalf("second paste: %d, want 429", refused.status)
		}
		refused = h.paste(t, key.Value, map[string]any{"source_type": "paste", "content": content})
	}
	h.do(t, http.MethodGet, "/api/v1/transcripts/tr_doesnotexist", h.keyA.Value, "", nil)
	h.do(t, http.MethodGet, "/api/v1/transcripts/tr_doesnotexisteither", h.keyA.Value, "", nil)
	h.do(t, http.MethodGet, "/no/such/path/tr_x", h.keyA.Value, "", nil)
	h.do(t, http.MethodDelete, "/api/v1/me", h.keyA.Value, "", nil)

	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"tcs_api_requests_total", map[string]string{"route": "/api/v1/transcripts/{id}", "method": "GET", "code": "404"}, 2},
		{"tcs_api_request_duration_seconds", map[string]string{"route": "/api/v1/transcripts/{id}", "method": "GET"}, 2},
		{"tcs_api_requests_total", map[string]string{"route": "/api/v1/transcripts", "method": "POST", "code": "201"}, 1},
		{"tcs_api_requests_total", map[string]string{"route": metrics.RouteUnmatched, "method": "GET", "code": "404"}, 1},
		{"tcs_api_requests_total", map[string]string{"route": metrics.RouteUnmatched, "method": "DELETE", "code": "405"}, 1},
		{"tcs_api_rate_limited_requests_total", map[string]string{"class": "create"}, 1},
		{"tcs_api_rate_limited_requests_total", map[string]string{"class": "read"}, 0},
		{"tcs_transcripts_created_total", map[string]string{"source": "paste"}, 1},
		{"tcs_transcripts_ended_total", map[string]string{"source": "paste", "outcome": "completed"}, 1},
		{"tcs_transcript_completion_duration_seconds", map[string]string{"source": "paste"}, 1},
		{"tcs_correction_duration_seconds", map[string]string{"format": "txt"}, 1},
		{"tcs_correction_input_bytes", map[string]string{"format": "txt"}, 1},
	} {
		got, ok, err := metrics.Value(reg, c.name, c.labels)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	// 429s count against their route too.
	if got, _, _ := metrics.Value(reg, "tcs_api_requests_total", map[string]string{"route": "/api/v1/transcripts", "method": "POST", "code": "429"}); got < 1 {
		t.Errorf("429 on create not counted: %v", got)
	}
	// The bytes corrected are the pasted content's.
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "tcs_correction_input_bytes" {
			if sum := mf.GetMetric()[0].GetHistogram().GetSampleSum(); sum != float64(len(content)) {
				t.Errorf("bytes corrected %v, want %d", sum, len(content))
			}
		}
		// No raw path, transcript or organization id reaches a label.
		for _, s := range mf.GetMetric() {
			for _, l := range s.GetLabel() {
				if strings.Contains(l.GetValue(), "tr_") || strings.Contains(l.GetValue(), "org_") {
					t.Errorf("%s has an unbounded label %s=%q", mf.GetName(), l.GetName(), l.GetValue())
				}
			}
		}
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}

// TestPasteRecordsACorrectedEvent checks that a paste, which the API server completes itself,
// shows in kubectl describe as the reconcilers' transcripts do.
func TestPasteRecordsACorrectedEvent(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{events: true})
	r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "turn to first corinthians 13 4 and revelations 21"})
	if r.status != http.StatusCreated {
		t.Fatalf("paste: %d %s", r.status, r.raw)
	}
	id, _ := r.body["id"].(string)
	tr := &tcsv1.Transcript{}
	if err := h.client.Get(t.Context(), client.ObjectKey{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		t.Fatal(err)
	}
	want := "Corrected the txt transcript: 2 changes, 2 applied, 0 to review."
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := &eventsv1.EventList{}
		if err := h.client.List(t.Context(), list, client.InNamespace(h.namespace)); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range list.Items {
			if e.Regarding.UID == tr.UID {
				got = append(got, e.Reason+": "+e.Note+" by "+e.ReportingController)
			}
		}
		if len(got) == 1 && got[0] == recorder.ReasonCorrected+": "+want+" by "+recorder.API {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("events about %s: %q, want one Corrected: %q", id, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
