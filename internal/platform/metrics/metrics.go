// Package metrics holds the Prometheus collectors of tcs's own metrics and the small helpers
// that record them. A nil *Metrics records nothing, so that code paths built without metrics
// (tests, the offline CLI) need no special case.
package metrics

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Namespace prefixes every metric name.
const Namespace = "tcs"

// Label values of bounded sets, shared by the recorders and the series initialized at zero.
const (
	// OutcomeCompleted and OutcomeFailed end a transcript or an AI pass.
	OutcomeCompleted = "completed"
	OutcomeFailed    = "failed"

	// Webhook delivery outcomes: one per attempt (succeeded, retry, failed) or per delivery
	// ended without an attempt (skipped, canceled).
	DeliverySucceeded = "succeeded"
	DeliveryRetry     = "retry"
	DeliveryFailed    = "failed"
	DeliverySkipped   = "skipped"
	DeliveryCanceled  = "canceled"

	// RouteUnmatched is the route label of requests no route matched.
	RouteUnmatched = "unmatched"
)

// sources are the transcript source types and classes the rate-limit classes: the label
// values whose series start at zero.
var (
	sources = [...]string{"paste", "youtube", "url", "upload"}
	classes = [...]string{"create", "read", "sync"}
)

// maxAttemptLabel is the highest attempt number with its own label value; later attempts
// share "6+" (the spec's schedule makes six attempts per round).
const maxAttemptLabel = 6

// Metrics holds the collectors of tcs; create it once per process with New.
type Metrics struct {
	apiRequests        *prometheus.CounterVec
	apiRequestDuration *prometheus.HistogramVec
	transcriptsCreated *prometheus.CounterVec
	transcriptsEnded   *prometheus.CounterVec
	timeToComplete     *prometheus.HistogramVec
	correctionDuration *prometheus.HistogramVec
	correctionBytes    *prometheus.HistogramVec
	webhookDeliveries  *prometheus.CounterVec
	webhookDuration    *prometheus.HistogramVec
	aiPasses           *prometheus.CounterVec
	aiProviderErrors   *prometheus.CounterVec
	rateLimited        *prometheus.CounterVec
}

// New creates the collectors and registers them on reg (controller-runtime's
// metrics.Registry in the service). A collector reg already holds, from an earlier New in the
// same process, is reused rather than refused.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		apiRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "api", Name: "requests_total",
			Help: "REST API requests answered, by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		apiRequestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "api", Name: "request_duration_seconds",
			Help: "Time to answer a REST API request, by route template and method; synchronous waits included.",
			// Up to the longest synchronous wait (60 s).
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 90},
		}, []string{"route", "method"}),
		transcriptsCreated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "transcripts_created_total",
			Help: "Transcripts created through the API, by source type.",
		}, []string{"source"}),
		transcriptsEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "transcripts_ended_total",
			Help: "Transcripts that reached a final phase, by source type and outcome (completed, failed).",
		}, []string{"source", "outcome"}),
		timeToComplete: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "transcript_completion_duration_seconds",
			Help:    "Time from a transcript's creation to its completion, by source type.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800},
		}, []string{"source"}),
		correctionDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "correction", Name: "duration_seconds",
			Help:    "Time of one deterministic correction pass, by document format.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"format"}),
		correctionBytes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "correction", Name: "input_bytes",
			Help:    "Size of the documents corrected by the deterministic pass, by document format; the sum is the bytes corrected.",
			Buckets: prometheus.ExponentialBuckets(1024, 4, 8), // 1 KiB to 16 MiB
		}, []string{"format"}),
		webhookDeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "webhook", Name: "deliveries_total",
			Help: "Webhook delivery steps, by outcome (succeeded, retry, failed per attempt; skipped, canceled without one) and attempt number within the round (1 to 5, 6+; 0 without an attempt).",
		}, []string{"outcome", "attempt"}),
		webhookDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "webhook", Name: "attempt_duration_seconds",
			Help:    "Time of one webhook delivery attempt, by whether it succeeded.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"outcome"}),
		aiPasses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "ai", Name: "passes_total",
			Help: "AI validation passes that ended, by provider and outcome (completed, failed).",
		}, []string{"provider", "outcome"}),
		aiProviderErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "ai", Name: "provider_errors_total",
			Help: "AI passes that failed because their provider failed or timed out, by provider.",
		}, []string{"provider"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "api", Name: "rate_limited_requests_total",
			Help: "API requests refused with 429 by a rate limit, by class (create, read, sync).",
		}, []string{"class"}),
	}
	var errs []error
	m.apiRequests = register(reg, m.apiRequests, &errs)
	m.apiRequestDuration = register(reg, m.apiRequestDuration, &errs)
	m.transcriptsCreated = register(reg, m.transcriptsCreated, &errs)
	m.transcriptsEnded = register(reg, m.transcriptsEnded, &errs)
	m.timeToComplete = register(reg, m.timeToComplete, &errs)
	m.correctionDuration = register(reg, m.correctionDuration, &errs)
	m.correctionBytes = register(reg, m.correctionBytes, &errs)
	m.webhookDeliveries = register(reg, m.webhookDeliveries, &errs)
	m.webhookDuration = register(reg, m.webhookDuration, &errs)
	m.aiPasses = register(reg, m.aiPasses, &errs)
	m.aiProviderErrors = register(reg, m.aiProviderErrors, &errs)
	m.rateLimited = register(reg, m.rateLimited, &errs)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	m.initialize()
	return m, nil
}

// register registers c on reg, or returns the equal collector reg already has.
func register[C prometheus.Collector](reg prometheus.Registerer, c C, errs *[]error) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	*errs = append(*errs, err)
	return c
}

// initialize creates the series of known label values at zero, so that rates and alerts see
// them before their first event.
func (m *Metrics) initialize() {
	for _, s := range sources {
		m.transcriptsCreated.WithLabelValues(s)
		m.transcriptsEnded.WithLabelValues(s, OutcomeCompleted)
		m.transcriptsEnded.WithLabelValues(s, OutcomeFailed)
	}
	for _, c := range classes {
		m.rateLimited.WithLabelValues(c)
	}
	m.webhookDeliveries.WithLabelValues(DeliverySucceeded, "1")
	m.webhookDeliveries.WithLabelValues(DeliveryFailed, "1")
}

// MethodOther is the method label of every request whose method is not a standard one.
const MethodOther = "other"

// MethodLabel returns the method label of a request with method: the method when it is one
// of RFC 9110's (and PATCH), MethodOther otherwise. A client may send any token as the
// method; were each a label value, it could create time series without bound.
func MethodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return MethodOther
}

// APIRequest records one answered API request; route is the mux route template, and method
// is recorded as MethodLabel gives it.
func (m *Metrics) APIRequest(route, method string, code int, d time.Duration) {
	if m == nil {
		return
	}
	method = MethodLabel(method)
	m.apiRequests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.apiRequestDuration.WithLabelValues(route, method).Observe(d.Seconds())
}

// TranscriptCreated records a transcript created through the API.
func (m *Metrics) TranscriptCreated(source string) {
	if m == nil {
		return
	}
	m.transcriptsCreated.WithLabelValues(source).Inc()
}

// TranscriptEnded records a transcript that reached its final phase; outcome is
// OutcomeCompleted or OutcomeFailed, and sinceCreated, for a completed one, the time from its
// creation.
func (m *Metrics) TranscriptEnded(source, outcome string, sinceCreated time.Duration) {
	if m == nil {
		return
	}
	m.transcriptsEnded.WithLabelValues(source, outcome).Inc()
	if outcome == OutcomeCompleted {
		m.timeToComplete.WithLabelValues(source).Observe(max(sinceCreated, 0).Seconds())
	}
}

// Correction records one deterministic pass over bytes of a document of format.
func (m *Metrics) Correction(format string, bytes int, d time.Duration) {
	if m == nil {
		return
	}
	m.correctionDuration.WithLabelValues(format).Observe(d.Seconds())
	m.correctionBytes.WithLabelValues(format).Observe(float64(bytes))
}

// WebhookAttempt records one delivery attempt, the attempt-th of its round, with its outcome
// (DeliverySucceeded, DeliveryRetry or DeliveryFailed) and duration.
func (m *Metrics) WebhookAttempt(outcome string, attempt int, d time.Duration) {
	if m == nil {
		return
	}
	m.webhookDeliveries.WithLabelValues(outcome, AttemptLabel(attempt)).Inc()
	result := "success"
	if outcome != DeliverySucceeded {
		result = "error"
	}
	m.webhookDuration.WithLabelValues(result).Observe(d.Seconds())
}

// WebhookEnded records a delivery ended without an attempt (DeliverySkipped or
// DeliveryCanceled).
func (m *Metrics) WebhookEnded(outcome string) {
	if m == nil {
		return
	}
	m.webhookDeliveries.WithLabelValues(outcome, "0").Inc()
}

// AttemptLabel is the attempt label value of the n-th attempt of a round.
func AttemptLabel(n int) string {
	if n >= maxAttemptLabel {
		return strconv.Itoa(maxAttemptLabel) + "+"
	}
	return strconv.Itoa(max(n, 0))
}

// AIPass records an AI pass that ended with outcome (OutcomeCompleted or OutcomeFailed);
// providerError says it failed because of its provider.
func (m *Metrics) AIPass(provider, outcome string, providerError bool) {
	if m == nil {
		return
	}
	m.aiPasses.WithLabelValues(provider, outcome).Inc()
	if providerError {
		m.aiProviderErrors.WithLabelValues(provider).Inc()
	}
}

// RateLimited records a request refused by the rate limit of class.
func (m *Metrics) RateLimited(class string) {
	if m == nil {
		return
	}
	m.rateLimited.WithLabelValues(class).Inc()
}

// Value returns the value of the series of metric name whose labels include labels, as g
// gathers it: a counter's or gauge's value, or a histogram's sample count; ok is false when
// there is no such series. Tests and checks read the metrics with it.
func Value(g prometheus.Gatherer, name string, labels map[string]string) (v float64, ok bool, err error) {
	mfs, err := g.Gather()
	if err != nil {
		return 0, false, err
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for k, want := range labels {
				if have[k] != want {
					continue series
				}
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true, nil
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true, nil
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount()), true, nil
			}
		}
	}
	return 0, false, nil
}

// Family describes one metric family of tcs.
type Family struct {
	// Name is the family's name; a histogram's series add _bucket, _sum and _count to it.
	Name string
	// Type is counter or histogram.
	Type string
	// Labels are the family's label names, le (a histogram's bucket) aside.
	Labels []string
	// Help says what it counts.
	Help string
}

// Families lists the metric families of tcs, by name, for documentation and its checks.
func Families() ([]Family, error) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		return nil, err
	}
	// A family shows once it has a series.
	m.APIRequest(RouteUnmatched, "GET", 404, 0)
	m.TranscriptEnded(sources[0], OutcomeCompleted, 0)
	m.Correction("txt", 0, 0)
	m.WebhookAttempt(DeliverySucceeded, 1, 0)
	m.AIPass("rules", OutcomeFailed, true)
	mfs, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	out := make([]Family, 0, len(mfs))
	for _, mf := range mfs {
		f := Family{Name: mf.GetName(), Type: strings.ToLower(mf.GetType().String()), Help: mf.GetHelp()}
		for _, lp := range mf.GetMetric()[0].GetLabel() {
			f.Labels = append(f.Labels, lp.GetName())
		}
		out = append(out, f)
	}
	return out, nil
}
