package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestParseDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn, source string
		driver      Driver
		err         string
	}{
		{dsn: "sqlite:///var/lib/tcs/results.db", driver: SQLite, source: "/var/lib/tcs/results.db"},
		{dsn: "sqlite://state/results.db", driver: SQLite, source: "state/results.db"},
		{dsn: "sqlite:results.db", driver: SQLite, source: "results.db"},
		{dsn: "/var/lib/tcs/results.db", driver: SQLite, source: "/var/lib/tcs/results.db"},
		{dsn: "results.db", driver: SQLite, source: "results.db"},
		{dsn: "postgres://tcs@db:5432/tcs?sslmode=require", driver: Postgres, source: "postgres://tcs@db:5432/tcs?sslmode=require"},
		{dsn: "postgresql://db/tcs", driver: Postgres, source: "postgresql://db/tcs"},
		{dsn: "", err: "empty"},
		{dsn: "mysql://db/tcs", err: "neither"},
		{dsn: "sqlite://", err: "names no database file"},
		{dsn: "sqlite:///x.db?_pragma=foo", err: "query parameters"},
		{dsn: "/tmp/a?b.db", err: "contains '?'"},
	} {
		driver, source, err := parseDSN(tc.dsn)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseDSN(%q) error = %v, want one saying %q", tc.dsn, err, tc.err)
			}
		case err != nil:
			t.Errorf("parseDSN(%q): %v", tc.dsn, err)
		case driver != tc.driver || source != tc.source:
			t.Errorf("parseDSN(%q) = %s %q, want %s %q", tc.dsn, driver, source, tc.driver, tc.source)
		}
	}
}

// countRows returns the number of rows of table matching where.
func countRows(t testing.TB, s *Store, table, where string, args ...any) int {
	t.Helper()
	var n int
	q := "SELECT count(*) FROM " + table
	if where != "" {
		q += " WHERE " + where
	}
	if err := s.db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// indexNames returns the names of the indexes of table.
func indexNames(t testing.TB, s *Store, table string) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = $1 AND sql IS NOT NULL`
	if s.driver == Postgres {
		q = `SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexname NOT LIKE '%_pkey'`
	}
	rows, err := s.db.Query(q, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func TestMigrationsAppliedOnceAndOnReopen(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, dsn string) {
		ctx := context.Background()
		v, err := s.SchemaVersion(ctx)
		if err != nil || v != len(migrations) {
			t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, len(migrations))
		}
		if n := countRows(t, s, "schema_migrations", ""); n != len(migrations) {
			t.Fatalf("schema_migrations has %d rows, want %d", n, len(migrations))
		}
		want := []string{"transcripts_deleted", "transcripts_org_created", "transcripts_org_source_created", "transcripts_org_status_created", "transcripts_org_undecided_created"}
		if got := indexNames(t, s, "transcripts"); !slices.Equal(got, want) {
			t.Errorf("indexes of transcripts = %v, want %v", got, want)
		}
		if _, err := s.Put(ctx, transcript(1, "org_a", base, tcsv1.PhaseCompleted, tcsv1.SourcePaste), 1); err != nil {
			t.Fatal(err)
		}
		s.Close()

		// Reopening applies nothing again and keeps the data.
		s2 := openStore(t, dsn)
		if n := countRows(t, s2, "schema_migrations", ""); n != len(migrations) {
			t.Fatalf("after reopening, schema_migrations has %d rows, want %d", n, len(migrations))
		}
		if _, err := s2.Get(ctx, "tr_00000001", GetOptions{}); err != nil {
			t.Fatalf("after reopening: %v", err)
		}

		// A schema migrated by a newer tcs is refused, not misread.
		if _, err := s2.db.Exec(`INSERT INTO schema_migrations (version, name, applied_us) VALUES ($1, 'from the future', 0)`, len(migrations)+1); err != nil {
			t.Fatal(err)
		}
		if s3, err := Open(ctx, dsn); err == nil || !strings.Contains(err.Error(), "newer than this tcs knows") {
			if s3 != nil {
				s3.Close()
			}
			t.Fatalf("Open of a newer schema = %v, want an error saying it is newer", err)
		}
	})
}

func TestConcurrentOpens(t *testing.T) {
	for _, d := range drivers {
		t.Run(string(d.name), func(t *testing.T) {
			dsn := d.newDB(t)
			const replicas = 6
			var wg sync.WaitGroup
			errs := make([]error, replicas)
			stores := make([]*Store, replicas)
			start := make(chan struct{})
			for i := range replicas {
				wg.Go(func() {
					<-start
					stores[i], errs[i] = Open(context.Background(), dsn)
				})
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("replica %d: Open: %v", i, err)
				}
				defer stores[i].Close()
			}
			if n := countRows(t, stores[0], "schema_migrations", ""); n != len(migrations) {
				t.Fatalf("schema_migrations has %d rows after %d concurrent opens, want %d", n, replicas, len(migrations))
			}
			// Every replica works on the one schema.
			for i, s := range stores {
				if _, err := s.Put(context.Background(), transcript(i, "org_a", base, tcsv1.PhaseCompleted, tcsv1.SourcePaste), 1); err != nil {
					t.Fatalf("replica %d: Put: %v", i, err)
				}
			}
		})
	}
}

// normalized returns t as the store keeps it: without managed fields, with its type.
func normalized(t *tcsv1.Transcript) *tcsv1.Transcript {
	c := t.DeepCopy()
	c.ManagedFields = nil
	for i := range c.Status.EmittedEvents {
		c.Status.EmittedEvents[i].State = nil
	}
	c.APIVersion, c.Kind = tcsv1.GroupVersion.String(), "Transcript"
	// A round trip through JSON, as the API server's storage does: times keep seconds.
	data, _ := json.Marshal(c)
	out := &tcsv1.Transcript{}
	_ = json.Unmarshal(data, out)
	return out
}

func TestPutKeepsTheFullRecord(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		tr := transcript(7, "org_a", base.Add(1500*time.Millisecond), tcsv1.PhaseCompleted, tcsv1.SourceYouTube)
		if ok, err := s.Put(ctx, tr, 3); err != nil || !ok {
			t.Fatalf("Put = %t, %v; want true", ok, err)
		}
		r, err := s.Get(ctx, tr.Spec.ID, GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := normalized(tr)
		if !reflect.DeepEqual(asJSON(t, r.Transcript), asJSON(t, want)) {
			t.Errorf("Get returned\n%s\nwant\n%s", asJSON(t, r.Transcript), asJSON(t, want))
		}
		if r.Transcript.ManagedFields != nil {
			t.Errorf("managed fields were kept")
		}
		if ev := r.Transcript.Status.EmittedEvents; len(ev) != 1 || ev[0].State != nil || ev[0].Type != tcsv1.EventTranscriptCompleted {
			t.Errorf("emitted events of the record %+v, want the event without its snapshot", ev)
		}
		if r.ID != "tr_00000007" || r.Organization != "org_a" || r.SourceType != tcsv1.SourceYouTube || r.Status != tcsv1.PhaseCompleted ||
			r.AIPassStatus != tcsv1.AIPassCompleted || r.Version != 3 || r.DeletedAt != nil ||
			!r.CreatedAt.Equal(base.Add(time.Second)) || r.CompletedAt == nil || !r.CompletedAt.Equal(base.Add(4*time.Second)) {
			t.Errorf("record columns = %+v", r)
		}
		// The creation time in the column is the one a read transcript shows, so that its
		// cursor finds its place.
		if !r.CreatedAt.Equal(r.Transcript.CreationTimestamp.Time) {
			t.Errorf("CreatedAt %s differs from the transcript's %s", r.CreatedAt, r.Transcript.CreationTimestamp)
		}
		if _, err := s.Get(ctx, "tr_nope", GetOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of an unknown id = %v, want ErrNotFound", err)
		}
		for _, bad := range []*tcsv1.Transcript{{}, {Spec: tcsv1.TranscriptSpec{ID: "tr_x"}}, {Spec: tcsv1.TranscriptSpec{ID: "tr_x", Organization: "org_a"}}} {
			if _, err := s.Put(ctx, bad, 1); err == nil {
				t.Errorf("Put of %+v succeeded", bad.Spec)
			}
		}
	})
}

func asJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestPutIsIdempotentAndVersioned(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		v5 := transcript(1, "org_a", base, tcsv1.PhasePending, tcsv1.SourcePaste)
		v5.Status.AIPassStatus = tcsv1.AIPassRunning
		if ok, err := s.Put(ctx, v5, 5); err != nil || !ok {
			t.Fatalf("first Put = %t, %v", ok, err)
		}
		// A retried archive of the same version, even one that differs (it cannot, but the
		// store must not care), changes nothing.
		again := v5.DeepCopy()
		again.Status.Title = "changed"
		if ok, err := s.Put(ctx, again, 5); err != nil || ok {
			t.Fatalf("re-Put of version 5 = %t, %v; want false, nil", ok, err)
		}
		// An older version never replaces a newer one.
		older := transcript(1, "org_a", base, tcsv1.PhaseFailed, tcsv1.SourcePaste)
		if ok, err := s.Put(ctx, older, 4); err != nil || ok {
			t.Fatalf("Put of version 4 = %t, %v; want false, nil", ok, err)
		}
		r, err := s.Get(ctx, "tr_00000001", GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Version != 5 || r.Status != tcsv1.PhasePending || r.Transcript.Status.Title != "Sermon 1" || r.AIPassStatus != tcsv1.AIPassRunning {
			t.Fatalf("after stale puts: version %d status %s title %q ai %s", r.Version, r.Status, r.Transcript.Status.Title, r.AIPassStatus)
		}
		// A newer version replaces it, columns and record.
		v6 := transcript(1, "org_a", base, tcsv1.PhaseCompleted, tcsv1.SourcePaste)
		v6.Status.Title = "Final"
		if ok, err := s.Put(ctx, v6, 6); err != nil || !ok {
			t.Fatalf("Put of version 6 = %t, %v; want true", ok, err)
		}
		r, err = s.Get(ctx, "tr_00000001", GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Version != 6 || r.Status != tcsv1.PhaseCompleted || r.AIPassStatus != tcsv1.AIPassCompleted || r.Transcript.Status.Title != "Final" {
			t.Fatalf("after Put of version 6: version %d status %s ai %s title %q", r.Version, r.Status, r.AIPassStatus, r.Transcript.Status.Title)
		}
		if n := countRows(t, s, "transcripts", ""); n != 1 {
			t.Fatalf("%d rows, want 1", n)
		}
	})
}

// fixture puts a varied set of records into s and returns them as the store keeps them.
func fixture(t *testing.T, s *Store) []*tcsv1.Transcript {
	t.Helper()
	ctx := context.Background()
	phases := []tcsv1.Phase{tcsv1.PhaseCompleted, tcsv1.PhaseCompleted, tcsv1.PhaseFailed, tcsv1.PhasePending}
	sources := []tcsv1.SourceType{tcsv1.SourcePaste, tcsv1.SourceYouTube, tcsv1.SourceURL, tcsv1.SourceUpload, tcsv1.SourcePaste}
	var all []*tcsv1.Transcript
	for n := range 60 {
		org := "org_a"
		if n%5 == 4 {
			org = "org_b"
		}
		// Three transcripts a second: ties that the id must break.
		tr := transcript(n, org, base.Add(time.Duration(n/3)*time.Second), phases[n%len(phases)], sources[n%len(sources)])
		if n%11 == 3 {
			at := metav1.NewTime(base.Add(time.Hour))
			tr.Status.DeletedAt = &at
		}
		if _, err := s.Put(ctx, tr, 1); err != nil {
			t.Fatal(err)
		}
		all = append(all, tr)
	}
	return all
}

// reference is what List must return: a filter and sort of all in memory, as
// apiserver/list.go's selectPage does.
func reference(all []*tcsv1.Transcript, org string, o ListOptions) ([]string, bool) {
	newer := func(a, b *tcsv1.Transcript) bool {
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.After(b.CreationTimestamp.Time)
		}
		return a.Spec.ID > b.Spec.ID
	}
	var cursor *tcsv1.Transcript
	for _, c := range []*Cursor{o.StartingAfter, o.EndingBefore} {
		if c != nil {
			cursor = &tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(c.CreatedAt)}, Spec: tcsv1.TranscriptSpec{ID: c.ID}}
		}
	}
	var keep []*tcsv1.Transcript
	for _, t := range all {
		switch {
		case t.Spec.Organization != org, !o.IncludeDeleted && t.Status.DeletedAt != nil,
			o.Status != "" && t.Status.Phase != o.Status, o.SourceType != "" && t.Spec.Source.Type != o.SourceType,
			!o.CreatedGTE.IsZero() && t.CreationTimestamp.Time.Before(o.CreatedGTE),
			!o.CreatedLTE.IsZero() && t.CreationTimestamp.Time.After(o.CreatedLTE),
			o.StartingAfter != nil && !newer(cursor, t), o.EndingBefore != nil && !newer(t, cursor):
			continue
		}
		keep = append(keep, t)
	}
	sort.Slice(keep, func(i, j int) bool { return newer(keep[i], keep[j]) })
	more := len(keep) > o.Limit
	if o.EndingBefore != nil {
		keep = keep[max(0, len(keep)-o.Limit):]
	} else {
		keep = keep[:min(o.Limit, len(keep))]
	}
	ids := []string{}
	for _, t := range keep {
		ids = append(ids, t.Spec.ID)
	}
	return ids, more
}

func pageIDs(p *Page) []string {
	ids := []string{}
	for _, r := range p.Records {
		ids = append(ids, r.ID)
	}
	return ids
}

func TestListMatchesTheAPISemantics(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		all := fixture(t, s)
		at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }
		cases := map[string]ListOptions{
			"first page":              {Limit: 10},
			"everything":              {Limit: 100},
			"everything with deleted": {Limit: 100, IncludeDeleted: true},
			"status completed":        {Limit: 7, Status: tcsv1.PhaseCompleted},
			"status failed":           {Limit: 100, Status: tcsv1.PhaseFailed},
			"source youtube":          {Limit: 100, SourceType: tcsv1.SourceYouTube},
			"status and source":       {Limit: 3, Status: tcsv1.PhaseCompleted, SourceType: tcsv1.SourcePaste},
			"created range":           {Limit: 100, CreatedGTE: at(4), CreatedLTE: at(9)},
			"created gte mid-second":  {Limit: 100, CreatedGTE: at(4).Add(time.Millisecond)},
			"created lte mid-second":  {Limit: 100, CreatedLTE: at(9).Add(-time.Millisecond)},
			"after a tie":             {Limit: 5, StartingAfter: &Cursor{ID: "tr_00000031", CreatedAt: at(10)}},
			"before a tie":            {Limit: 5, EndingBefore: &Cursor{ID: "tr_00000031", CreatedAt: at(10)}},
			"before, filtered":        {Limit: 2, EndingBefore: &Cursor{ID: "tr_00000031", CreatedAt: at(10)}, Status: tcsv1.PhaseCompleted},
			"after the oldest":        {Limit: 5, StartingAfter: &Cursor{ID: "tr_00000000", CreatedAt: at(0)}},
			"before the newest":       {Limit: 5, EndingBefore: &Cursor{ID: "tr_00000058", CreatedAt: at(19)}},
			// A cursor need not be a record of the store (the API's may be a live transcript).
			"after a live transcript": {Limit: 4, StartingAfter: &Cursor{ID: "tr_live", CreatedAt: at(7)}},
		}
		for name, o := range cases {
			for _, org := range []string{"org_a", "org_b"} {
				p, err := s.List(ctx, org, o)
				if err != nil {
					t.Fatalf("%s, %s: %v", name, org, err)
				}
				wantIDs, wantMore := reference(all, org, o)
				if got := pageIDs(p); !slices.Equal(got, wantIDs) || p.HasMore != wantMore {
					t.Errorf("%s, %s: List = %v has_more %t\nwant %v has_more %t", name, org, got, p.HasMore, wantIDs, wantMore)
				}
			}
		}
		// Every record as a cursor, both ways, with and without a filter.
		for _, c := range all {
			cur := &Cursor{ID: c.Spec.ID, CreatedAt: c.CreationTimestamp.Time}
			for _, o := range []ListOptions{
				{Limit: 4, StartingAfter: cur}, {Limit: 4, EndingBefore: cur},
				{Limit: 3, StartingAfter: cur, Status: tcsv1.PhaseCompleted}, {Limit: 3, EndingBefore: cur, SourceType: tcsv1.SourcePaste},
			} {
				p, err := s.List(ctx, c.Spec.Organization, o)
				if err != nil {
					t.Fatal(err)
				}
				wantIDs, wantMore := reference(all, c.Spec.Organization, o)
				if got := pageIDs(p); !slices.Equal(got, wantIDs) || p.HasMore != wantMore {
					t.Fatalf("cursor %s, %+v: List = %v has_more %t\nwant %v has_more %t", c.Spec.ID, o, got, p.HasMore, wantIDs, wantMore)
				}
			}
		}
		if p, err := s.List(ctx, "org_a", ListOptions{Limit: 100}); err != nil || len(p.Records) < 30 {
			t.Fatalf("the fixture is too small to test anything: %d records, %v", len(p.Records), err)
		}
		for name, o := range map[string]ListOptions{
			"zero limit":  {},
			"two cursors": {Limit: 1, StartingAfter: &Cursor{ID: "tr_00000001"}, EndingBefore: &Cursor{ID: "tr_00000002"}},
		} {
			if _, err := s.List(ctx, "org_a", o); err == nil {
				t.Errorf("List with %s succeeded", name)
			}
		}
	})
}

func TestListCursorsWalkBothWays(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		all := fixture(t, s)
		want, _ := reference(all, "org_a", ListOptions{Limit: 1000})

		// Forward with starting_after given by id only, as a client sends it.
		var got []string
		o := ListOptions{Limit: 4}
		for pages := 0; ; pages++ {
			p, err := s.List(ctx, "org_a", o)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, pageIDs(p)...)
			if !p.HasMore {
				break
			}
			if pages > 100 {
				t.Fatal("the walk does not end")
			}
			o.StartingAfter = &Cursor{ID: p.Records[len(p.Records)-1].ID}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("walking forward gave\n%v\nwant\n%v", got, want)
		}

		// Backward from the oldest with ending_before: each page is newest first and the
		// pages come newest last.
		got = nil
		o = ListOptions{Limit: 4, EndingBefore: &Cursor{ID: want[len(want)-1]}}
		got = append(got, want[len(want)-1])
		for pages := 0; ; pages++ {
			p, err := s.List(ctx, "org_a", o)
			if err != nil {
				t.Fatal(err)
			}
			got = append(pageIDs(p), got...)
			if !p.HasMore {
				break
			}
			if pages > 100 {
				t.Fatal("the walk does not end")
			}
			o.EndingBefore = &Cursor{ID: p.Records[0].ID}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("walking backward gave\n%v\nwant\n%v", got, want)
		}

		// A cursor by id must be a visible record of the organization.
		for _, id := range []string{"tr_unknown", "tr_00000004" /* org_b */, "tr_00000003" /* soft-deleted */} {
			if _, err := s.List(ctx, "org_a", ListOptions{Limit: 1, StartingAfter: &Cursor{ID: id}}); !errors.Is(err, ErrNotFound) {
				t.Errorf("List after %s = %v, want ErrNotFound", id, err)
			}
		}
	})
}

func TestSoftDeleteRestoreAndPurge(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		for n := range 4 {
			if _, err := s.Put(ctx, transcript(n, "org_a", base.Add(time.Duration(n)*time.Second), tcsv1.PhaseCompleted, tcsv1.SourcePaste), 1); err != nil {
				t.Fatal(err)
			}
		}
		del := base.Add(time.Hour)
		if ok, err := s.SoftDelete(ctx, "tr_00000001", del); err != nil || !ok {
			t.Fatalf("SoftDelete = %t, %v", ok, err)
		}
		if ok, err := s.SoftDelete(ctx, "tr_00000001", del.Add(time.Minute)); err != nil || ok {
			t.Fatalf("second SoftDelete = %t, %v; want false, nil", ok, err)
		}
		if _, err := s.SoftDelete(ctx, "tr_nope", del); !errors.Is(err, ErrNotFound) {
			t.Fatalf("SoftDelete of an unknown id = %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "tr_00000001", GetOptions{}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of a soft-deleted record = %v, want ErrNotFound", err)
		}
		r, err := s.Get(ctx, "tr_00000001", GetOptions{IncludeDeleted: true})
		if err != nil {
			t.Fatal(err)
		}
		// The first delete's time stays; the transcript shows it too.
		if r.DeletedAt == nil || !r.DeletedAt.Equal(del) || r.Transcript.Status.DeletedAt == nil || !r.Transcript.Status.DeletedAt.Time.Equal(del) {
			t.Fatalf("deleted record: DeletedAt %v, transcript's %v; want %s", r.DeletedAt, r.Transcript.Status.DeletedAt, del)
		}
		p, err := s.List(ctx, "org_a", ListOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := pageIDs(p); !slices.Equal(got, []string{"tr_00000003", "tr_00000002", "tr_00000000"}) {
			t.Fatalf("List after a soft delete = %v", got)
		}
		if p, _ := s.List(ctx, "org_a", ListOptions{Limit: 10, IncludeDeleted: true}); len(p.Records) != 4 {
			t.Fatalf("List with deleted = %v", pageIDs(p))
		}

		if ok, err := s.Restore(ctx, "tr_00000001"); err != nil || !ok {
			t.Fatalf("Restore = %t, %v", ok, err)
		}
		if ok, err := s.Restore(ctx, "tr_00000001"); err != nil || ok {
			t.Fatalf("second Restore = %t, %v; want false, nil", ok, err)
		}
		if _, err := s.Restore(ctx, "tr_nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Restore of an unknown id = %v, want ErrNotFound", err)
		}
		if r, err := s.Get(ctx, "tr_00000001", GetOptions{}); err != nil || r.DeletedAt != nil || r.Transcript.Status.DeletedAt != nil {
			t.Fatalf("Get after Restore = %+v, %v", r, err)
		}

		// The purge query: the records deleted at or before the retention cutoff, oldest first.
		for n, at := range map[int]time.Time{0: del.Add(2 * time.Hour), 1: del, 2: del.Add(time.Hour)} {
			if _, err := s.SoftDelete(ctx, fmt.Sprintf("tr_%08d", n), at); err != nil {
				t.Fatal(err)
			}
		}
		due, err := s.DeletedBefore(ctx, del.Add(time.Hour), 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range due {
			ids = append(ids, r.ID)
		}
		if !slices.Equal(ids, []string{"tr_00000001", "tr_00000002"}) {
			t.Fatalf("DeletedBefore = %v, want tr_00000001 tr_00000002", ids)
		}
		if due[0].Transcript.Status.ContentRef == "" {
			t.Errorf("the purge gets no content reference to delete")
		}
		if due, _ := s.DeletedBefore(ctx, del.Add(5*time.Hour), 1); len(due) != 1 || due[0].ID != "tr_00000001" {
			t.Fatalf("DeletedBefore with limit 1 = %v", due)
		}
		if err := s.Delete(ctx, "tr_00000001"); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "tr_00000001"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second Delete = %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "tr_00000001", GetOptions{IncludeDeleted: true}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get after Delete = %v, want ErrNotFound", err)
		}
		if n := countRows(t, s, "transcripts", ""); n != 3 {
			t.Fatalf("%d rows after the purge of one of 4", n)
		}
	})
}

// delivery returns a delivery of an event of transcript tr to endpoint ep.
func delivery(n int, ep, tr string, created time.Time, state tcsv1.DeliveryState) *tcsv1.WebhookDelivery {
	return &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("evt-%04d", n), Namespace: "tcs", CreationTimestamp: metav1.NewTime(created)},
		Spec: tcsv1.WebhookDeliverySpec{ID: fmt.Sprintf("evt_%04d", n), Organization: "org_a", Endpoint: ep, Event: tcsv1.EventTranscriptCompleted,
			TranscriptID: tr, Sequence: n, PayloadRef: "payload/" + tr},
		Status: tcsv1.WebhookDeliveryStatus{State: state, Attempts: []tcsv1.DeliveryAttempt{
			{Time: metav1.NewTime(created), StatusCode: 500, Error: "HTTP 500", DurationMillis: 12},
			{Time: metav1.NewTime(created.Add(time.Minute)), StatusCode: 200, DurationMillis: 9},
		}},
	}
}

func deliveryIDs(p *DeliveryPage) []string {
	ids := []string{}
	for _, d := range p.Deliveries {
		ids = append(ids, d.ID)
	}
	return ids
}

func TestDeliveryHistory(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		// Deliveries 0..9: even ones to we-a, odd to we-b; two per transcript; two per second.
		for n := range 10 {
			ep := []string{"we-a", "we-b"}[n%2]
			d := delivery(n, ep, fmt.Sprintf("tr_%d", n/2), base.Add(time.Duration(n/2)*time.Second), tcsv1.DeliverySucceeded)
			if ok, err := s.PutDelivery(ctx, d, 1); err != nil || !ok {
				t.Fatalf("PutDelivery = %t, %v", ok, err)
			}
			if ok, err := s.PutDelivery(ctx, d, 1); err != nil || ok {
				t.Fatalf("re-PutDelivery = %t, %v; want false", ok, err)
			}
		}
		p, err := s.ListDeliveries(ctx, DeliveryListOptions{Endpoint: "we-a", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := deliveryIDs(p); !slices.Equal(got, []string{"evt_0008", "evt_0006", "evt_0004"}) || !p.HasMore {
			t.Fatalf("deliveries of we-a = %v has_more %t", got, p.HasMore)
		}
		p, err = s.ListDeliveries(ctx, DeliveryListOptions{Endpoint: "we-a", Limit: 3, StartingAfter: ptr(p.Deliveries[2].Cursor())})
		if err != nil {
			t.Fatal(err)
		}
		if got := deliveryIDs(p); !slices.Equal(got, []string{"evt_0002", "evt_0000"}) || p.HasMore {
			t.Fatalf("next deliveries of we-a = %v has_more %t", got, p.HasMore)
		}
		p, err = s.ListDeliveries(ctx, DeliveryListOptions{Endpoint: "we-a", Limit: 1, EndingBefore: ptr(p.Deliveries[0].Cursor())})
		if err != nil {
			t.Fatal(err)
		}
		if got := deliveryIDs(p); !slices.Equal(got, []string{"evt_0004"}) || !p.HasMore {
			t.Fatalf("deliveries of we-a before evt_0002 = %v has_more %t", got, p.HasMore)
		}
		// Same second: the id breaks the tie, newest (highest) first.
		p, err = s.ListDeliveries(ctx, DeliveryListOptions{TranscriptID: "tr_2", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := deliveryIDs(p); !slices.Equal(got, []string{"evt_0005", "evt_0004"}) || p.HasMore {
			t.Fatalf("deliveries of tr_2 = %v has_more %t", got, p.HasMore)
		}
		d, err := s.GetDelivery(ctx, "evt_0005")
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Delivery.Status.Attempts) != 2 || d.Delivery.Status.Attempts[0].StatusCode != 500 || d.Endpoint != "we-b" || d.TranscriptID != "tr_2" ||
			d.State != tcsv1.DeliverySucceeded || d.Delivery.Spec.PayloadRef != "payload/tr_2" {
			t.Fatalf("GetDelivery = %+v, attempts %+v", d, d.Delivery.Status.Attempts)
		}
		// A newer version of a delivery (a replay) replaces it.
		replayed := delivery(5, "we-b", "tr_2", base.Add(2*time.Second), tcsv1.DeliveryFailed)
		replayed.Status.Replays = 1
		if ok, err := s.PutDelivery(ctx, replayed, 2); err != nil || !ok {
			t.Fatalf("PutDelivery of version 2 = %t, %v", ok, err)
		}
		if d, _ := s.GetDelivery(ctx, "evt_0005"); d.State != tcsv1.DeliveryFailed || d.Delivery.Status.Replays != 1 {
			t.Fatalf("after a newer put: %+v", d)
		}
		if _, err := s.GetDelivery(ctx, "evt_nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetDelivery of an unknown id = %v", err)
		}
		if n, err := s.DeleteDeliveries(ctx, "tr_2"); err != nil || n != 2 {
			t.Fatalf("DeleteDeliveries = %d, %v; want 2", n, err)
		}
		if n := countRows(t, s, "webhook_deliveries", ""); n != 8 {
			t.Fatalf("%d deliveries left, want 8", n)
		}
		for name, o := range map[string]DeliveryListOptions{
			"neither": {Limit: 1}, "both": {Limit: 1, Endpoint: "we-a", TranscriptID: "tr_1"}, "no limit": {Endpoint: "we-a"},
			"cursor without time": {Limit: 1, Endpoint: "we-a", StartingAfter: &Cursor{ID: "evt_0002"}},
		} {
			if _, err := s.ListDeliveries(ctx, o); err == nil {
				t.Errorf("ListDeliveries with %s succeeded", name)
			}
		}
	})
}

func TestADeliveryRecordKeepsTheAnswersOfItsAttempts(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		d := delivery(1, "we-a", "tr_1", base, tcsv1.DeliverySucceeded)
		d.Status.Attempts[0].Response = &tcsv1.DeliveryResponse{
			Headers:          []tcsv1.ResponseHeader{{Name: "Content-Type", Value: "text/html"}, {Name: "X-Request-Id", Value: "req_é"}},
			HeadersTruncated: true,
			Body:             `<script>alert("receiver")</script> café`, BodyTruncated: true,
		}
		d.Status.Attempts[1].Response = &tcsv1.DeliveryResponse{Body: "ok"}
		if _, err := s.PutDelivery(ctx, d, 1); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetDelivery(ctx, d.Spec.ID)
		if err != nil {
			t.Fatal(err)
		}
		a := got.Delivery.Status.Attempts
		if len(a) != 2 || !reflect.DeepEqual(a[0].Response, d.Status.Attempts[0].Response) || !reflect.DeepEqual(a[1].Response, d.Status.Attempts[1].Response) {
			t.Fatalf("archived attempts %+v, want the responses of %+v", a, d.Status.Attempts)
		}
	})
}

// TestDeliveryRetention checks the queries of the archived deliveries' purge and of the
// delivery history of an organization.
func TestDeliveryRetention(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		// Deliveries 0..5, one a second; 0..3 ended a minute after their creation, 4 and 5
		// have no completedAt (they count from their creation); 5 is another organization's,
		// and a test delivery without a transcript.
		for n := range 6 {
			created := base.Add(time.Duration(n) * time.Second)
			d := delivery(n, "we-a", fmt.Sprintf("tr_%d", n), created, tcsv1.DeliverySucceeded)
			if n < 4 {
				d.Status.CompletedAt = ptr(metav1.NewTime(created.Add(time.Minute)))
			}
			if n == 5 {
				d.Spec.Organization, d.Spec.TranscriptID, d.Spec.Event = "org_b", "", "test"
			}
			if _, err := s.PutDelivery(ctx, d, 1); err != nil {
				t.Fatal(err)
			}
		}
		cases := []struct {
			name  string
			at    time.Time
			limit int
			want  []string
		}{
			{"none ended yet", base.Add(-time.Second), 10, nil},
			{"without completedAt from the creation", base.Add(4 * time.Second), 10, []string{"evt_0004"}},
			{"longest ago first", base.Add(2*time.Minute + 5*time.Second), 10, []string{"evt_0004", "evt_0005", "evt_0000", "evt_0001", "evt_0002", "evt_0003"}},
			{"bounded", base.Add(2*time.Minute + 5*time.Second), 3, []string{"evt_0004", "evt_0005", "evt_0000"}},
		}
		for _, tc := range cases {
			got, err := s.DeliveriesEndedBefore(ctx, tc.at, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, d := range got {
				ids = append(ids, d.ID)
			}
			if !slices.Equal(ids, append([]string{}, tc.want...)) {
				t.Errorf("%s: DeliveriesEndedBefore = %v, want %v", tc.name, ids, tc.want)
			}
		}
		if d, err := s.GetDelivery(ctx, "evt_0001"); err != nil || !d.EndedAt.Equal(base.Add(time.Second+time.Minute)) {
			t.Fatalf("EndedAt of evt_0001 = %v, %v", d, err)
		}
		p, err := s.ListDeliveries(ctx, DeliveryListOptions{Organization: "org_b", Limit: 10})
		if err != nil || !slices.Equal(deliveryIDs(p), []string{"evt_0005"}) {
			t.Fatalf("deliveries of org_b = %v, %v", p, err)
		}
		p, err = s.ListDeliveries(ctx, DeliveryListOptions{Organization: "org_a", Endpoint: "we-a", Limit: 2})
		if err != nil || !slices.Equal(deliveryIDs(p), []string{"evt_0004", "evt_0003"}) || !p.HasMore {
			t.Fatalf("deliveries of org_a to we-a = %v, %v", p, err)
		}
		if err := s.DeleteDelivery(ctx, "evt_0004"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteDelivery(ctx, "evt_0004"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a second DeleteDelivery = %v, want ErrNotFound", err)
		}
		if _, err := s.GetDelivery(ctx, "evt_0004"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetDelivery of a deleted record = %v", err)
		}
		if _, err := s.DeliveriesEndedBefore(ctx, base, 0); err == nil {
			t.Fatal("DeliveriesEndedBefore with limit 0 succeeded")
		}
	})
}

func TestIdempotencyRecords(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		key := IdempotencyKey{Organization: "org_a", Route: "POST /api/v1/transcripts", KeyHash: "ab12"}
		t0 := base
		exp := t0.Add(24 * time.Hour)
		claim := func(holder, tr string, now time.Time) IdempotencyClaim {
			return IdempotencyClaim{Holder: holder, TranscriptID: tr, Now: now, ExpiresAt: now.Add(24 * time.Hour), StaleBefore: now.Add(-12 * time.Second)}
		}
		held, prior, err := s.ClaimIdempotency(ctx, key, claim("run1", "tr_1", t0))
		if err != nil || prior != nil || held == nil || held.TranscriptID != "tr_1" || held.Resumed() || !held.ExpiresAt.Equal(exp) {
			t.Fatalf("first claim = %+v, %+v, %v", held, prior, err)
		}
		// A second request with the key finds the first in progress while its heartbeat lives.
		if err := s.HeartbeatIdempotency(ctx, key, "run1", t0.Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		held, prior, err = s.ClaimIdempotency(ctx, key, claim("run2", "tr_2", t0.Add(20*time.Second)))
		if err != nil || held != nil || prior == nil || prior.State != IdempotencyInProgress || prior.Holder != "run1" || prior.TranscriptID != "tr_1" {
			t.Fatalf("claim of a live key = %+v, %+v, %v", held, prior, err)
		}
		// Once the heartbeat stopped (the process died), a retry resumes it with its transcript id.
		held, _, err = s.ClaimIdempotency(ctx, key, claim("run2", "tr_2", t0.Add(23*time.Second)))
		if err != nil || held == nil || held.TranscriptID != "tr_1" || !held.Resumed() || held.Attempts != 2 || !held.ExpiresAt.Equal(exp) || !held.CreatedAt.Equal(t0) {
			t.Fatalf("claim of a dead key = %+v, %v", held, err)
		}
		// The dead run can no longer touch the record.
		resp := IdempotencyResponse{StatusCode: 201, ContentType: "application/json", Body: []byte(`{"id":"tr_1"}`), RequestID: "req_1",
			Headers: map[string]string{"Cache-Control": "no-store"}}
		for name, err := range map[string]error{
			"heartbeat": s.HeartbeatIdempotency(ctx, key, "run1", t0.Add(24*time.Second)),
			"complete":  s.CompleteIdempotency(ctx, key, "run1", resp, t0.Add(24*time.Second)),
			"interrupt": s.InterruptIdempotency(ctx, key, "run1"),
		} {
			if !errors.Is(err, ErrNotHeld) {
				t.Errorf("%s by a run that lost the record = %v, want ErrNotHeld", name, err)
			}
		}
		// An interrupted run (a 504, a 500) is resumed at once by the next request.
		if err := s.InterruptIdempotency(ctx, key, "run2"); err != nil {
			t.Fatal(err)
		}
		held, _, err = s.ClaimIdempotency(ctx, key, claim("run3", "tr_3", t0.Add(25*time.Second)))
		if err != nil || held == nil || held.TranscriptID != "tr_1" || held.Attempts != 3 {
			t.Fatalf("claim of an interrupted key = %+v, %v", held, err)
		}
		if err := s.CompleteIdempotency(ctx, key, "run3", resp, t0.Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := s.CompleteIdempotency(ctx, key, "run3", resp, t0.Add(30*time.Second)); !errors.Is(err, ErrNotHeld) {
			t.Fatalf("second Complete = %v, want ErrNotHeld", err)
		}
		// A completed record is in the way of every claim, whatever its heartbeat, until it expires.
		held, prior, err = s.ClaimIdempotency(ctx, key, claim("run4", "tr_4", t0.Add(time.Hour)))
		if err != nil || held != nil || prior.State != IdempotencyCompleted || !reflect.DeepEqual(prior.Response, resp) || prior.Holder != "" ||
			prior.CompletedAt == nil || !prior.CompletedAt.Equal(t0.Add(30*time.Second)) || !prior.ExpiresAt.Equal(exp) {
			t.Fatalf("claim of a completed key = %+v, %+v, %v", held, prior, err)
		}
		// Once expired, the key runs anew: a new transcript id, and the response is cleared.
		held, _, err = s.ClaimIdempotency(ctx, key, claim("run5", "tr_5", exp))
		if err != nil || held == nil || held.TranscriptID != "tr_5" || held.Resumed() || !held.ExpiresAt.Equal(exp.Add(24*time.Hour)) {
			t.Fatalf("claim after expiry = %+v, %v", held, err)
		}
		rec, err := s.GetIdempotency(ctx, key)
		if err != nil || rec.State != IdempotencyInProgress || rec.Holder != "run5" || rec.Response.StatusCode != 0 || len(rec.Response.Body) != 0 ||
			rec.Response.Headers != nil || rec.CompletedAt != nil || !rec.CreatedAt.Equal(exp) {
			t.Fatalf("record after a new claim = %+v, %v", rec, err)
		}

		// Of concurrent claims of one key exactly one wins.
		race := IdempotencyKey{Organization: "org_a", Route: "POST /api/v1/transcripts", KeyHash: "race"}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var winners []string
		for i := range 16 {
			wg.Go(func() {
				holder := fmt.Sprint("racer", i)
				held, prior, err := s.ClaimIdempotency(ctx, race, claim(holder, "tr_"+holder, t0.Add(time.Duration(i)*time.Millisecond)))
				if err != nil || (held == nil) == (prior == nil) {
					t.Errorf("claim = %+v, %+v, %v", held, prior, err)
				}
				if held != nil {
					mu.Lock()
					winners = append(winners, held.TranscriptID)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("%d of 16 concurrent claims won, want 1", len(winners))
		}
		if rec, err := s.GetIdempotency(ctx, race); err != nil || rec.TranscriptID != winners[0] || rec.Attempts != 1 {
			t.Fatalf("the raced record = %+v, %v; want the winner's %s", rec, err, winners[0])
		}
	})
}

func TestDeleteExpiredIdempotency(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		t0 := base
		for i, e := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour, 4 * time.Hour} {
			k := IdempotencyKey{Organization: "org_b", Route: "POST /api/v1/transcripts", KeyHash: fmt.Sprint("gc", i)}
			held, _, err := s.ClaimIdempotency(ctx, k, IdempotencyClaim{Holder: "h", TranscriptID: fmt.Sprint("tr_", i), Now: t0, ExpiresAt: t0.Add(e)})
			if err != nil || held == nil {
				t.Fatal(held, err)
			}
			if i%2 == 0 {
				if err := s.CompleteIdempotency(ctx, k, "h", IdempotencyResponse{StatusCode: 200, Body: bytes.Repeat([]byte("b"), 10<<10)}, t0); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, tc := range []struct {
			now        time.Duration
			limit      int
			gone, left int
		}{
			{now: 30 * time.Minute, limit: 100, gone: 0, left: 4},
			{now: 3 * time.Hour, limit: 2, gone: 2, left: 2}, // bounded: the oldest two of three
			{now: 3 * time.Hour, limit: 2, gone: 1, left: 1},
			{now: 100 * time.Hour, limit: 1, gone: 1, left: 0},
		} {
			n, err := s.DeleteExpiredIdempotency(ctx, t0.Add(tc.now), tc.limit)
			if err != nil || n != tc.gone {
				t.Fatalf("DeleteExpiredIdempotency(+%s, %d) = %d, %v; want %d", tc.now, tc.limit, n, err, tc.gone)
			}
			if left := countRows(t, s, "idempotency_records", "organization = $1", "org_b"); left != tc.left {
				t.Fatalf("after +%s: %d records left, want %d", tc.now, left, tc.left)
			}
		}
		if _, err := s.DeleteExpiredIdempotency(ctx, t0, 0); err == nil {
			t.Fatal("a limit of 0 was accepted")
		}
	})
}

func TestAnalyzeGathersStatistics(t *testing.T) {
	forEachDriver(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		fixture(t, s)
		stats := func() int {
			if s.driver == Postgres {
				return countRows(t, s, "pg_stat_user_tables", "relname = 'transcripts' AND last_analyze IS NOT NULL")
			}
			if countRows(t, s, "sqlite_master", "name = 'sqlite_stat1'") == 0 {
				return 0
			}
			return countRows(t, s, "sqlite_stat1", "tbl = 'transcripts'")
		}
		if n := stats(); n != 0 {
			t.Fatalf("statistics before Analyze: %d", n)
		}
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		// PostgreSQL's statistics collector reports with a short delay.
		deadline := time.Now().Add(10 * time.Second)
		for stats() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("Analyze gathered no statistics of transcripts")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
