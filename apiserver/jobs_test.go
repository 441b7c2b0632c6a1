package apiserver

import (
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// TestJobsPastTheHundredth polls every job of a transcript with more than 100 of them (each AI
// pass adds one): ids of three digits lead to their transcript as the first 99 do.
func TestJobsPastTheHundredth(t *testing.T) {
	h := newHarness(t)
	r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "read genesis 1:1"})
	if r.status != 201 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	id := r.body["id"].(string)
	const n = 105
	tr := &tcsv1.Transcript{}
	if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		t.Fatal(err)
	}
	for len(tr.Status.Jobs) < n {
		seq := len(tr.Status.Jobs) + 1
		tr.Status.Jobs = append(tr.Status.Jobs, tcsv1.Job{ID: tcsv1.JobID(id, seq), Type: tcsv1.JobAIPass,
			State: tcsv1.JobSucceeded, Progress: 100, CreatedAt: metav1.Now()})
	}
	if err := h.client.Status().Update(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int{1, 2, 9, 10, 99, 100, 101, n} {
		jobID := tcsv1.JobID(id, seq)
		j := h.do(t, http.MethodGet, "/api/v1/jobs/"+jobID, h.keyA.Value, "", nil)
		if j.status != 200 || j.body["id"] != jobID || j.body["transcript_id"] != id {
			t.Fatalf("job %d (%s): %d %s", seq, jobID, j.status, j.raw)
		}
		wantError(t, h.do(t, http.MethodGet, "/api/v1/jobs/"+jobID, h.keyB.Value, "", nil), 403, ErrForbidden, "id")
	}
	wantError(t, h.do(t, http.MethodGet, "/api/v1/jobs/"+tcsv1.JobID(id, n+1), h.keyA.Value, "", nil), 404, ErrNotFound, "id")
}
