package apiserver

import (
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
)

// getJob is GET /api/v1/jobs/{id}.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request) error {
	jobID := mux.Vars(r)["id"]
	t, j, err := s.transcripts.Job(r.Context(), principalFrom(r.Context()).OrganizationID, jobID)
	if err != nil {
		return scopedError(err, "id", fmt.Sprintf("No such job: %s.", quote(jobID)),
			fmt.Sprintf("This API key does not have access to job %s.", quote(jobID)))
	}
	if j.State == tcsv1.JobQueued || j.State == tcsv1.JobRunning {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, http.StatusOK, apiview.NewJob(t, j))
	return nil
}
