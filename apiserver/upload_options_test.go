package apiserver

import (
	"net/http"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// TestUploadConfirmationOptions shows that options sent at the confirmation of an upload apply,
// and that one contradicting the grant's is refused naming it.
func TestUploadConfirmationOptions(t *testing.T) {
	h := newHarness(t)
	uploaded := func(grantBody string) string {
		t.Helper()
		g := h.grant(t, h.keyA.Value, grantBody)
		if code := put(t, g, []byte("read revelations 3:20\n"), nil); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("PUT: %d", code)
		}
		return g["transcript_id"].(string)
	}
	confirm := func(id, options string) response {
		return h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json",
			[]byte(`{"source_type":"upload","transcript_id":"`+id+`","options":`+options+`}`))
	}
	specOf := func(id string) tcsv1.TranscriptOptions {
		tr := &tcsv1.Transcript{}
		if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
			t.Fatal(err)
		}
		return tr.Spec.Options
	}

	t.Run("options at confirmation apply", func(t *testing.T) {
		id := uploaded(`{"filename":"a.txt"}`)
		r := confirm(id, `{"ai_pass":{"enabled":true,"apply":true},"normalize_references":true}`)
		if r.status != 202 || r.body["ai_pass_status"] != "queued" {
			t.Fatalf("confirm: %d %s", r.status, r.raw)
		}
		if jt := jobTypes(r); len(jt) != 2 || jt[1] != tcsv1.JobAIPass {
			t.Fatalf("jobs %v, want the ingest and an AI pass", jt)
		}
		want := tcsv1.TranscriptOptions{AIPass: tcsv1.AIPassOptions{Enabled: true, Apply: true}, NormalizeReferences: true}
		if got := specOf(id); !got.Equal(want) {
			t.Fatalf("options %+v, want %+v", got, want)
		}
		// Once confirmed, the options are as immutable as the rest of the spec.
		tr := &tcsv1.Transcript{}
		if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
			t.Fatal(err)
		}
		tr.Spec.Options.NormalizeReferences = false
		if err := h.client.Update(t.Context(), tr); err == nil || !strings.Contains(err.Error(), "spec is immutable") {
			t.Fatalf("changing the options of a confirmed upload: %v, want spec is immutable", err)
		}
	})

	t.Run("they complete the grant's", func(t *testing.T) {
		id := uploaded(`{"filename":"a.txt","options":{"normalize_references":true}}`)
		r := confirm(id, `{"ai_pass":{"enabled":true},"normalize_references":true}`)
		if r.status != 202 || r.body["ai_pass_status"] != "queued" {
			t.Fatalf("confirm: %d %s", r.status, r.raw)
		}
		if got := specOf(id); !got.AIPass.Enabled || !got.NormalizeReferences {
			t.Fatalf("options %+v", got)
		}
	})

	t.Run("a contradiction is a 400 naming the field", func(t *testing.T) {
		id := uploaded(`{"filename":"a.txt","options":{"ai_pass":{"enabled":true},"language":"en"}}`)
		wantError(t, confirm(id, `{"ai_pass":{"enabled":false}}`), 400, ErrInvalidRequest, "options.ai_pass.enabled")
		wantError(t, confirm(id, `{"language":"pt-BR"}`), 400, ErrInvalidRequest, "options.language")
		// Nothing was confirmed: the same upload confirms with agreeing options.
		r := confirm(id, `{"ai_pass":{"enabled":true}}`)
		if r.status != 202 || r.body["ai_pass_status"] != "queued" {
			t.Fatalf("confirm: %d %s", r.status, r.raw)
		}
	})
}
