package apiserver

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"tcs.dev/tcs/internal/domain/transcripts"
)

// triggerAIPass is POST /api/v1/transcripts/{id}/ai_pass: it queues an AI validation pass,
// which runs once the deterministic pass is done. The optional body {"apply": bool} overrides
// the transcript's options.ai_pass.apply for this pass. An archived transcript is brought back
// into the cluster for the pass, and archived again afterwards.
func (s *Server) triggerAIPass(w http.ResponseWriter, r *http.Request) error {
	obj, aerr := readOptionalJSONObject(w, r)
	if aerr != nil {
		return aerr
	}
	if aerr := members(obj, "", "apply"); aerr != nil {
		return aerr
	}
	ctx, id := r.Context(), mux.Vars(r)["id"]
	var apply *bool
	if raw, ok := obj["apply"]; ok && !isNull(raw) {
		b, aerr := boolParam(raw, "apply")
		if aerr != nil {
			// A transcript the caller cannot see is the answer before its body.
			if _, _, lerr := s.lookup(ctx, id); lerr != nil {
				return lerr
			}
			return aerr
		}
		apply = &b
	}
	t, err := s.transcripts.TriggerAIPass(ctx, principalFrom(ctx).OrganizationID, id, transcripts.AIPassRequest{
		Apply: apply, Record: requestRecord(ctx), Provider: s.aiProvider, Now: s.metaNow()})
	var conflict *transcripts.ConflictError
	switch {
	case errors.As(err, &conflict):
		return &apiError{Status: http.StatusConflict, Type: ErrConflict, Message: conflict.Message}
	case err != nil:
		return lookupError(id, err)
	}
	s.effected(ctx, t.Spec.ID)
	return s.respondTranscript(w, r, t, http.StatusAccepted)
}
