package apiserver

import (
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
