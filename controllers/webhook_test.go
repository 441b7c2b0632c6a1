package controllers

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/ids"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
	"tcs.dev/tcs/pkg/webhook"
)

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	status int
	start  time.Time
	end    time.Time
}

// receiver is an HTTPS webhook endpoint on 127.0.0.1 that verifies signatures and answers
// with scripted status codes (200 once the script is used up).
type receiver struct {
	srv *httptest.Server

	mu     sync.Mutex
	secret string
	codes  []int
	delay  time.Duration
	got    []received
	badSig int
	// respond, when set, answers a verified request in place of the status code alone.
	respond func(w http.ResponseWriter, code int)
}

func newReceiver(t testing.TB, secret string, codes ...int) *receiver {
	t.Helper()
	rc := &receiver{secret: secret, codes: codes}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rc.mu.Lock()
	secret, delay := rc.secret, rc.delay
	rc.mu.Unlock()
	time.Sleep(delay)
	body, err := webhook.VerifyRequest(r, secret, 5*time.Minute)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil {
		rc.badSig++
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	code := http.StatusOK
	if len(rc.codes) > 0 {
		code, rc.codes = rc.codes[0], rc.codes[1:]
	}
	rc.got = append(rc.got, received{header: r.Header.Clone(), body: body, status: code, start: start, end: time.Now()})
	if code == http.StatusFound {
		w.Header().Set("Location", rc.srv.URL+"/elsewhere")
	}
	if rc.respond != nil {
		rc.respond(w, code)
		return
	}
	w.WriteHeader(code)
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

func (rc *receiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = s
}

// hookOptions customizes the webhook controllers of a test.
type hookOptions struct {
	delays    []time.Duration
	retention time.Duration
	// metrics and events, when set, record the deliveries' metrics and Events.
	metrics *metrics.Metrics
	events  bool
	// results and archiveAfter, when set, archive ended deliveries to the results store.
	results      *results.Store
	archiveAfter time.Duration
	// inline makes the dispatcher send first attempts itself (WebhookDispatchReconciler.Inline),
	// with dispatchWorkers and inlineSends when set.
	inline                       bool
	dispatchWorkers, inlineSends int
	// archive runs the archiver too (after an hour, on results), told by the dispatcher of
	// the transcripts whose deliveries it made, as the service wires them.
	archive bool
}

// hookEnv is a namespace with the webhook controllers running.
type hookEnv struct {
	c        client.Client
	store    *blob.Store
	ns       string
	roots    *x509.CertPool
	opts     hookOptions
	dispatch *WebhookDispatchReconciler
}

func startWebhooks(t testing.TB, rc *receiver, opts hookOptions) (*hookEnv, func()) {
	t.Helper()
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(rc.srv.Certificate())
	h := &hookEnv{
		c:     env.Client(t, client.Options{Scheme: scheme.New()}),
		store: store, ns: env.Namespace(t, "tcs-hooks"), roots: roots, opts: opts,
	}
	stop := h.run(t)
	t.Cleanup(stop)
	return h, stop
}

// run starts a manager with both webhook controllers; stop ends it and waits for it.
func (h *hookEnv) run(t testing.TB) (stop func()) {
	t.Helper()
	mgr := env.NewManager(t, h.ns)
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	d := &WebhookDeliveryReconciler{
		Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Store: h.store, AllowCIDRs: allow,
		HTTP:           sources.NewClient(sources.ClientOptions{AllowCIDRs: allow, RootCAs: h.roots}),
		RetryDelays:    h.opts.delays,
		Retention:      h.opts.retention,
		Results:        h.opts.results,
		ArchiveAfter:   h.opts.archiveAfter,
		BlockedRequeue: 50 * time.Millisecond,
		Metrics:        h.opts.metrics,
	}
	if h.opts.events {
		d.Recorder = mgr.GetEventRecorder(recorder.Webhook)
	}
	versions, err := NewSecretVersions(mgr, h.ns)
	if err != nil {
		t.Fatal(err)
	}
	d.SecretVersions = versions
	h.dispatch = &WebhookDispatchReconciler{Client: mgr.GetClient(), Store: h.store, Results: h.opts.results, Retention: h.opts.retention, Metrics: h.opts.metrics,
		Workers: h.opts.dispatchWorkers, InlineSends: h.opts.inlineSends}
	if h.opts.inline {
		h.dispatch.Inline = d
	}
	var archiver *ArchiveReconciler
	if h.opts.archive {
		dispatched := make(chan event.GenericEvent, 16)
		h.dispatch.Archived = dispatched
		archiver = &ArchiveReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Namespace: h.ns, Results: h.opts.results,
			Blobs: h.store, After: time.Hour, DeliveryRetention: h.opts.retention, Dispatched: dispatched}
	}
	if err := h.dispatch.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if archiver != nil {
		if err := archiver.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
	}
	if err := (&WebhookEndpointReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := d.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return testenv.Run(t, mgr)
}

// endpoint creates an endpoint of org to url with its Secret.
func (h *hookEnv) endpoint(t testing.TB, org, url, secret string, events ...string) *tcsv1.WebhookEndpoint {
	t.Helper()
	id := ids.New("we")
	name := strings.ReplaceAll(id, "_", "-")
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name + "-secret", Namespace: h.ns},
		Data: map[string][]byte{tcsv1.SecretKeyWebhookSecret: []byte(secret)}}
	if err := h.c.Create(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	ep := &tcsv1.WebhookEndpoint{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: tcsv1.WebhookEndpointSpec{ID: id, Organization: org, URL: url, Events: events, SecretName: s.Name}}
	if err := h.c.Create(t.Context(), ep); err != nil {
		t.Fatal(err)
	}
	return ep
}

// editEndpoint changes the latest spec of ep with change, retrying on conflicts: the endpoint
// controller writes its status.
func (h *hookEnv) editEndpoint(t testing.TB, ep *tcsv1.WebhookEndpoint, change func(*tcsv1.WebhookEndpoint)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := h.c.Get(t.Context(), client.ObjectKeyFromObject(ep), ep); err != nil {
			return err
		}
		change(ep)
		return h.c.Update(t.Context(), ep)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// transcript creates a paste transcript of org as the API server does.
func (h *hookEnv) transcript(t *testing.T, org string) *tcsv1.Transcript {
	t.Helper()
	tr := newTranscript(h.ns, org, tcsv1.SourcePaste)
	if err := h.c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// setStatus changes the status of tr with change, retrying on conflicts, and returns the
// transcript as stored.
func (h *hookEnv) setStatus(t *testing.T, tr *tcsv1.Transcript, change func(*tcsv1.Transcript)) *tcsv1.Transcript {
	t.Helper()
	got := &tcsv1.Transcript{}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := h.c.Get(t.Context(), client.ObjectKeyFromObject(tr), got); err != nil {
			return err
		}
		change(got)
		return h.c.Status().Update(t.Context(), got)
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// pending moves tr to pending, emitting transcript.created.
func (h *hookEnv) pending(t *testing.T, tr *tcsv1.Transcript) *tcsv1.Transcript {
	return h.setStatus(t, tr, func(x *tcsv1.Transcript) {
		x.Status.Phase, x.Status.AIPassStatus = tcsv1.PhasePending, tcsv1.AIPassIdle
		x.AddJob(tcsv1.JobCorrection, metav1.Now())
		x.Emit(tcsv1.EventTranscriptCreated, time.Now())
		x.SyncConditions()
	})
}

// complete stores content for tr and moves it to completed, emitting transcript.completed.
func (h *hookEnv) complete(t *testing.T, tr *tcsv1.Transcript, content string) *tcsv1.Transcript {
	keys := pipeline.KeysFor(tr.Spec.Organization, tr.Spec.ID)
	if err := h.store.Put(t.Context(), keys.Content, []byte(content), "text/plain"); err != nil {
		t.Fatal(err)
	}
	return h.setStatus(t, tr, func(x *tcsv1.Transcript) {
		now := metav1.Now()
		x.Status.Phase, x.Status.AIPassStatus = tcsv1.PhaseCompleted, tcsv1.AIPassIdle
		x.Status.Title, x.Status.Format, x.Status.ContentRef = "Sermon notes", "txt", keys.Content
		x.Status.ChangesSummary = &tcsv1.ChangesSummary{Total: 1, AutoApplied: 1, ByCategory: map[string]int{"book_name": 1}}
		x.Status.CompletedAt = &now
		if len(x.Status.Jobs) > 0 {
			x.Status.Jobs[len(x.Status.Jobs)-1].State = tcsv1.JobSucceeded
			x.Status.Jobs[len(x.Status.Jobs)-1].FinishedAt = &now
		}
		x.Emit(tcsv1.EventTranscriptCreated, time.Now())
		x.Emit(tcsv1.EventTranscriptCompleted, time.Now())
		x.SyncConditions()
	})
}

// deliveries returns the deliveries about transcript id, by sequence.
func (h *hookEnv) deliveries(t *testing.T, transcriptID string) []tcsv1.WebhookDelivery {
	t.Helper()
	list := &tcsv1.WebhookDeliveryList{}
	if err := h.c.List(t.Context(), list, client.InNamespace(h.ns)); err != nil {
		t.Fatal(err)
	}
	var out []tcsv1.WebhookDelivery
	for _, d := range list.Items {
		if d.Spec.TranscriptID == transcriptID {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b tcsv1.WebhookDelivery) int { return a.Spec.Sequence - b.Spec.Sequence })
	return out
}

// waitDeliveries polls the deliveries of transcriptID until check is true or 20 s pass.
func (h *hookEnv) waitDeliveries(t *testing.T, transcriptID, what string, check func([]tcsv1.WebhookDelivery) bool) []tcsv1.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ds := h.deliveries(t, transcriptID)
		if check(ds) {
			return ds
		}
		if time.Now().After(deadline) {
			for _, d := range ds {
				t.Logf("delivery %s %s: %+v", d.Spec.ID, d.Spec.Event, d.Status)
			}
			t.Fatalf("%s: not reached", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// allIn reports whether there are n deliveries, all in state.
func allIn(n int, state tcsv1.DeliveryState) func([]tcsv1.WebhookDelivery) bool {
	return func(ds []tcsv1.WebhookDelivery) bool {
		if len(ds) != n {
			return false
		}
		for _, d := range ds {
			if d.Status.State != state {
				return false
			}
		}
		return true
	}
}

// wantBody is the body a delivery of event about tr must have.
func wantBody(t *testing.T, tr *tcsv1.Transcript, content *string, event, id string) []byte {
	t.Helper()
	b, err := json.Marshal(iwebhook.TranscriptBody{Transcript: apiview.NewTranscript(tr, content), Event: event, DeliveryID: id})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWebhookDeliversEventsInOrderWithTheTranscriptAsBody(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	ep := h.endpoint(t, "org_a", rc.srv.URL+"/hook", secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	h.endpoint(t, "org_b", rc.srv.URL+"/other-org", secret, tcsv1.EventTranscriptCreated)
	h.endpoint(t, "org_a", rc.srv.URL+"/failed-only", secret, tcsv1.EventTranscriptFailed)

	tr := h.transcript(t, "org_a")
	atCreated := h.pending(t, tr)
	h.waitDeliveries(t, tr.Spec.ID, "created delivered", allIn(1, tcsv1.DeliverySucceeded))
	content := "Sermon notes\nread Revelation 22:20 tonight\n"
	atCompleted := h.complete(t, tr, content)
	ds := h.waitDeliveries(t, tr.Spec.ID, "both delivered", allIn(2, tcsv1.DeliverySucceeded))

	got := rc.requests()
	if len(got) != 2 {
		t.Fatalf("%d requests, want 2", len(got))
	}
	for i, want := range []struct {
		event string
		tr    *tcsv1.Transcript
		body  *string
	}{{tcsv1.EventTranscriptCreated, atCreated, nil}, {tcsv1.EventTranscriptCompleted, atCompleted, &content}} {
		d, r := ds[i], got[i]
		hash := iwebhook.DeliveryHash(tr.Spec.ID, want.event, "", ep.Spec.ID)
		if d.Spec.Event != want.event || d.Spec.Sequence != i || d.Spec.ID != "evt_"+hash || d.Name != "evt-"+hash ||
			d.Spec.Endpoint != ep.Name || d.Spec.PayloadRef != "webhooks/org_a/"+d.Spec.ID+".json" {
			t.Fatalf("delivery %d: %+v", i, d.Spec)
		}
		if len(d.Status.Attempts) != 1 || d.Status.Attempts[0].StatusCode != 200 || d.Status.Attempts[0].Error != "" || d.Status.CompletedAt == nil {
			t.Fatalf("delivery %d status %+v", i, d.Status)
		}
		if r.header.Get(webhook.HeaderEvent) != want.event || r.header.Get(webhook.HeaderDelivery) != d.Spec.ID ||
			r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("request %d headers %v", i, r.header)
		}
		if err := webhook.Verify(secret, r.header.Get(webhook.HeaderSignature), r.body); err != nil {
			t.Fatalf("request %d: plain signature: %v", i, err)
		}
		if b := wantBody(t, want.tr, want.body, want.event, d.Spec.ID); string(r.body) != string(b) {
			t.Fatalf("request %d body\n%s\nwant\n%s", i, r.body, b)
		}
	}
	var body map[string]any
	if err := json.Unmarshal(got[1].body, &body); err != nil || body["content"] != content || body["status"] != "completed" ||
		body["event"] != tcsv1.EventTranscriptCompleted || body["id"] != tr.Spec.ID {
		t.Fatalf("completed body %v, %v", body, err)
	}
}

func TestWebhookSendsOneTranscriptsEventsOneAtATime(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	rc.delay = 300 * time.Millisecond
	h, _ := startWebhooks(t, rc, hookOptions{})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	tr := h.transcript(t, "org_a")
	h.complete(t, tr, "text\n") // both events at once
	h.waitDeliveries(t, tr.Spec.ID, "both delivered", allIn(2, tcsv1.DeliverySucceeded))
	got := rc.requests()
	if len(got) != 2 || got[0].header.Get(webhook.HeaderEvent) != tcsv1.EventTranscriptCreated ||
		got[1].header.Get(webhook.HeaderEvent) != tcsv1.EventTranscriptCompleted {
		t.Fatalf("requests %d, order wrong", len(got))
	}
	if got[1].start.Before(got[0].end) {
		t.Fatalf("completed sent at %v, before created was answered at %v", got[1].start, got[0].end)
	}
}

func TestWebhookRetriesAfterA500(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 500, 200)
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "delivered", allIn(1, tcsv1.DeliverySucceeded))
	a := ds[0].Status.Attempts
	if len(a) != 2 || a[0].StatusCode != 500 || a[0].Error == "" || a[1].StatusCode != 200 || a[1].Error != "" {
		t.Fatalf("attempts %+v", a)
	}
	got := rc.requests()
	if len(got) != 2 || got[0].header.Get(webhook.HeaderDelivery) != ds[0].Spec.ID || got[1].header.Get(webhook.HeaderDelivery) != ds[0].Spec.ID ||
		string(got[0].body) != string(got[1].body) {
		t.Fatalf("requests %+v", got)
	}
}

func TestWebhookFailsAfterTheLastRetry(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 500, 503, 500, 500, 200)
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "failed", allIn(1, tcsv1.DeliveryFailed))
	a := ds[0].Status.Attempts
	if len(a) != 4 || a[1].StatusCode != 503 || ds[0].Status.CompletedAt == nil || ds[0].Status.NextAttemptAt != nil {
		t.Fatalf("status %+v", ds[0].Status)
	}
	for _, x := range a {
		if x.Error == "" || x.Time.IsZero() {
			t.Fatalf("attempt %+v", x)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if n := len(rc.requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
}

func TestWebhookCountsARedirectAsAFailure(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 302)
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{}})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "failed", allIn(1, tcsv1.DeliveryFailed))
	if a := ds[0].Status.Attempts; len(a) != 1 || a[0].StatusCode != 302 || a[0].Error == "" ||
		a[0].Response == nil || !slices.Contains(a[0].Response.Headers, tcsv1.ResponseHeader{Name: "Location", Value: rc.srv.URL + "/elsewhere"}) {
		t.Fatalf("attempts %+v", a)
	}
	if n := len(rc.requests()); n != 1 {
		t.Fatalf("%d requests: the redirect was followed", n)
	}
}

func TestWebhookKeepsABoundedStartOfEachAnswer(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 500, 200)
	rc.respond = func(w http.ResponseWriter, code int) {
		w.Header().Set("X-Request-Id", "req_"+strconv.Itoa(code))
		w.Header().Set("Set-Cookie", "session=s3cret")
		w.Header().Set("X-Api-Key", "k3y")
		if code == http.StatusOK {
			for i := range 100 {
				w.Header().Add(fmt.Sprintf("X-Extra-%03d", i), strings.Repeat("v", 1000))
			}
			w.WriteHeader(code)
			_, _ = w.Write([]byte(strings.Repeat("é", 1<<19))) // 1 MiB
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(code)
		_, _ = w.Write([]byte("<h1>database is down</h1>\xff"))
	}
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{50 * time.Millisecond}})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "delivered", allIn(1, tcsv1.DeliverySucceeded))
	a := ds[0].Status.Attempts
	if len(a) != 2 || a[0].Response == nil || a[1].Response == nil {
		t.Fatalf("attempts %+v", a)
	}
	headers := func(r *tcsv1.DeliveryResponse) map[string]string {
		m := map[string]string{}
		for _, h := range r.Headers {
			m[h.Name] = h.Value
			if len(h.Name) > tcsv1.MaxResponseHeaderNameBytes || len(h.Value) > tcsv1.MaxResponseHeaderValueBytes {
				t.Errorf("header %s of %d bytes kept", h.Name, len(h.Value))
			}
		}
		return m
	}

	failed := a[0].Response
	if failed.Body != "<h1>database is down</h1>\uFFFD" || failed.BodyTruncated || failed.HeadersTruncated {
		t.Errorf("the 500's response %+v", failed)
	}
	if m := headers(failed); m["X-Request-Id"] != "req_500" || m["Content-Type"] != "text/html; charset=utf-8" || m["Set-Cookie"] != "" || m["X-Api-Key"] != "" {
		t.Errorf("the 500's headers %v", m)
	}

	big := a[1].Response
	if len(big.Body) > tcsv1.MaxResponseBodyBytes || len(big.Body) < tcsv1.MaxResponseBodyBytes-1 || big.Body != strings.Repeat("é", len(big.Body)/2) || !big.BodyTruncated {
		t.Errorf("the 200's body of %d bytes, truncated %t", len(big.Body), big.BodyTruncated)
	}
	m := headers(big)
	if len(big.Headers) != tcsv1.MaxResponseHeaders || !big.HeadersTruncated || m["Set-Cookie"] != "" || m["X-Api-Key"] != "" ||
		m["X-Extra-000"] != strings.Repeat("v", tcsv1.MaxResponseHeaderValueBytes) {
		t.Errorf("the 200's %d headers, truncated %t: %v", len(big.Headers), big.HeadersTruncated, m)
	}
}

func TestWebhookKeepsNoResponseWithoutAnAnswer(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{}})
	closed := httptest.NewTLSServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	h.endpoint(t, "org_a", url, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "failed", allIn(1, tcsv1.DeliveryFailed))
	if a := ds[0].Status.Attempts; len(a) != 1 || a[0].StatusCode != 0 || a[0].Error == "" || a[0].Response != nil {
		t.Fatalf("attempts %+v", a)
	}
}

func TestWebhookRefusesPlainHTTPOutsideTheAllowList(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	h.endpoint(t, "org_a", "http://hooks.example.com/x", secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "failed", allIn(1, tcsv1.DeliveryFailed))
	if a := ds[0].Status.Attempts; len(a) != 1 || !strings.Contains(a[0].Error, "https") {
		t.Fatalf("attempts %+v", a)
	}
}

func TestWebhookSkipsAPausedEndpointAndReplays(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	h.editEndpoint(t, ep, func(ep *tcsv1.WebhookEndpoint) { ep.Spec.Paused = true })
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "skipped", allIn(1, tcsv1.DeliverySkipped))
	time.Sleep(200 * time.Millisecond)
	if n := len(rc.requests()); n != 0 {
		t.Fatalf("%d requests to a paused endpoint", n)
	}

	h.editEndpoint(t, ep, func(ep *tcsv1.WebhookEndpoint) { ep.Spec.Paused = false })
	replay(t, h.c, &ds[0])
	ds = h.waitDeliveries(t, tr.Spec.ID, "replayed", allIn(1, tcsv1.DeliverySucceeded))
	got := rc.requests()
	if len(got) != 1 || got[0].header.Get(webhook.HeaderDelivery) != ds[0].Spec.ID || ds[0].Status.Replays != 1 {
		t.Fatalf("requests %d, status %+v", len(got), ds[0].Status)
	}
	var body map[string]any
	if err := json.Unmarshal(got[0].body, &body); err != nil || body["delivery_id"] != ds[0].Spec.ID {
		t.Fatalf("body %s", got[0].body)
	}
}

// replay asks for a manual replay of d as the admin CLI does.
func replay(t *testing.T, c client.Client, d *tcsv1.WebhookDelivery) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(d), d); err != nil {
			return err
		}
		now := metav1.Now()
		d.Status.State, d.Status.NextAttemptAt, d.Status.ReplayedAt = tcsv1.DeliveryPending, &now, &now
		d.Status.Replays++
		return c.Status().Update(t.Context(), d)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWebhookSignsWithTheRotatedSecret(t *testing.T) {
	old := iwebhook.NewSecret()
	rc := newReceiver(t, old)
	h, _ := startWebhooks(t, rc, hookOptions{})
	ep := h.endpoint(t, "org_a", rc.srv.URL, old, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	h.waitDeliveries(t, tr.Spec.ID, "created delivered", allIn(1, tcsv1.DeliverySucceeded))

	fresh := iwebhook.NewSecret()
	s := &corev1.Secret{}
	if err := h.c.Get(t.Context(), client.ObjectKey{Namespace: h.ns, Name: ep.Spec.SecretName}, s); err != nil {
		t.Fatal(err)
	}
	s.Data = map[string][]byte{tcsv1.SecretKeyWebhookSecret: []byte(fresh), tcsv1.SecretKeyWebhookPrevious: []byte(old)}
	s.Annotations = map[string]string{tcsv1.AnnotationRotatedAt: time.Now().UTC().Format(time.RFC3339)}
	if err := h.c.Update(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	rc.setSecret(fresh)
	h.complete(t, tr, "text\n")
	h.waitDeliveries(t, tr.Spec.ID, "completed delivered", allIn(2, tcsv1.DeliverySucceeded))
	got := rc.requests()
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	r := got[1]
	if err := webhook.Verify(fresh, r.header.Get(webhook.HeaderSignature), r.body); err != nil {
		t.Fatalf("new secret: %v", err)
	}
	v1 := r.header.Get(webhook.HeaderSignatureV1)
	if strings.Count(v1, "v1=") != 2 {
		t.Fatalf("V1 header %q, want both signatures", v1)
	}
	for _, sec := range []string{fresh, old} {
		if err := webhook.VerifyTimestamped(sec, v1, r.body, time.Minute, time.Now()); err != nil {
			t.Fatalf("V1 with %s: %v", sec[:10], err)
		}
	}
	if err := webhook.Verify(old, got[0].header.Get(webhook.HeaderSignature), got[0].body); err != nil {
		t.Fatalf("the earlier delivery: %v", err)
	}
}

func TestWebhookCancelsPendingDeliveriesOfADeletedEndpoint(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 500, 500, 500)
	h, _ := startWebhooks(t, rc, hookOptions{delays: []time.Duration{time.Hour}})
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	h.waitDeliveries(t, tr.Spec.ID, "waiting for its retry", func(ds []tcsv1.WebhookDelivery) bool {
		return len(ds) == 1 && len(ds[0].Status.Attempts) == 1 && ds[0].Status.State == tcsv1.DeliveryPending
	})
	if err := h.c.Delete(t.Context(), ep); err != nil {
		t.Fatal(err)
	}
	ds := h.waitDeliveries(t, tr.Spec.ID, "canceled", allIn(1, tcsv1.DeliveryCanceled))
	if ds[0].Status.CompletedAt == nil || len(ds[0].Status.Attempts) != 1 {
		t.Fatalf("status %+v", ds[0].Status)
	}
}

func TestWebhookSurvivesARestartMidSchedule(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 500, 200)
	h, stop := startWebhooks(t, rc, hookOptions{delays: []time.Duration{2 * time.Second}})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	h.waitDeliveries(t, tr.Spec.ID, "waiting for its retry", func(ds []tcsv1.WebhookDelivery) bool {
		return len(ds) == 1 && len(ds[0].Status.Attempts) == 1 && ds[0].Status.State == tcsv1.DeliveryPending
	})
	stop()
	h.complete(t, tr, "text\n") // an event while no manager runs
	t.Cleanup(h.run(t))
	ds := h.waitDeliveries(t, tr.Spec.ID, "delivered", allIn(2, tcsv1.DeliverySucceeded))
	if len(ds[0].Status.Attempts) != 2 || len(ds[1].Status.Attempts) != 1 {
		t.Fatalf("attempts %+v / %+v", ds[0].Status.Attempts, ds[1].Status.Attempts)
	}
	succeeded := map[string]int{}
	for _, r := range rc.requests() {
		if r.status == 200 {
			succeeded[r.header.Get(webhook.HeaderDelivery)]++
		}
	}
	if len(succeeded) != 2 || succeeded[ds[0].Spec.ID] != 1 || succeeded[ds[1].Spec.ID] != 1 {
		t.Fatalf("successful requests per delivery %v", succeeded)
	}
}

func TestWebhookDispatchCreatesNothingTwice(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	tr := h.transcript(t, "org_a")
	h.complete(t, tr, "text\n")
	ds := h.waitDeliveries(t, tr.Spec.ID, "delivered", allIn(2, tcsv1.DeliverySucceeded))
	payload, err := h.store.Get(t.Context(), ds[1].Spec.PayloadRef)
	if err != nil {
		t.Fatal(err)
	}
	// A later change of the transcript must not rewrite the payload of a past event.
	h.setStatus(t, tr, func(x *tcsv1.Transcript) { x.Status.Title = "Renamed" })
	for range 3 {
		if _, err := h.dispatch.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tr)}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	again := h.deliveries(t, tr.Spec.ID)
	if len(again) != 2 || again[0].UID != ds[0].UID || again[1].UID != ds[1].UID || again[1].Status.State != tcsv1.DeliverySucceeded {
		t.Fatalf("deliveries after repeated dispatch: %d", len(again))
	}
	if n := len(rc.requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	if p, err := h.store.Get(t.Context(), ds[1].Spec.PayloadRef); err != nil || string(p) != string(payload) {
		t.Fatalf("payload changed: %s, %v", p, err)
	}
}

func TestWebhookDeliversTheEventsOfASoftDeletedTranscriptButNotOfADeletedOne(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptFailed)
	soft := h.transcript(t, "org_a")
	h.setStatus(t, soft, func(x *tcsv1.Transcript) {
		now := metav1.Now()
		x.Status.Phase = tcsv1.PhasePending
		x.Emit(tcsv1.EventTranscriptCreated, time.Now())
		x.Status.DeletedAt = &now
		x.EndOnSoftDelete(now)
	})
	h.waitDeliveries(t, soft.Spec.ID, "the soft-deleted transcript's events delivered", func(ds []tcsv1.WebhookDelivery) bool {
		return allIn(2, tcsv1.DeliverySucceeded)(ds) && ds[0].Spec.Event == tcsv1.EventTranscriptCreated && ds[1].Spec.Event == tcsv1.EventTranscriptFailed
	})

	// A transcript being deleted (kept by its finalizer) gets no deliveries.
	gone := newTranscript(h.ns, "org_a", tcsv1.SourcePaste)
	gone.Finalizers = []string{"test.tcs.dev/hold"}
	if err := h.c.Create(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Delete(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	h.setStatus(t, gone, func(x *tcsv1.Transcript) { x.Emit(tcsv1.EventTranscriptCreated, time.Now()) })
	time.Sleep(500 * time.Millisecond)
	if ds := h.deliveries(t, gone.Spec.ID); len(ds) != 0 {
		t.Fatalf("%d deliveries for a deleted transcript", len(ds))
	}
	h.setStatus(t, gone, func(x *tcsv1.Transcript) {})
	got := &tcsv1.Transcript{}
	if err := h.c.Get(t.Context(), client.ObjectKeyFromObject(gone), got); err != nil {
		t.Fatal(err)
	}
	got.Finalizers = nil
	if err := h.c.Update(t.Context(), got); err != nil {
		t.Fatal(err)
	}
}

// An endpoint receives only the events emitted while it subscribed to their types: neither a
// restart nor a later status write of an old transcript sends it anything from before, and a
// type added to it later starts with the events after the addition.
func TestWebhookNeverBackfillsAnEndpoint(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, stop := startWebhooks(t, rc, hookOptions{})
	var old []*tcsv1.Transcript
	for range 3 {
		tr := h.transcript(t, "org_a")
		h.complete(t, tr, "text\n")
		old = append(old, tr)
	}
	// Event times are whole seconds: the endpoint comes in a later one.
	time.Sleep(1100 * time.Millisecond)
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	waitSubscribed(t, h, ep, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	stop()
	t.Cleanup(h.run(t)) // a restart reconciles every old transcript again
	for _, tr := range old {
		h.setStatus(t, tr, func(x *tcsv1.Transcript) { x.Status.Title = "Renamed" }) // and a status write
	}

	// A later transcript is delivered; the old ones never are.
	later := h.transcript(t, "org_a")
	h.complete(t, later, "text\n")
	h.waitDeliveries(t, later.Spec.ID, "the later events delivered", allIn(2, tcsv1.DeliverySucceeded))

	// ai_pass.started is added to the endpoint after an old transcript's pass started: the
	// old start is not sent, the next one is.
	h.setStatus(t, old[0], func(x *tcsv1.Transcript) {
		x.QueueAIPass(false, metav1.Now())
		x.StartAIPass("rules", "rules-v1", metav1.Now())
	})
	time.Sleep(1100 * time.Millisecond)
	h.editEndpoint(t, ep, func(ep *tcsv1.WebhookEndpoint) { ep.Spec.Events = append(ep.Spec.Events, tcsv1.EventAIPassStarted) })
	waitSubscribed(t, h, ep, tcsv1.EventAIPassStarted)
	h.setStatus(t, later, func(x *tcsv1.Transcript) {
		x.QueueAIPass(false, metav1.Now())
		x.StartAIPass("rules", "rules-v1", metav1.Now())
	})
	h.waitDeliveries(t, later.Spec.ID, "the later start delivered", allIn(3, tcsv1.DeliverySucceeded))
	h.setStatus(t, old[0], func(x *tcsv1.Transcript) { x.Status.Title = "Renamed again" })
	time.Sleep(time.Second)
	for _, tr := range old {
		if ds := h.deliveries(t, tr.Spec.ID); len(ds) != 0 {
			t.Fatalf("%d deliveries of %s, an event from before the endpoint subscribed: %s", len(ds), tr.Spec.ID, ds[0].Spec.Event)
		}
	}
	if n := len(rc.requests()); n != 3 {
		t.Fatalf("%d requests, want the 3 of the later transcript", n)
	}
}

// waitSubscribed waits until ep's status records its subscription to events.
func waitSubscribed(t *testing.T, h *hookEnv, ep *tcsv1.WebhookEndpoint, events ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cur := &tcsv1.WebhookEndpoint{}
		if err := h.c.Get(t.Context(), client.ObjectKeyFromObject(ep), cur); err != nil {
			t.Fatal(err)
		}
		all := true
		for _, e := range events {
			if _, ok := cur.SubscribedSince(e); !ok {
				all = false
			}
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("subscriptions %+v lack %v", cur.Status.Subscriptions, events)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func TestWebhookRemovesEndedDeliveriesAfterRetention(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{retention: 3 * time.Second})
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "delivered", allIn(1, tcsv1.DeliverySucceeded))
	h.waitDeliveries(t, tr.Spec.ID, "removed", func(ds []tcsv1.WebhookDelivery) bool { return len(ds) == 0 })
	// A later event of the same transcript is delivered; the collected one is not sent again.
	h.complete(t, tr, "done")
	later := h.waitDeliveries(t, tr.Spec.ID, "the later event delivered", allIn(1, tcsv1.DeliverySucceeded))
	if later[0].Spec.Event != tcsv1.EventTranscriptCompleted {
		t.Fatalf("after the retention a %s delivery was made again", later[0].Spec.Event)
	}
	if _, err := h.store.Get(context.Background(), ds[0].Spec.PayloadRef); err == nil {
		t.Fatal("the payload is still stored")
	}
	if err := h.c.Get(t.Context(), client.ObjectKeyFromObject(&ds[0]), &tcsv1.WebhookDelivery{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get: %v", err)
	}
}

func TestWebhookBodyShowsTheTranscriptAsOfItsEvent(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, stop := startWebhooks(t, rc, hookOptions{})
	stop() // the events below all happen before the dispatcher sees the transcript
	h.endpoint(t, "org_a", rc.srv.URL+"/hook", secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted,
		tcsv1.EventAIPassStarted, tcsv1.EventAIPassCompleted)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	content := "Sermon notes\nread Revelation 22:20 tonight\n"
	h.complete(t, tr, content)
	var job string
	h.setStatus(t, tr, func(x *tcsv1.Transcript) {
		job = x.QueueAIPass(true, metav1.Now()).ID
		x.StartAIPass("rules", "rules-v1", metav1.Now())
	})
	revised := "Sermon notes\nread Revelation 22:20 tonight!\n"
	keys := pipeline.KeysFor("org_a", tr.Spec.ID)
	if err := h.store.Put(t.Context(), keys.AIContent, []byte(revised), "text/plain"); err != nil {
		t.Fatal(err)
	}
	final := h.setStatus(t, tr, func(x *tcsv1.Transcript) {
		x.Status.ContentRef = keys.AIContent
		x.Status.AIPass.Confirmed = 1
		x.CompleteAIPass(metav1.Now())
	})
	t.Cleanup(h.run(t))
	h.waitDeliveries(t, tr.Spec.ID, "all delivered", allIn(4, tcsv1.DeliverySucceeded))

	type shown struct {
		Event        string  `json:"event"`
		Status       string  `json:"status"`
		AIPassStatus string  `json:"ai_pass_status"`
		Content      *string `json:"content"`
		Jobs         []apiview.JobRef
		AIPass       *apiview.AIPass `json:"ai_pass"`
	}
	var got []shown
	for _, r := range rc.requests() {
		var s shown
		if err := json.Unmarshal(r.body, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	want := []struct {
		event, status, ai, content string
		jobs                       int
		pass                       bool
	}{
		{tcsv1.EventTranscriptCreated, "pending", "idle", "", 1, false},
		{tcsv1.EventTranscriptCompleted, "completed", "idle", content, 1, false},
		{tcsv1.EventAIPassStarted, "completed", "running", content, 2, true},
		{tcsv1.EventAIPassCompleted, "completed", "completed", revised, 2, true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d requests, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		gotContent := ""
		if g.Content != nil {
			gotContent = *g.Content
		}
		if g.Event != w.event || g.Status != w.status || g.AIPassStatus != w.ai || gotContent != w.content || len(g.Jobs) != w.jobs || (g.AIPass != nil) != w.pass {
			t.Errorf("body %d = %+v (content %q), want %+v", i, g, gotContent, w)
		}
	}
	if p := got[2].AIPass; p == nil || p.JobID != job || p.FinishedAt != nil || p.Confirmed != 0 {
		t.Errorf("started body's ai_pass %+v", p)
	}
	if p := got[3].AIPass; p == nil || p.FinishedAt == nil || p.Confirmed != 1 || final.Status.AIPassStatus != tcsv1.AIPassCompleted {
		t.Errorf("completed body's ai_pass %+v", p)
	}
}
