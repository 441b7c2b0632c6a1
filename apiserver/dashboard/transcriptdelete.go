package dashboard

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// deleteTranscript deletes a transcript of the organization as the API's DELETE does (a soft
// delete: it leaves the lists at once, its content is purged after the retention window), once
// its page's confirmation is sent.
func (d *Dashboard) deleteTranscript(w http.ResponseWriter, r *http.Request, v *view) {
	id := mux.Vars(r)["id"]
	t, err := d.o.Transcripts.Delete(r.Context(), v.Org.OrganizationID, id, metav1.NewTime(d.o.Clock.Now()))
	if errors.Is(err, transcripts.ErrDeleted) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.readErr(w, r, v, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.TranscriptDeleted, "%s deleted transcript %s (%q)", v.Session.Email, t.Spec.ID, displayName(t))
	d.redirect(w, r, v, "/transcripts", "The transcript is deleted.")
}
