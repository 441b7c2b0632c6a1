package transcripts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/text/formats"
	"tcs.dev/tcs/internal/text/pipeline"
)

// Batch is one call's review decisions on a transcript.
type Batch struct {
	// Decisions are the decisions, in order; their By and At are set from the batch's.
	Decisions []pipeline.Decision
	// By is who decides: an API key id (key_…), a member's email.
	By string
}

// ReviewMovedError says that a transcript's review is no longer at the version a caller based
// its decisions on (the API's 409).
type ReviewMovedError struct {
	// Expected is the version the caller gave; Current the transcript's.
	Expected, Current int64
}

func (e *ReviewMovedError) Error() string {
	return fmt.Sprintf("The transcript's review is at version %d, not %d: someone decided on it since you read it. Fetch the transcript and its changes again, and send your decisions with review_version %d.",
		e.Current, e.Expected, e.Current)
}

// maxDecideAttempts bounds how often Decide applies a batch again on a review that moved
// meanwhile, when the caller gave no version.
const maxDecideAttempts = 20

// decideConflictAttempts bounds how often Decide records a batch again when its status write
// lost to the controllers' writes of the same transcript (a conflict of the cluster, not of
// reviewers).
const decideConflictAttempts = 6

// Decide records batch on transcript id of org and returns the transcript as it is then, with
// its reviewed content in force. With ifVersion, the batch applies only to that review
// version: a review that moved is a *ReviewMovedError; without, a batch that loses a race with
// another reviewer is applied again on the newer decisions. An archived transcript is brought
// back into the cluster for the decisions (and archived again afterwards).
//
// A decision that cannot be applied is a *pipeline.DecisionError naming it; a transcript not
// completed, or with an AI pass queued or running, a *ConflictError. The objects of the new
// review version are written before the status names them, so a failure in between leaves
// the version in force as it was.
func (s *Service) Decide(ctx context.Context, org, id string, batch Batch, ifVersion *int64) (*tcsv1.Transcript, error) {
	if s.Processor == nil {
		return nil, errors.New("review decisions: no processor")
	}
	if batch.By == "" {
		return nil, errors.New("review decisions: who decides is not given")
	}
	t, archived, err := s.Get(ctx, org, id)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Second)
	decisions := make([]pipeline.Decision, len(batch.Decisions))
	for i, d := range batch.Decisions {
		d.By, d.At = batch.By, now
		decisions[i] = d
	}
	conflicts := 0
	for attempt := 0; ; attempt++ {
		if err := decidable(t, ifVersion); err != nil {
			return t, err
		}
		if archived {
			if t, err = s.Unarchive(ctx, org, t, now); err != nil {
				return nil, err
			}
			archived = false
		}
		moved, err := s.decideOnce(ctx, org, t, decisions, now)
		switch {
		case apierrors.IsNotFound(err) && s.Results != nil && attempt < maxDecideAttempts:
			// Archived since it was read: bring it back from its record.
			rec, rerr := s.Archived(ctx, org, t.Spec.ID)
			switch {
			case rerr != nil:
				return nil, rerr
			case rec == nil:
				return nil, fmt.Errorf("transcript %s: %w", t.Spec.ID, ErrNotFound)
			}
			t, archived = rec, true
			continue
		case apierrors.IsConflict(err) && conflicts < decideConflictAttempts:
			// The status write lost to other writers (the controllers) more often than
			// UpdateStatus retries: the review objects are written idempotently, so the same
			// decisions are recorded again, at the same version, after a pause.
			conflicts++
			select {
			case <-ctx.Done():
				return t, ctx.Err()
			case <-time.After(time.Duration(conflicts) * 50 * time.Millisecond):
			}
			// t holds the review the lost write would have recorded, not the one stored:
			// compared with ifVersion, it would read as a review moved on by someone else.
			if t, archived, err = s.Get(ctx, org, id); err != nil {
				return nil, err
			}
			continue
		case err != nil:
			return t, err
		case !moved:
			return t, nil
		case ifVersion != nil:
			return t, &ReviewMovedError{Expected: *ifVersion, Current: t.ReviewVersion()}
		case attempt >= maxDecideAttempts:
			return t, fmt.Errorf("recording the decisions on %s: the review kept moving over %d attempts", t.Spec.ID, attempt+1)
		}
		// Another reviewer won: t is the newer transcript; apply the batch on its decisions.
	}
}

// decidable returns why decisions cannot be recorded on t as it is, or nil.
func decidable(t *tcsv1.Transcript, ifVersion *int64) error {
	switch {
	case t.Status.DeletedAt != nil:
		return fmt.Errorf("transcript %s: %w", t.Spec.ID, ErrNotFound)
	case t.Status.Phase != tcsv1.PhaseCompleted:
		phase := t.Status.Phase
		if phase == "" {
			phase = tcsv1.PhasePending
		}
		return &ConflictError{Message: fmt.Sprintf("The transcript is %s; review decisions are taken once it is completed.", phase)}
	case t.AIPassBusy():
		return &ConflictError{Message: fmt.Sprintf("An AI pass of this transcript is %s and will replace its change list; decide once it has ended.", t.Status.AIPassStatus)}
	case ifVersion != nil && *ifVersion != t.ReviewVersion():
		return &ReviewMovedError{Expected: *ifVersion, Current: t.ReviewVersion()}
	}
	return nil
}

// decideOnce computes and stores the next review version of t with decisions, and records it
// in t's status; moved reports that the review (or the change list) moved since t was read,
// t then being the newer transcript and nothing recorded.
func (s *Service) decideOnce(ctx context.Context, org string, t *tcsv1.Transcript, decisions []pipeline.Decision, now time.Time) (moved bool, err error) {
	in := pipeline.DecisionInput{Keys: pipeline.KeysFor(org, t.Spec.ID), Format: transcriptFormat(t),
		BaseChanges: t.Status.ChangesRef, Version: t.ReviewVersion() + 1, Batch: decisions}
	if r := t.Status.Review; r != nil {
		// Decisions made on an earlier change list apply to the new one where they still can.
		in.Log = r.DecisionsRef
	}
	before, err := s.shownContent(ctx, t)
	if err != nil {
		return false, err
	}
	rev, keys, err := s.Processor.Decide(ctx, in)
	if errors.Is(err, pipeline.ErrStaleDecisions) {
		return false, &ConflictError{Message: "The decisions recorded on this transcript no longer apply to its changes; it was corrected again since they were made."}
	}
	if err != nil {
		return false, err
	}
	if s.ReviewStored != nil {
		s.ReviewStored(ctx, t.Spec.ID)
	}
	changed := !bytes.Equal(before, rev.Content)
	var recordErr error
	err = s.UpdateStatus(ctx, org, t, func(t *tcsv1.Transcript) bool {
		if recordErr = decidable(t, nil); recordErr != nil {
			return false
		}
		if recordErr = rev.Record(t, keys, in.BaseChanges, in.Version); recordErr != nil {
			return false
		}
		if changed {
			t.EmitKeyed(tcsv1.EventTranscriptReviewed, tcsv1.ReviewKey(in.Version), now)
		}
		return true
	})
	switch {
	case err != nil:
		return false, err
	case errors.Is(recordErr, pipeline.ErrReviewMoved):
		return true, nil
	case recordErr != nil:
		return false, recordErr
	}
	return false, nil
}

// shownContent returns the content clients get of t now; nil when it is gone.
func (s *Service) shownContent(ctx context.Context, t *tcsv1.Transcript) ([]byte, error) {
	data, err := s.Store.Content(ctx, t.ShownContentRef())
	if err != nil && !errors.Is(err, blob.ErrNotFound) {
		return nil, fmt.Errorf("reading the content of %s: %w", t.Spec.ID, err)
	}
	return data, nil
}

// transcriptFormat returns the format t was read as.
func transcriptFormat(t *tcsv1.Transcript) formats.Format {
	if t.Status.Format != "" {
		return formats.Format(t.Status.Format)
	}
	return formats.Format(t.Spec.Source.Format)
}

// now returns the time of the service's clock.
func (s *Service) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock.Now()
}
