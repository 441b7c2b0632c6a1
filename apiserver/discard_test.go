package apiserver

import (
	"context"
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/text/pipeline"
)

// TestAPasteDiscardedMidRequestIsNotAnswered covers the race of a slow paste request with the
// reconciler, which deletes a paste it finds without a status and without its input, taking its
// request for dead: the request must not answer for a transcript that is then gone, must not
// leave what it stored behind, and its retry makes the paste anew.
func TestAPasteDiscardedMidRequestIsNotAnswered(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name string
		// purgeFor is how long the deleted paste keeps its finalizer, as the reconciler's
		// removal of its stored objects does: 0 removes it at once.
		purgeFor time.Duration
	}{
		{"gone when the request writes its status", 0},
		{"still being deleted when the request writes its status", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var discarded string
			// The reconciler's discard comes between the storing of the paste and the writing
			// of its status, conditional on the version it read, as discardUnstoredPaste's.
			h.srv.hooks.afterEffect = func(ctx context.Context, id string) {
				if discarded != "" {
					return
				}
				discarded = id
				key := types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}
				tr := &tcsv1.Transcript{}
				if err := h.client.Get(ctx, key, tr); err != nil {
					t.Error(err)
					return
				}
				uid, version := tr.UID, tr.ResourceVersion
				if err := h.client.Delete(ctx, tr, client.Preconditions{UID: &uid, ResourceVersion: &version}); err != nil {
					t.Error(err)
					return
				}
				purge := func() {
					if err := h.client.Get(context.Background(), key, tr); err == nil {
						tr.Finalizers = nil
						if err := h.client.Update(context.Background(), tr); err != nil {
							t.Error(err)
						}
					}
				}
				if tc.purgeFor == 0 {
					purge()
				} else {
					time.AfterFunc(tc.purgeFor, purge)
				}
			}
			t.Cleanup(func() { h.srv.hooks.afterEffect = nil })
			body := `{"source_type":"paste","content":"read first corinthians 13 tonight"}`
			idem := "discarded-" + t.Name()
			first := h.post(t, "/api/v1/transcripts", h.keyA.Value, idem, body)
			if first.status != http.StatusInternalServerError {
				t.Fatalf("the request answered %d for a paste discarded under it: %s", first.status, first.raw)
			}
			if discarded == "" {
				t.Fatal("the discard did not run")
			}
			for _, key := range pipeline.KeysFor(h.keyA.OrganizationID, discarded).All() {
				if _, err := h.store.Get(t.Context(), key); err == nil {
					t.Errorf("%s, stored by the unanswered request, is left", key)
				}
			}
			again := h.post(t, "/api/v1/transcripts", h.keyA.Value, idem, body)
			if again.status != http.StatusCreated || again.body["id"] != discarded || again.body["status"] != "completed" {
				t.Fatalf("retry: %d %s", again.status, again.raw)
			}
			time.Sleep(200 * time.Millisecond) // past any purge still due
			got := h.request(t, http.MethodGet, "/api/v1/transcripts/"+discarded, "Bearer "+h.keyA.Value, "", nil)
			if got.status != http.StatusOK || got.body["status"] != "completed" || got.body["content"] != "read 1 Corinthians 13 tonight" {
				t.Fatalf("the paste the retry answered: %d %s", got.status, got.raw)
			}
			tr := &tcsv1.Transcript{}
			if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(discarded)}, tr); err != nil || !tr.DeletionTimestamp.IsZero() {
				t.Fatalf("the paste the retry answered: %v, deleting %v", err, tr.DeletionTimestamp)
			}
		})
	}
}
