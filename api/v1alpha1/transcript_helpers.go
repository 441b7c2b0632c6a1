package v1alpha1

import (
	"fmt"
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
		if e.Type == event {
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

// JobID returns the id of the seq-th job (1-based) of the transcript with API id transcriptID:
// job ids are derived, so a repeated reconcile makes the same job and a job id leads to its
// transcript.
func JobID(transcriptID string, seq int) string {
	return "job_" + strings.TrimPrefix(transcriptID, "tr_") + fmt.Sprintf("%02d", seq)
}

// TranscriptIDOfJob returns the transcript id a job id belongs to, or false when jobID is not
// shaped like one.
func TranscriptIDOfJob(jobID string) (string, bool) {
	rest, ok := strings.CutPrefix(jobID, "job_")
	if !ok || len(rest) < 3 {
		return "", false
	}
	return "tr_" + rest[:len(rest)-2], true
}

// AddJob appends a queued job of type jobType to t, unless t already has one of that type, and
// returns it.
func (t *Transcript) AddJob(jobType string, now metav1.Time) *Job {
	for i := range t.Status.Jobs {
		if t.Status.Jobs[i].Type == jobType {
			return &t.Status.Jobs[i]
		}
	}
	t.Status.Jobs = append(t.Status.Jobs, Job{
		ID:        JobID(t.Spec.ID, len(t.Status.Jobs)+1),
		Type:      jobType,
		State:     JobQueued,
		CreatedAt: now,
	})
	return &t.Status.Jobs[len(t.Status.Jobs)-1]
}

// ActiveJob returns the first job of t that is queued or running, or nil.
func (t *Transcript) ActiveJob() *Job {
	for i := range t.Status.Jobs {
		if s := t.Status.Jobs[i].State; s == JobQueued || s == JobRunning {
			return &t.Status.Jobs[i]
		}
	}
	return nil
}

// Job returns the job of t with id id, or nil.
func (t *Transcript) Job(id string) *Job {
	for i := range t.Status.Jobs {
		if t.Status.Jobs[i].ID == id {
			return &t.Status.Jobs[i]
		}
	}
	return nil
}

// EmittedEventTypes returns the types of the events emitted for t, in order.
func (t *Transcript) EmittedEventTypes() []string {
	out := make([]string, len(t.Status.EmittedEvents))
	for i, e := range t.Status.EmittedEvents {
		out[i] = e.Type
	}
	return out
}
