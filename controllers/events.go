package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/metrics"
)

// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch,namespace=tcs-system

// announce records the Events and metrics of the step from status before to t's status,
// once it is written.
func (r *TranscriptReconciler) announce(before *tcsv1.TranscriptStatus, t *tcsv1.Transcript, result ctrl.Result) {
	st := &t.Status
	if st.Phase != before.Phase {
		switch st.Phase {
		case tcsv1.PhaseCompleted:
			r.Metrics.TranscriptEnded(string(t.Spec.Source.Type), metrics.OutcomeCompleted, completedAfter(t))
			recorder.Corrected(r.Recorder, t)
			return
		case tcsv1.PhaseFailed:
			r.Metrics.TranscriptEnded(string(t.Spec.Source.Type), metrics.OutcomeFailed, 0)
			typ, msg := "server_error", "unknown error"
			if st.Error != nil {
				typ, msg = st.Error.Type, st.Error.Message
			}
			recorder.Record(r.Recorder, t, nil, corev1.EventTypeWarning, recorder.ReasonFailed, recorder.ActionCorrect, "The transcript failed (%s): %s", typ, msg)
			return
		}
	}
	job := t.ActiveJob()
	if job == nil || job.Error == "" || job.Type == tcsv1.JobCorrection {
		return
	}
	for _, old := range before.Jobs {
		if old.ID == job.ID && old.Attempts < job.Attempts {
			recorder.Record(r.Recorder, t, nil, corev1.EventTypeWarning, recorder.ReasonFetchFailed, recorder.ActionFetch,
				"The %s job failed (attempt %d of %d) and is retried in %s: %s", job.Type, job.Attempts, r.MaxAttempts, result.RequeueAfter, job.Error)
			return
		}
	}
}

// completedAfter is the time from t's creation to its completion.
func completedAfter(t *tcsv1.Transcript) time.Duration {
	if t.Status.CompletedAt == nil {
		return 0
	}
	return t.Status.CompletedAt.Sub(t.CreationTimestamp.Time)
}

// announce records the Events and metrics of the AI pass's step from status before to t's
// status, once it is written.
func (r *AIPassReconciler) announce(before *tcsv1.TranscriptStatus, t *tcsv1.Transcript) {
	st := &t.Status
	if st.AIPassStatus == before.AIPassStatus || st.AIPass == nil {
		return
	}
	p := st.AIPass
	switch st.AIPassStatus {
	case tcsv1.AIPassRunning:
		recorder.Record(r.Recorder, t, nil, corev1.EventTypeNormal, recorder.ReasonAIPassStarted, recorder.ActionReview,
			"The AI validation pass started with provider %s (model %s).", p.Provider, p.Model)
	case tcsv1.AIPassCompleted:
		r.Metrics.AIPass(p.Provider, metrics.OutcomeCompleted, false)
		recorder.Record(r.Recorder, t, nil, corev1.EventTypeNormal, recorder.ReasonAIPassCompleted, recorder.ActionReview,
			"The AI validation pass completed: %d confirmed, %d rejected, %d uncertain, %d proposed.", p.Confirmed, p.Rejected, p.Uncertain, p.Proposed)
	case tcsv1.AIPassFailed:
		typ, msg := "server_error", "unknown error"
		if p.Error != nil {
			typ, msg = p.Error.Type, p.Error.Message
		}
		provider := p.Provider
		if provider == "" && r.Provider != nil {
			provider = r.Provider.Name()
		}
		// A pass that ran and failed on the server's side or in time failed with its provider.
		ran := before.AIPassStatus == tcsv1.AIPassRunning
		r.Metrics.AIPass(provider, metrics.OutcomeFailed, ran && (typ == "server_error" || typ == "timeout"))
		recorder.Record(r.Recorder, t, nil, corev1.EventTypeWarning, recorder.ReasonAIPassFailed, recorder.ActionReview,
			"The AI validation pass failed (%s): %s", typ, msg)
	}
}

// announce records the Events and metrics of an attempt just recorded on d, or of d ended
// without one (skipped, canceled).
func (r *WebhookDeliveryReconciler) announce(ctx context.Context, d *tcsv1.WebhookDelivery, attempt *tcsv1.DeliveryAttempt) {
	if attempt == nil {
		r.Metrics.WebhookEnded(string(d.Status.State))
		return
	}
	n := len(roundAttempts(d))
	took := time.Duration(attempt.DurationMillis) * time.Millisecond
	switch d.Status.State {
	case tcsv1.DeliverySucceeded:
		r.Metrics.WebhookAttempt(metrics.DeliverySucceeded, n, took)
	case tcsv1.DeliveryPending:
		r.Metrics.WebhookAttempt(metrics.DeliveryRetry, n, took)
		next := "later"
		if d.Status.NextAttemptAt != nil {
			next = "at " + d.Status.NextAttemptAt.UTC().Format(time.RFC3339)
		}
		r.recordDelivery(ctx, d, corev1.EventTypeWarning, recorder.ReasonDeliveryFailing,
			"Delivering the %s event to endpoint %s failed (attempt %d): %s; retrying %s.", d.Spec.Event, d.Spec.Endpoint, n, attempt.Error, next)
	case tcsv1.DeliveryFailed:
		r.Metrics.WebhookAttempt(metrics.DeliveryFailed, n, took)
		r.recordDelivery(ctx, d, corev1.EventTypeWarning, recorder.ReasonDeliveryFailed,
			"Gave up delivering the %s event to endpoint %s after %d attempts: %s.", d.Spec.Event, d.Spec.Endpoint, n, attempt.Error)
	}
}

// recordDelivery records an Event about d and, when it still exists, about its transcript.
func (r *WebhookDeliveryReconciler) recordDelivery(ctx context.Context, d *tcsv1.WebhookDelivery, eventtype, reason, note string, args ...any) {
	if r.Recorder == nil {
		return
	}
	recorder.Record(r.Recorder, d, nil, eventtype, reason, recorder.ActionDeliver, note, args...)
	if d.Spec.TranscriptID == "" {
		return
	}
	t := &tcsv1.Transcript{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: tcsv1.TranscriptName(d.Spec.TranscriptID)}, t); err != nil {
		return
	}
	recorder.Record(r.Recorder, t, d, eventtype, reason, recorder.ActionDeliver, note, args...)
}
