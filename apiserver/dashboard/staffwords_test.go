package dashboard

import (
	"strings"
	"testing"
	"time"

	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/platform/results"
)

// TestTheAuditTrailAndTheRolesAreInStaffWords renders the audit trail with an entry and the
// members page: the entry is a sentence with its action's name in the technical details
// (TestNoInternalWordsOnStaffPages fails for the name seen outside them), and the invitation
// form says what each role may do.
func TestTheAuditTrailAndTheRolesAreInStaffWords(t *testing.T) {
	s := startStaffEnv(t)
	if err := s.d.o.Audit.PutAudit(t.Context(), &results.AuditEntry{ID: "aud_0001", Organization: s.org, Time: s.now.Add(-time.Hour), Actor: s.owner,
		Action: string(audit.APIKeyCreated), Message: s.owner + ` created API key ` + s.key.ID + ` ("website plugin")`}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/audit", []string{`<span class="audit-says">` + s.owner + " created the API key “website plugin”.</span>", "Action <code>APIKeyCreated</code>", "Mon 23 Nov, 19:30"}},
		{"/members", []string{"<strong>member</strong>: adds, reviews and downloads transcripts", "<strong>admin</strong>: what a member does", "<strong>owner</strong>: what an admin does"}},
	} {
		page := s.get(t, s.session, tc.path).Body.String()
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s does not say %q", tc.path, w)
			}
		}
	}
}
