package controllers

import (
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
)

// WebhookEndpointReconciler records since when a WebhookEndpoint subscribes to each of its
// event types, so that the dispatcher never sends it an event from before.
type WebhookEndpointReconciler struct {
	Client client.Client
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups=tcs.dev,resources=webhookendpoints/status,verbs=get;patch,namespace=tcs-system

// Reconcile brings the endpoint's subscriptions in line with its spec.
func (r *WebhookEndpointReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ep := &tcsv1.WebhookEndpoint{}
	if err := r.Client.Get(ctx, req.NamespacedName, ep); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ep.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	before := ep.Status.DeepCopy()
	patch := statuspatch.New(ep, statuspatch.OwnerWebhook)
	ep.Status.Subscriptions = Subscriptions(ep, r.Clock.Now())
	ep.Status.ObservedGeneration = ep.Generation
	if equality.Semantic.DeepEqual(before, &ep.Status) {
		return ctrl.Result{}, nil
	}
	return afterWrite(patch.Patch(ctx, r.Client, ep), "recording the subscriptions of endpoint %s", ep.Name)
}

// Subscriptions returns the subscriptions ep's status should record at now: the recorded ones
// still in its spec, and for each new type in the spec, its creation time when the status has
// never been written (the endpoint was created with it), else now (it was added since).
func Subscriptions(ep *tcsv1.WebhookEndpoint, now time.Time) []tcsv1.EventSubscription {
	var out []tcsv1.EventSubscription
	for _, event := range ep.Spec.Events {
		since, ok := ep.SubscribedSince(event)
		switch {
		case ok:
		case ep.Status.ObservedGeneration == 0:
			since = ep.CreationTimestamp.Time
		default:
			since = now
		}
		out = append(out, tcsv1.EventSubscription{Event: event, Since: metav1.NewTime(since.Truncate(time.Second))})
	}
	slices.SortFunc(out, func(a, b tcsv1.EventSubscription) int {
		switch {
		case a.Event < b.Event:
			return -1
		case a.Event > b.Event:
			return 1
		}
		return 0
	})
	return out
}

// setDefaults gives the zero fields their defaults.
func (r *WebhookEndpointReconciler) setDefaults() {
	orRealClock(&r.Clock)
}

// SetupWithManager sets the defaults and registers the reconciler with mgr.
func (r *WebhookEndpointReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.setDefaults()
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.WebhookEndpoint{}).
		Named("webhook-endpoint").
		Complete(r)
}
