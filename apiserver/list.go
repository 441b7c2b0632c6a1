package apiserver

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/aipass"
	"tcs.dev/tcs/internal/apiview"
	"tcs.dev/tcs/internal/transcripts"
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
			if t, err = s.transcripts.Unarchive(r.Context(), principalFrom(r.Context()).OrganizationID, t, s.clock.Now()); err != nil {
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
		rec, err = s.transcripts.Archived(r.Context(), principalFrom(r.Context()).OrganizationID, t.Spec.ID)
		if err != nil || rec == nil {
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
