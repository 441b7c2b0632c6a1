package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/netpolicy"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/platform/sources"
)

// IndexWebhookDeliveryStream is the field index of WebhookDeliveries by transcript id and
// endpoint name ("<transcriptID>/<endpoint>"): the deliveries that are sent in sequence order.
const IndexWebhookDeliveryStream = "spec.stream"

// IndexWebhookDeliveryEndpoint is the field index of WebhookDeliveries by endpoint name.
const IndexWebhookDeliveryEndpoint = "spec.endpoint"

// DeliveryTimeout is the time limit of one delivery attempt.
const DeliveryTimeout = 10 * time.Second

// DefaultDeliveryWorkers is the number of deliveries reconciled at once by default.
const DefaultDeliveryWorkers = 32

// DefaultBlockedRequeue is how soon a delivery waiting for an earlier one is looked at again.
const DefaultBlockedRequeue = time.Second

// recordRetry is how often the record of an attempt is tried at once against conflicting
// writes, before its reconcile requeues.
var recordRetry = wait.Backoff{Steps: 6}

// previousSecretWindow is how long after a rotation deliveries are signed with the previous
// secret too.
const previousSecretWindow = 24 * time.Hour

// WebhookDeliveryReconciler sends WebhookDeliveries: signed, in sequence order per transcript
// and endpoint, retried on the schedule of webhook.RetryDelays. An ended delivery moves
// to the results store ArchiveAfter after it ended (the record is written, the resource marked
// with AnnotationArchivedAt, then deleted, each step idempotent); without archiving it is
// removed with its payload once Retention has passed. A delivery recreated from its record to
// be replayed gets the record's status back before it is sent.
type WebhookDeliveryReconciler struct {
	// Client reads deliveries and endpoints through the cache and writes deliveries.
	Client client.Client
	// Reader reads Secrets and re-reads a delivery before it is sent; nil means Client.
	// It should not be a cache: the manager's cache may hold only some Secrets.
	Reader client.Reader
	// SecretVersions, when set, reads the metadata of Secrets from a cache of every Secret's
	// (NewSecretVersions): a signing Secret is then read with Reader only when its
	// resourceVersion changed. Nil reads it at every attempt.
	SecretVersions client.Reader
	// HTTP is the SSRF-safe outbound client (sources.NewClient); redirects are never followed.
	HTTP *http.Client
	// AllowCIDRs is the outbound allow-list; an http URL is accepted only for an IP in it.
	AllowCIDRs []netip.Prefix
	// Store holds the payloads.
	Store *blob.Store
	// RetryDelays are the delays before each retry; nil means webhook.RetryDelays.
	RetryDelays []time.Duration
	// Retention is how long an ended delivery is kept; zero means DefaultRetention.
	Retention time.Duration
	// Results is the results store of archived deliveries; nil archives nothing.
	Results *results.Store
	// ArchiveAfter is how long an ended delivery stays in the cluster before it moves to
	// Results; zero (or at least Retention) keeps it in the cluster until Retention passed.
	ArchiveAfter time.Duration
	// BlockedRequeue is DefaultBlockedRequeue when zero.
	BlockedRequeue time.Duration
	// Workers is DefaultDeliveryWorkers when zero.
	Workers int
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
	// Recorder records Events of failing deliveries; nil records none.
	Recorder events.EventRecorder
	// Metrics records the deliveries' metrics; nil records none.
	Metrics *metrics.Metrics

	// afterPut and afterMark, when set (by tests only), run after the record was written and
	// after the resource was marked archived.
	afterPut, afterMark func(d *tcsv1.WebhookDelivery)
	// signing holds the signing Secrets read, by the resourceVersion read.
	signing secretCache
}

// +kubebuilder:rbac:groups=tcs.dev,resources=webhookendpoints,verbs=get;list;watch,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=webhookdeliveries,verbs=get;list;watch;create;patch;delete,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=webhookdeliveries/status,verbs=get;patch,namespace=tcs-system

// Reconcile brings one WebhookDelivery a step further; every status change is one update.
func (r *WebhookDeliveryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	d := &tcsv1.WebhookDelivery{}
	if err := r.Client.Get(ctx, req.NamespacedName, d); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !d.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	now := r.Clock.Now()
	switch d.Status.State {
	case "":
		if at, ok := d.Unarchived(); ok && r.Results != nil {
			return r.restore(ctx, d, at)
		}
		if made, ok := firstAttempt(d); ok {
			// Recorded whatever the endpoint is now: the attempt was made.
			return r.recordAttempt(ctx, d, made, true)
		}
	case tcsv1.DeliveryPending:
	default:
		return r.collect(ctx, d, now)
	}

	ep := &tcsv1.WebhookEndpoint{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Spec.Endpoint}, ep); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("reading endpoint %s: %w", d.Spec.Endpoint, err)
		}
		return r.finish(ctx, d, tcsv1.DeliveryCanceled, now)
	}
	if !ep.DeletionTimestamp.IsZero() {
		return r.finish(ctx, d, tcsv1.DeliveryCanceled, now)
	}
	if ep.Spec.Paused {
		return r.finish(ctx, d, tcsv1.DeliverySkipped, now)
	}
	if next := d.Status.NextAttemptAt; next != nil && next.After(now) {
		return ctrl.Result{RequeueAfter: next.Sub(now)}, nil
	}
	blocked, err := r.blocked(ctx, d)
	if err != nil {
		return ctrl.Result{}, err
	}
	if blocked {
		return ctrl.Result{RequeueAfter: r.BlockedRequeue}, nil
	}

	// The cache may lag behind the last status update: send only what the API server says is due.
	live := &tcsv1.WebhookDelivery{}
	if err := r.Reader.Get(ctx, req.NamespacedName, live); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if live.ResourceVersion != d.ResourceVersion {
		return ctrl.Result{RequeueAfter: r.BlockedRequeue}, nil
	}
	return r.send(ctx, d, ep)
}

// restore gives a delivery recreated from its archived record, to be replayed at at, the
// record's status with the replay. Without a record (purged meanwhile) it is sent as a new
// delivery.
func (r *WebhookDeliveryReconciler) restore(ctx context.Context, d *tcsv1.WebhookDelivery, at time.Time) (ctrl.Result, error) {
	patch := statuspatch.New(d, statuspatch.OwnerWebhook)
	rec, err := r.Results.GetDelivery(ctx, d.Spec.ID)
	if errors.Is(err, results.ErrNotFound) {
		d.Replay(at)
		return r.update(ctx, patch, d)
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("restoring the status of unarchived %s: %w", d.Spec.ID, err)
	}
	d.Status = rec.Delivery.Status
	d.Replay(at)
	return r.update(ctx, patch, d)
}

// collect moves an ended delivery to the results store once ArchiveAfter has passed after it
// ended or, without archiving, removes it and its payload once Retention has.
func (r *WebhookDeliveryReconciler) collect(ctx context.Context, d *tcsv1.WebhookDelivery, now time.Time) (ctrl.Result, error) {
	ended := d.CreationTimestamp.Time
	if d.Status.CompletedAt != nil {
		ended = d.Status.CompletedAt.Time
	}
	if r.archiving() {
		if wait := ended.Add(r.ArchiveAfter).Sub(now); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
		return r.archive(ctx, d)
	}
	if wait := ended.Add(r.Retention).Sub(now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	if d.Spec.PayloadRef != "" {
		if err := r.Store.Delete(ctx, d.Spec.PayloadRef); err != nil && !errors.Is(err, blob.ErrNotFound) {
			return ctrl.Result{}, fmt.Errorf("deleting the payload of %s: %w", d.Spec.ID, err)
		}
	}
	if err := r.Client.Delete(ctx, d, client.Preconditions{UID: &d.UID}); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("deleting delivery %s: %w", d.Name, err)
	}
	return ctrl.Result{}, nil
}

// archive moves d to the results store (see archival.run). The payload stays in the object
// store until the record's retention purge.
func (r *WebhookDeliveryReconciler) archive(ctx context.Context, d *tcsv1.WebhookDelivery) (ctrl.Result, error) {
	return archival[*tcsv1.WebhookDelivery]{
		what: "delivery " + d.Spec.ID,
		put: func(ctx context.Context, d *tcsv1.WebhookDelivery, version int64) error {
			_, err := r.Results.PutDelivery(ctx, d, version)
			return err
		},
		now:       r.Clock.Now(),
		afterPut:  r.afterPut,
		afterMark: r.afterMark,
	}.run(ctx, r.Client, d)
}

// archiving reports whether ended deliveries move to the results store before their
// retention ends.
func (r *WebhookDeliveryReconciler) archiving() bool {
	return r.Results != nil && r.ArchiveAfter > 0 && r.ArchiveAfter < r.Retention
}

// finish moves d to the final state without an attempt.
func (r *WebhookDeliveryReconciler) finish(ctx context.Context, d *tcsv1.WebhookDelivery, state tcsv1.DeliveryState, now time.Time) (ctrl.Result, error) {
	t := metav1.NewTime(now)
	patch := statuspatch.New(d, statuspatch.OwnerWebhook)
	d.Status.State, d.Status.CompletedAt, d.Status.NextAttemptAt = state, &t, nil
	written := d.ResourceVersion
	res, err := r.update(ctx, patch, d)
	if err == nil && d.ResourceVersion != written {
		r.announce(ctx, d, nil)
	}
	return res, err
}

// blocked reports whether an earlier delivery of the same transcript to the same endpoint has
// still to make its first attempt of its current round.
func (r *WebhookDeliveryReconciler) blocked(ctx context.Context, d *tcsv1.WebhookDelivery) (bool, error) {
	return earlierWaiting(ctx, r.Client, d, nil)
}

// earlierWaiting is the ordering rule of a stream (one transcript, one endpoint): it reports
// whether a delivery of d's stream with a smaller sequence, among those the cache holds and
// recent (the dispatcher's, not in the cache yet), has still to make the first attempt of its
// current round.
func earlierWaiting(ctx context.Context, c client.Reader, d *tcsv1.WebhookDelivery, recent []*tcsv1.WebhookDelivery) (bool, error) {
	if d.Spec.Sequence == 0 {
		return false, nil
	}
	list := &tcsv1.WebhookDeliveryList{}
	if err := c.List(ctx, list, client.InNamespace(d.Namespace),
		client.MatchingFields{IndexWebhookDeliveryStream: streamKey(d)}); err != nil {
		return false, fmt.Errorf("listing the deliveries before %s: %w", d.Name, err)
	}
	earlier := recent
	for i := range list.Items {
		earlier = append(earlier, &list.Items[i])
	}
	for _, o := range earlier {
		if o.Spec.Sequence < d.Spec.Sequence && waitsForFirstAttempt(o) {
			return true, nil
		}
	}
	return false, nil
}

// waitsForFirstAttempt reports whether d has still to make the first attempt of its current
// round, holding back the later deliveries of its stream. One whose first attempt the
// dispatcher made has made it, even before its status records it.
func waitsForFirstAttempt(d *tcsv1.WebhookDelivery) bool {
	if _, ok := firstAttempt(d); ok {
		return false
	}
	return (d.Status.State == "" || d.Status.State == tcsv1.DeliveryPending) && len(roundAttempts(d)) == 0
}

// send makes one attempt and records it: succeeded, a retry scheduled, or failed.
func (r *WebhookDeliveryReconciler) send(ctx context.Context, d *tcsv1.WebhookDelivery, ep *tcsv1.WebhookEndpoint) (ctrl.Result, error) {
	body, err := r.Store.Get(ctx, d.Spec.PayloadRef)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading the payload of %s: %w", d.Spec.ID, err)
	}
	current, previous, err := r.secrets(ctx, ep)
	if err != nil {
		return ctrl.Result{}, err
	}
	made := r.attempt(ctx, ep, d.Spec.Event, d.Spec.ID, current, previous, body)
	return r.recordAttempt(ctx, d, made, false)
}

// madeAttempt is an attempt made, when it ended, and whether its failure is final (the
// endpoint's URL is refused, which no retry changes).
type madeAttempt struct {
	tcsv1.DeliveryAttempt
	End       time.Time `json:"end"`
	Permanent bool      `json:"permanent,omitempty"`
}

// attempt makes one attempt to deliver body, as the delivery id of event, to ep, signed with
// current and previous.
func (r *WebhookDeliveryReconciler) attempt(ctx context.Context, ep *tcsv1.WebhookEndpoint, event, id, current, previous string, body []byte) madeAttempt {
	start := r.Clock.Now()
	made := madeAttempt{DeliveryAttempt: tcsv1.DeliveryAttempt{Time: metav1.NewTime(start)}}
	if msg := r.checkURL(ep.Spec.URL); msg != "" {
		made.Error, made.Permanent = msg, true
	} else {
		made.StatusCode, made.Response, made.Error = r.post(ctx, ep.Spec.URL, webhook.Headers(event, id, current, previous, body, start), body)
	}
	made.End = r.Clock.Now()
	made.DurationMillis = made.End.Sub(start).Milliseconds()
	return made
}

// record adds the attempt made to d's status and moves d on: succeeded, a retry scheduled,
// or failed. It returns the delay before the retry.
func (r *WebhookDeliveryReconciler) record(d *tcsv1.WebhookDelivery, made madeAttempt) time.Duration {
	d.Status.Attempts = append(d.Status.Attempts, made.DeliveryAttempt)
	ended := metav1.NewTime(made.End)
	if made.Error == "" {
		d.Status.State, d.Status.NextAttemptAt, d.Status.CompletedAt = tcsv1.DeliverySucceeded, nil, &ended
		return 0
	}
	var delay time.Duration
	var retry bool
	if !made.Permanent {
		delay, retry = webhook.NextRetry(r.RetryDelays, len(roundAttempts(d)))
	}
	if !retry {
		d.Status.State, d.Status.NextAttemptAt, d.Status.CompletedAt = tcsv1.DeliveryFailed, nil, &ended
		return 0
	}
	next := metav1.NewTime(made.End.Add(delay))
	d.Status.State, d.Status.NextAttemptAt, d.Status.CompletedAt = tcsv1.DeliveryPending, &next, nil
	return delay
}

// recordAttempt records the attempt made on d, requeuing it for its retry. first says it is
// the dispatcher's first attempt, which is recorded only while d's status is empty.
func (r *WebhookDeliveryReconciler) recordAttempt(ctx context.Context, d *tcsv1.WebhookDelivery, made madeAttempt, first bool) (ctrl.Result, error) {
	var delay time.Duration
	// The request was made: a conflicting write (a replay, say) must not lose its record, or
	// the delivery would be sent again as if it had not been. Locked: the state recorded
	// follows from the attempts read.
	written, err := statuspatch.Retry(ctx, r.Client, r.Reader, recordRetry, d, statuspatch.OwnerWebhook, func() bool {
		if first && d.Status.State != "" {
			return false // recorded already, or replayed meanwhile
		}
		delay = r.record(d, made)
		return true
	}, statuspatch.Locked)
	if err != nil {
		return afterWrite(client.IgnoreNotFound(err), "recording an attempt of %s", d.Name)
	}
	if !written {
		return ctrl.Result{}, nil
	}
	r.announce(ctx, d, &made.DeliveryAttempt)
	if d.Status.NextAttemptAt == nil {
		return ctrl.Result{}, nil
	}
	// A first attempt the dispatcher made is recorded some time after it ended.
	return ctrl.Result{RequeueAfter: max(time.Millisecond, made.End.Add(delay).Sub(r.Clock.Now()))}, nil
}

// firstAttempt returns the attempt the dispatcher made of d before it created it, which its
// AnnotationFirstAttempt holds, while d's status has not recorded it.
func firstAttempt(d *tcsv1.WebhookDelivery) (madeAttempt, bool) {
	v, ok := d.Annotations[tcsv1.AnnotationFirstAttempt]
	if !ok || d.Status.State != "" {
		return madeAttempt{}, false
	}
	var made madeAttempt
	if err := json.Unmarshal([]byte(v), &made); err != nil || made.Time.IsZero() {
		return madeAttempt{}, false
	}
	return made, true
}

// drainLimit is how much of an answer's body is read at most, so that its connection can be
// reused; only the start of it is kept (tcsv1.NewDeliveryResponse).
const drainLimit = 64 << 10

// post sends one attempt and returns the status code, what is kept of the answer (nil when
// there was none) and why it failed ("" when it did not).
// Why is what the organization's members read (the dashboard, the delivery's status, its
// Events): a failed request is described by sources.PublicRequestMessage, naming at most the
// endpoint's host, and its whole error, which may name the addresses the host resolved to, goes
// only to the service's log.
func (r *WebhookDeliveryReconciler) post(ctx context.Context, rawURL string, h http.Header, body []byte) (int, *tcsv1.DeliveryResponse, string) {
	ctx, cancel := context.WithTimeout(ctx, DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		log.FromContext(ctx).Info("building a webhook request failed", "error", err.Error())
		return 0, nil, "the endpoint URL is not valid"
	}
	req.Header = h
	c := *r.HTTP
	c.Timeout = DeliveryTimeout
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		log.FromContext(ctx).Info("a webhook attempt failed", "error", err.Error())
		return 0, nil, sources.PublicRequestMessage(rawURL, err)
	}
	defer resp.Body.Close()
	head := make([]byte, tcsv1.MaxResponseBodyBytes+1)
	n, _ := io.ReadFull(resp.Body, head)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit-int64(n)))
	answer := tcsv1.NewDeliveryResponse(resp.Header, head[:n], n > tcsv1.MaxResponseBodyBytes)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, answer, "the endpoint answered " + strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	}
	return resp.StatusCode, answer, ""
}

// checkURL returns why deliveries to raw cannot be made, or "" if they can: netpolicy's check
// of webhook URLs, again at every send as the allow-list may have changed; the outbound client
// checks the addresses the host resolves to when it connects.
func (r *WebhookDeliveryReconciler) checkURL(raw string) string {
	if reason := netpolicy.CheckURL(raw, netpolicy.Webhook, r.AllowCIDRs); reason != "" {
		return "the endpoint URL is refused: " + reason
	}
	return ""
}

// update writes the change of d's status since patch was taken; a conflict requeues. The
// patch is locked: the state it moves from was read, and a replay may have changed it since.
func (r *WebhookDeliveryReconciler) update(ctx context.Context, patch *statuspatch.Helper, d *tcsv1.WebhookDelivery) (ctrl.Result, error) {
	return afterWrite(client.IgnoreNotFound(patch.Patch(ctx, r.Client, d, statuspatch.Locked)), "updating the status of %s", d.Name)
}

// roundAttempts returns the attempts of d's current round: those made at or after the last
// replay.
func roundAttempts(d *tcsv1.WebhookDelivery) []tcsv1.DeliveryAttempt {
	if d.Status.ReplayedAt == nil {
		return d.Status.Attempts
	}
	for i, a := range d.Status.Attempts {
		if !a.Time.Before(d.Status.ReplayedAt) {
			return d.Status.Attempts[i:]
		}
	}
	return nil
}

func streamKey(d *tcsv1.WebhookDelivery) string { return d.Spec.TranscriptID + "/" + d.Spec.Endpoint }

// setDefaults gives the zero fields their defaults.
func (r *WebhookDeliveryReconciler) setDefaults() {
	if r.Reader == nil {
		r.Reader = r.Client
	}
	if r.RetryDelays == nil {
		r.RetryDelays = webhook.RetryDelays[:]
	}
	orDefault(&r.Retention, DefaultRetention)
	orDefault(&r.BlockedRequeue, DefaultBlockedRequeue)
	orDefault(&r.Workers, DefaultDeliveryWorkers)
	orRealClock(&r.Clock)
}

// SetupWithManager sets the defaults and registers the reconciler, and the index of deliveries
// by transcript and endpoint, with mgr.
func (r *WebhookDeliveryReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.setDefaults()
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &tcsv1.WebhookDelivery{},
		IndexWebhookDeliveryStream, func(o client.Object) []string {
			return []string{streamKey(o.(*tcsv1.WebhookDelivery))}
		}); err != nil {
		return fmt.Errorf("indexing webhook deliveries: %w", err)
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &tcsv1.WebhookDelivery{},
		IndexWebhookDeliveryEndpoint, func(o client.Object) []string {
			return []string{o.(*tcsv1.WebhookDelivery).Spec.Endpoint}
		}); err != nil {
		return fmt.Errorf("indexing webhook deliveries by endpoint: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.WebhookDelivery{}).
		Named("webhook-delivery").
		Watches(&tcsv1.WebhookEndpoint{}, handler.EnqueueRequestsFromMapFunc(r.pendingOf)).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Workers}).
		Complete(r)
}

// pendingOf returns the pending deliveries of an endpoint, so that pausing or deleting it
// takes effect on deliveries waiting for a retry.
func (r *WebhookDeliveryReconciler) pendingOf(ctx context.Context, o client.Object) []reconcile.Request {
	list := &tcsv1.WebhookDeliveryList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace()),
		client.MatchingFields{IndexWebhookDeliveryEndpoint: o.GetName()}); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		d := &list.Items[i]
		if d.Status.State == "" || d.Status.State == tcsv1.DeliveryPending {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(d)})
		}
	}
	return reqs
}
