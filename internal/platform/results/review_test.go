package results

import (
	"context"
	"strings"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// TestListNeedsReview checks the needs_review filter of the list: completed records with
// undecided suggestions (as their review counts them, else their changes summary) or without.
func TestListNeedsReview(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		undecided := transcript(1, "org_a", base, tcsv1.PhaseCompleted, tcsv1.SourcePaste) // needsReview 1
		reviewed := transcript(2, "org_a", base.Add(time.Minute), tcsv1.PhaseCompleted, tcsv1.SourcePaste)
		reviewed.Status.Review = &tcsv1.ReviewStatus{Version: 1, Undecided: 0, Decided: 1, BaseChangesRef: reviewed.Status.ChangesRef}
		clean := transcript(3, "org_a", base.Add(2*time.Minute), tcsv1.PhaseCompleted, tcsv1.SourcePaste)
		clean.Status.ChangesSummary.NeedsReview = 0
		failed := transcript(4, "org_a", base.Add(3*time.Minute), tcsv1.PhaseFailed, tcsv1.SourcePaste)
		for _, tr := range []*tcsv1.Transcript{undecided, reviewed, clean, failed} {
			if _, err := s.Put(ctx, tr, 1); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			needsReview bool
			want        []string
		}{
			{true, []string{undecided.Spec.ID}},
			{false, []string{clean.Spec.ID, reviewed.Spec.ID}},
		} {
			page, err := s.List(ctx, "org_a", ListOptions{Limit: 10, NeedsReview: &tc.needsReview})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range page.Records {
				got = append(got, r.ID)
			}
			if len(got) != len(tc.want) || len(got) > 0 && (got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1]) {
				t.Errorf("needs_review=%t: %v, want %v", tc.needsReview, got, tc.want)
			}
		}
	})
}

// TestUndecidedMigrationBackfills checks that migration 8 gives the records from before it the
// undecided count of their changes summary.
func TestUndecidedMigrationBackfills(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		m := migrations[len(migrations)-1]
		if m.name != "transcripts_undecided" {
			t.Fatalf("the last migration is %s", m.name)
		}
		tr := transcript(1, "org_a", time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), tcsv1.PhaseCompleted, tcsv1.SourcePaste)
		tr.Status.ChangesSummary.NeedsReview = 3
		if _, err := s.Put(ctx, tr, 1); err != nil {
			t.Fatal(err)
		}
		// The record as an older tcs wrote it: no count.
		if _, err := s.db.ExecContext(ctx, `UPDATE transcripts SET undecided = 0`); err != nil {
			t.Fatal(err)
		}
		ddl := m.sqlite
		if s.driver == Postgres {
			ddl = m.postgres
		}
		var backfill string
		for _, line := range strings.Split(ddl, "\n") {
			if strings.HasPrefix(line, "UPDATE ") {
				backfill = line
			}
		}
		if _, err := s.db.ExecContext(ctx, backfill); err != nil {
			t.Fatalf("%s: %v", backfill, err)
		}
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT undecided FROM transcripts WHERE id = $1`, tr.Spec.ID).Scan(&n); err != nil || n != 3 {
			t.Fatalf("undecided after the backfill = %d, %v; want 3", n, err)
		}
	})
}
