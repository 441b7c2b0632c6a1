package v1alpha1

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TranscriptName returns the object name of the transcript with API id id (tr_x → tr-x).
func TranscriptName(id string) string {
	return strings.Replace(id, "_", "-", 1)
}

// Created returns when the transcript was created: its creationTimestamp, or for one recreated
// from its archived record, the creation time that AnnotationCreatedAt keeps.
func (t *Transcript) Created() metav1.Time {
	if v := t.Annotations[AnnotationCreatedAt]; v != "" {
		if at, err := time.Parse(time.RFC3339, v); err == nil {
			return metav1.NewTime(at)
		}
	}
	return t.CreationTimestamp
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
// observed generation. A transcript without a phase yet (an upload grant, a resource brought
// back before its status is) is left as it is. Every status write through statuspatch calls it.
func (t *Transcript) SyncConditions() {
	if t.Status.Phase == "" {
		return
	}
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
// transcript. The sequence number is the decimal number that ends the id, at least two digits
// (job_…01 … job_…99, job_…100, …), so ids made before the 100th job keep their form.
func JobID(transcriptID string, seq int) string {
	return "job_" + strings.TrimPrefix(transcriptID, "tr_") + fmt.Sprintf("%02d", seq)
}

// MaxJobSeqDigits is the most digits of a job's sequence number: a transcript's status, which
// etcd keeps under 1.5 MB, cannot list 100,000 jobs. A job id that ends in more digits is read
// with at most this many, so that it leads to a few candidate transcripts, not dozens.
const MaxJobSeqDigits = 5

// TranscriptIDsOfJob returns the transcript ids a job id may belong to, or none when jobID is
// not shaped like one. A transcript id may itself end in digits, so the split between it and
// the sequence number is not always certain: each reading is listed (two digits first, then
// the longer numbers without a leading zero), and the caller looks for the job in each.
func TranscriptIDsOfJob(jobID string) []string {
	rest, ok := strings.CutPrefix(jobID, "job_")
	if !ok {
		return nil
	}
	var out []string
	for n := 2; n < len(rest) && n <= MaxJobSeqDigits; n++ {
		tail := rest[len(rest)-n:]
		if !allDigits(tail) {
			break
		}
		if n > 2 && tail[0] == '0' {
			continue // JobID pads to two digits only
		}
		out = append(out, "tr_"+rest[:len(rest)-n])
	}
	return out
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// AddJob appends a queued job of type jobType to t, unless t already has one of that type, and
// returns it.
func (t *Transcript) AddJob(jobType string, now metav1.Time) *Job {
	for i := range t.Status.Jobs {
		if t.Status.Jobs[i].Type == jobType {
			return &t.Status.Jobs[i]
		}
	}
	return t.appendJob(jobType, now)
}

// appendJob appends a queued job of type jobType to t and returns it.
func (t *Transcript) appendJob(jobType string, now metav1.Time) *Job {
	t.Status.Jobs = append(t.Status.Jobs, Job{
		ID:        JobID(t.Spec.ID, len(t.Status.Jobs)+1),
		Type:      jobType,
		State:     JobQueued,
		CreatedAt: now,
	})
	return &t.Status.Jobs[len(t.Status.Jobs)-1]
}

// ActiveJob returns the first job of the deterministic pass of t (a fetch or the correction)
// that is queued or running, or nil.
func (t *Transcript) ActiveJob() *Job {
	for i := range t.Status.Jobs {
		if t.Status.Jobs[i].Type == JobAIPass {
			continue
		}
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

// AIPassBusy reports whether an AI pass of t is queued or running.
func (t *Transcript) AIPassBusy() bool {
	return t.Status.AIPassStatus == AIPassQueued || t.Status.AIPassStatus == AIPassRunning
}

// QueueAIPass queues a new ai_pass job on t, which runs once the deterministic pass is done,
// and returns it; apply tells whether its verdicts are written into the content. It returns
// nil when a pass is already queued or running.
func (t *Transcript) QueueAIPass(apply bool, now metav1.Time) *Job {
	if t.AIPassBusy() {
		return nil
	}
	job := t.appendJob(JobAIPass, now)
	t.Status.AIPassStatus = AIPassQueued
	t.Status.AIPass = &AIPassResult{JobID: job.ID, Apply: apply}
	t.SetCondition(ConditionAIValidated, metav1.ConditionFalse, "Queued", "An AI validation pass is queued.")
	return job
}

// AIPassJob returns the job of the latest AI pass of t, or nil.
func (t *Transcript) AIPassJob() *Job {
	if t.Status.AIPass == nil {
		return nil
	}
	return t.Job(t.Status.AIPass.JobID)
}

// QueueRequestedAIPass queues the AI pass the options of t ask for, unless one was queued
// before.
func (t *Transcript) QueueRequestedAIPass(now metav1.Time) {
	if t.Spec.Options.AIPass.Enabled && t.Status.AIPass == nil {
		t.QueueAIPass(t.Spec.Options.AIPass.Apply, now)
	}
}

// StartAIPass marks the queued AI pass of t running with provider and model, and emits
// ai_pass.started in the same status write.
func (t *Transcript) StartAIPass(provider, model string, now metav1.Time) {
	res := t.Status.AIPass
	if res == nil {
		return
	}
	res.Provider, res.Model, res.StartedAt = provider, model, &now
	if job := t.AIPassJob(); job != nil {
		job.State, job.StartedAt = JobRunning, &now
	}
	t.Status.AIPassStatus = AIPassRunning
	t.SetCondition(ConditionAIValidated, metav1.ConditionFalse, "Running", "The AI validation pass is running.")
	t.EmitKeyed(EventAIPassStarted, res.JobID, now.Time)
}

// FailAIPass ends the queued or running AI pass of t with an error of API type typ and message
// msg, which API clients see, and emits ai_pass.failed in the same status write. detail, for
// the cluster's operators, is the AIValidated condition's message; empty means msg. The
// deterministic pass's results stay as they are.
//
// A pass that never started (still queued) emits ai_pass.started first, in the same write, so
// that every pass a receiver hears of is announced by ai_pass.started and ended by exactly one
// of ai_pass.completed and ai_pass.failed.
func (t *Transcript) FailAIPass(typ, msg, detail string, now metav1.Time) {
	res := t.Status.AIPass
	if res == nil || !t.AIPassBusy() {
		return
	}
	if t.Status.AIPassStatus == AIPassQueued {
		// The started event shows the pass running, without a start time: it never ran.
		t.Status.AIPassStatus = AIPassRunning
		t.EmitKeyed(EventAIPassStarted, res.JobID, now.Time)
	}
	res.Error, res.FinishedAt = &TranscriptError{Type: typ, Message: msg}, &now
	if job := t.AIPassJob(); job != nil {
		job.State, job.Error, job.FinishedAt = JobFailed, msg, &now
	}
	t.Status.AIPassStatus = AIPassFailed
	if detail == "" {
		detail = msg
	}
	t.SetCondition(ConditionAIValidated, metav1.ConditionFalse, "Failed", detail)
	t.EmitKeyed(EventAIPassFailed, res.JobID, now.Time)
}

// CompleteAIPass ends the running AI pass of t successfully, and emits ai_pass.completed in
// the same status write; the caller has recorded its results.
func (t *Transcript) CompleteAIPass(now metav1.Time) {
	res := t.Status.AIPass
	if res == nil || !t.AIPassBusy() {
		return
	}
	res.Error, res.FinishedAt = nil, &now
	if job := t.AIPassJob(); job != nil {
		job.State, job.Progress, job.Error, job.FinishedAt = JobSucceeded, 100, "", &now
	}
	t.Status.AIPassStatus = AIPassCompleted
	t.SetCondition(ConditionAIValidated, metav1.ConditionTrue, "Completed", "The AI validation pass judged every change.")
	t.EmitKeyed(EventAIPassCompleted, res.JobID, now.Time)
}

// Messages of the failures a soft delete ends in-flight work with.
const (
	// DeletedBeforeAIPassEnded is the AI pass's error message when its transcript was deleted
	// while the pass was queued or running.
	DeletedBeforeAIPassEnded = "The transcript was deleted before the AI validation pass ended."
	// DeletedBeforeCompleted is the transcript's error message when it was deleted while pending.
	DeletedBeforeCompleted = "The transcript was deleted before its processing finished."
)

// EndOnSoftDelete ends what a soft-deleted transcript still had in flight, as failures of API
// type conflict: a pending deterministic pass (emitting transcript.failed) and a queued or
// running AI pass (emitting ai_pass.started if it never ran, then ai_pass.failed). It reports
// whether it changed t.
func (t *Transcript) EndOnSoftDelete(now metav1.Time) bool {
	if t.Status.DeletedAt == nil {
		return false
	}
	changed := false
	if t.Status.Phase == PhasePending {
		if job := t.ActiveJob(); job != nil {
			job.State, job.Error, job.FinishedAt, job.NextAttemptAt = JobFailed, DeletedBeforeCompleted, &now, nil
		}
		t.Status.Phase = PhaseFailed
		t.Status.Error = &TranscriptError{Type: "conflict", Message: DeletedBeforeCompleted}
		t.Emit(EventTranscriptCreated, now.Time)
		t.Emit(EventTranscriptFailed, now.Time)
		changed = true
	}
	if t.AIPassBusy() {
		t.FailAIPass("conflict", DeletedBeforeAIPassEnded, "", now)
		changed = true
	}
	if changed {
		t.SyncConditions()
	}
	return changed
}

// MarkedArchived reports whether t carries the archiver's mark (LabelArchived or
// AnnotationArchivedAt).
func (t *Transcript) MarkedArchived() bool {
	return t.Labels[LabelArchived] != "" || t.Annotations[AnnotationArchivedAt] != ""
}

// Unmark removes the archiver's mark from t and gives it FinalizerStoredObjects back, which
// brings it back into the working set once written; it reports whether t changed.
func (t *Transcript) Unmark() bool {
	if !t.MarkedArchived() {
		return false
	}
	delete(t.Labels, LabelArchived)
	delete(t.Annotations, AnnotationArchivedAt)
	if !slices.Contains(t.Finalizers, FinalizerStoredObjects) {
		t.Finalizers = append(t.Finalizers, FinalizerStoredObjects)
	}
	return true
}

// Equal reports whether o and p are the same options; a nil or empty list or map equals
// another nil or empty one.
func (o TranscriptOptions) Equal(p TranscriptOptions) bool {
	return o.AIPass == p.AIPass && o.Language == p.Language && o.NormalizeReferences == p.NormalizeReferences &&
		slices.Equal(o.Categories, p.Categories) && maps.Equal(o.Metadata, p.Metadata) &&
		(o.Thresholds == nil) == (p.Thresholds == nil) && (o.Thresholds == nil || *o.Thresholds == *p.Thresholds)
}

// ParseConfidence reads a threshold of Thresholds: a decimal from 0 to 1 with at most three
// decimal places, such as "0.85" or "1".
func ParseConfidence(s string) (float64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if (whole != "0" && whole != "1") || dot && (len(frac) < 1 || len(frac) > 3 || !allDigits(frac)) ||
		whole == "1" && strings.Trim(frac, "0") != "" {
		return 0, fmt.Errorf("%q is not a confidence: a decimal from 0 to 1 with at most three decimal places, such as 0.85", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("reading confidence %q: %w", s, err)
	}
	return v, nil
}

// ValidCategory reports whether name may be a category of TranscriptOptions.Categories: 1 to
// MaxCategoryBytes bytes of lowercase letters, digits, '_' and '-', starting with a letter or
// digit, as the CRD's pattern says.
func ValidCategory(name string) bool {
	if len(name) < 1 || len(name) > MaxCategoryBytes {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ValidMetadataKey reports whether key may be a key of TranscriptOptions.Metadata: 1 to
// MaxMetadataKeyBytes bytes of ASCII letters, digits, '_', '.' and '-', so that a key is
// written as it is in a list filter (metadata[key]=value), a log line or a label.
func ValidMetadataKey(key string) bool {
	if len(key) < 1 || len(key) > MaxMetadataKeyBytes {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
