package results

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func auditEntry(n int, org string, at time.Time) *AuditEntry {
	return &AuditEntry{
		ID: fmt.Sprintf("aud_%04d", n), Organization: org, Time: at,
		Actor: "owner@example.org", Action: "APIKeyRevealed", Target: fmt.Sprintf("key_%d", n),
		Message: fmt.Sprintf("owner@example.org revealed API key key_%d", n),
	}
}

func TestAuditTrailIsKeptListedNewestFirstAndPrunedAfterItsRetention(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, dsn string) {
		ctx := context.Background()
		at := base.Add(123456 * time.Microsecond)
		for n := 1; n <= 5; n++ {
			if err := s.PutAudit(ctx, auditEntry(n, "org_a", at.Add(time.Duration(n)*time.Minute))); err != nil {
				t.Fatal(err)
			}
		}
		// Two entries at the same microsecond are both kept, ordered by id.
		if err := s.PutAudit(ctx, auditEntry(6, "org_a", at.Add(5*time.Minute))); err != nil {
			t.Fatal(err)
		}
		if err := s.PutAudit(ctx, auditEntry(7, "org_b", at)); err != nil {
			t.Fatal(err)
		}
		// Writing an entry again, as a retry after an unknown outcome does, changes nothing.
		again := auditEntry(1, "org_a", at.Add(time.Hour))
		again.Message = "changed"
		if err := s.PutAudit(ctx, again); err != nil {
			t.Fatal(err)
		}

		var got []string
		opts := AuditListOptions{Organization: "org_a", Limit: 4}
		for {
			page, err := s.ListAudit(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Entries {
				got = append(got, e.ID)
			}
			if !page.HasMore {
				break
			}
			c := page.Entries[len(page.Entries)-1].Cursor()
			opts.After = &c
		}
		if want := []string{"aud_0006", "aud_0005", "aud_0004", "aud_0003", "aud_0002", "aud_0001"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("org_a's trail = %v, want %v", got, want)
		}

		first, err := s.ListAudit(ctx, AuditListOptions{Organization: "org_a", Since: at.Add(4 * time.Minute), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Entries) != 3 || first.HasMore {
			t.Fatalf("since the 4th minute: %d entries (more %t), want 3", len(first.Entries), first.HasMore)
		}
		e := first.Entries[2]
		if want := auditEntry(4, "org_a", at.Add(4*time.Minute)); *e != *want {
			t.Fatalf("entry read back = %+v, want %+v", e, want)
		}

		// The retention sweep removes what is older than its cut, in batches, and nothing else.
		n, err := s.DeleteAuditBefore(ctx, at.Add(3*time.Minute), 1)
		if err != nil || n != 1 {
			t.Fatalf("DeleteAuditBefore, batch of 1 = %d, %v", n, err)
		}
		n, err = s.DeleteAuditBefore(ctx, at.Add(3*time.Minute), 100)
		if err != nil || n != 2 {
			t.Fatalf("DeleteAuditBefore = %d, %v; want the 2 others before the cut", n, err)
		}
		if c := countRows(t, s, "audit_entries", ""); c != 4 {
			t.Fatalf("%d entries left, want 4", c)
		}
		if _, err := s.ListAudit(ctx, AuditListOptions{Limit: 1}); err == nil {
			t.Fatal("a list without an organization was accepted")
		}
		if err := s.PutAudit(ctx, &AuditEntry{ID: "aud_x", Organization: "org_a"}); err == nil {
			t.Fatal("an entry without a time was accepted")
		}
	})
}
