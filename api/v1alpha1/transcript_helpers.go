package v1alpha1

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TranscriptName returns the object name of the transcript with API id id (tr_x → tr-x).
func TranscriptName(id string) string {
	return strings.Replace(id, "_", "-", 1)
}

// HasEmitted reports whether event was already emitted for t.
func (t *Transcript) HasEmitted(event string) bool {
	for _, e := range t.Status.EmittedEvents {
		if e == event {
			return true
		}
	}
	return false
}

// SetCondition records a condition for the current generation of t.
func (t *Transcript) SetCondition(condType string, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&t.Status.Conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: t.Generation,
	})
}

// SyncConditions sets the Ready and Corrected conditions from the phase and records the
// observed generation.
func (t *Transcript) SyncConditions() {
	t.Status.ObservedGeneration = t.Generation
	switch t.Status.Phase {
	case PhaseCompleted:
		t.SetCondition(ConditionCorrected, metav1.ConditionTrue, "Corrected", "The deterministic pass wrote the corrected content.")
		t.SetCondition(ConditionReady, metav1.ConditionTrue, "Completed", "The transcript is completed.")
	case PhaseFailed:
		msg := "The transcript failed."
		if t.Status.Error != nil {
			msg = t.Status.Error.Message
		}
		if !meta.IsStatusConditionTrue(t.Status.Conditions, ConditionCorrected) {
			t.SetCondition(ConditionCorrected, metav1.ConditionFalse, "Failed", msg)
		}
		t.SetCondition(ConditionReady, metav1.ConditionFalse, "Failed", msg)
	default:
		t.SetCondition(ConditionCorrected, metav1.ConditionFalse, "Pending", "The deterministic pass has not run yet.")
		t.SetCondition(ConditionReady, metav1.ConditionFalse, "Pending", "The transcript is being processed.")
	}
}
