package apiserver

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"tcs.dev/tcs/internal/domain/transcripts"
)

// deleteTranscript is DELETE /api/v1/transcripts/{id}: a soft delete. The transcript reads as
// 404 and leaves lists at once; its content is purged after the retention window.
func (s *Server) deleteTranscript(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["id"]
	t, err := s.transcripts.Delete(r.Context(), principalFrom(r.Context()).OrganizationID, id, s.metaNow())
	switch {
	case errors.Is(err, transcripts.ErrDeleted):
		return &apiError{Status: http.StatusNotFound, Type: ErrNotFound, Param: "id", Message: fmt.Sprintf("No such transcript: %q.", t.Spec.ID)}
	case err != nil:
		return lookupError(id, err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": t.Spec.ID, "object": "transcript", "deleted": true})
	return nil
}
