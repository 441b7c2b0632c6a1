package transcripts

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/text/aipass"
)

// ConflictError is a request the transcript's state refuses (the API's 409); Message says why,
// and Param, when set, names the member of the request it is about.
type ConflictError struct{ Message, Param string }

func (e *ConflictError) Error() string { return e.Message }

// AIPassRequest is a request for an AI validation pass of a transcript.
type AIPassRequest struct {
	// Apply, when set, overrides the transcript's options.ai_pass.apply for this pass.
	Apply *bool
	// Record names the idempotency record of the request, "" for none: a pass queued by an
	// earlier run of the same request is the answer, not a conflict.
	Record string
	// Provider is the provider the passes run with; a repeatable one is not asked again for a
	// pass it already completed with the same settings. Nil means unknown.
	Provider aipass.Provider
	// Now is the time of the request.
	Now metav1.Time
}

// TriggerAIPass queues an AI validation pass of transcript id of org, which runs once the
// deterministic pass is done, and returns the transcript. An archived transcript is brought
// back into the cluster for the pass (and archived again afterwards). A pass already queued or
// running, a failed transcript, or a repeat of the last pass of a repeatable provider is a
// *ConflictError.
func (s *Service) TriggerAIPass(ctx context.Context, org, id string, req AIPassRequest) (*tcsv1.Transcript, error) {
	t, archived, err := s.Get(ctx, org, id)
	if err != nil {
		return nil, err
	}
	apply := t.Spec.Options.AIPass.Apply
	if req.Apply != nil {
		apply = *req.Apply
	}
	// decide tells whether t needs the pass queued, or why not.
	decide := func(t *tcsv1.Transcript) (bool, error) {
		switch {
		case ownJob(req.Record, t) != nil:
			// An earlier run of this request queued the pass; it is the answer.
			return false, nil
		case t.AIPassBusy():
			return false, &ConflictError{Message: fmt.Sprintf("An AI pass of this transcript is already %s; wait for it to end.", t.Status.AIPassStatus)}
		case t.Status.Phase == tcsv1.PhaseFailed:
			return false, &ConflictError{Message: "The transcript failed; there is no corrected content for an AI pass to validate."}
		case repeatsLastPass(req.Provider, t, apply):
			last := t.Status.AIPass
			return false, &ConflictError{Message: fmt.Sprintf("The AI pass of this transcript already completed with the %s provider (%s) and apply %t; it gives the same verdicts for the same text every time, so it is not run again. Ask with a different \"apply\" to change what it writes.",
				last.Provider, last.Model, last.Apply)}
		case t.Status.DeletedAt != nil:
			return false, fmt.Errorf("transcript %s: %w", t.Spec.ID, ErrNotFound)
		}
		return true, nil
	}
	var refused error
	for attempt := 0; ; attempt++ {
		if archived {
			var queue bool
			if queue, refused = decide(t); refused != nil || !queue {
				break
			}
			if t, err = s.Unarchive(ctx, org, t, req.Now.Time); err != nil {
				break
			}
		}
		err = s.UpdateStatus(ctx, org, t, func(t *tcsv1.Transcript) bool {
			var queue bool
			queue, refused = decide(t)
			if !queue {
				return false
			}
			if job := t.QueueAIPass(apply, req.Now); job != nil {
				job.IdempotencyRecord = req.Record
			}
			return true
		})
		if !apierrors.IsNotFound(err) || s.Results == nil || attempt > 0 {
			break
		}
		// Archived since it was read: bring it back from its record.
		rec, rerr := s.Archived(ctx, org, t.Spec.ID)
		if rerr != nil {
			err = rerr
		}
		if rerr != nil || rec == nil {
			break
		}
		t, archived, err = rec, true, nil
	}
	switch {
	case refused != nil:
		return t, refused
	case err != nil:
		return t, fmt.Errorf("queueing the AI pass of %s: %w", t.Spec.ID, err)
	}
	return t, nil
}

// ownJob returns the job of t that the request of idempotency record record queued in an
// earlier run, or nil.
func ownJob(record string, t *tcsv1.Transcript) *tcsv1.Job {
	if record == "" {
		return nil
	}
	for i := range t.Status.Jobs {
		if t.Status.Jobs[i].IdempotencyRecord == record {
			return &t.Status.Jobs[i]
		}
	}
	return nil
}

// repeatsLastPass reports whether a pass of t with apply would repeat its last completed pass:
// same settings, and a provider p that answers the same text the same way every time.
func repeatsLastPass(p aipass.Provider, t *tcsv1.Transcript, apply bool) bool {
	last := t.Status.AIPass
	return p != nil && aipass.Repeatable(p) && t.Status.AIPassStatus == tcsv1.AIPassCompleted && last != nil &&
		last.Provider == p.Name() && last.Model == p.Model() && last.Apply == apply
}
