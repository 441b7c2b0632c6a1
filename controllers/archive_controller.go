package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/kube/workingset"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/pipeline"
)

// DefaultArchiveAfter is how long a finished transcript stays in the cluster by default.
const DefaultArchiveAfter = time.Hour

// DefaultRecordAfter is how long, by default in the service, a finished transcript stays
// unchanged before the archiver records and marks it.
const DefaultRecordAfter = 10 * time.Second

// DefaultArchiveWorkers is the number of transcripts the archiver considers at once by
// default: each archive waits on the results store and on two writes to the API server, so
// one at a time falls behind the rate transcripts are made at.
const DefaultArchiveWorkers = 4

// DefaultPurgeEvery is how often the archiver looks for soft-deleted records past retention.
const DefaultPurgeEvery = time.Minute

// ArchiveReconciler moves finished Transcripts out of the cluster into the results store, so
// that the cluster, and the controllers' cache, keep the working set. Each step is idempotent
// and recorded before the next: once a transcript is settled, its record is written
// (versioned by the resourceVersion) and the resource is marked (AnnotationArchivedAt and
// LabelArchived, which the cache selects out: the API lists it from its record from then on);
// After later it is deleted with a resourceVersion precondition. Readers look at the resource
// first and then at the store, so a transcript never vanishes between the two. Whatever
// changes a marked transcript unmarks it first (see workingset.Rejoin), which brings it back into
// the cache and into this cycle.
//
// Soft-deleted transcripts stay in the cluster until the transcript controller purges them;
// archived transcripts soft-deleted through the API are purged from the store by the
// archiver's sweep once Retention has passed.
type ArchiveReconciler struct {
	Client client.Client
	// APIReader reads marked transcripts, which the cache does not hold.
	APIReader client.Reader
	// Namespace is the namespace of the transcripts.
	Namespace string
	// Results is the results store.
	Results *results.Store
	// Blobs is the object store of the transcripts' content, emptied by the purge.
	Blobs *blob.Store
	// After is how long a finished transcript stays in the cluster after its last change;
	// it must be positive (0 disables the archiver: it is not set up).
	After time.Duration
	// RecordAfter is how long a finished transcript stays unchanged before it is recorded
	// and marked (at most After; zero: at once). The mark is a write to the API server for
	// every transcript: waiting leaves a burst of transcripts, or of a person's review
	// decisions (each of which unmarks it again), its writes, while the cache holds the
	// transcripts of RecordAfter only.
	RecordAfter time.Duration
	// Retention is how long a soft-deleted transcript can be restored; zero means DefaultRetention.
	Retention time.Duration
	// DeliveryRetention is how long ended webhook deliveries are kept; events emitted longer
	// ago get no deliveries. Zero means DefaultRetention.
	DeliveryRetention time.Duration
	// PurgeEvery is the period of the purge sweep; zero means DefaultPurgeEvery.
	PurgeEvery time.Duration
	// Workers is the number of transcripts considered at once; zero means DefaultArchiveWorkers.
	Workers int
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
	// Dispatched, when set, brings the transcripts whose deliveries the webhook dispatcher
	// has made (its Archived): it leaves their events unmarked, so no write of it tells.
	Dispatched <-chan event.GenericEvent

	// afterPut and afterMark, when set (by tests only), run after the record was written and
	// after the resource was annotated.
	afterPut, afterMark func(t *tcsv1.Transcript)
}

// +kubebuilder:rbac:groups=tcs.dev,resources=transcripts,verbs=get;list;watch;create;update;patch;delete,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=webhookdeliveries,verbs=get;list;watch,namespace=tcs-system

// Reconcile archives one Transcript once it is finished and quiet for After.
func (r *ArchiveReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	t := &tcsv1.Transcript{}
	if err := r.Client.Get(ctx, req.NamespacedName, t); err != nil {
		if apierrors.IsNotFound(err) {
			// Gone, or marked: the cache holds no marked transcript.
			return r.removeMarked(ctx, req.NamespacedName)
		}
		return ctrl.Result{}, err
	}
	if !t.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if t.Labels[tcsv1.LabelArchived] != "" {
		// Marked, by a cache that does not select marked transcripts out.
		return r.removeMarked(ctx, req.NamespacedName)
	}
	if t.Annotations[tcsv1.AnnotationUnarchived] != "" && t.Status.Phase == "" {
		return ctrl.Result{}, r.restoreStatus(ctx, t)
	}
	if t.Status.DeletedAt != nil {
		return ctrl.Result{}, r.forget(ctx, t)
	}
	if !Settled(t) {
		return ctrl.Result{}, nil
	}
	last, settled, err := r.lastChange(ctx, t)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !settled {
		// The delivery watch brings the transcript back when a delivery ends; the requeue is
		// for deliveries not created yet.
		return ctrl.Result{RequeueAfter: r.After}, nil
	}
	if wait := last.Add(min(r.RecordAfter, r.After)).Sub(r.Clock.Now()); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	// Recorded and marked now; deleted once it has been quiet for After.
	res, err := r.archival(t).mark(ctx, r.Client, t)
	if err != nil || !res.IsZero() {
		return res, err
	}
	return ctrl.Result{RequeueAfter: max(last.Add(r.After).Sub(r.Clock.Now()), time.Second)}, nil
}

// archival is the move of t to the results store.
func (r *ArchiveReconciler) archival(t *tcsv1.Transcript) archival[*tcsv1.Transcript] {
	return archival[*tcsv1.Transcript]{
		what: "transcript " + t.Spec.ID,
		put: func(ctx context.Context, t *tcsv1.Transcript, version int64) error {
			_, err := r.Results.Put(ctx, t, version)
			return err
		},
		now:       r.Clock.Now(),
		finalizer: tcsv1.FinalizerStoredObjects,
		label:     tcsv1.LabelArchived,
		afterPut:  r.afterPut,
		afterMark: r.afterMark,
	}
}

// removeMarked deletes transcript key from the cluster if it is marked and has been quiet for
// After; it reads it from the API server, as the cache does not hold marked transcripts.
func (r *ArchiveReconciler) removeMarked(ctx context.Context, key types.NamespacedName) (ctrl.Result, error) {
	t := &tcsv1.Transcript{}
	if err := r.APIReader.Get(ctx, key, t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if t.Labels[tcsv1.LabelArchived] == "" || !t.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // in the working set (the cache brings it), or leaving
	}
	if t.Status.DeletedAt != nil || !Settled(t) {
		// Changed by a writer that did not unmark it (kubectl, an older tcs): back into the
		// working set, where the controllers see it.
		return ctrl.Result{}, workingset.Rejoin(ctx, r.Client, t)
	}
	if wait := r.untilRemoval(t); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	res, err := r.archival(t).remove(ctx, r.Client, t)
	if err == nil && res.IsZero() {
		log.FromContext(ctx).V(1).Info("archived", "transcript", t.Spec.ID)
	}
	return res, err
}

// untilRemoval returns how long marked obj has still to wait for its deletion: After from its
// mark.
func (r *ArchiveReconciler) untilRemoval(obj metav1.Object) time.Duration {
	at, err := time.Parse(time.RFC3339, obj.GetAnnotations()[tcsv1.AnnotationArchivedAt])
	if err != nil {
		at = time.Time{} // a mark not written by tcs: due now
	}
	return at.Add(r.After).Sub(r.Clock.Now())
}

// RemoveMarked deletes every marked transcript that has been quiet for After, in pages; the
// requeues of the reconciler do it otherwise, and this sweep does it after a restart, which
// loses them. A transcript not due yet is left to the next sweep: it reads only the metadata
// of those.
func (r *ArchiveReconciler) RemoveMarked(ctx context.Context) error {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(tcsv1.GroupVersion.WithKind("TranscriptList"))
	for cont := ""; ; {
		if err := r.APIReader.List(ctx, list, client.InNamespace(r.Namespace), client.HasLabels{tcsv1.LabelArchived},
			client.Limit(500), client.Continue(cont)); err != nil {
			return fmt.Errorf("listing marked transcripts: %w", err)
		}
		for i := range list.Items {
			m := &list.Items[i]
			if r.untilRemoval(m) > 0 {
				continue
			}
			if _, err := r.removeMarked(ctx, types.NamespacedName{Namespace: m.Namespace, Name: m.Name}); err != nil {
				return err
			}
		}
		if cont = list.Continue; cont == "" {
			return nil
		}
	}
}

// restoreStatus gives a transcript recreated from its record the status of the record.
func (r *ArchiveReconciler) restoreStatus(ctx context.Context, t *tcsv1.Transcript) error {
	rec, err := r.Results.Get(ctx, t.Spec.ID, results.GetOptions{IncludeDeleted: true})
	if err != nil {
		return fmt.Errorf("restoring the status of unarchived %s: %w", t.Spec.ID, err)
	}
	patch := statuspatch.New(t, statuspatch.OwnerArchive)
	t.Status = rec.Transcript.Status
	t.Status.DeletedAt = nil
	// Locked: only a transcript still without a status gets the record's.
	if err := patch.Patch(ctx, r.Client, t, statuspatch.Locked); err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("restoring the status of unarchived %s: %w", t.Spec.ID, err)
	}
	return nil
}

// forget drops the record of a soft-deleted transcript still in the cluster: the resource is
// the truth until its purge, and the purge must empty the object store.
func (r *ArchiveReconciler) forget(ctx context.Context, t *tcsv1.Transcript) error {
	if err := r.Results.Delete(ctx, t.Spec.ID); err != nil && !errors.Is(err, results.ErrNotFound) {
		return fmt.Errorf("dropping the record of soft-deleted %s: %w", t.Spec.ID, err)
	}
	if t.Annotations[tcsv1.AnnotationArchivedAt] == "" {
		return nil
	}
	patch := client.MergeFrom(t.DeepCopy())
	delete(t.Annotations, tcsv1.AnnotationArchivedAt)
	if err := r.Client.Patch(ctx, t, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("unmarking soft-deleted %s: %w", t.Spec.ID, err)
	}
	return nil
}

// Settled reports whether nothing of t is in flight: its deterministic pass ended (completed
// or failed), no job is queued or running and no AI pass is queued or running.
func Settled(t *tcsv1.Transcript) bool {
	if t.Status.Phase != tcsv1.PhaseCompleted && t.Status.Phase != tcsv1.PhaseFailed {
		return false
	}
	if t.AIPassBusy() {
		return false
	}
	for i := range t.Status.Jobs {
		if s := t.Status.Jobs[i].State; s == tcsv1.JobQueued || s == tcsv1.JobRunning {
			return false
		}
	}
	return true
}

// lastChange returns the time of t's last change, its deliveries' included, and whether every
// delivery its events call for exists and is in a final state.
func (r *ArchiveReconciler) lastChange(ctx context.Context, t *tcsv1.Transcript) (time.Time, bool, error) {
	last := t.Created().Time
	later := func(ts time.Time) {
		if ts.After(last) {
			last = ts
		}
	}
	if t.Status.CompletedAt != nil {
		later(t.Status.CompletedAt.Time)
	}
	for _, j := range t.Status.Jobs {
		later(j.CreatedAt.Time)
		if j.StartedAt != nil {
			later(j.StartedAt.Time)
		}
		if j.FinishedAt != nil {
			later(j.FinishedAt.Time)
		}
	}
	if p := t.Status.AIPass; p != nil && p.FinishedAt != nil {
		later(p.FinishedAt.Time)
	}
	if len(t.Status.EmittedEvents) == 0 {
		return last, true, nil
	}
	for _, e := range t.Status.EmittedEvents {
		later(e.Time.Time)
	}
	endpoints := &tcsv1.WebhookEndpointList{}
	if err := r.Client.List(ctx, endpoints, client.InNamespace(t.Namespace),
		client.MatchingFields{IndexWebhookEndpointOrganization: t.Spec.Organization}); err != nil {
		return last, false, fmt.Errorf("listing the webhook endpoints of %s: %w", t.Spec.Organization, err)
	}
	for _, e := range t.Status.EmittedEvents {
		if r.Clock.Now().Sub(e.Time.Time) > r.DeliveryRetention {
			continue // its deliveries were never made, or collected
		}
		for i := range endpoints.Items {
			ep := &endpoints.Items[i]
			switch webhook.Receives(ep, e.Type, e.Time.Time) {
			case webhook.NotSubscribed:
				continue
			case webhook.SubscriptionUnknown:
				return last, false, nil
			}
			d := &tcsv1.WebhookDelivery{}
			hash := webhook.DeliveryHash(t.Spec.ID, e.Type, e.Key, ep.Spec.ID)
			name := webhook.DeliveryName(hash)
			err := r.Client.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: name}, d)
			switch {
			case apierrors.IsNotFound(err) && e.Dispatched:
				// Archived, collected, or never due (the endpoint came after the dispatch):
				// the dispatcher makes nothing more for a dispatched event.
				continue
			case apierrors.IsNotFound(err):
				// Archived (it ended archive-after ago, so it moves nothing later), or not
				// made yet.
				_, err := r.Results.GetDelivery(ctx, webhook.DeliveryID(hash))
				if errors.Is(err, results.ErrNotFound) {
					return last, false, nil
				}
				if err != nil {
					return last, false, fmt.Errorf("looking for archived delivery %s: %w", name, err)
				}
				continue
			case err != nil:
				return last, false, fmt.Errorf("reading delivery %s: %w", name, err)
			}
			switch d.Status.State {
			case tcsv1.DeliverySucceeded, tcsv1.DeliveryFailed, tcsv1.DeliverySkipped, tcsv1.DeliveryCanceled:
			default:
				return last, false, nil
			}
			if d.Status.CompletedAt != nil {
				later(d.Status.CompletedAt.Time)
			}
		}
	}
	return last, true, nil
}

// Start runs the purge sweep of soft-deleted archived transcripts and of archived deliveries
// past their retention, and the sweep of marked transcripts, until ctx ends.
func (r *ArchiveReconciler) Start(ctx context.Context) error {
	r.setDefaults()
	var wg sync.WaitGroup
	if r.After > 0 {
		wg.Go(func() {
			// Each reconcile that marks a transcript requeues it for its removal; a restart
			// loses the requeues, and this sweep, from the start on, finds the marked ones.
			_ = runEvery(ctx, max(r.After, removeMarkedEvery), "removing marked transcripts", r.RemoveMarked)
		})
	}
	defer wg.Wait()
	return runEvery(ctx, r.PurgeEvery, "purging archived transcripts and webhook deliveries", func(ctx context.Context) error {
		return errors.Join(r.Purge(ctx), r.PurgeDeliveries(ctx))
	})
}

// removeMarkedEvery is the least period of the sweep of marked transcripts, which lists them
// all.
const removeMarkedEvery = 10 * time.Minute

// NeedLeaderElection makes the purge sweep run on the leader only.
func (r *ArchiveReconciler) NeedLeaderElection() bool { return true }

// Purge removes the content, archived deliveries and records of archived transcripts
// soft-deleted longer than Retention ago. The objects go first, then the record, so a crash
// leaves the record to purge again.
func (r *ArchiveReconciler) Purge(ctx context.Context) error {
	for {
		recs, err := r.Results.DeletedBefore(ctx, r.Clock.Now().Add(-r.Retention), 100)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			keys := pipeline.KeysFor(rec.Organization, rec.ID)
			for _, key := range keys.All() {
				if err := r.Blobs.Delete(ctx, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
					return fmt.Errorf("purging the content of %s: %w", rec.ID, err)
				}
			}
			if err := r.Blobs.DeletePrefix(ctx, keys.ReviewPrefix()); err != nil {
				return fmt.Errorf("purging the review of %s: %w", rec.ID, err)
			}
			if err := removeArchivedDeliveries(ctx, r.Results, r.Blobs, rec.ID); err != nil {
				return err
			}
			if err := r.Results.Delete(ctx, rec.ID); err != nil && !errors.Is(err, results.ErrNotFound) {
				return err
			}
		}
		if len(recs) < 100 {
			return nil
		}
	}
}

// setDefaults gives the zero fields their defaults. The purge sweep alone (an archiver
// without After) is added to the manager as a plain runnable, so Start calls it too.
func (r *ArchiveReconciler) setDefaults() {
	orDefault(&r.Retention, DefaultRetention)
	orDefault(&r.DeliveryRetention, DefaultRetention)
	orDefault(&r.PurgeEvery, DefaultPurgeEvery)
	orDefault(&r.Workers, DefaultArchiveWorkers)
	orRealClock(&r.Clock)
}

// resourceVersion returns o's resourceVersion as the record's version: etcd's revisions grow
// across objects, so an object recreated from its record gets higher versions.
func resourceVersion(o client.Object) (int64, error) {
	var v int64
	if _, err := fmt.Sscan(o.GetResourceVersion(), &v); err != nil {
		return 0, fmt.Errorf("the resourceVersion %q of %s is not a number: %w", o.GetResourceVersion(), o.GetName(), err)
	}
	return v, nil
}

// SetupWithManager sets the defaults and registers the reconciler and its purge sweep with mgr; the delivery watch
// brings a transcript back when one of its deliveries changes. It needs the
// IndexWebhookEndpointOrganization index, which the webhook dispatch controller sets up.
func (r *ArchiveReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.After <= 0 {
		return errors.New("the archiver needs a positive archive-after")
	}
	r.setDefaults()
	if err := mgr.Add(r); err != nil {
		return fmt.Errorf("adding the purge sweep: %w", err)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		// A transcript leaves the cache when it is marked or deleted: the mark's requeue (or,
		// after a restart, the sweep of marked transcripts) brings it back when it is due, and
		// a deleted one needs nothing, so the leaving is not worth a read at the API server.
		For(&tcsv1.Transcript{}, builder.WithPredicates(predicate.Funcs{DeleteFunc: func(event.DeleteEvent) bool { return false }})).
		Named("archive").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Workers}).
		Watches(&tcsv1.WebhookDelivery{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
			d, ok := obj.(*tcsv1.WebhookDelivery)
			if !ok || d.Spec.TranscriptID == "" {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: d.Namespace, Name: tcsv1.TranscriptName(d.Spec.TranscriptID)}}}
		}))
	if r.Dispatched != nil {
		b = b.WatchesRawSource(source.Channel(r.Dispatched, &handler.EnqueueRequestForObject{}))
	}
	return b.Complete(r)
}
