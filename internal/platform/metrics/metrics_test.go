package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNamesPassPromLint(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	// Every collector gets a series, so that the linter sees every metric.
	m.APIRequest("/api/v1/me", "GET", 200, time.Millisecond)
	m.TranscriptEnded("paste", OutcomeCompleted, time.Second)
	m.Correction("txt", 100, time.Millisecond)
	m.WebhookAttempt(DeliveryRetry, 2, time.Millisecond)
	m.AIPass("rules", OutcomeFailed, true)
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 12 {
		t.Errorf("%d metric families, want 12", len(mfs))
	}
	for _, mf := range mfs {
		if !strings.HasPrefix(mf.GetName(), "tcs_") {
			t.Errorf("%s lacks the tcs_ prefix", mf.GetName())
		}
	}
}

func TestRecorders(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.RateLimited("read")
	m.RateLimited("read")
	m.WebhookAttempt(DeliveryRetry, 1, time.Millisecond)
	m.WebhookAttempt(DeliveryFailed, 9, time.Millisecond)
	m.WebhookEnded(DeliverySkipped)
	m.TranscriptEnded("url", OutcomeFailed, time.Second)
	want := `
# HELP tcs_api_rate_limited_requests_total API requests refused with 429 by a rate limit, by class (create, read, sync).
# TYPE tcs_api_rate_limited_requests_total counter
tcs_api_rate_limited_requests_total{class="create"} 0
tcs_api_rate_limited_requests_total{class="read"} 2
tcs_api_rate_limited_requests_total{class="sync"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tcs_api_rate_limited_requests_total"); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		outcome, attempt string
		want             float64
	}{
		{DeliveryRetry, "1", 1}, {DeliveryFailed, "6+", 1}, {DeliverySkipped, "0", 1}, {DeliverySucceeded, "1", 0},
	} {
		if got := testutil.ToFloat64(m.webhookDeliveries.WithLabelValues(c.outcome, c.attempt)); got != c.want {
			t.Errorf("deliveries{%s,%s} = %v, want %v", c.outcome, c.attempt, got, c.want)
		}
	}
	if got := testutil.ToFloat64(m.transcriptsEnded.WithLabelValues("url", OutcomeFailed)); got != 1 {
		t.Errorf("ended{url,failed} = %v", got)
	}
	// A failed transcript has no completion time.
	if n := testutil.CollectAndCount(m.timeToComplete); n != 0 {
		t.Errorf("completion duration has %d series", n)
	}
}

func TestNewTwiceOnOneRegistryShares(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(reg)
	if err != nil {
		t.Fatalf("second New: %v", err)
	}
	a.TranscriptCreated("paste")
	b.TranscriptCreated("paste")
	if got := testutil.ToFloat64(a.transcriptsCreated.WithLabelValues("paste")); got != 2 {
		t.Errorf("created{paste} = %v, want 2 from both", got)
	}
}

func TestNilRecordsNothing(t *testing.T) {
	var m *Metrics
	m.APIRequest("/", "GET", 200, 0)
	m.TranscriptCreated("paste")
	m.TranscriptEnded("paste", OutcomeCompleted, 0)
	m.Correction("txt", 1, 0)
	m.WebhookAttempt(DeliverySucceeded, 1, 0)
	m.WebhookEnded(DeliveryCanceled)
	m.AIPass("rules", OutcomeCompleted, false)
	m.RateLimited("create")
}

func TestAttemptLabel(t *testing.T) {
	for n, want := range map[int]string{0: "0", 1: "1", 5: "5", 6: "6+", 40: "6+"} {
		if got := AttemptLabel(n); got != want {
			t.Errorf("AttemptLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRequestMethodsOutsideTheStandardOnesShareOneLabel(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		m.APIRequest("/api/v1/me", fmt.Sprintf("M%d", i), 405, time.Millisecond)
	}
	m.APIRequest("/api/v1/me", strings.Repeat("X", 20<<10), 405, time.Millisecond)
	for _, method := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		m.APIRequest("/api/v1/me", method, 200, time.Millisecond)
	}
	if n := testutil.CollectAndCount(m.apiRequests); n != 8 {
		t.Fatalf("%d series of tcs_api_requests_total, want 8 (7 methods and %q)", n, MethodOther)
	}
	if got := testutil.ToFloat64(m.apiRequests.WithLabelValues("/api/v1/me", MethodOther, "405")); got != 501 {
		t.Fatalf("%v requests counted as %q, want 501", got, MethodOther)
	}
}
