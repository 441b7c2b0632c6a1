package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/results"
)

// IndexWebhookEndpointOrganization is the field index of WebhookEndpoints by organization.
const IndexWebhookEndpointOrganization = "spec.organization"

// WebhookDispatchReconciler turns the events a Transcript emitted into WebhookDeliveries, one
// per event and subscribed endpoint of the transcript's organization, each with its payload
// written to the object store first. Once an event's deliveries all exist, it marks the event
// dispatched and drops its snapshot of the transcript, so that the status stays small and the
// event is never looked at again.
type WebhookDispatchReconciler struct {
	Client client.Client
	// Store holds the transcripts' content and the deliveries' payloads.
	Store *blob.Store
	// Results is the results store, where archived deliveries are; nil means none are.
	Results *results.Store
	// Retention is how long ended deliveries are kept (the WebhookDeliveryReconciler's);
	// zero means DefaultRetention. Events emitted longer ago get no deliveries, so that
	// deliveries removed after Retention are never created again.
	Retention time.Duration
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
	// Metrics counts the deliveries skipped for a paused endpoint; nil counts none.
	Metrics *metrics.Metrics
	// Inline, when set and archiving deliveries, is the delivery controller with whose client,
	// secrets and schedule the dispatcher makes the first attempt of a delivery itself (see
	// sendInline): one delivered at it is recorded straight into the results store, ended and
	// archived, and never is a resource; one that failed is made a resource with its attempt,
	// for Inline to retry. Nil makes every delivery a resource, for Inline to send.
	Inline *WebhookDeliveryReconciler
	// Archived, when set, is the archiver's queue (see ArchiveReconciler.Dispatched). The
	// events of a transcript whose deliveries all exist are then not marked dispatched: the
	// archiver takes it out of the working set next, and its record keeps no snapshot, so the
	// mark would be a write for nothing on every transcript. A transcript with a delivery
	// recorded at its first attempt, which changes no resource the archiver watches, is sent
	// to the queue instead. Nil marks the events (archiving off: the transcript stays, and the
	// mark keeps its status small).
	Archived chan<- event.GenericEvent
	// Workers is DefaultDispatchWorkers when zero.
	Workers int
	// InlineSends is DefaultInlineSends when zero.
	InlineSends int

	// slots bounds the inline attempts made at once; inline is what the reconciles share.
	slots  chan struct{}
	inline *inlineState
	// afterSend, when set (by tests only), runs after an inline attempt, before its outcome
	// is recorded.
	afterSend func(id string)
}

// +kubebuilder:rbac:groups=tcs.dev,resources=webhookendpoints,verbs=get;list;watch,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=webhookdeliveries,verbs=get;list;watch;create;patch;delete,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=webhookdeliveries/status,verbs=get;patch,namespace=tcs-system

// Reconcile creates the deliveries of one Transcript's emitted events that do not exist yet.
func (r *WebhookDispatchReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	t := &tcsv1.Transcript{}
	if err := r.Client.Get(ctx, req.NamespacedName, t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// A soft-deleted transcript's events are still delivered: those from before the delete, and
	// the failures with which the delete ended its work in flight. A deleted one's are not.
	if !t.DeletionTimestamp.IsZero() || !slices.ContainsFunc(t.Status.EmittedEvents, func(e tcsv1.EmittedEvent) bool { return !e.Dispatched }) {
		return ctrl.Result{}, nil
	}
	endpoints := &tcsv1.WebhookEndpointList{}
	if err := r.Client.List(ctx, endpoints, client.InNamespace(t.Namespace),
		client.MatchingFields{IndexWebhookEndpointOrganization: t.Spec.Organization}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the webhook endpoints of %s: %w", t.Spec.Organization, err)
	}
	// Endpoints in a stable order, so deliveries are created the same way every time.
	slices.SortFunc(endpoints.Items, func(a, b tcsv1.WebhookEndpoint) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	// An event's body is rendered only for a delivery that still needs its payload, once per
	// event, and each content read once.
	contents := map[string]*string{}
	bodies := map[int]apiview.Transcript{}
	body := func(seq int) (apiview.Transcript, error) {
		if v, ok := bodies[seq]; ok {
			return v, nil
		}
		shown := t.AsOf(t.EventState(seq))
		content, ok := contents[shown.ShownContentRef()]
		if !ok {
			var err error
			if content, err = r.content(ctx, shown); err != nil {
				return apiview.Transcript{}, err
			}
			contents[shown.ShownContentRef()] = content
		}
		bodies[seq] = apiview.NewTranscript(shown, content)
		return bodies[seq], nil
	}
	var result ctrl.Result
	run := newDispatchRun()
	dispatched := make([]bool, len(t.Status.EmittedEvents))
	for seq, emitted := range t.Status.EmittedEvents {
		if emitted.Dispatched {
			continue
		}
		// An event older than the history's retention was delivered and collected already:
		// it is never sent again.
		if r.Clock.Now().Sub(emitted.Time.Time) > r.Retention {
			dispatched[seq] = true
			continue
		}
		event := emitted.Type
		done := true
		for i := range endpoints.Items {
			ep := &endpoints.Items[i]
			switch webhook.Receives(ep, event, emitted.Time.Time) {
			case webhook.NotSubscribed:
				continue
			case webhook.SubscriptionUnknown:
				// The endpoint controller records since when a moment from now.
				result.RequeueAfter = time.Second
				done = false
				continue
			}
			if err := r.deliver(ctx, t, seq, emitted, ep, func() (apiview.Transcript, error) { return body(seq) }, run); err != nil {
				return ctrl.Result{}, err
			}
		}
		dispatched[seq] = done
	}
	// The marks wait until nothing of the transcript is in flight, so that they do not race
	// the reconcilers' status writes.
	if !slices.Contains(dispatched, true) || !Settled(t) {
		return result, nil
	}
	if r.Archived != nil {
		if !run.recorded {
			// The deliveries made are resources, whose changes the archiver watches, or
			// there were none to make.
			return result, nil
		}
		select {
		case r.Archived <- event.GenericEvent{Object: t}:
			return result, nil
		case <-ctx.Done():
			return ctrl.Result{}, ctx.Err()
		}
	}
	return r.markDispatched(ctx, t, dispatched, result)
}

// markDispatched marks the events of t whose deliveries all exist as dispatched, dropping
// their snapshots. The write is conditional on t's resourceVersion, so no event emitted
// meanwhile is lost: after a conflict the next reconcile finds the deliveries and marks them
// again.
func (r *WebhookDispatchReconciler) markDispatched(ctx context.Context, t *tcsv1.Transcript, dispatched []bool, result ctrl.Result) (ctrl.Result, error) {
	patch := statuspatch.New(t, statuspatch.OwnerWebhook)
	for seq, done := range dispatched {
		if done {
			t.MarkDispatched(seq)
		}
	}
	if err := patch.Patch(ctx, r.Client, t, statuspatch.Locked); err != nil {
		return afterWrite(client.IgnoreNotFound(err), "marking the events of %s dispatched", t.Spec.ID)
	}
	return result, nil
}

// content returns the corrected text of a completed transcript, as the API shows it (the
// reviewed text while a review is in force).
func (r *WebhookDispatchReconciler) content(ctx context.Context, t *tcsv1.Transcript) (*string, error) {
	if t.Status.Phase != tcsv1.PhaseCompleted || t.ShownContentRef() == "" {
		return nil, nil
	}
	data, err := r.Store.Get(ctx, t.ShownContentRef())
	if errors.Is(err, blob.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the content of %s: %w", t.Spec.ID, err)
	}
	s := string(data)
	return &s, nil
}

// deliver makes the delivery of the event number seq of t to ep unless it exists, in the
// cluster or archived in the results store; body renders the transcript the payload shows.
// Its first attempt is made here when it may be (see sendInline): delivered, it is recorded
// in the results store; else it is created with the attempt, or without one, for the delivery
// controller to send. The event, not yet marked dispatched, is the intent recorded before the
// attempt: a crash before the record sends it again, under the same delivery id.
func (r *WebhookDispatchReconciler) deliver(ctx context.Context, t *tcsv1.Transcript, seq int, emitted tcsv1.EmittedEvent, ep *tcsv1.WebhookEndpoint, body func() (apiview.Transcript, error), run *dispatchRun) error {
	event := emitted.Type
	hash := webhook.DeliveryHash(t.Spec.ID, event, emitted.Key, ep.Spec.ID)
	name, id := webhook.DeliveryName(hash), webhook.DeliveryID(hash)
	// Created a moment ago, maybe not in the cache yet.
	if r.inline.created(name, r.Clock.Now()) {
		return nil
	}
	existing := &tcsv1.WebhookDelivery{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: name}, existing)
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading delivery %s: %w", name, err)
	}
	// The archiver writes the record before it deletes the resource: a delivery is always
	// found in one of the two places, and an archived one is never made again.
	if r.Results != nil {
		_, err := r.Results.GetDelivery(ctx, id)
		if err == nil {
			return nil
		}
		if !errors.Is(err, results.ErrNotFound) {
			return fmt.Errorf("looking for archived delivery %s: %w", id, err)
		}
	}

	key := webhook.PayloadKey(t.Spec.Organization, id)
	// A payload written by an earlier, interrupted attempt is kept: it shows the same state (or,
	// for an event recorded without one, a state closer to the event's time).
	exists, err := r.Store.Exists(ctx, key)
	if err != nil {
		return fmt.Errorf("checking the payload of %s: %w", id, err)
	}
	var payload []byte
	if !exists {
		shown, err := body()
		if err != nil {
			return err
		}
		if payload, err = webhook.TranscriptPayload(shown, event, id); err != nil {
			return err
		}
		if err := r.Store.Put(ctx, key, payload, "application/json"); err != nil {
			return fmt.Errorf("writing the payload of %s: %w", id, err)
		}
	}

	d := &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: t.Namespace,
			Labels: map[string]string{tcsv1.LabelOrganization: t.Spec.Organization}},
		Spec: tcsv1.WebhookDeliverySpec{ID: id, Organization: t.Spec.Organization, Endpoint: ep.Name,
			Event: event, TranscriptID: t.Spec.ID, Sequence: seq, PayloadRef: key},
	}
	made, sent, err := r.sendInline(ctx, d, ep, payload, run)
	if err != nil {
		return err
	}
	switch {
	case sent && made.Error == "":
		err := r.recordInline(ctx, d, made)
		if err == nil {
			run.recorded = true
			return nil
		}
		// Sending it again until the results store answers would deliver it many times:
		// the resource records the delivered attempt instead, and is archived later.
		log.FromContext(ctx).Info("recording a delivery made at its first attempt in the cluster", "delivery", id, "error", err.Error())
		d.CreationTimestamp, d.Status = metav1.Time{}, tcsv1.WebhookDeliveryStatus{}
		fallthrough
	case sent:
		if err := withFirstAttempt(d, made); err != nil {
			return err
		}
	default:
		// The later deliveries of the stream wait for this one's first attempt, which the
		// delivery controller makes.
		run.queued[streamKey(d)] = true
	}
	if err := r.Client.Create(ctx, d); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return fmt.Errorf("creating delivery %s: %w", name, err)
	}
	r.inline.add(d, r.Clock.Now())
	if sent || !ep.Spec.Paused {
		// A delivery without a state is pending: the delivery controller is its only writer,
		// so no attempt can be lost to a conflicting write.
		return nil
	}
	now := metav1.NewTime(r.Clock.Now())
	patch := statuspatch.New(d, statuspatch.OwnerWebhook)
	d.Status.State, d.Status.CompletedAt = tcsv1.DeliverySkipped, &now
	// The delivery controller skips a delivery for a paused endpoint too, so a failure here
	// loses nothing.
	if err := patch.Patch(ctx, r.Client, d, statuspatch.Locked); err != nil {
		if apierrors.IsConflict(err) {
			return nil
		}
		return fmt.Errorf("setting the state of delivery %s: %w", name, err)
	}
	r.Metrics.WebhookEnded(metrics.DeliverySkipped)
	return nil
}

// setDefaults gives the zero fields their defaults.
func (r *WebhookDispatchReconciler) setDefaults() {
	orDefault(&r.Retention, DefaultRetention)
	orDefault(&r.Workers, DefaultDispatchWorkers)
	orDefault(&r.InlineSends, DefaultInlineSends)
	orRealClock(&r.Clock)
	if r.Inline != nil {
		r.Inline.setDefaults()
	}
	if r.slots == nil {
		r.slots, r.inline = make(chan struct{}, r.InlineSends), newInlineState()
	}
}

// SetupWithManager sets the defaults and registers the reconciler, and the index of endpoints
// by organization, with mgr.
func (r *WebhookDispatchReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.setDefaults()
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &tcsv1.WebhookEndpoint{},
		IndexWebhookEndpointOrganization, func(o client.Object) []string {
			return []string{o.(*tcsv1.WebhookEndpoint).Spec.Organization}
		}); err != nil {
		return fmt.Errorf("indexing webhook endpoints by organization: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.Transcript{}).
		Named("webhook-dispatch").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Workers}).
		Complete(r)
}
