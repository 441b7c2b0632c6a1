package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"testing"
	"time"

	"tcs.dev/tcs/internal/platform/results"
)

// record reads the idempotency record of key on route for organization A.
func (h *harness) record(t *testing.T, route, key string) *results.IdempotencyRecord {
	t.Helper()
	sum := sha256.Sum256([]byte(key))
	rec, err := h.results.GetIdempotency(t.Context(), results.IdempotencyKey{Organization: h.keyA.OrganizationID, Route: route, KeyHash: hex.EncodeToString(sum[:])})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestRetriedTimeoutWaitsAgain retries a synchronous create that answered 504 with the same
// Idempotency-Key, as the spec tells clients to: the retry waits again on the same transcript
// and answers it once done; later retries replay that answer.
func TestRetriedTimeoutWaitsAgain(t *testing.T) {
	h := newHarness(t)
	const path = "/api/v1/transcripts?wait=true&timeout=5"
	body := `{"source_type":"url","url":"http://127.0.0.1:9/a.txt","source_format":"txt"}`
	before := h.transcriptCount(t)

	first := h.post(t, path, h.keyA.Value, "wait-1", body)
	wantError(t, first, http.StatusGatewayTimeout, ErrTimeout, "")
	id, _ := first.body["id"].(string)
	if rec := h.record(t, "POST /api/v1/transcripts", "wait-1"); rec.State != results.IdempotencyInterrupted || rec.TranscriptID != id {
		t.Fatalf("the 504 left the record %+v, want it interrupted with %s for a retry to resume", rec, id)
	}

	done := make(chan response, 1)
	go func() { done <- h.post(t, "/api/v1/transcripts?wait=true&timeout=20", h.keyA.Value, "wait-1", body) }()
	time.Sleep(time.Second) // the retry waits now
	select {
	case r := <-done:
		t.Fatalf("the retry did not wait: %d %s", r.status, r.raw)
	default:
	}
	h.complete(t, id, "the corrected text")
	r := <-done
	if r.status != 200 || r.body["id"] != id || r.body["status"] != "completed" || r.body["content"] != "the corrected text" ||
		r.header.Get(HeaderIdempotentReplayed) != "" {
		t.Fatalf("retry: %d %s, want %s completed", r.status, r.raw, id)
	}
	again := h.post(t, path, h.keyA.Value, "wait-1", body)
	if again.status != 200 || again.body["id"] != id || again.header.Get(HeaderIdempotentReplayed) != "true" {
		t.Fatalf("replay: %d %s", again.status, again.raw)
	}
	if n := h.transcriptCount(t); n != before+1 {
		t.Fatalf("%d transcripts made, want 1", n-before)
	}
}

// TestServerErrorIsNotReplayed makes a paste fail with a 500 before it created anything (the
// object store is unusable): the 500 is not recorded, and the retry with the same key runs.
func TestServerErrorIsNotReplayed(t *testing.T) {
	h := newHarness(t)
	const path = "/api/v1/transcripts"
	body := `{"source_type":"paste","content":"read genesis 1:1"}`
	before := h.transcriptCount(t)

	// A file where the store's directory was: every write fails.
	away := h.storeDir + ".away"
	if err := os.Rename(h.storeDir, away); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.storeDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	failed := h.post(t, path, h.keyA.Value, "fail-1", body)
	if err := os.Remove(h.storeDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(away, h.storeDir); err != nil {
		t.Fatal(err)
	}
	wantError(t, failed, http.StatusInternalServerError, ErrServer, "")
	if n := h.transcriptCount(t); n != before {
		t.Fatalf("the failed request made %d transcripts", n-before)
	}

	r := h.post(t, path, h.keyA.Value, "fail-1", body)
	if r.status != 201 || r.header.Get(HeaderIdempotentReplayed) != "" || r.body["status"] != "completed" {
		t.Fatalf("retry after a 500: %d %s", r.status, r.raw)
	}
	again := h.post(t, path, h.keyA.Value, "fail-1", body)
	if again.status != 201 || again.body["id"] != r.body["id"] || again.header.Get(HeaderIdempotentReplayed) != "true" {
		t.Fatalf("replay: %d %s", again.status, again.raw)
	}
	if n := h.transcriptCount(t); n != before+1 {
		t.Fatalf("%d transcripts made, want 1", n-before)
	}
}
