package controllers

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
)

// TestWebhookRefusesAtSendWhatTheURLPolicyRefuses shows that a delivery checks its endpoint's
// URL with the whole outbound policy when it is sent, not only the scheme: an endpoint written
// around the API's validation (or before the allow-list changed) fails at once, without a
// request and without retries.
func TestWebhookRefusesAtSendWhatTheURLPolicyRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  func(receiverURL string) string
		want string
	}{
		{"a private address outside the allow-list", func(string) string { return "https://10.1.2.3/hook" }, "the address 10.1.2.3 is private/reserved"},
		{"an address in a non-standard form", func(string) string { return "https://2130706433/hook" }, "non-standard form"},
		{"credentials in the URL", func(u string) string { return strings.Replace(u, "https://", "https://user:pass@", 1) + "/hook" }, "credentials"},
		{"plain http to a public name", func(string) string { return "http://hooks.example.com/hook" }, "use https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := iwebhook.NewSecret()
			rc := newReceiver(t, secret)
			// The spec's retry schedule: a refusal that were retried would stay pending.
			h, _ := startWebhooks(t, rc, hookOptions{})
			h.endpoint(t, "org_a", tc.url(rc.srv.URL), secret, tcsv1.EventTranscriptCreated)
			tr := h.transcript(t, "org_a")
			h.pending(t, tr)
			ds := h.waitDeliveries(t, tr.Spec.ID, "failed", allIn(1, tcsv1.DeliveryFailed))
			if a := ds[0].Status.Attempts; len(a) != 1 || a[0].StatusCode != 0 || !strings.Contains(a[0].Error, tc.want) {
				t.Fatalf("attempts %+v, want one refused with %q", a, tc.want)
			}
			if n := len(rc.requests()); n != 0 {
				t.Fatalf("the receiver got %d requests", n)
			}
		})
	}
}

// TestWebhookAttemptErrorsNameNoAddress shows that what a failed attempt records, which every
// member of the organization reads on the dashboard, names at most the endpoint's host: never
// the address its name resolved to, so that endpoint URLs cannot probe the cluster's names.
func TestWebhookAttemptErrorsNameNoAddress(t *testing.T) {
	// A port nobody listens on: localhost resolves to 127.0.0.1 (allowed in tests), which
	// refuses the connection, and perhaps to ::1, which the outbound policy refuses.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()

	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{time.Millisecond}})
	h.endpoint(t, "org_a", "https://localhost:"+port+"/hook", secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "failed", allIn(1, tcsv1.DeliveryFailed))
	for _, a := range ds[0].Status.Attempts {
		if a.Error == "" {
			t.Fatalf("attempt %+v has no error", a)
		}
		for _, internal := range []string{"127.0.0.1", "::1", "dial", "tcp"} {
			if strings.Contains(a.Error, internal) {
				t.Errorf("attempt error %q carries %q", a.Error, internal)
			}
		}
		if !strings.Contains(a.Error, "the host localhost ") {
			t.Errorf("attempt error %q does not say which host failed", a.Error)
		}
	}
}
