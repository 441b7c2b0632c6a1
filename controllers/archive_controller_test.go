package controllers

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/kube/workingset"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// archiveEnv is a namespace with an archiver running on it, its results store and object
// store.
type archiveEnv struct {
	c       client.Client
	ns      string
	results *results.Store
	blobs   *blob.Store
	dsn     string
}

// newArchiveEnv opens a results store at dsn (a fresh SQLite file when empty) and an object
// store for a new namespace.
func newArchiveEnv(t *testing.T, dsn string) *archiveEnv {
	t.Helper()
	if dsn == "" {
		dsn = "sqlite://" + filepath.Join(t.TempDir(), "results.db")
	}
	rs, err := results.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	blobs, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &archiveEnv{c: env.Client(t, client.Options{Scheme: scheme.New()}), ns: env.Namespace(t, "tcs-arch"), results: rs, blobs: blobs, dsn: dsn}
}

// run starts an archiver with after on the namespace; stop ends it.
func (e *archiveEnv) run(t *testing.T, after time.Duration, hooks func(*ArchiveReconciler)) (stop func()) {
	t.Helper()
	mgr := env.NewManager(t, e.ns)
	if err := indexEndpoints(mgr); err != nil {
		t.Fatal(err)
	}
	r := &ArchiveReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Namespace: e.ns, Results: e.results, Blobs: e.blobs, After: after, PurgeEvery: 100 * time.Millisecond, Retention: time.Hour}
	if hooks != nil {
		hooks(r)
	}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return testenv.Run(t, mgr)
}

// indexEndpoints adds the index of endpoints by organization, which the webhook dispatch
// controller sets up in the service.
func indexEndpoints(mgr ctrl.Manager) error {
	return mgr.GetFieldIndexer().IndexField(context.Background(), &tcsv1.WebhookEndpoint{},
		IndexWebhookEndpointOrganization, func(o client.Object) []string {
			return []string{o.(*tcsv1.WebhookEndpoint).Spec.Organization}
		})
}

// finishedTranscript creates a pasted transcript completed a moment ago, with its content in
// the object store; mutate adjusts its status before it is written.
func (e *archiveEnv) finishedTranscript(t *testing.T, org string, mutate func(*tcsv1.Transcript)) *tcsv1.Transcript {
	t.Helper()
	ctx := context.Background()
	id := ids.New("tr")
	tr := &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: e.ns,
			Labels: map[string]string{tcsv1.LabelOrganization: org, tcsv1.LabelSourceType: "paste"}},
		Spec: tcsv1.TranscriptSpec{ID: id, Organization: org, Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste, Format: "txt"}},
	}
	if err := e.c.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	keys := pipeline.KeysFor(org, id)
	for _, k := range []string{keys.Input, keys.Content, keys.Changes} {
		if err := e.blobs.Put(ctx, k, []byte("text of "+id), "text/plain"); err != nil {
			t.Fatal(err)
		}
	}
	now := metav1.Now()
	tr.Status = tcsv1.TranscriptStatus{
		Phase: tcsv1.PhaseCompleted, AIPassStatus: tcsv1.AIPassIdle, CompletedAt: &now,
		ContentRef: keys.Content, ChangesRef: keys.Changes,
		Jobs: []tcsv1.Job{{ID: "job_" + id[3:] + "c", Type: tcsv1.JobCorrection, State: tcsv1.JobSucceeded, CreatedAt: now, FinishedAt: &now}},
	}
	if mutate != nil {
		mutate(tr)
	}
	if err := e.c.Status().Update(ctx, tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// gone reports whether transcript tr's resource no longer exists.
func (e *archiveEnv) gone(t *testing.T, tr *tcsv1.Transcript) bool {
	t.Helper()
	err := e.c.Get(context.Background(), client.ObjectKeyFromObject(tr), &tcsv1.Transcript{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return apierrors.IsNotFound(err)
}

// record returns the archived record of tr, or nil.
func (e *archiveEnv) record(t *testing.T, tr *tcsv1.Transcript) *results.Record {
	t.Helper()
	rec, err := e.results.Get(context.Background(), tr.Spec.ID, results.GetOptions{IncludeDeleted: true})
	if errors.Is(err, results.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestArchiveWorkingSet checks which transcripts leave the cluster: finished ones once quiet
// for archive-after, with their record and content kept; nothing in flight, nothing
// soft-deleted.
func TestArchiveWorkingSet(t *testing.T) {
	e := newArchiveEnv(t, "")
	org := ids.New("org")
	cases := []struct {
		name    string
		mutate  func(*tcsv1.Transcript)
		archive bool
	}{
		{name: "completed", archive: true},
		{name: "failed", archive: true, mutate: func(tr *tcsv1.Transcript) {
			tr.Status.Phase, tr.Status.ContentRef = tcsv1.PhaseFailed, ""
			tr.Status.Error = &tcsv1.TranscriptError{Type: "invalid_request_error", Message: "no text"}
		}},
		{name: "pending", mutate: func(tr *tcsv1.Transcript) {
			tr.Status.Phase, tr.Status.CompletedAt = tcsv1.PhasePending, nil
			tr.Status.Jobs[0].State, tr.Status.Jobs[0].FinishedAt = tcsv1.JobRunning, nil
		}},
		{name: "ai-pass-queued", mutate: func(tr *tcsv1.Transcript) {
			tr.QueueAIPass(false, metav1.Now())
		}},
		{name: "soft-deleted", mutate: func(tr *tcsv1.Transcript) {
			now := metav1.Now()
			tr.Status.DeletedAt = &now
		}},
	}
	trs := make([]*tcsv1.Transcript, len(cases))
	for i, tc := range cases {
		trs[i] = e.finishedTranscript(t, org, tc.mutate)
	}
	// A soft-deleted transcript whose record was written before its delete: the record goes,
	// as the resource is the truth until its purge.
	if _, err := e.results.Put(context.Background(), trs[4], 1); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	defer e.run(t, 2*time.Second, nil)()
	waitUntil(t, "the finished transcripts are archived", func() bool {
		return e.gone(t, trs[0]) && e.gone(t, trs[1])
	})
	// The resource's times are whole seconds: archive-after counts from up to a second earlier.
	if d := time.Since(start); d < time.Second {
		t.Errorf("archived after %v, before archive-after (2s)", d)
	}
	waitUntil(t, "the soft-deleted transcript's record is dropped", func() bool { return e.record(t, trs[4]) == nil })
	time.Sleep(time.Second)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := trs[i]
			if got := e.gone(t, tr); got != tc.archive {
				t.Fatalf("resource gone = %v, want %v", got, tc.archive)
			}
			rec := e.record(t, tr)
			if !tc.archive {
				if rec != nil {
					t.Fatalf("a record of a transcript kept in the cluster: %+v", rec)
				}
				return
			}
			if rec == nil {
				t.Fatal("archived without a record")
			}
			if rec.Status != tr.Status.Phase || rec.Transcript.Status.ContentRef != tr.Status.ContentRef || len(rec.Transcript.Status.Jobs) != 1 || rec.Organization != org {
				t.Errorf("record %+v does not match the transcript %+v", rec, tr.Status)
			}
			if rec.Transcript.Annotations[tcsv1.AnnotationArchivedAt] != "" {
				t.Errorf("the record carries the archive mark: %v", rec.Transcript.Annotations)
			}
			// The content stays in the object store.
			for _, k := range []string{tr.Spec.Source.InputRef, pipeline.KeysFor(org, tr.Spec.ID).Content} {
				if k == "" {
					continue
				}
				if ok, err := e.blobs.Exists(context.Background(), k); err != nil || !ok {
					t.Errorf("object %s of an archived transcript: exists %v, %v", k, ok, err)
				}
			}
		})
	}
}

// TestArchiveWaitsForDeliveries checks that a transcript stays while a webhook delivery of one
// of its events is missing or not final.
func TestArchiveWaitsForDeliveries(t *testing.T) {
	e := newArchiveEnv(t, "")
	ctx := context.Background()
	org := ids.New("org")
	ep := &tcsv1.WebhookEndpoint{
		ObjectMeta: metav1.ObjectMeta{Name: "we-" + ids.New("we")[3:], Namespace: e.ns},
		Spec: tcsv1.WebhookEndpointSpec{ID: ids.New("we"), Organization: org, URL: "https://127.0.0.1:9/hook",
			Events: []string{tcsv1.EventTranscriptCompleted}, SecretName: "we-secret"},
	}
	if err := e.c.Create(ctx, ep); err != nil {
		t.Fatal(err)
	}
	tr := e.finishedTranscript(t, org, func(tr *tcsv1.Transcript) {
		tr.Emit(tcsv1.EventTranscriptCompleted, time.Now())
	})
	// An event from before the endpoint subscribed gets no delivery (the dispatcher's rule),
	// so it holds nothing back.
	before := e.finishedTranscript(t, org, func(tr *tcsv1.Transcript) {
		tr.Emit(tcsv1.EventTranscriptCompleted, time.Now().Add(-time.Hour))
	})
	defer e.run(t, 300*time.Millisecond, nil)()
	waitUntil(t, "the transcript whose event predates the endpoint is archived", func() bool { return e.gone(t, before) })
	time.Sleep(1500 * time.Millisecond)
	if e.gone(t, tr) {
		t.Fatal("archived before its delivery was made")
	}
	hash := iwebhook.DeliveryHash(tr.Spec.ID, tcsv1.EventTranscriptCompleted, "", ep.Spec.ID)
	d := &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: "evt-" + hash, Namespace: e.ns},
		Spec: tcsv1.WebhookDeliverySpec{ID: "evt_" + hash, Organization: org, Endpoint: ep.Name,
			Event: tcsv1.EventTranscriptCompleted, TranscriptID: tr.Spec.ID, PayloadRef: "x"},
	}
	if err := e.c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	d.Status.State = tcsv1.DeliveryPending
	if err := e.c.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if e.gone(t, tr) {
		t.Fatal("archived while its delivery is pending")
	}
	now := metav1.Now()
	d.Status.State, d.Status.CompletedAt = tcsv1.DeliverySucceeded, &now
	if err := e.c.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the transcript is archived once its delivery ended", func() bool { return e.gone(t, tr) })
	if e.record(t, tr) == nil {
		t.Fatal("archived without a record")
	}
}

// TestArchiveRestoresUnarchived checks that a transcript recreated from its record without its
// status (its recreation was interrupted) gets the record's status back.
func TestArchiveRestoresUnarchived(t *testing.T) {
	e := newArchiveEnv(t, "")
	ctx := context.Background()
	tr := e.finishedTranscript(t, ids.New("org"), nil)
	if _, err := e.results.Put(ctx, tr, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Delete(ctx, tr); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "deleted", func() bool { return e.gone(t, tr) })
	back := &tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{Name: tr.Name, Namespace: e.ns,
		Annotations: map[string]string{tcsv1.AnnotationUnarchived: time.Now().UTC().Format(time.RFC3339)}}, Spec: tr.Spec}
	if err := e.c.Create(ctx, back); err != nil {
		t.Fatal(err)
	}
	defer e.run(t, time.Hour, nil)()
	waitUntil(t, "the status is restored", func() bool {
		got := &tcsv1.Transcript{}
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(tr), got); err != nil {
			t.Fatal(err)
		}
		return got.Status.Phase == tcsv1.PhaseCompleted && got.Status.ContentRef == tr.Status.ContentRef
	})
}

// TestArchivePurge checks that an archived transcript soft-deleted longer than the retention
// ago loses its record and content, and one deleted recently keeps them.
func TestArchivePurge(t *testing.T) {
	e := newArchiveEnv(t, "")
	ctx := context.Background()
	org := ids.New("org")
	old, recent := e.finishedTranscript(t, org, nil), e.finishedTranscript(t, org, nil)
	for _, tr := range []*tcsv1.Transcript{old, recent} {
		if _, err := e.results.Put(ctx, tr, 1); err != nil {
			t.Fatal(err)
		}
		if err := e.c.Delete(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.results.SoftDelete(ctx, old.Spec.ID, time.Now().Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.results.SoftDelete(ctx, recent.Spec.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The versions of their reviews, which Keys.All does not list.
	reviewOf := func(tr *tcsv1.Transcript) []string {
		keys := pipeline.KeysFor(org, tr.Spec.ID)
		return []string{keys.Review(1, "0123456789abcdef").Content, keys.Review(2, "fedcba9876543210").Changes}
	}
	for _, k := range append(reviewOf(old), reviewOf(recent)...) {
		if err := e.blobs.Put(ctx, k, []byte("x"), "text/plain"); err != nil {
			t.Fatal(err)
		}
	}
	defer e.run(t, time.Hour, nil)()
	waitUntil(t, "the old one is purged", func() bool { return e.record(t, old) == nil })
	for _, k := range append(pipeline.KeysFor(org, old.Spec.ID).All(), reviewOf(old)...) {
		if ok, err := e.blobs.Exists(ctx, k); err != nil || ok {
			t.Errorf("object %s of a purged transcript: exists %v, %v", k, ok, err)
		}
	}
	if e.record(t, recent) == nil {
		t.Fatal("a transcript deleted within its retention was purged")
	}
	if ok, _ := e.blobs.Exists(ctx, recent.Status.ContentRef); !ok {
		t.Fatal("the content of a transcript deleted within its retention was purged")
	}
	for _, k := range reviewOf(recent) {
		if ok, err := e.blobs.Exists(ctx, k); err != nil || !ok {
			t.Errorf("review object %s of a transcript deleted within its retention: exists %v, %v", k, ok, err)
		}
	}
}

// TestArchiveKeepsContentThroughTheFinalizer runs the archiver with the transcript reconciler,
// whose finalizer empties the object store of a deleted transcript: an archived transcript's
// objects stay (its record points to them), while a soft-deleted one that carries the mark of
// an interrupted archiving still loses them at its purge.
func TestArchiveKeepsContentThroughTheFinalizer(t *testing.T) {
	e := newArchiveEnv(t, "")
	ctx := context.Background()
	t.Cleanup(runManager(t, e.ns, e.blobs))
	stop := e.run(t, 300*time.Millisecond, nil)
	defer stop()
	org := "org_a"
	tr := newTranscript(e.ns, org, tcsv1.SourcePaste)
	keys := pipeline.KeysFor(org, tr.Spec.ID)
	if err := e.blobs.Put(ctx, keys.Input, []byte("read revelations 21:4"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the transcript is completed and archived", func() bool { return e.gone(t, tr) })
	rec := e.record(t, tr)
	if rec == nil || rec.Status != tcsv1.PhaseCompleted {
		t.Fatalf("the record of the archived transcript: %+v", rec)
	}
	for _, k := range []string{keys.Input, keys.Content, keys.Changes} {
		if ok, err := e.blobs.Exists(ctx, k); err != nil || !ok {
			t.Errorf("object %s of an archived transcript: exists %v, %v", k, ok, err)
		}
	}
	stop()

	// Marked, then soft-deleted before the archiver deleted it, and purged after its retention.
	marked := newTranscript(e.ns, org, tcsv1.SourcePaste)
	mkeys := pipeline.KeysFor(org, marked.Spec.ID)
	if err := e.blobs.Put(ctx, mkeys.Input, []byte("read revelations 21:4"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	marked.Annotations = map[string]string{tcsv1.AnnotationArchivedAt: time.Now().UTC().Format(time.RFC3339)}
	if err := e.c.Create(ctx, marked); err != nil {
		t.Fatal(err)
	}
	cur := eventually(t, e.c, marked, "completed", func(x *tcsv1.Transcript) bool { return x.Status.Phase == tcsv1.PhaseCompleted })
	deleted := metav1.NewTime(time.Now().Add(-DefaultRetention - time.Minute))
	cur.Status.DeletedAt = &deleted
	if err := e.c.Status().Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the soft-deleted transcript is purged", func() bool { return e.gone(t, marked) })
	for _, k := range mkeys.All() {
		if ok, err := e.blobs.Exists(ctx, k); err != nil || ok {
			t.Errorf("object %s of a purged transcript: exists %v, %v", k, ok, err)
		}
	}
}

// TestArchiveMarkLeavesTheCache checks the two moments of archiving: once settled, a
// transcript is recorded and marked at once, which takes it out of the controllers' cache (the
// working set) and its finalizer off while the resource stays; archive-after later the
// resource goes. Unmarked, it is back in the cache, and the cycle starts again.
func TestArchiveMarkLeavesTheCache(t *testing.T) {
	e := newArchiveEnv(t, "")
	ctx := context.Background()
	mgr := env.NewManager(t, e.ns)
	if err := indexEndpoints(mgr); err != nil {
		t.Fatal(err)
	}
	const after = 3 * time.Second
	r := &ArchiveReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Namespace: e.ns, Results: e.results, Blobs: e.blobs, After: after}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	defer testenv.Run(t, mgr)()
	tr := e.finishedTranscript(t, ids.New("org"), nil)
	key := client.ObjectKeyFromObject(tr)

	cached := func() bool {
		err := mgr.GetCache().Get(ctx, key, &tcsv1.Transcript{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	live := func() *tcsv1.Transcript {
		got := &tcsv1.Transcript{}
		if err := e.c.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for round := range 2 {
		start := time.Now()
		waitUntil(t, "the transcript is recorded and out of the cache", func() bool { return e.record(t, tr) != nil && !cached() })
		got := live()
		if time.Since(start) >= after || got.Labels[tcsv1.LabelArchived] != "true" || got.Annotations[tcsv1.AnnotationArchivedAt] == "" {
			t.Fatalf("round %d: marked %v, %v after settling: %v %v", round, got.Labels, time.Since(start), got.Annotations, got.Finalizers)
		}
		if controllerutil.ContainsFinalizer(got, tcsv1.FinalizerStoredObjects) {
			t.Fatalf("round %d: the marked transcript keeps its finalizer", round)
		}
		if round == 1 {
			break
		}
		// Unmarked as the API does before it changes a marked transcript: back in the cache,
		// finalizer and all, and marked again once the archiver sees it settled.
		if err := workingset.Rejoin(ctx, e.c, got); err != nil {
			t.Fatal(err)
		}
		if !controllerutil.ContainsFinalizer(got, tcsv1.FinalizerStoredObjects) || got.MarkedArchived() {
			t.Fatalf("unmarked: %v %v %v", got.Labels, got.Annotations, got.Finalizers)
		}
		waitUntil(t, "the unmarked transcript is back in the cache", func() bool {
			return cached() || live().MarkedArchived()
		})
	}
	start := time.Now()
	waitUntil(t, "the marked transcript leaves the cluster", func() bool { return e.gone(t, tr) })
	// The mark holds whole seconds: the removal comes up to a second early.
	if d := time.Since(start); d < after-1500*time.Millisecond {
		t.Errorf("removed %v after its mark, archive-after is %v", d, after)
	}
	if rec := e.record(t, tr); rec == nil || rec.Transcript.Labels[tcsv1.LabelArchived] != "" || rec.Transcript.Annotations[tcsv1.AnnotationArchivedAt] != "" {
		t.Fatalf("the record after the move: %+v", rec)
	}
}

// TestRemoveMarkedSweep checks the sweep that finds marked transcripts after a restart: it
// deletes, with its record written again, one marked longer than archive-after ago, and
// leaves one marked a moment ago.
func TestRemoveMarkedSweep(t *testing.T) {
	e := newArchiveEnv(t, "")
	ctx := context.Background()
	org := ids.New("org")
	mark := func(at time.Time) *tcsv1.Transcript {
		tr := e.finishedTranscript(t, org, nil)
		patch := client.MergeFrom(tr.DeepCopy())
		tr.Labels[tcsv1.LabelArchived] = "true"
		tr.Annotations = map[string]string{tcsv1.AnnotationArchivedAt: at.UTC().Format(time.RFC3339)}
		if err := e.c.Patch(ctx, tr, patch); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	due, fresh := mark(time.Now().Add(-2*time.Hour)), mark(time.Now())
	r := &ArchiveReconciler{Client: e.c, APIReader: e.c, Namespace: e.ns, Results: e.results, Blobs: e.blobs, After: time.Hour}
	r.setDefaults()
	if err := r.RemoveMarked(ctx); err != nil {
		t.Fatal(err)
	}
	if !e.gone(t, due) || e.record(t, due) == nil {
		t.Errorf("the transcript marked two hours ago: gone %v, recorded %v", e.gone(t, due), e.record(t, due) != nil)
	}
	if e.gone(t, fresh) {
		t.Error("the transcript marked a moment ago was deleted")
	}
}

// TestArchiveRecordsATranscriptOnceItHasBeenQuietForRecordAfter checks that a finished
// transcript is neither recorded nor marked before it has been unchanged for RecordAfter,
// and is both once it has, long before After.
func TestArchiveRecordsATranscriptOnceItHasBeenQuietForRecordAfter(t *testing.T) {
	const recordAfter = 2 * time.Second
	e := newArchiveEnv(t, "")
	defer e.run(t, time.Hour, func(r *ArchiveReconciler) { r.RecordAfter = recordAfter })()
	tr := e.finishedTranscript(t, ids.New("org"), nil)
	completed := tr.Status.CompletedAt.Time
	marked := func() bool {
		got := &tcsv1.Transcript{}
		if err := e.c.Get(t.Context(), client.ObjectKeyFromObject(tr), got); err != nil {
			t.Fatal(err)
		}
		return got.Labels[tcsv1.LabelArchived] == "true"
	}
	// The status keeps whole seconds: the quiet time counts from the second written.
	for time.Since(completed.Truncate(time.Second)) < recordAfter-300*time.Millisecond {
		if marked() || e.record(t, tr) != nil {
			t.Fatalf("recorded or marked %v after the transcript finished, want not before %v", time.Since(completed), recordAfter)
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitUntil(t, "the quiet transcript recorded and marked", func() bool { return marked() && e.record(t, tr) != nil })
}
