package apiserver

import (
	"container/heap"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/aipass"
	"tcs.dev/tcs/internal/apiview"
	"tcs.dev/tcs/internal/results"
)

// IndexTranscriptOrganization is the cache index of transcripts by their organization id.
const IndexTranscriptOrganization = "tcs.dev/transcript-organization"

// TranscriptOrganizationIndex extracts the index value of IndexTranscriptOrganization.
func TranscriptOrganizationIndex(obj client.Object) []string {
	if t, ok := obj.(*tcsv1.Transcript); ok && t.Spec.Organization != "" {
		return []string{t.Spec.Organization}
	}
	return nil
}

// listFilter is what GET /transcripts selects on.
type listFilter struct {
	status      tcsv1.Phase
	sourceType  tcsv1.SourceType
	createdFrom time.Time
	createdTo   time.Time
}

func (f listFilter) match(t *tcsv1.Transcript) bool {
	switch {
	case t.Status.DeletedAt != nil, t.Status.Phase == "" && t.Spec.Source.Type == tcsv1.SourceUpload:
		return false
	case f.status != "" && t.Status.Phase != f.status:
		return false
	case f.sourceType != "" && t.Spec.Source.Type != f.sourceType:
		return false
	case !f.createdFrom.IsZero() && t.Created().Time.Before(f.createdFrom):
		return false
	case !f.createdTo.IsZero() && t.Created().Time.After(f.createdTo):
		return false
	}
	return true
}

// timeQuery reads a time given as Unix seconds or RFC 3339.
func timeQuery(r *http.Request, name string) (time.Time, *apiError) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, invalid(name, fmt.Sprintf("%s must be Unix seconds or an RFC 3339 time.", name))
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

// listTranscripts is GET /api/v1/transcripts: the organization's transcripts, newest first.
// parseListQuery reads the query of GET /transcripts: the page size, the filters and the
// cursors (starting_after, ending_before).
func parseListQuery(r *http.Request) (limit int, f listFilter, after, before string, aerr *apiError) {
	q := r.URL.Query()
	if limit, aerr = intQuery(r, "limit", 10, 1, 100); aerr != nil {
		return 0, f, "", "", aerr
	}
	if v := q.Get("status"); v != "" {
		switch p := tcsv1.Phase(v); p {
		case tcsv1.PhasePending, tcsv1.PhaseCompleted, tcsv1.PhaseFailed:
			f.status = p
		default:
			return 0, f, "", "", invalid("status", fmt.Sprintf("status %s is not one of pending, completed, failed.", quote(v)))
		}
	}
	if v := q.Get("source_type"); v != "" {
		if _, ok := createMembers[tcsv1.SourceType(v)]; !ok {
			return 0, f, "", "", invalid("source_type", fmt.Sprintf("source_type %s is not one of paste, youtube, url, upload.", quote(v)))
		}
		f.sourceType = tcsv1.SourceType(v)
	}
	if f.createdFrom, aerr = timeQuery(r, "created[gte]"); aerr != nil {
		return 0, f, "", "", aerr
	}
	if f.createdTo, aerr = timeQuery(r, "created[lte]"); aerr != nil {
		return 0, f, "", "", aerr
	}
	after, before = q.Get("starting_after"), q.Get("ending_before")
	if after != "" && before != "" {
		return 0, f, "", "", invalid("ending_before", "starting_after and ending_before cannot be used together.")
	}
	return limit, f, after, before, nil
}

func (s *Server) listTranscripts(w http.ResponseWriter, r *http.Request) {
	limit, f, after, before, aerr := parseListQuery(r)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}

	ctx := r.Context()
	org := principalFrom(ctx).OrganizationID
	var list tcsv1.TranscriptList
	// The objects are only read: skip the cache's deep copy, which dominates a large list.
	if err := s.cache.List(ctx, &list, client.InNamespace(s.namespace), client.MatchingFields{IndexTranscriptOrganization: org}, client.UnsafeDisableDeepCopy); err != nil {
		s.serverError(w, r, fmt.Errorf("listing transcripts: %w", err))
		return
	}
	// The cursor is a transcript of the organization; it need not match the filters.
	var cursor *tcsv1.Transcript
	param := "starting_after"
	if before != "" {
		param = "ending_before"
	}
	if id := after + before; id != "" {
		c, aerr := s.lookupTranscript(ctx, id)
		if aerr != nil {
			writeError(w, r, invalid(param, fmt.Sprintf("%s %s is not a transcript of this organization.", param, quote(id))))
			return
		}
		cursor = c
	}
	page, hasMore := selectPage(list.Items, f, limit, cursor, before != "")
	archived, archivedMore, err := s.archivedPage(ctx, org, f, limit, cursor, before != "")
	if err != nil {
		s.serverError(w, r, fmt.Errorf("listing archived transcripts: %w", err))
		return
	}
	page, hasMore = mergePages(page, archived, hasMore, archivedMore, limit, before != "")
	out := listView[apiview.Transcript]{Object: "list", Data: make([]apiview.Transcript, 0, len(page)), HasMore: hasMore, URL: "/api/v1/transcripts"}
	for _, t := range page {
		// Lists carry no content: fetch a transcript for its text.
		out.Data = append(out.Data, apiview.NewTranscript(t, nil))
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteTranscript is DELETE /api/v1/transcripts/{id}: a soft delete. The transcript reads as
// 404 and leaves lists at once; its content is purged after the retention window.
func (s *Server) deleteTranscript(w http.ResponseWriter, r *http.Request) {
	t, archived, ok := s.ownedTranscriptOrRecord(w, r)
	if !ok {
		return
	}
	var already bool
	var err error
	if !archived {
		err = s.updateStatus(r.Context(), t, func(t *tcsv1.Transcript) bool {
			if t.Status.DeletedAt != nil {
				already = true
				return false
			}
			now := s.metaNow()
			t.Status.DeletedAt = &now
			return true
		})
		// Archived since it was read: its record takes the delete.
		archived = apierrors.IsNotFound(err) && s.results != nil
	}
	if archived {
		var changed bool
		changed, err = s.results.SoftDelete(r.Context(), t.Spec.ID, s.clock.Now())
		already = !changed || errors.Is(err, results.ErrNotFound)
		if errors.Is(err, results.ErrNotFound) {
			err = nil
		}
	}
	switch {
	case err != nil:
		s.serverError(w, r, fmt.Errorf("deleting transcript %s: %w", t.Spec.ID, err))
		return
	case already:
		writeError(w, r, &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: "id", Message: fmt.Sprintf("No such transcript: %q.", t.Spec.ID)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": t.Spec.ID, "object": "transcript", "deleted": true})
}

// triggerAIPass is POST /api/v1/transcripts/{id}/ai_pass: it queues an AI validation pass,
// which runs once the deterministic pass is done. The optional body {"apply": bool} overrides
// the transcript's options.ai_pass.apply for this pass. An archived transcript is brought back
// into the cluster for the pass, and archived again afterwards.
func (s *Server) triggerAIPass(w http.ResponseWriter, r *http.Request) {
	obj, aerr := readOptionalJSONObject(w, r)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	if aerr := members(obj, "", "apply"); aerr != nil {
		writeError(w, r, aerr)
		return
	}
	t, archived, ok := s.ownedTranscriptOrRecord(w, r)
	if !ok {
		return
	}
	apply := t.Spec.Options.AIPass.Apply
	if raw, ok := obj["apply"]; ok && !isNull(raw) {
		if apply, aerr = boolParam(raw, "apply"); aerr != nil {
			writeError(w, r, aerr)
			return
		}
	}
	// decide tells whether t needs the pass queued, or the answer when it does not.
	decide := func(t *tcsv1.Transcript) (bool, *apiError) {
		switch {
		case ownJob(r.Context(), t) != nil:
			// An earlier run of this request queued the pass; it is the answer.
			return false, nil
		case t.AIPassBusy():
			return false, &apiError{Status: http.StatusConflict, Type: ErrConflict,
				Message: fmt.Sprintf("An AI pass of this transcript is already %s; wait for it to end.", t.Status.AIPassStatus)}
		case t.Status.Phase == tcsv1.PhaseFailed:
			return false, &apiError{Status: http.StatusConflict, Type: ErrConflict,
				Message: "The transcript failed; there is no corrected content for an AI pass to validate."}
		case s.repeatsLastPass(t, apply):
			last := t.Status.AIPass
			return false, &apiError{Status: http.StatusConflict, Type: ErrConflict,
				Message: fmt.Sprintf("The AI pass of this transcript already completed with the %s provider (%s) and apply %t; it gives the same verdicts for the same text every time, so it is not run again. Ask with a different \"apply\" to change what it writes.",
					last.Provider, last.Model, last.Apply)}
		case t.Status.DeletedAt != nil:
			return false, &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: "id", Message: fmt.Sprintf("No such transcript: %q.", t.Spec.ID)}
		}
		return true, nil
	}
	var err error
	for attempt := 0; ; attempt++ {
		if archived {
			var queue bool
			if queue, aerr = decide(t); aerr != nil || !queue {
				break
			}
			if t, err = s.unarchive(r.Context(), t); err != nil {
				break
			}
		}
		err = s.updateStatus(r.Context(), t, func(t *tcsv1.Transcript) bool {
			var queue bool
			queue, aerr = decide(t)
			if !queue {
				return false
			}
			if job := t.QueueAIPass(apply, s.metaNow()); job != nil {
				job.IdempotencyRecord = requestRecord(r.Context())
			}
			return true
		})
		if !apierrors.IsNotFound(err) || s.results == nil || attempt > 0 {
			break
		}
		// Archived since it was read: bring it back from its record.
		var rec *tcsv1.Transcript
		if rec, aerr = s.archivedRecord(r.Context(), t.Spec.ID); aerr != nil || rec == nil {
			break
		}
		t, archived, err = rec, true, nil
	}
	switch {
	case aerr != nil:
		s.writeAPIError(w, r, aerr)
	case err != nil:
		s.serverError(w, r, fmt.Errorf("queueing the AI pass of %s: %w", t.Spec.ID, err))
	default:
		s.effected(r.Context(), t.Spec.ID)
		s.respondTranscript(w, r, t, http.StatusAccepted)
	}
}

// repeatsLastPass reports whether a pass of t with apply would repeat its last completed pass:
// same settings, and a provider that answers the same text the same way every time.
func (s *Server) repeatsLastPass(t *tcsv1.Transcript, apply bool) bool {
	last := t.Status.AIPass
	p := s.aiProvider
	return p != nil && aipass.Repeatable(p) && t.Status.AIPassStatus == tcsv1.AIPassCompleted && last != nil &&
		last.Provider == p.Name() && last.Model == p.Model() && last.Apply == apply
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
