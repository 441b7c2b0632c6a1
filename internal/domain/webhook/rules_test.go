package webhook

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestReceives(t *testing.T) {
	created := time.Date(2026, 1, 1, 12, 0, 0, 500_000_000, time.UTC)
	added := created.Add(time.Hour)
	endpoint := func(mutate func(*tcsv1.WebhookEndpoint)) *tcsv1.WebhookEndpoint {
		ep := &tcsv1.WebhookEndpoint{
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)},
			Spec:       tcsv1.WebhookEndpointSpec{Events: []string{tcsv1.EventTranscriptCompleted}},
		}
		if mutate != nil {
			mutate(ep)
		}
		return ep
	}
	recorded := func(ep *tcsv1.WebhookEndpoint) {
		ep.Spec.Events = append(ep.Spec.Events, tcsv1.EventTranscriptFailed)
		ep.Status.ObservedGeneration = 2
		ep.Status.Subscriptions = []tcsv1.EventSubscription{
			{Event: tcsv1.EventTranscriptCompleted, Since: metav1.NewTime(created)},
			{Event: tcsv1.EventTranscriptFailed, Since: metav1.NewTime(added)},
		}
	}
	for _, tc := range []struct {
		name    string
		ep      *tcsv1.WebhookEndpoint
		event   string
		emitted time.Time
		want    Subscription
	}{
		{"an endpoint receives an event of a type it subscribes to", endpoint(nil), tcsv1.EventTranscriptCompleted, created.Add(time.Minute), Subscribed},
		{"an endpoint receives nothing of a type it does not subscribe to", endpoint(nil), tcsv1.EventTranscriptFailed, created.Add(time.Minute), NotSubscribed},
		{"an endpoint receives nothing from before it existed", endpoint(nil), tcsv1.EventTranscriptCompleted, created.Add(-time.Second), NotSubscribed},
		{"an event of the second the endpoint was created in is received", endpoint(nil), tcsv1.EventTranscriptCompleted, created.Truncate(time.Second), Subscribed},
		{"an endpoint being deleted receives nothing", endpoint(func(ep *tcsv1.WebhookEndpoint) { now := metav1.NewTime(created); ep.DeletionTimestamp = &now }), tcsv1.EventTranscriptCompleted, created.Add(time.Minute), NotSubscribed},
		{"a type added later is received only from when it was added", endpoint(recorded), tcsv1.EventTranscriptFailed, added.Add(-time.Minute), NotSubscribed},
		{"a type added later is received after it was added", endpoint(recorded), tcsv1.EventTranscriptFailed, added, Subscribed},
		{"a type added to the spec but not yet to the status is unknown", endpoint(func(ep *tcsv1.WebhookEndpoint) {
			ep.Spec.Events = append(ep.Spec.Events, tcsv1.EventTranscriptFailed)
			ep.Status.ObservedGeneration = 1
		}), tcsv1.EventTranscriptFailed, added, SubscriptionUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Receives(tc.ep, tc.event, tc.emitted); got != tc.want {
				t.Fatalf("Receives = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestNextRetry(t *testing.T) {
	delays := []time.Duration{10 * time.Second, time.Minute}
	for _, tc := range []struct {
		name     string
		attempts int
		min, max time.Duration
		retry    bool
	}{
		{"the first failure is retried after the first delay and at most a tenth more", 1, 10 * time.Second, 11 * time.Second, true},
		{"the second failure is retried after the second delay and at most a tenth more", 2, time.Minute, 66 * time.Second, true},
		{"a failure after the last retry is final", 3, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 100 {
				got, retry := NextRetry(delays, tc.attempts)
				if retry != tc.retry || got < tc.min || got > tc.max {
					t.Fatalf("NextRetry(%d) = %v, %t; want %v to %v, %t", tc.attempts, got, retry, tc.min, tc.max, tc.retry)
				}
			}
		})
	}
}
