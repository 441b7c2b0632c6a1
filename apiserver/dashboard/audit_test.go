package dashboard

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"tcs.dev/tcs/internal/platform/results"
)

// TestAuditBeforeRefusesWhenTheStoreIsGone shows the rule of reveals against a real SQLite
// store: the entry is written, retried while the store fails, and when it cannot be written the
// caller is told so, to show nothing; a write that succeeds is in the store before it returns.
func TestAuditBeforeRefusesWhenTheStoreIsGone(t *testing.T) {
	ctx := context.Background()
	rs, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Options{PublicURL: "https://tcs.example.org", Audit: rs})
	if err != nil {
		t.Fatal(err)
	}
	d.auditRetryFor = 300 * time.Millisecond

	e := d.auditEntry("org_a", "owner@example.org", "APIKeyRevealed", "key_1", "%s revealed API key %s", "owner@example.org", "key_1")
	if err := d.recordAudit(ctx, e); err != nil {
		t.Fatal(err)
	}
	page, err := rs.ListAudit(ctx, results.AuditListOptions{Organization: "org_a", Limit: 10})
	if err != nil || len(page.Entries) != 1 || page.Entries[0].Message != "owner@example.org revealed API key key_1" || page.Entries[0].Target != "key_1" {
		t.Fatalf("after recording: %+v, %v", page, err)
	}

	rs.Close() // the store is gone
	start := time.Now()
	err = d.auditBefore(ctx, "org_a", "owner@example.org", "APIKeyRevealed", "key_1", "%s revealed API key %s", "owner@example.org", "key_1")
	if err == nil {
		t.Fatal("auditBefore succeeded without a store: the secret would be shown unrecorded")
	}
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Errorf("auditBefore gave up after %s, before its retry window", took)
	}
}
