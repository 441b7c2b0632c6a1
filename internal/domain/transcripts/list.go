package transcripts

import (
	"container/heap"
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/platform/results"
)

// ParamError is a request refused for one of its parameters (a list query, an upload's
// confirmation): the API's 400. Param names the offending parameter, Message says why in the
// API's words.
type ParamError struct {
	Param, Message string
}

func (e *ParamError) Error() string { return e.Message }

// ListOptions is what a list of transcripts selects: a page of at most Limit, the filters, and
// at most one cursor.
type ListOptions struct {
	Limit int
	listFilter
	// StartingAfter and EndingBefore are transcript ids of the organization; they need not
	// match the filters.
	StartingAfter, EndingBefore string
}

// listFilter is what a list selects on.
type listFilter struct {
	status      tcsv1.Phase
	sourceType  tcsv1.SourceType
	createdFrom time.Time
	createdTo   time.Time
	// metadata are the pairs a transcript's options.metadata must all have.
	metadata map[string]string
	// needsReview, when set, keeps the completed transcripts with (true) or without (false)
	// undecided suggestions.
	needsReview *bool
}

func (f listFilter) match(t *tcsv1.Transcript) bool {
	switch {
	case !visible(t):
		return false
	case f.status != "" && t.Status.Phase != f.status:
		return false
	case f.sourceType != "" && t.Spec.Source.Type != f.sourceType:
		return false
	case !f.createdFrom.IsZero() && t.Created().Time.Before(f.createdFrom):
		return false
	case !f.createdTo.IsZero() && t.Created().Time.After(f.createdTo):
		return false
	case f.needsReview != nil && (t.Status.Phase != tcsv1.PhaseCompleted || (t.Undecided() > 0) != *f.needsReview):
		return false
	}
	for k, v := range f.metadata {
		if got, ok := t.Spec.Options.Metadata[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// sourceTypes are the source types a list filters on.
var sourceTypes = []tcsv1.SourceType{tcsv1.SourcePaste, tcsv1.SourceYouTube, tcsv1.SourceURL, tcsv1.SourceUpload}

// ParseListQuery reads the query of a list (GET /api/v1/transcripts and the dashboard's
// list): limit (1 to 100, default 10), status, source_type, created[gte], created[lte],
// metadata[key], needs_review and the cursors starting_after or ending_before. A refused value is a
// *ParamError.
func ParseListQuery(q url.Values) (ListOptions, error) {
	o := ListOptions{Limit: 10}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return o, &ParamError{"limit", "limit must be an integer from 1 to 100."}
		}
		o.Limit = n
	}
	if v := q.Get("status"); v != "" {
		switch p := tcsv1.Phase(v); p {
		case tcsv1.PhasePending, tcsv1.PhaseCompleted, tcsv1.PhaseFailed:
			o.status = p
		default:
			return o, &ParamError{"status", fmt.Sprintf("status %s is not one of pending, completed, failed.", apiview.Quote(v))}
		}
	}
	if v := q.Get("source_type"); v != "" {
		if !slices.Contains(sourceTypes, tcsv1.SourceType(v)) {
			return o, &ParamError{"source_type", fmt.Sprintf("source_type %s is not one of paste, youtube, url, upload.", apiview.Quote(v))}
		}
		o.sourceType = tcsv1.SourceType(v)
	}
	if v := q.Get("needs_review"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil || (v != "true" && v != "false") {
			return o, &ParamError{"needs_review", "needs_review must be true or false."}
		}
		o.needsReview = &b
	}
	var err error
	if o.createdFrom, err = timeQuery(q, "created[gte]"); err != nil {
		return o, err
	}
	if o.createdTo, err = timeQuery(q, "created[lte]"); err != nil {
		return o, err
	}
	if o.metadata, err = metadataQuery(q); err != nil {
		return o, err
	}
	o.StartingAfter, o.EndingBefore = q.Get("starting_after"), q.Get("ending_before")
	if o.StartingAfter != "" && o.EndingBefore != "" {
		return o, &ParamError{"ending_before", "starting_after and ending_before cannot be used together."}
	}
	return o, nil
}

// metadataQuery reads the metadata filters, metadata[key]=value as Stripe writes them: at most
// tcsv1.MaxMetadataKeys keys (more could match no transcript), each named once, as
// tcsv1.ValidMetadataKey says, with values of at most tcsv1.MaxMetadataValueBytes bytes.
func metadataQuery(q url.Values) (map[string]string, error) {
	var out map[string]string
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if name != "metadata" && !strings.HasPrefix(name, "metadata[") {
			continue
		}
		param := apiview.Clip(name)
		key, ok := strings.CutSuffix(strings.TrimPrefix(name, "metadata["), "]")
		if !ok || !tcsv1.ValidMetadataKey(key) {
			return nil, &ParamError{param, fmt.Sprintf("%s is not a metadata filter: write metadata[key]=value, with a key of 1 to %d bytes of letters, digits, _, . and -.",
				apiview.Quote(name), tcsv1.MaxMetadataKeyBytes)}
		}
		values := q[name]
		switch {
		case len(values) > 1:
			return nil, &ParamError{param, fmt.Sprintf("%s is given %d times; a key is filtered on one value.", param, len(values))}
		case len(values[0]) > tcsv1.MaxMetadataValueBytes:
			return nil, &ParamError{param, fmt.Sprintf("%s is longer than %d bytes.", param, tcsv1.MaxMetadataValueBytes)}
		case len(out) == tcsv1.MaxMetadataKeys:
			return nil, &ParamError{"metadata", fmt.Sprintf("More than %d metadata filters; a transcript has at most %d keys.", tcsv1.MaxMetadataKeys, tcsv1.MaxMetadataKeys)}
		}
		if out == nil {
			out = map[string]string{}
		}
		out[key] = values[0]
	}
	return out, nil
}

// timeQuery reads a time given as Unix seconds or RFC 3339.
func timeQuery(q url.Values, name string) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, &ParamError{name, fmt.Sprintf("%s must be Unix seconds or an RFC 3339 time.", name)}
	}
	return t, nil
}

// newerFirst orders transcripts newest first; the name breaks ties so that pages are stable.
func newerFirst(a, b *tcsv1.Transcript) bool {
	if ac, bc := a.Created(), b.Created(); !ac.Equal(&bc) {
		return ac.After(bc.Time)
	}
	return a.Name > b.Name
}

// List returns the page of org's transcripts that o selects, newest first, and whether there
// are more: those in the cluster and the archived ones. A cursor that is not a transcript of
// org is a *ParamError naming it.
func (s *Service) List(ctx context.Context, org string, o ListOptions) ([]*tcsv1.Transcript, bool, error) {
	if err := CheckOrg(org); err != nil {
		return nil, false, err
	}
	if s.Listing != nil {
		s.Listing(ctx, org)
	}
	var list tcsv1.TranscriptList
	// The objects are only read: skip the cache's deep copy, which dominates a large list.
	if err := s.Cache.List(ctx, &list, client.InNamespace(s.Namespace), client.MatchingFields{IndexOrganization: org}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, false, fmt.Errorf("listing transcripts: %w", err)
	}
	// The cursor is a transcript of the organization; it need not match the filters.
	var cursor *tcsv1.Transcript
	param, before := "starting_after", o.EndingBefore != ""
	if before {
		param = "ending_before"
	}
	if id := o.StartingAfter + o.EndingBefore; id != "" {
		c, _, err := s.Get(ctx, org, id)
		if err != nil {
			return nil, false, &ParamError{param, fmt.Sprintf("%s %s is not a transcript of this organization.", param, apiview.Quote(id))}
		}
		cursor = c
	}
	page, hasMore := selectPage(list.Items, o.listFilter, o.Limit, cursor, before)
	archived, archivedMore, err := s.archivedPage(ctx, org, o.listFilter, o.Limit, cursor, before)
	if err != nil {
		return nil, false, fmt.Errorf("listing archived transcripts: %w", err)
	}
	page, hasMore = mergePages(page, archived, hasMore, archivedMore, o.Limit, before)
	return page, hasMore, nil
}

// selectPage returns, newest first, the page of at most limit transcripts of items that match f:
// the newest ones, or with a cursor the ones right after it (older), or with before the ones
// right before it (newer). It keeps only limit+1 candidates, so a page of a large organization
// costs one pass over its transcripts rather than a sort of all of them.
func selectPage(items []tcsv1.Transcript, f listFilter, limit int, cursor *tcsv1.Transcript, before bool) ([]*tcsv1.Transcript, bool) {
	// best orders candidates so that the ones to keep come first: newest first, or, before a
	// cursor, closest to it (oldest) first.
	best := newerFirst
	if before {
		best = func(a, b *tcsv1.Transcript) bool { return newerFirst(b, a) }
	}
	h := &pageHeap{worse: func(a, b *tcsv1.Transcript) bool { return best(b, a) }}
	for i := range items {
		t := &items[i]
		if !f.match(t) {
			continue
		}
		if cursor != nil {
			if before && !newerFirst(t, cursor) || !before && !newerFirst(cursor, t) {
				continue
			}
		}
		if h.Len() <= limit {
			heap.Push(h, t)
		} else if best(t, h.items[0]) {
			h.items[0] = t
			heap.Fix(h, 0)
		}
	}
	page := h.items
	sort.Slice(page, func(i, j int) bool { return best(page[i], page[j]) })
	hasMore := len(page) > limit
	page = page[:min(limit, len(page))]
	if before {
		slices.Reverse(page)
	}
	return page, hasMore
}

// pageHeap is a heap whose root is the worst candidate kept.
type pageHeap struct {
	items []*tcsv1.Transcript
	worse func(a, b *tcsv1.Transcript) bool
}

func (h *pageHeap) Len() int           { return len(h.items) }
func (h *pageHeap) Less(i, j int) bool { return h.worse(h.items[i], h.items[j]) }
func (h *pageHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *pageHeap) Push(x any)         { h.items = append(h.items, x.(*tcsv1.Transcript)) }
func (h *pageHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// archivedPage returns the page of org's archived transcripts that f, limit and the cursor
// select, leaving out those that also are resources in the cluster (in the moment between the
// archiver's write and its delete, or brought back for an AI pass): the resource is the truth.
func (s *Service) archivedPage(ctx context.Context, org string, f listFilter, limit int, cursor *tcsv1.Transcript, before bool) ([]*tcsv1.Transcript, bool, error) {
	if s.Results == nil {
		return nil, false, nil
	}
	opts := results.ListOptions{Status: f.status, SourceType: f.sourceType, CreatedGTE: f.createdFrom, CreatedLTE: f.createdTo, Metadata: f.metadata, NeedsReview: f.needsReview}
	if cursor != nil {
		c := &results.Cursor{ID: cursor.Spec.ID, CreatedAt: cursor.Created().Truncate(time.Second)}
		if before {
			opts.EndingBefore = c
		} else {
			opts.StartingAfter = c
		}
	}
	for extra := 0; ; {
		opts.Limit = limit + extra
		page, err := s.Results.List(ctx, org, opts)
		if err != nil {
			return nil, false, err
		}
		out := make([]*tcsv1.Transcript, 0, len(page.Records))
		for _, rec := range page.Records {
			live := &tcsv1.Transcript{}
			err := s.Cache.Get(ctx, types.NamespacedName{Namespace: s.Namespace, Name: tcsv1.TranscriptName(rec.ID)}, live)
			switch {
			case err == nil:
				continue
			case !apierrors.IsNotFound(err):
				return nil, false, fmt.Errorf("reading transcript %s: %w", rec.ID, err)
			}
			out = append(out, rec.Transcript)
		}
		if len(out) >= limit || !page.HasMore {
			return out, page.HasMore || len(out) > limit, nil
		}
		extra += limit - len(out) + 1
	}
}

// mergePages merges two pages in list order (newest first) into one of at most limit
// transcripts; hasMore tells whether either page had more, or the merge left some out.
func mergePages(a, b []*tcsv1.Transcript, aMore, bMore bool, limit int, before bool) ([]*tcsv1.Transcript, bool) {
	out := make([]*tcsv1.Transcript, 0, min(limit+1, len(a)+len(b)))
	// A transcript archived after a was read from the cache and before b was read is in both:
	// the resource in a is the truth.
	live := make(map[string]bool, len(a))
	for _, t := range a {
		live[t.Spec.ID] = true
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j < len(b) && live[b[j].Spec.ID] {
			j++
			continue
		}
		if j >= len(b) || i < len(a) && newerFirst(a[i], b[j]) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	hasMore := aMore || bMore || len(out) > limit
	if len(out) > limit {
		if before {
			// The page right before the cursor is the oldest of the newer ones.
			out = out[len(out)-limit:]
		} else {
			out = out[:limit]
		}
	}
	return out, hasMore
}
