// Package recorder holds the reasons of the Kubernetes Events tcs records about its resources,
// the names it records them under, and the helpers that record them; a nil recorder records
// nothing.
package recorder

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// The reasons of the Events (kubectl describe shows them).
const (
	// ReasonFetchFailed: a fetch or ingest job failed and is retried.
	ReasonFetchFailed = "FetchFailed"
	// ReasonCorrected: the deterministic pass completed the transcript.
	ReasonCorrected = "Corrected"
	// ReasonFailed: the transcript failed for good.
	ReasonFailed = "Failed"
	// ReasonAIPassStarted, ReasonAIPassCompleted and ReasonAIPassFailed follow an AI pass.
	ReasonAIPassStarted   = "AIPassStarted"
	ReasonAIPassCompleted = "AIPassCompleted"
	ReasonAIPassFailed    = "AIPassFailed"
	// ReasonDeliveryFailing: a webhook delivery attempt failed and is retried.
	ReasonDeliveryFailing = "DeliveryFailing"
	// ReasonDeliveryFailed: a webhook delivery was given up.
	ReasonDeliveryFailed = "DeliveryFailed"
)

// Reasons lists every reason, for documentation checks.
func Reasons() []string {
	return []string{ReasonFetchFailed, ReasonCorrected, ReasonFailed, ReasonAIPassStarted,
		ReasonAIPassCompleted, ReasonAIPassFailed, ReasonDeliveryFailing, ReasonDeliveryFailed}
}

// The names Events are recorded under (their reportingController).
const (
	API        = "tcs-api"
	Transcript = "tcs-transcript"
	AIPass     = "tcs-aipass"
	Webhook    = "tcs-webhook"
)

// Actions of the Events (events.k8s.io/v1 requires one).
const (
	ActionFetch   = "Fetch"
	ActionCorrect = "Correct"
	ActionReview  = "Review"
	ActionDeliver = "Deliver"
)

// Record records an Event about obj with rec, if there is one.
func Record(rec events.EventRecorder, obj, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if rec == nil {
		return
	}
	rec.Eventf(obj, related, eventtype, reason, action, note, args...)
}

// Corrected records that the deterministic pass completed t, with its change counts.
func Corrected(rec events.EventRecorder, t *tcsv1.Transcript) {
	s := t.Status.ChangesSummary
	if s == nil {
		s = &tcsv1.ChangesSummary{}
	}
	Record(rec, t, nil, corev1.EventTypeNormal, ReasonCorrected, ActionCorrect,
		"Corrected the %s transcript: %d changes, %d applied, %d to review.", t.Status.Format, s.Total, s.AutoApplied, s.NeedsReview)
}
