package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/pipeline"
)

// listView is the API's list object.
type listView[T any] struct {
	Object  string `json:"object"`
	Data    []T    `json:"data"`
	HasMore bool   `json:"has_more"`
	URL     string `json:"url"`
}

// changeView is a change object of the API.
type changeView struct {
	Object string `json:"object"`
	pipeline.Change
	Applied bool `json:"applied"`
}

// listChanges is GET /api/v1/transcripts/{id}/changes: the transcript's changes in text order,
// paginated by limit and starting_after or ending_before (change ids).
func (s *Server) listChanges(w http.ResponseWriter, r *http.Request) {
	limit, aerr := intQuery(r, "limit", 10, 1, 100)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	after, before := r.URL.Query().Get("starting_after"), r.URL.Query().Get("ending_before")
	if after != "" && before != "" {
		writeError(w, r, invalid("ending_before", "starting_after and ending_before cannot be used together."))
		return
	}
	t, ok := s.ownedTranscript(w, r)
	if !ok {
		return
	}
	var changes []pipeline.Change
	if ref := t.Status.ChangesRef; ref != "" {
		raw, err := s.processor.Content(r.Context(), ref)
		if err != nil && !errors.Is(err, blob.ErrNotFound) {
			s.serverError(w, r, fmt.Errorf("reading the changes of %s: %w", t.Spec.ID, err))
			return
		}
		if err == nil {
			if err := json.Unmarshal(raw, &changes); err != nil {
				s.serverError(w, r, fmt.Errorf("decoding the changes of %s: %w", t.Spec.ID, err))
				return
			}
		}
	}
	page, hasMore, aerr := paginate(changes, limit, after, before, func(c pipeline.Change) string { return c.ID })
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	out := listView[changeView]{Object: "list", Data: make([]changeView, 0, len(page)), HasMore: hasMore,
		URL: "/api/v1/transcripts/" + t.Spec.ID + "/changes"}
	for _, c := range page {
		out.Data = append(out.Data, changeView{Object: "change", Change: c, Applied: c.IsApplied()})
	}
	writeJSON(w, http.StatusOK, out)
}

// paginate cuts one page of at most limit items out of items, after the item with id after or
// before the item with id before; an unknown cursor is a 400 naming it.
func paginate[T any](items []T, limit int, after, before string, id func(T) string) ([]T, bool, *apiError) {
	find := func(cursor, param string) (int, *apiError) {
		for i, it := range items {
			if id(it) == cursor {
				return i, nil
			}
		}
		return 0, invalid(param, fmt.Sprintf("%s %q is not an item of this list.", param, cursor))
	}
	switch {
	case after != "":
		i, aerr := find(after, "starting_after")
		if aerr != nil {
			return nil, false, aerr
		}
		rest := items[i+1:]
		if len(rest) > limit {
			return rest[:limit], true, nil
		}
		return rest, false, nil
	case before != "":
		i, aerr := find(before, "ending_before")
		if aerr != nil {
			return nil, false, aerr
		}
		head := items[:i]
		if len(head) > limit {
			return head[len(head)-limit:], true, nil
		}
		return head, false, nil
	default:
		if len(items) > limit {
			return items[:limit], true, nil
		}
		return items, false, nil
	}
}
