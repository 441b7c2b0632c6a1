package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/results"
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
		if again.header.Get("Cache-Control") != "no-store" {
			t.Errorf("the replayed error lost its Cache-Control (%q)", again.header.Get("Cache-Control"))
		}
	})

	t.Run("validation errors are not recorded", func(t *testing.T) {
		bad := h.post(t, paste, h.keyA.Value, "order-2", `{"source_type":"paste"}`)
		wantError(t, bad, 400, ErrInvalidRequest, "content")
		good := h.post(t, paste, h.keyA.Value, "order-2", `{"source_type":"paste","content":"genesis 1:1"}`)
		if good.status != 201 || good.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("after a 400: %d %s", good.status, good.raw)
		}
	})

	t.Run("large bodies replay from the record", func(t *testing.T) {
		content := strings.Repeat("turn to phillipians 4:13 today. ", 400)
		body, _ := json.Marshal(map[string]string{"source_type": "paste", "content": content})
		first := h.post(t, paste, h.keyA.Value, "order-3", string(body))
		again := h.post(t, paste, h.keyA.Value, "order-3", string(body))
		if first.status != 201 || !bytes.Equal(first.raw, again.raw) || len(first.raw) < 8<<10 {
			t.Fatalf("large replay: %d, %d bytes vs %d", again.status, len(again.raw), len(first.raw))
		}
		rec := h.record(t, "POST "+paste, "order-3")
		if rec.State != results.IdempotencyCompleted || rec.Response.StatusCode != 201 || !bytes.Equal(rec.Response.Body, first.raw) ||
			rec.TranscriptID != first.body["id"] || rec.Key.KeyHash == "" || strings.Contains(rec.Key.KeyHash, "order") {
			t.Fatalf("record %+v", rec)
		}
		// Nothing of it is in the object store.
		if _, err := os.Stat(filepath.Join(h.storeDir, "idempotency")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the object store holds idempotency bodies: %v", err)
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

	t.Run("an expired key runs anew, its recorded response gone", func(t *testing.T) {
		// A replica of the service whose records replay for a second only.
		short := *h
		short.url, _ = h.startReplica(t, harnessOptions{idempotencyRetention: time.Second})
		big := strings.Repeat("turn to romans 8 28 ", 400)
		first := short.post(t, paste, h.keyA.Value, "order-5", `{"source_type":"paste","content":"`+big+`"}`)
		if first.status != 201 {
			t.Fatalf("first: %d %s", first.status, first.raw)
		}
		if again := short.post(t, paste, h.keyA.Value, "order-5", `{"source_type":"paste","content":"x y"}`); again.header.Get(HeaderIdempotentReplayed) != "true" {
			t.Fatalf("not replayed before expiry: %d %s", again.status, again.raw)
		}
		time.Sleep(1100 * time.Millisecond)
		again := short.post(t, paste, h.keyA.Value, "order-5", `{"source_type":"paste","content":"x y"}`)
		if again.status != 201 || again.body["id"] == first.body["id"] || again.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("after expiry: %d %s", again.status, again.raw)
		}
		if rec := h.record(t, "POST "+paste, "order-5"); !bytes.Equal(rec.Response.Body, again.raw) || rec.TranscriptID != again.body["id"] || rec.Attempts != 1 {
			t.Fatalf("the record after expiry holds %d bytes for %s (attempts %d), want the new response", len(rec.Response.Body), rec.TranscriptID, rec.Attempts)
		}
	})
}

// TestIdempotencyAcrossReplicasOnPostgres runs two API servers, each with its own connections
// to one real PostgreSQL results store, as two replicas of the service: requests racing with
// one key on both make one transcript and get one answer, and a retry on the second replica
// resumes the request of a killed process with the same transcript.
func TestIdempotencyAcrossReplicasOnPostgres(t *testing.T) {
	dsn := newPostgresDatabase(t)
	h := newHarnessWith(t, harnessOptions{resultsDSN: dsn})
	second := *h
	second.url, _ = h.startReplica(t, harnessOptions{resultsDSN: dsn})
	replicas := []*harness{h, &second}
	const paste = "/api/v1/transcripts"

	t.Run("racing one key", func(t *testing.T) {
		for round := range 3 {
			before := h.transcriptCount(t)
			key := fmt.Sprint("race-", round)
			content := fmt.Sprintf("round %d: turn to john 3 16", round)
			var wg sync.WaitGroup
			answers := make([]response, 10)
			for i := range answers {
				wg.Go(func() {
					answers[i] = replicas[i%2].post(t, paste, h.keyA.Value, key, `{"source_type":"paste","content":"`+content+`"}`)
				})
			}
			wg.Wait()
			ran := 0
			for _, r := range answers {
				if r.status != 201 || r.body["id"] != answers[0].body["id"] {
					t.Fatalf("round %d: %d %s vs %s", round, r.status, r.raw, answers[0].raw)
				}
				if r.header.Get(HeaderIdempotentReplayed) == "" {
					ran++
				}
			}
			if ran != 1 {
				t.Fatalf("round %d: %d requests ran, want 1 and the others replayed", round, ran)
			}
			if n := h.transcriptCount(t); n != before+1 {
				t.Fatalf("round %d: %d transcripts made, want 1", round, n-before)
			}
		}
	})

	t.Run("a retry on the other replica resumes a killed one", func(t *testing.T) {
		before := h.transcriptCount(t)
		body := `{"source_type":"url","url":"http://127.0.0.1:9/sermon.txt","source_format":"txt"}`
		id := h.killMidRequest(t, paste, "pg-crash", body)
		r := second.post(t, paste, h.keyA.Value, "pg-crash", body)
		if r.status != 202 || r.body["id"] != id || r.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("retry on the second replica: %d %s, want %s resumed", r.status, r.raw, id)
		}
		again := h.post(t, paste, h.keyA.Value, "pg-crash", body)
		if again.header.Get(HeaderIdempotentReplayed) != "true" || !bytes.Equal(again.raw, r.raw) {
			t.Fatalf("replay on the first replica: %d %s", again.status, again.raw)
		}
		if n := h.transcriptCount(t); n != before+1 {
			t.Fatalf("%d transcripts made, want 1", n-before)
		}
	})
}
