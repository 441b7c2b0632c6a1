package controllers

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/endpoints"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/pkg/webhook"
)

// inlineOptions are the options of the webhook controllers with inline first attempts on.
func inlineOptions(rs *results.Store, delays ...time.Duration) hookOptions {
	return hookOptions{results: rs, archiveAfter: time.Hour, inline: true, delays: delays}
}

// records returns the archived deliveries of transcript id, by sequence.
func records(t *testing.T, rs *results.Store, id string) []*results.Delivery {
	t.Helper()
	page, err := rs.ListDeliveries(context.Background(), results.DeliveryListOptions{TranscriptID: id, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(page.Deliveries, func(a, b *results.Delivery) int { return a.Delivery.Spec.Sequence - b.Delivery.Spec.Sequence })
	return page.Deliveries
}

// dispatched reports whether every event of the transcript tr is marked dispatched.
func (h *hookEnv) dispatched(t *testing.T, tr *tcsv1.Transcript) bool {
	cur := &tcsv1.Transcript{}
	return h.c.Get(t.Context(), client.ObjectKeyFromObject(tr), cur) == nil && allDispatched(cur)
}

// TestWebhookInlineDeliveryIsRecordedWithoutAResource checks that a delivery answered 2xx at
// its first attempt, made by the dispatcher, is recorded straight into the results store with
// its attempt and costs the API server no write of a WebhookDelivery; that the readers of the
// history (the dashboard's and the CLI's endpoint manager) find it; and that a replay sends
// it again under its id.
func TestWebhookInlineDeliveryIsRecordedWithoutAResource(t *testing.T) {
	ctx := context.Background()
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	rs := openResults(t)
	h, _ := startWebhooks(t, rc, inlineOptions(rs))
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	before, gets := apiWrites(t), apiGets(t)
	tr := h.transcript(t, "org_a")
	atCreated := h.pending(t, tr)
	waitUntil(t, "created recorded", func() bool { return len(records(t, rs, tr.Spec.ID)) == 1 })
	content := "text\n"
	atCompleted := h.complete(t, tr, content)
	waitUntil(t, "both deliveries recorded and their events marked dispatched", func() bool {
		return len(records(t, rs, tr.Spec.ID)) == 2 && h.dispatched(t, tr)
	})
	writes := writesSince(t, before)
	if n := writes["webhookdeliveries"]; n != 0 {
		t.Errorf("%d writes of WebhookDeliveries for two deliveries delivered at once, want none (all writes: %v)", n, writes)
	}
	if ds := h.deliveries(t, tr.Spec.ID); len(ds) != 0 {
		t.Errorf("%d WebhookDeliveries in the cluster, want none", len(ds))
	}
	// The signing Secret is read once, and kept while its resourceVersion holds.
	if read := since(gets, apiGets(t)); read["secrets"] > 1 || read["webhookdeliveries"] != 0 {
		t.Errorf("reads at the API server for two deliveries: %v, want the Secret once at most and no delivery", read)
	}

	recs, got := records(t, rs, tr.Spec.ID), rc.requests()
	if len(got) != 2 {
		t.Fatalf("%d requests, want 2", len(got))
	}
	for i, want := range []struct {
		event string
		tr    *tcsv1.Transcript
		body  *string
	}{{tcsv1.EventTranscriptCreated, atCreated, nil}, {tcsv1.EventTranscriptCompleted, atCompleted, &content}} {
		rec := recs[i]
		d := rec.Delivery
		hash := iwebhook.DeliveryHash(tr.Spec.ID, want.event, "", ep.Spec.ID)
		if rec.ID != "evt_"+hash || d.Name != "evt-"+hash || d.Spec.Event != want.event || d.Spec.Sequence != i ||
			d.Spec.Endpoint != ep.Name || d.Spec.PayloadRef != iwebhook.PayloadKey("org_a", rec.ID) || d.Labels[tcsv1.LabelOrganization] != "org_a" {
			t.Fatalf("record %d: %+v %+v", i, d.ObjectMeta, d.Spec)
		}
		if rec.State != tcsv1.DeliverySucceeded || len(d.Status.Attempts) != 1 || d.Status.Attempts[0].StatusCode != 200 ||
			d.Status.Attempts[0].Response == nil || d.Status.CompletedAt == nil || d.Status.NextAttemptAt != nil {
			t.Fatalf("record %d status %+v", i, d.Status)
		}
		if r := got[i]; r.header.Get(webhook.HeaderDelivery) != rec.ID || r.header.Get(webhook.HeaderEvent) != want.event {
			t.Fatalf("request %d headers %v, want delivery %s", i, r.header, rec.ID)
		}
		if b := wantBody(t, want.tr, want.body, want.event, rec.ID); string(got[i].body) != string(b) {
			t.Fatalf("request %d body\n%s\nwant\n%s", i, got[i].body, b)
		}
		if ok, err := h.store.Exists(ctx, d.Spec.PayloadRef); err != nil || !ok {
			t.Fatalf("the payload of %s, kept for a replay: exists %v, %v", rec.ID, ok, err)
		}
	}

	m := &endpoints.Manager{Client: h.c, Namespace: h.ns, Archive: rs}
	list, err := m.Deliveries(ctx, endpoints.DeliveryFilter{Endpoint: ep.Name, Limit: 10})
	if err != nil || len(list) != 2 || list[0].Spec.ID != recs[1].ID || list[1].Spec.ID != recs[0].ID {
		t.Fatalf("the endpoint's deliveries = %d, %v; want both, newest first", len(list), err)
	}
	created, err := m.Delivery(ctx, recs[0].ID, "org_a")
	if err != nil || created.Status.State != tcsv1.DeliverySucceeded {
		t.Fatalf("Delivery %s = %+v, %v", recs[0].ID, created, err)
	}
	if err := m.Replay(ctx, created, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the replay is sent", func() bool { return len(rc.requests()) == 3 })
	replayed := rc.requests()[2]
	if replayed.header.Get(webhook.HeaderDelivery) != recs[0].ID || string(replayed.body) != string(got[0].body) {
		t.Fatalf("the replay sent %s with\n%s\nwant %s with\n%s", replayed.header.Get(webhook.HeaderDelivery), replayed.body, recs[0].ID, got[0].body)
	}
	ds := h.waitDeliveries(t, tr.Spec.ID, "the replay recorded", allIn(1, tcsv1.DeliverySucceeded))
	if a := ds[0].Status.Attempts; len(a) != 2 || ds[0].Status.Replays != 1 {
		t.Fatalf("the replayed delivery: %+v", ds[0].Status)
	}
}

// TestWebhookInlineFailureIsRetriedAsAResource checks that a delivery whose first attempt,
// made by the dispatcher, failed becomes a WebhookDelivery with that attempt recorded, and is
// retried on the schedule under the same id.
func TestWebhookInlineFailureIsRetriedAsAResource(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret, 503, 200)
	rc.respond = func(w http.ResponseWriter, code int) {
		w.Header().Set("X-Request-Id", "req_"+strconv.Itoa(code))
		w.WriteHeader(code)
		_, _ = w.Write([]byte("answered " + strconv.Itoa(code)))
	}
	rs := openResults(t)
	h, _ := startWebhooks(t, rc, inlineOptions(rs, 2*time.Second))
	h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	ds := h.waitDeliveries(t, tr.Spec.ID, "delivered at the retry", allIn(1, tcsv1.DeliverySucceeded))
	d := ds[0]
	a := d.Status.Attempts
	if len(a) != 2 || a[0].StatusCode != 503 || a[0].Error == "" || a[1].StatusCode != 200 || a[1].Error != "" {
		t.Fatalf("attempts %+v", a)
	}
	// The receiver's answers are kept, the first one's through the dispatcher's record of it.
	for i, code := range []int{503, 200} {
		r := a[i].Response
		if r == nil || r.Body != "answered "+strconv.Itoa(code) || !slices.Contains(r.Headers, tcsv1.ResponseHeader{Name: "X-Request-Id", Value: "req_" + strconv.Itoa(code)}) {
			t.Fatalf("the answer kept of attempt %d: %+v", i+1, r)
		}
	}
	if d.Annotations[tcsv1.AnnotationFirstAttempt] == "" {
		t.Fatalf("the delivery has no first attempt of the dispatcher's: %v", d.Annotations)
	}
	if gap := a[1].Time.Sub(a[0].Time.Time); gap < 0 {
		t.Fatalf("the retry came %v after the first attempt", gap)
	}
	got := rc.requests()
	if len(got) != 2 || got[0].header.Get(webhook.HeaderDelivery) != d.Spec.ID || got[1].header.Get(webhook.HeaderDelivery) != d.Spec.ID ||
		string(got[0].body) != string(got[1].body) {
		t.Fatalf("%d requests, want the first attempt and its retry of %s", len(got), d.Spec.ID)
	}
	// The status holds times to the second: the retry is due 1 to 2 s after the attempt.
	if retry := got[1].start.Sub(got[0].end); retry < time.Second {
		t.Fatalf("the retry came %v after the first attempt, want the schedule's 2 s", retry)
	}
	if _, err := rs.GetDelivery(context.Background(), d.Spec.ID); !errors.Is(err, results.ErrNotFound) {
		t.Fatalf("a record of %s while it is a resource: %v", d.Spec.ID, err)
	}
}

// TestWebhookInlineWaitsForAnEarlierDeliveryOfTheStream checks that the dispatcher makes no
// inline attempt of an event while an earlier delivery of the same transcript to the same
// endpoint waits for its first attempt: both go to the delivery controller, which sends them
// in order.
func TestWebhookInlineWaitsForAnEarlierDeliveryOfTheStream(t *testing.T) {
	ctx := context.Background()
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	rs := openResults(t)
	h, _ := startWebhooks(t, rc, inlineOptions(rs))
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	tr := h.transcript(t, "org_a")
	// The delivery of transcript.created made without an attempt, and held back by a stopped
	// delivery controller: its resource exists, pending, before the events are emitted.
	hash := iwebhook.DeliveryHash(tr.Spec.ID, tcsv1.EventTranscriptCreated, "", ep.Spec.ID)
	first := &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: iwebhook.DeliveryName(hash), Namespace: h.ns},
		Spec: tcsv1.WebhookDeliverySpec{ID: iwebhook.DeliveryID(hash), Organization: "org_a", Endpoint: ep.Name,
			Event: tcsv1.EventTranscriptCreated, TranscriptID: tr.Spec.ID, PayloadRef: iwebhook.PayloadKey("org_a", iwebhook.DeliveryID(hash))},
	}
	if err := h.store.Put(ctx, first.Spec.PayloadRef, []byte(`{"event":"transcript.created"}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	// The receiver answers after a second: all that time the delivery controller's first
	// attempt of it is under way and not recorded.
	rc.mu.Lock()
	rc.delay = time.Second
	rc.mu.Unlock()
	if err := h.c.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	// Time for the dispatcher's cache to see it, well within the second.
	time.Sleep(200 * time.Millisecond)
	// Both events at once: created's delivery exists; completed's must wait for it.
	h.complete(t, tr, "text\n")
	ds := h.waitDeliveries(t, tr.Spec.ID, "both delivered", allIn(2, tcsv1.DeliverySucceeded))
	got := rc.requests()
	if len(got) != 2 || got[0].header.Get(webhook.HeaderEvent) != tcsv1.EventTranscriptCreated ||
		got[1].header.Get(webhook.HeaderEvent) != tcsv1.EventTranscriptCompleted {
		t.Fatalf("%d requests, or out of order", len(got))
	}
	if got[1].start.Before(got[0].end) {
		t.Fatalf("completed sent at %v, before created was answered at %v", got[1].start, got[0].end)
	}
	if ds[1].Annotations[tcsv1.AnnotationFirstAttempt] != "" {
		t.Fatalf("the dispatcher made an attempt of %s while %s waited for its first", ds[1].Spec.ID, ds[0].Spec.ID)
	}
}

// TestWebhookInlineDeliverySurvivesAKillBetweenSendAndRecord kills the dispatcher with
// SIGKILL right after its inline attempt was answered 2xx, before the record: the event is
// still not dispatched, so a restarted dispatcher sends it again under the same delivery id
// and records it once.
func TestWebhookInlineDeliverySurvivesAKillBetweenSendAndRecord(t *testing.T) {
	ctx := context.Background()
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	dir := t.TempDir()
	dsn := "sqlite://" + filepath.Join(dir, "results.db")
	rs, err := results.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	blobDir := filepath.Join(dir, "blobs")
	store, err := blob.OpenDir(blobDir)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(rc.srv.Certificate())
	h := &hookEnv{c: env.Client(t, client.Options{Scheme: scheme.New()}), store: store, ns: env.Namespace(t, "tcs-hooks"), roots: roots,
		opts: inlineOptions(rs)}
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	tr := h.transcript(t, "org_a")
	h.pending(t, tr)
	id := iwebhook.DeliveryID(iwebhook.DeliveryHash(tr.Spec.ID, tcsv1.EventTranscriptCreated, "", ep.Spec.ID))

	kubeconfig, ca := filepath.Join(dir, "kubeconfig"), filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	killChildAt(t, "sent "+id, archiveChildEnv+"=sent", archiveKindEnv+"=dispatch", archiveKubeconfigEnv+"="+kubeconfig,
		archiveNamespaceEnv+"="+h.ns, archiveDSNEnv+"="+dsn, archiveBlobsEnv+"="+blobDir, archiveCAEnv+"="+ca)

	// Where the kill left it: delivered once, recorded nowhere, the event not dispatched.
	if got := rc.requests(); len(got) != 1 || got[0].header.Get(webhook.HeaderDelivery) != id {
		t.Fatalf("%d requests before the kill, want one of %s", len(got), id)
	}
	if recs := records(t, rs, tr.Spec.ID); len(recs) != 0 {
		t.Fatalf("%d records after a kill before the record", len(recs))
	}
	if ds := h.deliveries(t, tr.Spec.ID); len(ds) != 0 {
		t.Fatalf("%d WebhookDeliveries after a kill before the record", len(ds))
	}
	if h.dispatched(t, tr) {
		t.Fatal("the event is marked dispatched after a kill before its record")
	}

	// A restarted dispatcher sends it again, under the same id, and records it once.
	h.complete(t, tr, "text\n") // settles the transcript, so that its events can be marked
	stop := h.run(t)
	t.Cleanup(stop)
	waitUntil(t, "the event delivered again, recorded and marked dispatched", func() bool {
		return len(records(t, rs, tr.Spec.ID)) == 1 && h.dispatched(t, tr)
	})
	got := rc.requests()
	if len(got) != 2 || got[1].header.Get(webhook.HeaderDelivery) != id || string(got[1].body) != string(got[0].body) {
		t.Fatalf("%d requests, want the one before the kill and one more of %s with the same body", len(got), id)
	}
	recs := records(t, rs, tr.Spec.ID)
	if recs[0].ID != id || recs[0].State != tcsv1.DeliverySucceeded || len(recs[0].Delivery.Status.Attempts) != 1 {
		t.Fatalf("the record: %s %+v", recs[0].ID, recs[0].Delivery.Status)
	}
	if ds := h.deliveries(t, tr.Spec.ID); len(ds) != 0 {
		t.Fatalf("%d WebhookDeliveries, want none", len(ds))
	}
}

// TestWebhookInlineSlowReceiverHoldsNoOtherTranscriptBack checks that first attempts to a
// receiver slow to answer take at most the inline slots, not the dispatcher: with every slot
// held by them, another organization's event is dispatched at once, for the delivery
// controller to send, and arrives long before the slow receiver answers.
func TestWebhookInlineSlowReceiverHoldsNoOtherTranscriptBack(t *testing.T) {
	secret := iwebhook.NewSecret()
	slow, fast := newReceiver(t, secret), newReceiver(t, secret)
	slow.delay = 3 * time.Second
	rs := openResults(t)
	opts := inlineOptions(rs)
	opts.dispatchWorkers, opts.inlineSends = 4, 1
	h, _ := startWebhooks(t, slow, opts)
	h.roots.AddCert(fast.srv.Certificate())
	h.endpoint(t, "org_slow", slow.srv.URL, secret, tcsv1.EventTranscriptCreated)
	h.endpoint(t, "org_fast", fast.srv.URL, secret, tcsv1.EventTranscriptCreated)
	for range 3 {
		h.pending(t, h.transcript(t, "org_slow"))
	}
	time.Sleep(200 * time.Millisecond) // the slow receiver holds the one slot
	start := time.Now()
	h.pending(t, h.transcript(t, "org_fast"))
	waitUntil(t, "the fast receiver's delivery", func() bool { return len(fast.requests()) == 1 })
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("the other organization's delivery arrived %v after its event, held back by the slow receiver", took)
	}
	if n := len(slow.requests()); n != 0 {
		t.Fatalf("the slow receiver answered %d requests already: it did not hold the slot", n)
	}
	waitUntil(t, "the slow receiver's three deliveries", func() bool { return len(slow.requests()) == 3 })
}
