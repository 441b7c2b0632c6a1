package results

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// metadataFixture puts 40 records of two organizations whose metadata vary (campus, series,
// a key with a dot) and returns them.
func metadataFixture(t *testing.T, s *Store) []*tcsv1.Transcript {
	t.Helper()
	campuses := []string{"north", "south", "east"}
	var all []*tcsv1.Transcript
	for n := range 40 {
		org := "org_a"
		if n%4 == 3 {
			org = "org_b"
		}
		tr := transcript(n, org, base.Add(time.Duration(n/2)*time.Second), tcsv1.PhaseCompleted, tcsv1.SourcePaste)
		if n%5 != 0 {
			tr.Spec.Options.Metadata = map[string]string{"campus": campuses[n%3]}
			if n%2 == 0 {
				tr.Spec.Options.Metadata["series.id"] = fmt.Sprintf("s%d", n%4)
			}
		}
		if _, err := s.Put(context.Background(), tr, 1); err != nil {
			t.Fatal(err)
		}
		all = append(all, tr)
	}
	return all
}

// metadataReference is reference, for the records that also have each pair of o.Metadata.
func metadataReference(all []*tcsv1.Transcript, org string, o ListOptions) ([]string, bool) {
	var keep []*tcsv1.Transcript
	for _, t := range all {
		ok := true
		for k, v := range o.Metadata {
			if got, has := t.Spec.Options.Metadata[k]; !has || got != v {
				ok = false
			}
		}
		if ok {
			keep = append(keep, t)
		}
	}
	return reference(keep, org, o)
}

func TestListFiltersOnMetadata(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		all := metadataFixture(t, s)
		for name, o := range map[string]ListOptions{
			"one pair":                     {Limit: 100, Metadata: map[string]string{"campus": "north"}},
			"two pairs together":           {Limit: 100, Metadata: map[string]string{"campus": "south", "series.id": "s2"}},
			"a pair no record has":         {Limit: 100, Metadata: map[string]string{"campus": "west"}},
			"a key no record has":          {Limit: 100, Metadata: map[string]string{"room": "north"}},
			"a value of another key":       {Limit: 100, Metadata: map[string]string{"series.id": "north"}},
			"a page of one pair":           {Limit: 3, Metadata: map[string]string{"campus": "east"}},
			"after a cursor, one pair":     {Limit: 3, Metadata: map[string]string{"campus": "north"}, StartingAfter: &Cursor{ID: all[20].Spec.ID, CreatedAt: all[20].CreationTimestamp.Time}},
			"before a cursor, one pair":    {Limit: 2, Metadata: map[string]string{"campus": "north"}, EndingBefore: &Cursor{ID: all[10].Spec.ID, CreatedAt: all[10].CreationTimestamp.Time}},
			"with another filter":          {Limit: 100, Metadata: map[string]string{"campus": "north"}, CreatedGTE: base.Add(5 * time.Second)},
			"no metadata filter":           {Limit: 100},
			"an empty map filters nothing": {Limit: 100, Metadata: map[string]string{}},
		} {
			for _, org := range []string{"org_a", "org_b"} {
				p, err := s.List(ctx, org, o)
				if err != nil {
					t.Fatalf("%s, %s: %v", name, org, err)
				}
				wantIDs, wantMore := metadataReference(all, org, o)
				if got := pageIDs(p); !slices.Equal(got, wantIDs) || p.HasMore != wantMore {
					t.Errorf("%s, %s: List = %v has_more %t\nwant %v has_more %t", name, org, got, p.HasMore, wantIDs, wantMore)
				}
			}
		}
		if ids, _ := metadataReference(all, "org_a", ListOptions{Limit: 100, Metadata: map[string]string{"campus": "north"}}); len(ids) < 5 {
			t.Fatalf("the fixture is too small to test anything: %d records of campus north", len(ids))
		}

		// A newer version of a record replaces its metadata; an older one changes nothing.
		tr := all[1].DeepCopy()
		tr.Spec.Options.Metadata = map[string]string{"campus": "west"}
		if _, err := s.Put(ctx, tr, 2); err != nil {
			t.Fatal(err)
		}
		stale := tr.DeepCopy()
		stale.Spec.Options.Metadata = map[string]string{"campus": "stale"}
		if _, err := s.Put(ctx, stale, 1); err != nil {
			t.Fatal(err)
		}
		for value, want := range map[string][]string{"west": {tr.Spec.ID}, "stale": {}, all[1].Spec.Options.Metadata["campus"]: nil} {
			p, err := s.List(ctx, "org_a", ListOptions{Limit: 100, Metadata: map[string]string{"campus": value}})
			if err != nil {
				t.Fatal(err)
			}
			got := pageIDs(p)
			if want != nil && !slices.Equal(got, want) || want == nil && slices.Contains(got, tr.Spec.ID) {
				t.Errorf("campus %s after the new version: %v, want %v", value, got, want)
			}
		}
		// The purge removes a record's metadata with it.
		if err := s.Delete(ctx, tr.Spec.ID); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, s, "transcript_metadata", "transcript_id = $1", tr.Spec.ID); n != 0 {
			t.Fatalf("%d metadata rows of a purged record", n)
		}
		if n := countRows(t, s, "transcript_metadata", ""); n == 0 {
			t.Fatal("no metadata rows at all")
		}
	})
}

func TestMetadataMigrationFillsTheRecordsArchivedBefore(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, dsn string) {
		ctx := context.Background()
		all := metadataFixture(t, s)
		// The store as version 6 left it: records, and no metadata table.
		for _, q := range []string{`DROP TABLE transcript_metadata`, `DELETE FROM schema_migrations WHERE version = 7`} {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		s2 := openStore(t, dsn)
		if v, err := s2.SchemaVersion(ctx); err != nil || v != len(migrations) {
			t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, len(migrations))
		}
		want := 0
		for _, tr := range all {
			want += len(tr.Spec.Options.Metadata)
		}
		if n := countRows(t, s2, "transcript_metadata", ""); n != want || n == 0 {
			t.Fatalf("the migration wrote %d metadata rows; want %d", n, want)
		}
		o := ListOptions{Limit: 100, Metadata: map[string]string{"campus": "south", "series.id": "s0"}}
		p, err := s2.List(ctx, "org_a", o)
		if err != nil {
			t.Fatal(err)
		}
		if wantIDs, _ := metadataReference(all, "org_a", o); !slices.Equal(pageIDs(p), wantIDs) || len(wantIDs) == 0 {
			t.Fatalf("List after the migration = %v, want %v", pageIDs(p), wantIDs)
		}
	})
}
