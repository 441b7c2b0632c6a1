package results

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// benchSizes are the numbers of archived transcripts measured: the small one is the baseline
// of the same run, against which the large one must stay flat.
var benchSizes = []int{1_000, 100_000}

// BenchmarkStore loads archived transcripts of one organization into each driver and measures
// the latency of the API's reads: the first list page, a filtered first page, a page deep in
// the list (by cursor), and a get by id. Run it with a fixed count so that the percentiles
// have samples:
//
//	go test ./internal/platform/results -run '^$' -bench Store -benchtime 2000x
func BenchmarkStore(b *testing.B) {
	for _, d := range drivers {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/records=%d", d.name, n), func(b *testing.B) {
				ctx := context.Background()
				dsn := d.newDB(b)
				s := openStore(b, dsn)
				start := time.Now()
				ids := loadRecords(b, s, n)
				load := time.Since(start)
				// As autovacuum would within a minute, or the archiver after a bulk archive.
				if err := s.Analyze(ctx); err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: loaded %d records in %s (%.0f puts/s)", d.name, n, load.Round(time.Millisecond), float64(n)/load.Seconds())
				if d.name == SQLite {
					if fi, err := os.Stat(filepath.Join(filepath.Dir(dsn[len("sqlite://"):]), "results.db")); err == nil {
						b.Logf("sqlite: database file %.1f MB, %.0f bytes a record", float64(fi.Size())/1e6, float64(fi.Size())/float64(n))
					}
				}
				if d.name == Postgres {
					var table, all int64
					if err := s.db.QueryRowContext(ctx, `SELECT pg_table_size('transcripts'), pg_total_relation_size('transcripts')`).Scan(&table, &all); err == nil {
						b.Logf("postgres: transcripts %.1f MB with its indexes (table and TOAST %.1f MB), %.0f bytes a record", float64(all)/1e6, float64(table)/1e6, float64(all)/float64(n))
					}
				}
				deep := &Cursor{ID: ids[len(ids)*9/10]} // 90% of the way down, given by id as a client does
				latency(b, "first_page", func() error {
					p, err := s.List(ctx, "org_bench", ListOptions{Limit: 10})
					if err == nil && (len(p.Records) != 10 || !p.HasMore) {
						err = fmt.Errorf("first page: %d records, has_more %t", len(p.Records), p.HasMore)
					}
					return err
				})
				latency(b, "filtered_page", func() error {
					p, err := s.List(ctx, "org_bench", ListOptions{Limit: 10, Status: tcsv1.PhaseFailed, SourceType: tcsv1.SourceURL})
					if err == nil && len(p.Records) != 10 {
						err = fmt.Errorf("filtered page: %d records", len(p.Records))
					}
					return err
				})
				latency(b, "deep_page", func() error {
					p, err := s.List(ctx, "org_bench", ListOptions{Limit: 10, StartingAfter: deep})
					if err == nil && len(p.Records) != 10 {
						err = fmt.Errorf("deep page: %d records", len(p.Records))
					}
					return err
				})
				i := 0
				latency(b, "get", func() error {
					i = (i + 7919) % len(ids)
					_, err := s.Get(ctx, ids[i], GetOptions{})
					return err
				})
			})
		}
	}
}

// loadRecords puts n transcripts of org_bench, three a second, a tenth of them in another
// organization, and returns the ids of org_bench's, newest first.
func loadRecords(b *testing.B, s *Store, n int) []string {
	b.Helper()
	ctx := context.Background()
	phases := []tcsv1.Phase{tcsv1.PhaseCompleted, tcsv1.PhaseCompleted, tcsv1.PhaseCompleted, tcsv1.PhaseFailed}
	sources := []tcsv1.SourceType{tcsv1.SourcePaste, tcsv1.SourceYouTube, tcsv1.SourceURL}
	var ids []string
	for i := range n {
		if i%10 != 9 {
			ids = append(ids, fmt.Sprintf("tr_%08d", i))
		}
	}
	workers := 1
	if s.Driver() == Postgres {
		workers = 4
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				org := "org_bench"
				if i%10 == 9 {
					org = "org_other"
				}
				tr := transcript(i, org, base.Add(time.Duration(i/3)*time.Second), phases[i%len(phases)], sources[i%len(sources)])
				if _, err := s.Put(ctx, tr, 1); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	slices.Reverse(ids)
	return ids
}

// latency runs f b.N times as a sub-benchmark and reports its p50 and p99 in milliseconds.
func latency(b *testing.B, name string, f func() error) {
	b.Run(name, func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			t0 := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		b.ReportMetric(ms(lat[len(lat)*50/100]), "p50-ms")
		b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
	})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
