package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// pagedTranscripts is a transcripts service whose list pages through items (newest first) by
// limit and starting_after, as the service's does; it counts the transcripts it hands out.
type pagedTranscripts struct {
	Transcripts
	items []*tcsv1.Transcript
	read  int
}

func (p *pagedTranscripts) List(_ context.Context, _ string, o transcripts.ListOptions) ([]*tcsv1.Transcript, bool, error) {
	from := 0
	if o.StartingAfter != "" {
		from = slices.IndexFunc(p.items, func(t *tcsv1.Transcript) bool { return t.Spec.ID == o.StartingAfter }) + 1
	}
	to := min(from+o.Limit, len(p.items))
	p.read += to - from
	return p.items[from:to], to < len(p.items), nil
}

// sermons returns n completed transcripts, newest first, titled "Sermon i" but for those of
// titled; each of review has a suggestion to review.
func sermons(n int, titled map[int]string, review ...int) []*tcsv1.Transcript {
	out := make([]*tcsv1.Transcript, n)
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		title := fmt.Sprintf("Sermon %d", i)
		if s, ok := titled[i]; ok {
			title = s
		}
		t := &tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(start.Add(-time.Duration(i) * time.Minute))},
			Spec:   tcsv1.TranscriptSpec{ID: fmt.Sprintf("tr_%04d", i), Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}},
			Status: tcsv1.TranscriptStatus{Phase: tcsv1.PhaseCompleted, Title: title, ChangesSummary: &tcsv1.ChangesSummary{}}}
		if slices.Contains(review, i) {
			t.Status.ChangesSummary.NeedsReview = 2
		}
		out[i] = t
	}
	return out
}

func rowIDs(rows []trRow) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return strings.Join(out, ",")
}

func TestSearchingTheListReadsABoundedNumberOfTranscripts(t *testing.T) {
	easter := map[int]string{10: "Easter morning", 120: "EASTER evening", 240: "Before easter"}
	for _, tc := range []struct {
		name    string
		items   []*tcsv1.Transcript
		query   string
		want    string
		next    string // the starting_after of the next page, "" for none
		capped  bool
		scanned int
	}{
		{"a page fills with matches, case aside, and the next starts after its last", sermons(250, easter), "q=easter&limit=2", "tr_0010,tr_0120", "tr_0120", false, 121},
		{"the next page finds the rest and ends the list", sermons(250, easter), "q=Easter&limit=2&starting_after=tr_0120", "tr_0240", "", false, 129},
		{"a search stops after the newest 1000 and offers to go on", sermons(1500, map[int]string{1200: "Pentecost"}), "q=pentecost", "", "tr_0999", true, 1000},
		{"going on finds what is older", sermons(1500, map[int]string{1200: "Pentecost"}), "q=pentecost&starting_after=tr_0999", "tr_1200", "", false, 500},
		{"the review filter keeps the transcripts with suggestions", sermons(300, nil, 3, 250), "review=1", "tr_0003,tr_0250", "", false, 300},
		{"search and review together", sermons(300, map[int]string{3: "Advent"}, 3, 250), "review=1&q=advent", "tr_0003", "", false, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &pagedTranscripts{items: tc.items}
			d := &Dashboard{o: Options{Transcripts: svc}}
			q, _ := url.ParseQuery(tc.query)
			lq, err := parseList(q)
			if err != nil {
				t.Fatal(err)
			}
			data := &transcriptsData{}
			if err := d.searchPage(t.Context(), "org_a", lq, data); err != nil {
				t.Fatal(err)
			}
			next := ""
			if data.Next != "" {
				nq, _ := url.ParseQuery(strings.TrimPrefix(data.Next, "?"))
				next = nq.Get("starting_after")
				if nq.Get("q") != q.Get("q") || nq.Get("review") != q.Get("review") {
					t.Errorf("the next page %s loses the search", data.Next)
				}
			}
			if got := rowIDs(data.Items); got != tc.want || next != tc.next || data.Capped != tc.capped || data.Scanned != tc.scanned {
				t.Errorf("%s: %q next %q capped %t scanned %d; want %q next %q capped %t scanned %d",
					tc.query, got, next, data.Capped, data.Scanned, tc.want, tc.next, tc.capped, tc.scanned)
			}
			if svc.read > maxScan+maxScanPage {
				t.Errorf("read %d transcripts for one page, more than %d", svc.read, maxScan+maxScanPage)
			}
		})
	}
}

func TestTheReviewCountIsBounded(t *testing.T) {
	d := &Dashboard{o: Options{Transcripts: &pagedTranscripts{items: sermons(1200, nil, 1, 500, 1100)}}}
	n, more, err := d.countReview(t.Context(), "org_a")
	if err != nil || n != 2 || !more {
		t.Errorf("count %d, more %t, %v; want 2 among the newest 1000, and more", n, more, err)
	}
	d = &Dashboard{o: Options{Transcripts: &pagedTranscripts{items: sermons(30, nil, 1, 29)}}}
	if n, more, err := d.countReview(t.Context(), "org_a"); err != nil || n != 2 || more {
		t.Errorf("count %d, more %t, %v; want 2, no more", n, more, err)
	}
}

func TestTheListsDatesComeFromADatePicker(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		gte, lte    string
		errField    string
	}{
		{"a day from and to covers both whole days", "from=2026-11-01&to=2026-11-23", "2026-11-01T00:00:00Z", "2026-11-23T23:59:59Z", ""},
		{"the API's parameters still work", "created[gte]=2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z", "", ""},
		{"a date that is not one is refused next to it", "from=23/11/2026", "", "", "from"},
		{"an end before the start is refused", "from=2026-11-23&to=2026-11-01", "", "", "to"},
		{"a search longer than the bound is refused", "q=" + strings.Repeat("a", maxSearch+1), "", "", "q"},
	} {
		q, _ := url.ParseQuery(tc.query)
		lq, err := parseList(q)
		var fe *fieldError
		switch {
		case tc.errField != "":
			if !errors.As(err, &fe) || fe.field != tc.errField {
				t.Errorf("%s: %v, want a refusal of %s", tc.name, err, tc.errField)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case lq.api.Get("created[gte]") != tc.gte || lq.api.Get("created[lte]") != tc.lte:
			t.Errorf("%s: created[gte]=%q created[lte]=%q, want %q %q", tc.name, lq.api.Get("created[gte]"), lq.api.Get("created[lte]"), tc.gte, tc.lte)
		}
	}
}
