package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/domain/ids"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/tooling/testenv"
	"tcs.dev/tcs/pkg/webhook"
)

// openResults opens a results store in a fresh SQLite file.
func openResults(t *testing.T) *results.Store {
	t.Helper()
	rs, err := results.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	return rs
}

// allDispatched reports whether every event of tr is marked dispatched, without its snapshot.
func allDispatched(tr *tcsv1.Transcript) bool {
	if len(tr.Status.EmittedEvents) == 0 {
		return false
	}
	for _, e := range tr.Status.EmittedEvents {
		if !e.Dispatched || e.State != nil {
			return false
		}
	}
	return true
}

// TestDeliveryArchive checks that ended deliveries move to the results store after
// archive-after with their payloads kept, that the endpoint manager (the dashboard's and the
// CLI's reader) reads them through, that the dispatcher never makes an archived delivery
// again, and that a replay of an archived one brings it back, sends it, and archives it again.
func TestDeliveryArchive(t *testing.T) {
	ctx := context.Background()
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	rs := openResults(t)
	// Long enough that both deliveries are seen delivered in the cluster before the first
	// is archived, even on a loaded machine.
	h, _ := startWebhooks(t, rc, hookOptions{results: rs, archiveAfter: 3 * time.Second})
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
	tr := h.transcript(t, "org_a")
	h.complete(t, tr, "text\n")
	live := h.waitDeliveries(t, tr.Spec.ID, "delivered", allIn(2, tcsv1.DeliverySucceeded))
	waitUntil(t, "the ended deliveries leave the cluster", func() bool { return len(h.deliveries(t, tr.Spec.ID)) == 0 })

	for _, d := range live {
		rec, err := rs.GetDelivery(ctx, d.Spec.ID)
		if err != nil {
			t.Fatalf("the record of %s: %v", d.Spec.ID, err)
		}
		got := rec.Delivery
		if got.Spec != d.Spec || got.Status.State != tcsv1.DeliverySucceeded || len(got.Status.Attempts) != 1 || got.Status.Attempts[0].StatusCode != 200 {
			t.Errorf("record of %s: %+v %+v", d.Spec.ID, got.Spec, got.Status)
		}
		if got.Annotations[tcsv1.AnnotationArchivedAt] != "" {
			t.Errorf("the record of %s carries the archive mark", d.Spec.ID)
		}
		if ok, err := h.store.Exists(ctx, d.Spec.PayloadRef); err != nil || !ok {
			t.Errorf("the payload of archived %s: exists %v, %v", d.Spec.ID, ok, err)
		}
	}

	// Read through, live then archived, newest first as before.
	m := &endpoints.Manager{Client: h.c, Namespace: h.ns, Archive: rs}
	cases := []struct {
		name string
		f    endpoints.DeliveryFilter
		want []string
	}{
		{"of the transcript", endpoints.DeliveryFilter{Organization: "org_a", TranscriptID: tr.Spec.ID, Limit: 100}, []string{live[1].Spec.ID, live[0].Spec.ID}},
		{"of the endpoint, limited", endpoints.DeliveryFilter{Endpoint: ep.Name, Limit: 1}, []string{live[1].Spec.ID}},
		{"of another organization", endpoints.DeliveryFilter{Organization: "org_b", TranscriptID: tr.Spec.ID}, nil},
	}
	for _, tc := range cases {
		got, err := m.Deliveries(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs []string
		for _, d := range got {
			gotIDs = append(gotIDs, d.Spec.ID)
		}
		if !slices.Equal(gotIDs, tc.want) {
			t.Errorf("deliveries %s = %v, want %v", tc.name, gotIDs, tc.want)
		}
	}
	created, err := m.Delivery(ctx, live[0].Spec.ID, "org_a")
	if err != nil || created.Status.State != tcsv1.DeliverySucceeded {
		t.Fatalf("Delivery of archived %s = %+v, %v", live[0].Spec.ID, created, err)
	}
	if _, err := m.Delivery(ctx, live[0].Spec.ID, "org_b"); !errors.Is(err, endpoints.ErrNotFound) {
		t.Fatalf("Delivery for another organization = %v", err)
	}

	// The events were marked dispatched. A stale writer that drops the marks makes the
	// dispatcher look again: it finds the archived deliveries and makes none.
	waitUntil(t, "the events are marked dispatched", func() bool {
		cur := &tcsv1.Transcript{}
		return h.c.Get(ctx, client.ObjectKeyFromObject(tr), cur) == nil && allDispatched(cur)
	})
	h.setStatus(t, tr, func(x *tcsv1.Transcript) {
		for i := range x.Status.EmittedEvents {
			x.Status.EmittedEvents[i].Dispatched = false
		}
	})
	waitUntil(t, "the events are marked dispatched again", func() bool {
		cur := &tcsv1.Transcript{}
		return h.c.Get(ctx, client.ObjectKeyFromObject(tr), cur) == nil && allDispatched(cur)
	})
	time.Sleep(300 * time.Millisecond)
	if ds := h.deliveries(t, tr.Spec.ID); len(ds) != 0 {
		t.Fatalf("the dispatcher made %d archived deliveries again", len(ds))
	}
	if n := len(rc.requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}

	// A replay brings the archived delivery back with its history, sends its stored body and
	// archives it again.
	if err := m.Replay(ctx, created, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the replay is sent", func() bool { return len(rc.requests()) == 3 })
	got := rc.requests()
	if got[2].header.Get(webhook.HeaderDelivery) != created.Spec.ID || string(got[2].body) != string(got[0].body) {
		t.Fatalf("the replay sent %s with body\n%s\nwant %s with\n%s", got[2].header.Get(webhook.HeaderDelivery), got[2].body, created.Spec.ID, got[0].body)
	}
	waitUntil(t, "the replayed delivery is archived again", func() bool {
		rec, err := rs.GetDelivery(ctx, created.Spec.ID)
		return err == nil && rec.Delivery.Status.Replays == 1 && len(h.deliveries(t, tr.Spec.ID)) == 0
	})
	rec, err := rs.GetDelivery(ctx, created.Spec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a := rec.Delivery.Status.Attempts; len(a) != 2 || rec.Delivery.Status.State != tcsv1.DeliverySucceeded || rec.Delivery.Status.ReplayedAt == nil {
		t.Fatalf("the record after the replay: %+v", rec.Delivery.Status)
	}
}

// TestDeliveryArchiveRestoresAnInterruptedReplay checks that a delivery brought back from its
// record by a replay that was killed before it restored the status gets the record's status
// and the replay from the delivery controller, before anything is sent.
func TestDeliveryArchiveRestoresAnInterruptedReplay(t *testing.T) {
	ctx := context.Background()
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	rs := openResults(t)
	h, _ := startWebhooks(t, rc, hookOptions{results: rs, archiveAfter: time.Hour})
	ep := h.endpoint(t, "org_a", rc.srv.URL, secret, tcsv1.EventTranscriptCreated)
	id := ids.New("evt")
	ended := metav1.NewTime(time.Now().Add(-time.Minute).Truncate(time.Second))
	d := &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: "evt-" + id[4:], Namespace: h.ns, CreationTimestamp: ended},
		Spec: tcsv1.WebhookDeliverySpec{ID: id, Organization: "org_a", Endpoint: ep.Name, Event: tcsv1.EventTranscriptCreated,
			TranscriptID: ids.New("tr"), PayloadRef: iwebhook.PayloadKey("org_a", id)},
		Status: tcsv1.WebhookDeliveryStatus{State: tcsv1.DeliveryFailed, CompletedAt: &ended,
			Attempts: []tcsv1.DeliveryAttempt{{Time: ended, StatusCode: 500, Error: "the endpoint answered 500"}}},
	}
	if err := h.store.Put(ctx, d.Spec.PayloadRef, []byte(`{"event":"transcript.created"}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.PutDelivery(ctx, d, 1); err != nil {
		t.Fatal(err)
	}
	// What a replay killed after its create leaves: the resource with the mark, no status.
	at := time.Now().UTC().Truncate(time.Second)
	back := &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: h.ns, Annotations: map[string]string{tcsv1.AnnotationUnarchived: at.Format(time.RFC3339)}},
		Spec:       d.Spec,
	}
	if err := h.c.Create(ctx, back); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the replay is sent", func() bool { return len(rc.requests()) == 1 })
	cur := &tcsv1.WebhookDelivery{}
	waitUntil(t, "the replay is recorded", func() bool {
		return h.c.Get(ctx, client.ObjectKeyFromObject(back), cur) == nil && cur.Status.State == tcsv1.DeliverySucceeded
	})
	if a := cur.Status.Attempts; len(a) != 2 || a[0].StatusCode != 500 || a[1].StatusCode != 200 || cur.Status.Replays != 1 ||
		cur.Status.ReplayedAt == nil || !cur.Status.ReplayedAt.Time.Equal(at) {
		t.Fatalf("status after the restored replay: %+v", cur.Status)
	}
}

// TestDeliveryPurge checks the retention of archived deliveries: past it, a record and its
// payload go; a record of a delivery brought back into the cluster goes without its payload;
// the purge of an archived transcript takes its archived deliveries with it.
func TestDeliveryPurge(t *testing.T) {
	e := newArchiveEnv(t, "")
	ctx := context.Background()
	now := time.Now()
	type delivery struct {
		name        string
		endedAgo    time.Duration
		transcript  string
		live        bool
		keepRecord  bool
		keepPayload bool
	}
	purged := ids.New("tr")
	cases := []delivery{
		{name: "past retention", endedAgo: 2 * time.Hour},
		{name: "within retention", endedAgo: time.Minute, keepRecord: true, keepPayload: true},
		{name: "past retention, replayed", endedAgo: 2 * time.Hour, live: true, keepPayload: true},
		{name: "of a purged transcript", endedAgo: time.Minute, transcript: purged},
	}
	ds := make([]*tcsv1.WebhookDelivery, len(cases))
	for i, tc := range cases {
		id := ids.New("evt")
		tr := tc.transcript
		if tr == "" {
			tr = ids.New("tr")
		}
		ended := metav1.NewTime(now.Add(-tc.endedAgo))
		d := &tcsv1.WebhookDelivery{
			ObjectMeta: metav1.ObjectMeta{Name: "evt-" + id[4:], Namespace: e.ns, CreationTimestamp: ended},
			Spec: tcsv1.WebhookDeliverySpec{ID: id, Organization: "org_a", Endpoint: "we-x", Event: tcsv1.EventTranscriptCreated,
				TranscriptID: tr, PayloadRef: "webhooks/org_a/" + id + ".json"},
			Status: tcsv1.WebhookDeliveryStatus{State: tcsv1.DeliverySucceeded, CompletedAt: &ended},
		}
		if err := e.blobs.Put(ctx, d.Spec.PayloadRef, []byte("{}"), "application/json"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.results.PutDelivery(ctx, d, 1); err != nil {
			t.Fatal(err)
		}
		if tc.live {
			if err := e.c.Create(ctx, &tcsv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: e.ns}, Spec: d.Spec}); err != nil {
				t.Fatal(err)
			}
		}
		ds[i] = d
	}
	// The archived transcript, soft-deleted past its retention.
	tr := e.finishedTranscript(t, "org_a", nil)
	tr.Spec.ID = purged
	if _, err := e.results.Put(ctx, tr, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.results.SoftDelete(ctx, purged, now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}

	stop := e.run(t, time.Hour, func(r *ArchiveReconciler) { r.DeliveryRetention = time.Hour })
	defer stop()
	waitUntil(t, "the purge removes what is due", func() bool {
		_, err := e.results.GetDelivery(ctx, ds[0].Spec.ID)
		_, terr := e.results.Get(ctx, purged, results.GetOptions{IncludeDeleted: true})
		return errors.Is(err, results.ErrNotFound) && errors.Is(terr, results.ErrNotFound)
	})
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.results.GetDelivery(ctx, ds[i].Spec.ID)
			if kept := err == nil; kept != tc.keepRecord {
				t.Errorf("record kept %v (%v), want %v", kept, err, tc.keepRecord)
			}
			ok, err := e.blobs.Exists(ctx, ds[i].Spec.PayloadRef)
			if err != nil || ok != tc.keepPayload {
				t.Errorf("payload kept %v (%v), want %v", ok, err, tc.keepPayload)
			}
		})
	}
}

// TestLeanTranscriptStatus runs a transcript with an AI pass through every controller, with an
// endpoint subscribed to all its events, and checks that its resource keeps no snapshot once
// its events are dispatched and stays well under 3 KB of JSON (it was 3.7 KB with them).
func TestLeanTranscriptStatus(t *testing.T) {
	secret := iwebhook.NewSecret()
	rc := newReceiver(t, secret)
	h, _ := startWebhooks(t, rc, hookOptions{})
	h.endpoint(t, "org_a", rc.srv.URL, secret, iwebhook.Events()...)
	t.Cleanup(runAIPass(t, h.ns, h.store, AIPassReconciler{Provider: aipass.NewRules()}))
	tr := pasteWithAIPass(t, h.c, h.store, h.ns, aiSermon, false)
	h.waitDeliveries(t, tr.Spec.ID, "the four events delivered", allIn(4, tcsv1.DeliverySucceeded))
	got := eventually(t, h.c, tr, "its events dispatched", func(x *tcsv1.Transcript) bool { return aiDone(x) && allDispatched(x) })
	if ev := got.EmittedEventTypes(); !slices.Equal(ev, []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted, tcsv1.EventAIPassStarted, tcsv1.EventAIPassCompleted}) {
		t.Fatalf("events %v", ev)
	}
	got.APIVersion, got.Kind = tcsv1.GroupVersion.String(), "Transcript"
	full, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	got.ManagedFields = nil
	lean, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	// As kubectl get -o json shows it and the controllers' cache keeps it: without the managed
	// fields, which the API server adds for every writer (about 1.9 KB more in etcd).
	t.Logf("a completed transcript with an AI pass: %d bytes of JSON, %d with its managed fields", len(lean), len(full))
	if len(lean) >= 2800 {
		t.Errorf("the transcript is %d bytes of JSON, want under 2800:\n%s", len(lean), lean)
	}
}

// TestDeliveryArchiveSurvivesKill kills the delivery controller with SIGKILL right after each
// step of archiving an ended delivery (the record written; the resource marked) and checks
// that a reader finds the delivery all along, that a restarted controller finishes the move,
// and that nothing is lost or doubled.
func TestDeliveryArchiveSurvivesKill(t *testing.T) {
	for _, step := range []string{"put", "mark"} {
		t.Run(step, func(t *testing.T) {
			e := newArchiveEnv(t, "")
			ctx := context.Background()
			blobDir := t.TempDir()
			blobs, err := blob.OpenDir(blobDir)
			if err != nil {
				t.Fatal(err)
			}
			id, transcriptID := ids.New("evt"), ids.New("tr")
			d := &tcsv1.WebhookDelivery{
				ObjectMeta: metav1.ObjectMeta{Name: "evt-" + id[4:], Namespace: e.ns},
				Spec: tcsv1.WebhookDeliverySpec{ID: id, Organization: "org_a", Endpoint: "we-x", Event: tcsv1.EventTranscriptCreated,
					TranscriptID: transcriptID, PayloadRef: "webhooks/org_a/" + id + ".json"},
			}
			if err := blobs.Put(ctx, d.Spec.PayloadRef, []byte("{}"), "application/json"); err != nil {
				t.Fatal(err)
			}
			if err := e.c.Create(ctx, d); err != nil {
				t.Fatal(err)
			}
			ended := metav1.Now()
			d.Status = tcsv1.WebhookDeliveryStatus{State: tcsv1.DeliverySucceeded, CompletedAt: &ended,
				Attempts: []tcsv1.DeliveryAttempt{{Time: ended, StatusCode: 200}}}
			if err := e.c.Status().Update(ctx, d); err != nil {
				t.Fatal(err)
			}

			// A reader, as the endpoint manager reads: the resource, then the record.
			stopReading := readAllAlong(func() bool {
				err := e.c.Get(ctx, client.ObjectKeyFromObject(d), &tcsv1.WebhookDelivery{})
				if !apierrors.IsNotFound(err) {
					return true
				}
				_, err = e.results.GetDelivery(ctx, id)
				return !errors.Is(err, results.ErrNotFound)
			})
			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
				t.Fatal(err)
			}
			killChildAt(t, step+" "+id, archiveChildEnv+"="+step, archiveKindEnv+"=delivery", archiveKubeconfigEnv+"="+kubeconfig,
				archiveNamespaceEnv+"="+e.ns, archiveDSNEnv+"="+e.dsn, archiveBlobsEnv+"="+blobDir)

			// Where the kill left it: the record written, the resource still there.
			if _, err := e.results.GetDelivery(ctx, id); err != nil {
				t.Fatalf("no record after the put: %v", err)
			}
			cur := &tcsv1.WebhookDelivery{}
			if err := e.c.Get(ctx, client.ObjectKeyFromObject(d), cur); err != nil {
				t.Fatalf("the resource after a kill at %s: %v", step, err)
			}
			if marked := cur.Annotations[tcsv1.AnnotationArchivedAt] != ""; marked != (step == "mark") {
				t.Fatalf("after a kill at %s the resource is marked %v", step, marked)
			}

			// A restarted controller finishes the move.
			mgr := env.NewManager(t, e.ns)
			if err := (&WebhookDeliveryReconciler{Client: mgr.GetClient(), Results: e.results, Store: blobs, ArchiveAfter: 50 * time.Millisecond}).SetupWithManager(mgr); err != nil {
				t.Fatal(err)
			}
			stop := testenv.Run(t, mgr)
			waitUntil(t, "the restarted controller moves it", func() bool {
				return apierrors.IsNotFound(e.c.Get(ctx, client.ObjectKeyFromObject(d), &tcsv1.WebhookDelivery{}))
			})
			stop()
			if misses, reads := stopReading(); misses > 0 {
				t.Fatalf("a reader did not find the delivery %d times of %d", misses, reads)
			}
			page, err := e.results.ListDeliveries(ctx, results.DeliveryListOptions{TranscriptID: transcriptID, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Deliveries) != 1 || page.Deliveries[0].ID != id {
				t.Fatalf("records of the transcript: %d, want the one", len(page.Deliveries))
			}
			rec := page.Deliveries[0].Delivery
			if rec.Status.State != tcsv1.DeliverySucceeded || len(rec.Status.Attempts) != 1 || rec.Annotations[tcsv1.AnnotationArchivedAt] != "" {
				t.Fatalf("the record after the move: %+v %v", rec.Status, rec.Annotations)
			}
			if ok, err := blobs.Exists(ctx, d.Spec.PayloadRef); err != nil || !ok {
				t.Errorf("payload after the move: exists %v, %v", ok, err)
			}
		})
	}
}
