package apiserver

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// changeView is a change object of the API.
type changeView struct {
	Object string `json:"object"`
	pipeline.Change
	Applied  bool          `json:"applied"`
	Decision *decisionView `json:"decision"`
}

// decisionView is the latest review decision on a change, as the change list shows it.
type decisionView struct {
	Action      string `json:"action"`
	Replacement string `json:"replacement,omitempty"`
	By          string `json:"by"`
	At          string `json:"at"`
}

// newChangeView renders c.
func newChangeView(c pipeline.Change) changeView {
	v := changeView{Object: "change", Change: c, Applied: c.IsApplied()}
	if d := c.Decision; d != nil {
		v.Decision = &decisionView{Action: d.Action, Replacement: d.Replacement, By: d.By, At: apiview.Timestamp(metav1.NewTime(d.At))}
	}
	return v
}

// listChanges is GET /api/v1/transcripts/{id}/changes: the transcript's changes in text order,
// paginated by limit and starting_after or ending_before (change ids).
func (s *Server) listChanges(w http.ResponseWriter, r *http.Request) error {
	limit, aerr := intQuery(r, "limit", 10, 1, 100)
	if aerr != nil {
		return aerr
	}
	after, before := r.URL.Query().Get("starting_after"), r.URL.Query().Get("ending_before")
	if after != "" && before != "" {
		return invalid("ending_before", "starting_after and ending_before cannot be used together.")
	}
	keep, aerr := changeFilter(r)
	if aerr != nil {
		return aerr
	}
	id := mux.Vars(r)["id"]
	t, changes, err := s.transcripts.Changes(r.Context(), principalFrom(r.Context()).OrganizationID, id)
	if err != nil {
		return lookupError(id, err)
	}
	changes = slices.DeleteFunc(changes, func(c pipeline.Change) bool { return !keep(&c) })
	page, hasMore, aerr := paginate(changes, limit, after, before, func(c pipeline.Change) string { return c.ID })
	if aerr != nil {
		return aerr
	}
	out := listView[changeView]{Object: "list", Data: make([]changeView, 0, len(page)), HasMore: hasMore,
		URL: "/api/v1/transcripts/" + t.Spec.ID + "/changes"}
	for _, c := range page {
		out.Data = append(out.Data, newChangeView(c))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// changeFilter returns the filter of the change list's query: category, status (auto_applied,
// needs_review), ai_verdict (confirmed, rejected, uncertain; "flagged" for the latter two) and
// applied and decided (true, false). An unknown value is a 400 naming its parameter.
func changeFilter(r *http.Request) (func(*pipeline.Change) bool, *apiError) {
	q := r.URL.Query()
	category, status, verdict := q.Get("category"), q.Get("status"), q.Get("ai_verdict")
	switch status {
	case "", string(correction.StatusAutoApplied), string(correction.StatusNeedsReview):
	default:
		return nil, invalid("status", "status must be auto_applied or needs_review.")
	}
	switch verdict {
	case "", "flagged", string(aipass.Confirmed), string(aipass.Rejected), string(aipass.Uncertain):
	default:
		return nil, invalid("ai_verdict", "ai_verdict must be confirmed, rejected, uncertain or flagged.")
	}
	var applied *bool
	if q.Get("applied") != "" {
		b, aerr := boolQuery(r, "applied")
		if aerr != nil {
			return nil, aerr
		}
		applied = &b
	}
	var decided *bool
	if q.Get("decided") != "" {
		b, aerr := boolQuery(r, "decided")
		if aerr != nil {
			return nil, aerr
		}
		decided = &b
	}
	return func(c *pipeline.Change) bool {
		switch {
		case category != "" && c.Category != category,
			status != "" && string(c.Status) != status,
			verdict == "flagged" && c.AIVerdict != aipass.Rejected && c.AIVerdict != aipass.Uncertain,
			verdict != "" && verdict != "flagged" && string(c.AIVerdict) != verdict,
			applied != nil && c.IsApplied() != *applied,
			decided != nil && (c.Decision != nil) != *decided:
			return false
		}
		return true
	}, nil
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
		return 0, invalid(param, fmt.Sprintf("%s %s is not an item of this list.", param, quote(cursor)))
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
