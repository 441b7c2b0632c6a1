package controllers

import (
	"context"
	"fmt"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// TestIdempotencySweeperRemovesExpiredRecords runs the sweeper in a manager over a results
// store holding more expired records than one batch removes, some with their response, and
// records still replaying: the expired ones go, responses and all, and the others stay.
func TestIdempotencySweeperRemovesExpiredRecords(t *testing.T) {
	ctx := context.Background()
	rs := newArchiveEnv(t, "").results
	now := time.Now()
	expired := idempotencySweepBatch*2 + 7
	var live []results.IdempotencyKey
	for i := range expired + 3 {
		key := results.IdempotencyKey{Organization: "org_a", Route: "POST /api/v1/transcripts", KeyHash: fmt.Sprint("k", i)}
		created, expires := now.Add(-25*time.Hour), now.Add(-time.Hour+time.Duration(i)*time.Millisecond)
		if i >= expired {
			created, expires = now.Add(-time.Hour), now.Add(23*time.Hour)
			live = append(live, key)
		}
		held, _, err := rs.ClaimIdempotency(ctx, key, results.IdempotencyClaim{Holder: "h", TranscriptID: fmt.Sprint("tr_", i), Now: created, ExpiresAt: expires})
		if err != nil || held == nil {
			t.Fatal(held, err)
		}
		if i%2 == 0 {
			resp := results.IdempotencyResponse{StatusCode: 201, ContentType: "application/json", Body: []byte(`{"id":"tr"}`)}
			if err := rs.CompleteIdempotency(ctx, key, "h", resp, created); err != nil {
				t.Fatal(err)
			}
		}
	}

	mgr := env.NewManager(t, env.Namespace(t, "tcs-idem"))
	if err := mgr.Add(&IdempotencySweeper{Results: rs, Every: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	defer testenv.Run(t, mgr)()

	deadline := time.Now().Add(30 * time.Second)
	for i := 0; i < expired; {
		_, err := rs.GetIdempotency(ctx, results.IdempotencyKey{Organization: "org_a", Route: "POST /api/v1/transcripts", KeyHash: fmt.Sprint("k", i)})
		if err == nil {
			if time.Now().After(deadline) {
				t.Fatalf("expired record k%d is still there", i)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		i++
	}
	for _, key := range live {
		if rec, err := rs.GetIdempotency(ctx, key); err != nil || rec.State == "" {
			t.Fatalf("a record still replaying was removed: %+v, %v", rec, err)
		}
	}
}

// TestIdempotencySweepIsBounded checks that one Sweep removes every expired record in
// batches and reports them.
func TestIdempotencySweepIsBounded(t *testing.T) {
	ctx := context.Background()
	rs := newArchiveEnv(t, "").results
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name          string
		records, want int
	}{
		{"none", 0, 0},
		{"less than a batch", 3, 3},
		{"exactly a batch", idempotencySweepBatch, idempotencySweepBatch},
		{"several batches", idempotencySweepBatch*2 + 1, idempotencySweepBatch*2 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.records {
				key := results.IdempotencyKey{Organization: "org_" + tc.name, Route: "POST /api/v1/transcripts", KeyHash: fmt.Sprint(i)}
				if held, _, err := rs.ClaimIdempotency(ctx, key, results.IdempotencyClaim{Holder: "h", TranscriptID: "tr", Now: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil || held == nil {
					t.Fatal(held, err)
				}
			}
			n, err := (&IdempotencySweeper{Results: rs, Clock: clocktesting.NewFakePassiveClock(t0.Add(2 * time.Hour))}).Sweep(ctx)
			if err != nil || n != tc.want {
				t.Fatalf("Sweep = %d, %v; want %d", n, err, tc.want)
			}
		})
	}
}
