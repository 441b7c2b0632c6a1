package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/limits"
)

// Webhook test events and replays of one organization are limited per minute; past the limit
// the dashboard answers 429 with Retry-After, and another organization is not affected.
func TestWebhookTestsAndReplaysAreRateLimited(t *testing.T) {
	d, err := New(Options{PublicURL: "https://tcs.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	send := func(org string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "https://tcs.example.org/dashboard/o/"+org+"/deliveries/evt_1/replay", nil)
		if d.allowWebhookSend(rec, r, &view{Org: &accounts.Membership{OrganizationID: org}}) {
			rec.WriteHeader(http.StatusSeeOther)
		}
		return rec
	}
	for i := range limits.WebhookSendsPerMinute {
		if rec := send("org_a"); rec.Code != http.StatusSeeOther {
			t.Fatalf("send %d: %d", i+1, rec.Code)
		}
	}
	rec := send("org_a")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("send %d: %d, Retry-After %q; want 429 with Retry-After", limits.WebhookSendsPerMinute+1, rec.Code, rec.Header().Get("Retry-After"))
	}
	if !strings.Contains(rec.Body.String(), "retry in") {
		t.Fatalf("the 429 page does not say when to retry: %s", rec.Body)
	}
	if rec := send("org_b"); rec.Code != http.StatusSeeOther {
		t.Fatalf("another organization's send: %d", rec.Code)
	}
}
