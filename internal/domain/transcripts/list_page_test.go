package transcripts

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// organizationOf returns n transcripts created one millisecond apart, every third pending.
func organizationOf(n int) []tcsv1.Transcript {
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	items := make([]tcsv1.Transcript, n)
	for i := range items {
		at := base.Add(time.Duration(i) * time.Millisecond)
		items[i].Name = fmt.Sprintf("tr-%012d", i)
		items[i].CreationTimestamp = metav1.NewTime(at.Truncate(time.Second))
		items[i].Spec.Source.Type = tcsv1.SourcePaste
		items[i].Status.Phase = tcsv1.PhaseCompleted
		if i%3 == 0 {
			items[i].Status.Phase = tcsv1.PhasePending
		}
	}
	// The cache hands them over in no particular order.
	slices.Reverse(items[n/2:])
	return items
}

// sortedPage is the straightforward way: sort everything that matches, then cut.
func sortedPage(items []tcsv1.Transcript, f listFilter, limit int, cursor *tcsv1.Transcript, before bool) ([]*tcsv1.Transcript, bool) {
	var all []*tcsv1.Transcript
	for i := range items {
		if f.match(&items[i]) {
			all = append(all, &items[i])
		}
	}
	sort.Slice(all, func(i, j int) bool { return newerFirst(all[i], all[j]) })
	switch {
	case cursor != nil && !before:
		i := sort.Search(len(all), func(i int) bool { return newerFirst(cursor, all[i]) })
		rest := all[i:]
		return rest[:min(limit, len(rest))], len(rest) > limit
	case cursor != nil:
		i := sort.Search(len(all), func(i int) bool { return !newerFirst(all[i], cursor) })
		head := all[:i]
		return head[max(0, len(head)-limit):], len(head) > limit
	}
	return all[:min(limit, len(all))], len(all) > limit
}

func names(ts []*tcsv1.Transcript) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func TestSelectPageAgreesWithSorting(t *testing.T) {
	items := organizationOf(2000)
	cursor := &items[700]
	for _, tc := range []struct {
		name   string
		f      listFilter
		limit  int
		cursor *tcsv1.Transcript
		before bool
	}{
		{"newest", listFilter{}, 10, nil, false},
		{"all", listFilter{}, 100, nil, false},
		{"after", listFilter{}, 7, cursor, false},
		{"before", listFilter{}, 7, cursor, true},
		{"pending after", listFilter{status: tcsv1.PhasePending}, 25, cursor, false},
		{"completed before", listFilter{status: tcsv1.PhaseCompleted}, 25, cursor, true},
		{"before the newest", listFilter{}, 10, &items[len(items)/2], true},
		{"none match", listFilter{sourceType: tcsv1.SourceURL}, 10, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, gotMore := selectPage(items, tc.f, tc.limit, tc.cursor, tc.before)
			want, wantMore := sortedPage(items, tc.f, tc.limit, tc.cursor, tc.before)
			if !slices.Equal(names(got), names(want)) || gotMore != wantMore {
				t.Fatalf("selectPage = %v %v, want %v %v", names(got), gotMore, names(want), wantMore)
			}
		})
	}
}

// BenchmarkListPage100k measures one page of an organization of 100 000 transcripts, with the
// straightforward sort of all of them as the baseline in the same run.
func BenchmarkListPage100k(b *testing.B) {
	items := organizationOf(100_000)
	cursor := &items[40_000]
	for _, bc := range []struct {
		name string
		page func([]tcsv1.Transcript, listFilter, int, *tcsv1.Transcript, bool) ([]*tcsv1.Transcript, bool)
	}{{"selectPage", selectPage}, {"sortBaseline", sortedPage}} {
		b.Run(bc.name+"/first", func(b *testing.B) {
			for b.Loop() {
				bc.page(items, listFilter{}, 10, nil, false)
			}
		})
		b.Run(bc.name+"/after-cursor", func(b *testing.B) {
			for b.Loop() {
				bc.page(items, listFilter{status: tcsv1.PhaseCompleted}, 100, cursor, false)
			}
		})
	}
}

func TestMergePagesListsATranscriptArchivedBetweenTheTwoReadsOnce(t *testing.T) {
	at := func(id string, sec int) *tcsv1.Transcript {
		tr := &tcsv1.Transcript{}
		tr.Name, tr.Spec.ID = "tr-"+id, id
		tr.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 24, 14, 10, sec, 0, time.UTC))
		return tr
	}
	for _, tc := range []struct {
		name       string
		live, arch []*tcsv1.Transcript
		limit      int
		want       []string
		wantMore   bool
	}{
		{"disjoint pages merge newest first",
			[]*tcsv1.Transcript{at("tr_c", 3), at("tr_a", 1)}, []*tcsv1.Transcript{at("tr_b", 2)}, 3,
			[]string{"tr-tr_c", "tr-tr_b", "tr-tr_a"}, false},
		{"a transcript in both is listed once, as the resource",
			[]*tcsv1.Transcript{at("tr_c", 3), at("tr_b", 2)}, []*tcsv1.Transcript{at("tr_c", 3), at("tr_a", 1)}, 2,
			[]string{"tr-tr_c", "tr-tr_b"}, true},
		{"the duplicate does not take the place of an older transcript",
			[]*tcsv1.Transcript{at("tr_c", 3)}, []*tcsv1.Transcript{at("tr_c", 3), at("tr_b", 2)}, 2,
			[]string{"tr-tr_c", "tr-tr_b"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, more := mergePages(tc.live, tc.arch, false, false, tc.limit, false)
			if !slices.Equal(names(got), tc.want) || more != tc.wantMore {
				t.Errorf("mergePages = %v (more %t), want %v (more %t)", names(got), more, tc.want, tc.wantMore)
			}
		})
	}
}
