package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// post sends a JSON POST with an Idempotency-Key ("" for none).
func (h *harness) post(t *testing.T, path, key, idemKey, body string) response {
	t.Helper()
	var extra []string
	if idemKey != "" {
		extra = []string{HeaderIdempotencyKey, idemKey}
	}
	return h.request(t, http.MethodPost, path, "Bearer "+key, "application/json", []byte(body), extra...)
}

func TestIdempotency(t *testing.T) {
	h := newHarness(t)
	const paste = "/api/v1/transcripts"

	t.Run("bad keys", func(t *testing.T) {
		for _, k := range []string{strings.Repeat("k", 256), "ключ"} {
			wantError(t, h.post(t, paste, h.keyA.Value, k, `{"source_type":"paste","content":"x"}`), 400, ErrInvalidRequest, HeaderIdempotencyKey)
		}
		req, _ := http.NewRequest(http.MethodPost, h.url+paste, strings.NewReader(`{"source_type":"paste","content":"x"}`))
		req.Header.Set("Authorization", "Bearer "+h.keyA.Value)
		req.Header[HeaderIdempotencyKey] = []string{""}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Fatalf("empty key: %d", res.StatusCode)
		}
	})

	t.Run("replays the first response, even for another body", func(t *testing.T) {
		first := h.post(t, paste, h.keyA.Value, "order-1", `{"source_type":"paste","content":"read revelations 1:1"}`)
		if first.status != 201 || first.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("first: %d %s", first.status, first.raw)
		}
		again := h.post(t, paste, h.keyA.Value, "order-1", `{"source_type":"paste","content":"something else entirely"}`)
		if again.status != 201 || !bytes.Equal(again.raw, first.raw) || again.header.Get(HeaderIdempotentReplayed) != "true" {
			t.Fatalf("replay: %d %s (replayed %q)", again.status, again.raw, again.header.Get(HeaderIdempotentReplayed))
		}
		if again.header.Get("X-Request-Id") != first.header.Get("X-Request-Id") {
			t.Error("a replay does not carry the request id its body was made for")
		}
		// Another organization, or another route, with the same key runs on its own.
		other := h.post(t, paste, h.keyB.Value, "order-1", `{"source_type":"paste","content":"read revelations 1:1"}`)
		if other.status != 201 || other.body["id"] == first.body["id"] || other.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("other organization: %d %s", other.status, other.raw)
		}
		up := h.post(t, "/api/v1/transcripts/uploads", h.keyA.Value, "order-1", `{"filename":"a.txt"}`)
		if up.status != 201 || up.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("other route: %d %s", up.status, up.raw)
		}
	})

	t.Run("a replayed error keeps request_id equal to X-Request-Id", func(t *testing.T) {
		body := `{"source_type":"upload","transcript_id":"tr_nothing0000000000000"}`
		first := h.post(t, paste, h.keyA.Value, "order-6", body)
		wantError(t, first, 404, ErrNotFound, "transcript_id")
		again := h.post(t, paste, h.keyA.Value, "order-6", body)
		if again.header.Get(HeaderIdempotentReplayed) != "true" {
			t.Fatal("a 404 was not recorded")
		}
		wantError(t, again, 404, ErrNotFound, "transcript_id")
	})

	t.Run("validation errors are not recorded", func(t *testing.T) {
		bad := h.post(t, paste, h.keyA.Value, "order-2", `{"source_type":"paste"}`)
		wantError(t, bad, 400, ErrInvalidRequest, "content")
		good := h.post(t, paste, h.keyA.Value, "order-2", `{"source_type":"paste","content":"genesis 1:1"}`)
		if good.status != 201 || good.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("after a 400: %d %s", good.status, good.raw)
		}
	})

	t.Run("large bodies replay from the object store", func(t *testing.T) {
		content := strings.Repeat("turn to phillipians 4:13 today. ", 400)
		body, _ := json.Marshal(map[string]string{"source_type": "paste", "content": content})
		first := h.post(t, paste, h.keyA.Value, "order-3", string(body))
		again := h.post(t, paste, h.keyA.Value, "order-3", string(body))
		if first.status != 201 || !bytes.Equal(first.raw, again.raw) || len(first.raw) < 8<<10 {
			t.Fatalf("large replay: %d, %d bytes vs %d", again.status, len(again.raw), len(first.raw))
		}
		rec := &tcsv1.IdempotencyRecord{}
		name := IdempotencyRecordName(h.keyA.OrganizationID, "POST "+paste, "order-3")
		if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: name}, rec); err != nil {
			t.Fatal(err)
		}
		if rec.Status.BodyRef == "" || rec.Status.Body != "" || rec.Status.StatusCode != 201 || rec.Spec.KeyHash == "" || strings.Contains(rec.Spec.KeyHash, "order") {
			t.Fatalf("record %+v", rec.Status)
		}
	})

	t.Run("concurrent requests run once", func(t *testing.T) {
		var wg sync.WaitGroup
		results := make([]response, 6)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = h.post(t, paste, h.keyA.Value, "order-4", `{"source_type":"paste","content":"concurrent revelations 2:2"}`)
			}()
		}
		wg.Wait()
		replayed := 0
		for _, r := range results {
			if r.status != 201 || r.body["id"] != results[0].body["id"] {
				t.Fatalf("concurrent: %d %s vs %s", r.status, r.raw, results[0].raw)
			}
			if r.header.Get(HeaderIdempotentReplayed) == "true" {
				replayed++
			}
		}
		if replayed != len(results)-1 {
			t.Fatalf("%d of %d replayed, want all but one", replayed, len(results))
		}
		var list tcsv1.TranscriptList
		if err := h.client.List(t.Context(), &list); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tr := range list.Items {
			if tr.Namespace == h.namespace && tr.Status.Title == "concurrent Revelation 2:2" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d transcripts created, want 1", n)
		}
	})

	t.Run("an expired key runs again", func(t *testing.T) {
		first := h.post(t, paste, h.keyA.Value, "order-5", `{"source_type":"paste","content":"x y"}`)
		rec := &tcsv1.IdempotencyRecord{}
		name := IdempotencyRecordName(h.keyA.OrganizationID, "POST "+paste, "order-5")
		if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: name}, rec); err != nil {
			t.Fatal(err)
		}
		rec.Spec.ExpiresAt = metav1.NewTime(time.Now().Add(-time.Second))
		if err := h.client.Update(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		again := h.post(t, paste, h.keyA.Value, "order-5", `{"source_type":"paste","content":"x y"}`)
		if again.status != 201 || again.body["id"] == first.body["id"] || again.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("after expiry: %d %s", again.status, again.raw)
		}
	})

	t.Run("an expired key's stored body goes with it", func(t *testing.T) {
		// A response above the inline limit is kept in the object store.
		big := strings.Repeat("turn to romans 8 28 ", 400)
		first := h.post(t, paste, h.keyA.Value, "expired-big", `{"source_type":"paste","content":"`+big+`"}`)
		if first.status != 201 {
			t.Fatalf("first: %d %s", first.status, first.raw)
		}
		rec := &tcsv1.IdempotencyRecord{}
		name := IdempotencyRecordName(h.keyA.OrganizationID, "POST "+paste, "expired-big")
		if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: name}, rec); err != nil {
			t.Fatal(err)
		}
		ref := rec.Status.BodyRef
		if ref == "" {
			t.Fatalf("a %d-byte response was kept inline", len(first.raw))
		}
		rec.Spec.ExpiresAt = metav1.NewTime(time.Now().Add(-time.Second))
		if err := h.client.Update(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		// The retry's answer is small, so nothing writes the same key again.
		again := h.post(t, paste, h.keyA.Value, "expired-big", `{"source_type":"paste","content":"x"}`)
		if again.status != 201 || again.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("after expiry: %d %s", again.status, again.raw)
		}
		if ok, err := h.store.Exists(t.Context(), ref); err != nil || ok {
			t.Fatalf("the expired record's body %s is still stored (exists %t, %v)", ref, ok, err)
		}
	})
}
