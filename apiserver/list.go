package apiserver

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// IndexTranscriptOrganization is the cache index of transcripts by their organization id.
const IndexTranscriptOrganization = transcripts.IndexOrganization

// TranscriptOrganizationIndex extracts the index value of IndexTranscriptOrganization.
func TranscriptOrganizationIndex(obj client.Object) []string {
	return transcripts.OrganizationIndex(obj)
}

// parseListQuery reads the query of GET /transcripts (the transcripts service's list query):
// the page size, the filters and the cursors (starting_after, ending_before).
func parseListQuery(r *http.Request) (limit int, o transcripts.ListOptions, after, before string, aerr *apiError) {
	o, err := transcripts.ParseListQuery(r.URL.Query())
	if err != nil {
		return 0, o, "", "", paramError(err)
	}
	return o.Limit, o, o.StartingAfter, o.EndingBefore, nil
}

// paramError is the API's 400 of a *transcripts.ParamError, or a server error of another.
func paramError(err error) *apiError {
	var pe *transcripts.ParamError
	if errors.As(err, &pe) {
		return invalid(pe.Param, pe.Message)
	}
	return serverError(err)
}

// listTranscripts is GET /api/v1/transcripts: the organization's transcripts, newest first.
func (s *Server) listTranscripts(w http.ResponseWriter, r *http.Request) {
	_, o, _, _, aerr := parseListQuery(r)
	if aerr != nil {
		writeError(w, r, aerr)
		return
	}
	page, hasMore, err := s.transcripts.List(r.Context(), principalFrom(r.Context()).OrganizationID, o)
	if err != nil {
		s.writeAPIError(w, r, paramError(err))
		return
	}
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
	id := mux.Vars(r)["id"]
	t, err := s.transcripts.Delete(r.Context(), principalFrom(r.Context()).OrganizationID, id, s.metaNow())
	switch {
	case errors.Is(err, transcripts.ErrDeleted):
		writeError(w, r, &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: "id", Message: fmt.Sprintf("No such transcript: %q.", t.Spec.ID)})
		return
	case err != nil:
		s.writeAPIError(w, r, lookupError(id, err))
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
	ctx, id := r.Context(), mux.Vars(r)["id"]
	var apply *bool
	if raw, ok := obj["apply"]; ok && !isNull(raw) {
		b, aerr := boolParam(raw, "apply")
		if aerr != nil {
			// A transcript the caller cannot see is the answer before its body.
			if _, _, lerr := s.lookup(ctx, id); lerr != nil {
				s.writeAPIError(w, r, lerr)
				return
			}
			writeError(w, r, aerr)
			return
		}
		apply = &b
	}
	t, err := s.transcripts.TriggerAIPass(ctx, principalFrom(ctx).OrganizationID, id, transcripts.AIPassRequest{
		Apply: apply, Record: requestRecord(ctx), Provider: s.aiProvider, Now: s.metaNow()})
	var conflict *transcripts.ConflictError
	switch {
	case errors.As(err, &conflict):
		writeError(w, r, &apiError{Status: http.StatusConflict, Type: ErrConflict, Message: conflict.Message})
	case err != nil:
		s.writeAPIError(w, r, lookupError(id, err))
	default:
		s.effected(ctx, t.Spec.ID)
		s.respondTranscript(w, r, t, http.StatusAccepted)
	}
}
