package webhook

import (
	"slices"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// Subscription is whether an endpoint receives an event.
type Subscription int

const (
	// NotSubscribed: the endpoint gets no delivery of the event.
	NotSubscribed Subscription = iota
	// Subscribed: the endpoint gets a delivery of the event.
	Subscribed
	// SubscriptionUnknown: the event's type was added to the endpoint a moment ago and its
	// status does not record since when yet (the endpoint controller writes it); ask again.
	SubscriptionUnknown
)

// Receives returns whether ep receives the event of type event emitted at emitted. An endpoint
// being deleted receives nothing; otherwise it receives only the events emitted while it
// subscribed to their type: never one from before it existed, or before the type was added to
// it. Event times are whole seconds, so an event of the second it subscribed in is received.
func Receives(ep *tcsv1.WebhookEndpoint, event string, emitted time.Time) Subscription {
	if !ep.DeletionTimestamp.IsZero() || !slices.Contains(ep.Spec.Events, event) {
		return NotSubscribed
	}
	since, known := subscribedSince(ep, event)
	if !known {
		return SubscriptionUnknown
	}
	if emitted.Before(since.Truncate(time.Second)) {
		return NotSubscribed
	}
	return Subscribed
}

// subscribedSince returns since when ep subscribes to event, as its status records it; an
// endpoint whose status was never written subscribes to its types since its creation. It
// returns false for a type added to the spec that the status does not record yet.
func subscribedSince(ep *tcsv1.WebhookEndpoint, event string) (time.Time, bool) {
	if since, ok := ep.SubscribedSince(event); ok {
		return since, true
	}
	if ep.Status.ObservedGeneration == 0 {
		return ep.CreationTimestamp.Time, true
	}
	return time.Time{}, false
}
