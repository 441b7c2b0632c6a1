package controllers

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// runObserved runs the transcript and AI-pass reconcilers on ns with their Event recorders
// and metrics on a registry of the test's own.
func runObserved(t *testing.T, ns string, store *blob.Store, provider aipass.Provider) (*prometheus.Registry, func()) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	mgr := env.NewManager(t, ns)
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	processor := pipeline.New(engine, store)
	processor.ObserveCorrections(m.Correction)
	outbound := sources.NewClient(sources.ClientOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	tr := &TranscriptReconciler{
		Client: mgr.GetClient(), Processor: processor, Store: store,
		Sources:    &sources.Fetcher{YouTube: &sources.YouTube{BaseURL: "http://127.0.0.1:9", Client: outbound}, Client: outbound},
		AdoptAfter: 50 * time.Millisecond, MaxAttempts: 2,
		Recorder: mgr.GetEventRecorder(recorder.Transcript), Metrics: m,
	}
	if err := tr.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ai := &AIPassReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Processor: processor, Provider: provider,
		Recorder: mgr.GetEventRecorder(recorder.AIPass), Metrics: m,
	}
	if err := ai.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return reg, testenv.Run(t, mgr)
}

// waitEvents polls the events.k8s.io Events about obj until every reason of want is among
// them, and returns them.
func waitEvents(t *testing.T, c client.Client, obj client.Object, want ...string) []eventsv1.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		list := &eventsv1.EventList{}
		if err := c.List(t.Context(), list, client.InNamespace(obj.GetNamespace())); err != nil {
			t.Fatal(err)
		}
		var got []eventsv1.Event
		reasons := map[string]bool{}
		for _, e := range list.Items {
			if e.Regarding.Name == obj.GetName() && e.Regarding.UID == obj.GetUID() {
				got = append(got, e)
				reasons[e.Reason] = true
			}
		}
		missing := false
		for _, r := range want {
			missing = missing || !reasons[r]
		}
		if !missing {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("events about %s: %v, want reasons %v", obj.GetName(), reasonsOf(got), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func reasonsOf(es []eventsv1.Event) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Reason+": "+e.Note)
	}
	return out
}

// eventOf returns the Event of es with reason, failing t when there is none.
func eventOf(t *testing.T, es []eventsv1.Event, reason string) eventsv1.Event {
	t.Helper()
	for _, e := range es {
		if e.Reason == reason {
			return e
		}
	}
	t.Fatalf("no %s event among %v", reason, reasonsOf(es))
	return eventsv1.Event{}
}

// wantMetric fails t unless the series name{labels} has value want within 5 s (a reconciler
// records it just after the status write a test waits for).
func wantMetric(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string, want float64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, ok, err := metrics.Value(reg, name, labels)
		if err != nil {
			t.Fatal(err)
		}
		if ok && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s%v = %v (present %v), want %v", name, labels, got, ok, want)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestEventsAndMetricsOfTranscriptsAndAIPasses(t *testing.T) {
	c, store, ns := aiNamespace(t)
	reg, stop := runObserved(t, ns, store, aipass.NewRules())
	t.Cleanup(stop)

	// A paste with the AI pass: corrected, then reviewed.
	paste := pasteWithAIPass(t, c, store, ns, aiSermon, false)
	got := eventually(t, c, paste, "AI pass ended", aiDone)
	if got.Status.AIPassStatus != tcsv1.AIPassCompleted {
		t.Fatalf("status %+v", got.Status)
	}
	es := waitEvents(t, c, got, recorder.ReasonCorrected, recorder.ReasonAIPassStarted, recorder.ReasonAIPassCompleted)
	s, p := got.Status.ChangesSummary, got.Status.AIPass
	for reason, note := range map[string]string{
		recorder.ReasonCorrected:       "Corrected the txt transcript: " + strconv.Itoa(s.Total) + " changes, " + strconv.Itoa(s.AutoApplied) + " applied, " + strconv.Itoa(s.NeedsReview) + " to review.",
		recorder.ReasonAIPassStarted:   "The AI validation pass started with provider rules (model " + p.Model + ").",
		recorder.ReasonAIPassCompleted: "The AI validation pass completed: " + strconv.Itoa(p.Confirmed) + " confirmed, " + strconv.Itoa(p.Rejected) + " rejected, " + strconv.Itoa(p.Uncertain) + " uncertain, " + strconv.Itoa(p.Proposed) + " proposed.",
	} {
		e := eventOf(t, es, reason)
		if e.Note != note || e.Type != corev1.EventTypeNormal || e.ReportingController != recorder.Transcript && e.ReportingController != recorder.AIPass {
			t.Errorf("%s event: %s %q by %s, want %q", reason, e.Type, e.Note, e.ReportingController, note)
		}
	}

	// A url that cannot be fetched: retried, then failed.
	closed := httptest.NewServer(nil)
	closed.Close()
	remote := newTranscript(ns, "org_a", tcsv1.SourceURL)
	remote.Spec.Source.URL, remote.Spec.Source.Format = closed.URL+"/a.txt", "txt"
	if err := c.Create(t.Context(), remote); err != nil {
		t.Fatal(err)
	}
	failed := eventually(t, c, remote, "failed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseFailed })
	es = waitEvents(t, c, failed, recorder.ReasonFetchFailed, recorder.ReasonFailed)
	if e := eventOf(t, es, recorder.ReasonFetchFailed); e.Type != corev1.EventTypeWarning || !strings.HasPrefix(e.Note, "The url_fetch job failed (attempt 1 of 2) and is retried in 2s: ") {
		t.Errorf("FetchFailed: %s %q", e.Type, e.Note)
	}
	if e := eventOf(t, es, recorder.ReasonFailed); e.Type != corev1.EventTypeWarning || !strings.HasPrefix(e.Note, "The transcript failed (server_error): The url_fetch job failed 2 times") {
		t.Errorf("Failed: %s %q", e.Type, e.Note)
	}

	wantMetric(t, reg, "tcs_transcripts_ended_total", map[string]string{"source": "paste", "outcome": "completed"}, 1)
	wantMetric(t, reg, "tcs_transcripts_ended_total", map[string]string{"source": "url", "outcome": "failed"}, 1)
	wantMetric(t, reg, "tcs_transcripts_ended_total", map[string]string{"source": "url", "outcome": "completed"}, 0)
	wantMetric(t, reg, "tcs_transcript_completion_duration_seconds", map[string]string{"source": "paste"}, 1)
	wantMetric(t, reg, "tcs_correction_duration_seconds", map[string]string{"format": "txt"}, 1)
	wantMetric(t, reg, "tcs_ai_passes_total", map[string]string{"provider": "rules", "outcome": "completed"}, 1)
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}

// brokenProvider fails every review, as a provider that is down does.
type brokenProvider struct{}

func (brokenProvider) Name() string  { return "openai" }
func (brokenProvider) Model() string { return "down" }
func (brokenProvider) Review(context.Context, aipass.Request) (*aipass.Review, error) {
	return nil, errors.New("the model is overloaded")
}

func TestEventsAndMetricsOfAFailedAIPass(t *testing.T) {
	c, store, ns := aiNamespace(t)
	reg, stop := runObserved(t, ns, store, brokenProvider{})
	t.Cleanup(stop)
	tr := pasteWithAIPass(t, c, store, ns, aiSermon, false)
	got := eventually(t, c, tr, "AI pass ended", aiDone)
	if got.Status.AIPassStatus != tcsv1.AIPassFailed {
		t.Fatalf("status %+v", got.Status)
	}
	es := waitEvents(t, c, got, recorder.ReasonAIPassStarted, recorder.ReasonAIPassFailed)
	if e := eventOf(t, es, recorder.ReasonAIPassFailed); e.Type != corev1.EventTypeWarning || !strings.HasPrefix(e.Note, "The AI validation pass failed (server_error): ") {
		t.Errorf("AIPassFailed: %s %q", e.Type, e.Note)
	}
	wantMetric(t, reg, "tcs_ai_passes_total", map[string]string{"provider": "openai", "outcome": "failed"}, 1)
	wantMetric(t, reg, "tcs_ai_provider_errors_total", map[string]string{"provider": "openai"}, 1)
}

func TestEventsAndMetricsOfFailingWebhookDeliveries(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 500, 503)
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{20 * time.Millisecond}, metrics: m, events: true})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	tr = h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "failed", allIn(1, tcsv1.DeliveryFailed))

	es := waitEvents(t, h.c, &ds[0], recorder.ReasonDeliveryFailing, recorder.ReasonDeliveryFailed)
	if e := eventOf(t, es, recorder.ReasonDeliveryFailing); e.Type != corev1.EventTypeWarning ||
		!strings.HasPrefix(e.Note, "Delivering the transcript.created event to endpoint "+ds[0].Spec.Endpoint+" failed (attempt 1): the endpoint answered 500 Internal Server Error; retrying at ") {
		t.Errorf("DeliveryFailing: %s %q", e.Type, e.Note)
	}
	want := "Gave up delivering the transcript.created event to endpoint " + ds[0].Spec.Endpoint + " after 2 attempts: the endpoint answered 503 Service Unavailable."
	if e := eventOf(t, es, recorder.ReasonDeliveryFailed); e.Note != want {
		t.Errorf("DeliveryFailed: %q, want %q", e.Note, want)
	}
	// kubectl describe transcript shows them too, with the delivery as the related object.
	es = waitEvents(t, h.c, tr, recorder.ReasonDeliveryFailing, recorder.ReasonDeliveryFailed)
	if e := eventOf(t, es, recorder.ReasonDeliveryFailed); e.Note != want || e.Related == nil || e.Related.Name != ds[0].Name {
		t.Errorf("DeliveryFailed on the transcript: %q related %+v", e.Note, e.Related)
	}

	wantMetric(t, reg, "tcs_webhook_deliveries_total", map[string]string{"outcome": "retry", "attempt": "1"}, 1)
	wantMetric(t, reg, "tcs_webhook_deliveries_total", map[string]string{"outcome": "failed", "attempt": "2"}, 1)
	wantMetric(t, reg, "tcs_webhook_deliveries_total", map[string]string{"outcome": "succeeded", "attempt": "1"}, 0)
	wantMetric(t, reg, "tcs_webhook_attempt_duration_seconds", map[string]string{"outcome": "error"}, 2)
}

func TestMetricsOfWebhookDeliveriesSkipped(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{metrics: m})
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	ep.Spec.Paused = true
	if err := h.c.Update(t.Context(), ep); err != nil {
		t.Fatal(err)
	}
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	h.waitDeliveries(t, tr.Spec.ID, "skipped", allIn(1, tcsv1.DeliverySkipped))
	wantMetric(t, reg, "tcs_webhook_deliveries_total", map[string]string{"outcome": "skipped", "attempt": "0"}, 1)
}
