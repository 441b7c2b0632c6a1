package transcripts

import (
	"context"
	"errors"
	"fmt"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/text/pipeline"
)

// Marked returns the text of t, a completed transcript of org, with changes (its change list
// as Changes returns it) in place, as a reviewer reads it; nil when its submitted document is
// no longer stored.
func (s *Service) Marked(ctx context.Context, org string, t *tcsv1.Transcript, changes []pipeline.Change) (*pipeline.Marked, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	if err := owned(org, t); err != nil {
		return nil, err
	}
	if t.Status.Phase != tcsv1.PhaseCompleted {
		return nil, nil
	}
	input, err := s.Store.Content(ctx, pipeline.KeysFor(org, t.Spec.ID).Input)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the submitted document of %s: %w", t.Spec.ID, err)
	}
	m, err := pipeline.Mark(input, transcriptFormat(t), changes)
	if err != nil {
		return nil, fmt.Errorf("marking the changes of %s: %w", t.Spec.ID, err)
	}
	return m, nil
}
