package controllers

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"tcs.dev/tcs/internal/platform/results"
)

// TestAuditSweeperKeepsEntriesForTheRetention fills the trail with more old entries than one
// batch removes and a few recent ones: a sweep removes exactly those past the retention.
func TestAuditSweeperKeepsEntriesForTheRetention(t *testing.T) {
	ctx := context.Background()
	rs, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	old := auditSweepBatch + 3
	for i := range old + 2 {
		at := now.Add(-DefaultAuditRetention - time.Hour + time.Duration(i)*time.Second)
		if i >= old {
			at = now.Add(-DefaultAuditRetention + time.Hour)
		}
		e := &results.AuditEntry{ID: fmt.Sprintf("aud_%05d", i), Organization: "org_a", Time: at, Actor: "a@example.org", Action: "APIKeyRevealed", Message: "m"}
		if err := rs.PutAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	sweeper := &AuditSweeper{Results: rs, Clock: clocktesting.NewFakePassiveClock(now)}
	sweeper.setDefaults()
	n, err := sweeper.Sweep(ctx)
	if err != nil || n != old {
		t.Fatalf("Sweep = %d, %v; want %d removed", n, err, old)
	}
	page, err := rs.ListAudit(ctx, results.AuditListOptions{Organization: "org_a", Limit: 10})
	if err != nil || len(page.Entries) != 2 {
		t.Fatalf("left: %+v, %v; want the 2 recent entries", page, err)
	}
}
