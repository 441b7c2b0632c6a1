package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/text/pipeline"
)

// decisionMembers are the members a decision object accepts.
var decisionMembers = []string{"change_id", "action", "replacement", "start", "end", "category"}

// createDecisions is POST /api/v1/transcripts/{id}/decisions: it records a batch of review
// decisions ({"decisions": [...], "review_version": n}, or If-Match: "r<n>") and answers with
// the transcript and its reviewed content.
func (s *Server) createDecisions(w http.ResponseWriter, r *http.Request) error {
	ctx, id := r.Context(), mux.Vars(r)["id"]
	ifMatch, aerr := ifMatchVersion(r)
	if aerr != nil {
		return aerr
	}
	obj, aerr := readJSONObject(w, r)
	if aerr != nil {
		return aerr
	}
	batch, version, aerr := parseDecisions(obj)
	if aerr != nil {
		return aerr
	}
	switch {
	case version == nil:
		version = ifMatch
	case ifMatch != nil && *ifMatch != *version:
		return invalid("review_version", fmt.Sprintf("review_version %d and If-Match %q name different versions; send one of them.", *version, reviewETag(*ifMatch)))
	}
	p := principalFrom(ctx)
	t, err := s.transcripts.Decide(ctx, p.OrganizationID, id, transcripts.Batch{Decisions: batch, By: p.KeyID}, version)
	if err != nil {
		return decideError(id, err)
	}
	s.effected(ctx, t.Spec.ID)
	return s.respondTranscript(w, r, t, http.StatusOK)
}

// decideError is the API's answer to a failed Decide of transcript id.
func decideError(id string, err error) error {
	var (
		de       *pipeline.DecisionError
		moved    *transcripts.ReviewMovedError
		conflict *transcripts.ConflictError
	)
	switch {
	case errors.As(err, &de):
		return invalid(de.Param, de.Message)
	case errors.As(err, &moved):
		return &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: "review_version", Message: moved.Error()}
	case errors.As(err, &conflict):
		return &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: conflict.Param, Message: conflict.Message}
	}
	return lookupError(id, err)
}

// parseDecisions validates the body of POST /transcripts/{id}/decisions: the decisions and the
// optional review_version.
func parseDecisions(obj map[string]json.RawMessage) ([]pipeline.Decision, *int64, *apiError) {
	if aerr := members(obj, "", "decisions", "review_version"); aerr != nil {
		return nil, nil, aerr
	}
	var version *int64
	if raw, ok := obj["review_version"]; ok && !isNull(raw) {
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil || v < 0 {
			return nil, nil, invalid("review_version", "review_version must be an integer of 0 or more: the version of the review your decisions are based on (0 before any decision).")
		}
		version = &v
	}
	raw, ok := obj["decisions"]
	if !ok || isNull(raw) {
		return nil, nil, invalid("decisions", "decisions is required: an array of decisions (accept, reject, replace, add).")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, nil, invalid("decisions", "decisions must be an array of decision objects.")
	}
	switch {
	case len(items) == 0:
		return nil, nil, invalid("decisions", "decisions is empty; send at least one decision.")
	case len(items) > pipeline.MaxDecisionsPerCall:
		return nil, nil, invalid("decisions", fmt.Sprintf("decisions: %d decisions were sent; at most %d are taken in one call.", len(items), pipeline.MaxDecisionsPerCall))
	}
	out := make([]pipeline.Decision, len(items))
	for i, item := range items {
		d, aerr := parseDecision(item, fmt.Sprintf("decisions[%d]", i))
		if aerr != nil {
			return nil, nil, aerr
		}
		out[i] = d
	}
	return out, version, nil
}

// parseDecision decodes one decision object, named param in errors; what its members mean is
// checked when it is applied (pipeline.Decide).
func parseDecision(raw json.RawMessage, param string) (pipeline.Decision, *apiError) {
	var d pipeline.Decision
	obj, aerr := objectParam(raw, param)
	if aerr != nil {
		return d, aerr
	}
	if aerr := members(obj, param+".", decisionMembers...); aerr != nil {
		return d, aerr
	}
	str := func(name string, into *string) *apiError {
		raw, ok := obj[name]
		if !ok || isNull(raw) {
			return nil
		}
		v, aerr := stringParam(raw, param+"."+name)
		*into = v
		return aerr
	}
	integer := func(name string, into *int) *apiError {
		raw, ok := obj[name]
		if !ok || isNull(raw) {
			return nil
		}
		if err := json.Unmarshal(raw, into); err != nil || *into < 0 {
			return invalid(param+"."+name, fmt.Sprintf("%s.%s must be an integer of 0 or more: a byte offset into the submitted document.", param, name))
		}
		return nil
	}
	for _, err := range []*apiError{str("change_id", &d.ChangeID), str("action", &d.Action), str("replacement", &d.Replacement),
		str("category", &d.Category), integer("start", &d.Start), integer("end", &d.End)} {
		if err != nil {
			return d, err
		}
	}
	if d.Action == pipeline.ActionAdd {
		if _, ok := obj["start"]; !ok {
			return d, invalid(param+".start", param+".start: an add needs the span it covers; start is required.")
		}
		if _, ok := obj["end"]; !ok {
			return d, invalid(param+".end", param+".end: an add needs the span it covers; end is required.")
		}
	}
	return d, nil
}

// reviewETag is the entity tag of review version v: "r<v>".
func reviewETag(v int64) string {
	return `"r` + strconv.FormatInt(v, 10) + `"`
}

// ifMatchVersion reads the review version of an If-Match header ("r2", or W/"r2"); nil when
// none was sent.
func ifMatchVersion(r *http.Request) (*int64, *apiError) {
	values := r.Header.Values("If-Match")
	if len(values) == 0 {
		return nil, nil
	}
	bad := invalid("If-Match", `If-Match must be one entity tag of the transcript's review, as its ETag gives it: "r<version>", such as "r2".`)
	if len(values) != 1 {
		return nil, bad
	}
	tag := strings.TrimPrefix(strings.TrimSpace(values[0]), "W/")
	if len(tag) < 4 || !strings.HasPrefix(tag, `"r`) || !strings.HasSuffix(tag, `"`) {
		return nil, bad
	}
	v, err := strconv.ParseInt(tag[2:len(tag)-1], 10, 64)
	if err != nil || v < 0 || tag[2] == '+' {
		return nil, bad
	}
	return &v, nil
}

// setReviewETag sends the entity tag of t's review version.
func setReviewETag(w http.ResponseWriter, t *tcsv1.Transcript) {
	w.Header().Set("ETag", reviewETag(t.ReviewVersion()))
}
