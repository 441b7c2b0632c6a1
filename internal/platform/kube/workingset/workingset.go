// Package workingset holds what decides which Transcripts are tcs's working set: the label
// selector of the controllers' cache, which leaves out the transcripts the archiver marked
// (recorded, waiting for their deletion), and bringing a marked transcript back.
package workingset

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// Selector selects the Transcripts of the working set: those without LabelArchived.
func Selector() (labels.Selector, error) {
	req, err := labels.NewRequirement(tcsv1.LabelArchived, selection.DoesNotExist, nil)
	if err != nil {
		return nil, fmt.Errorf("the working-set selector: %w", err)
	}
	return labels.NewSelector().Add(*req), nil
}

// Rejoin brings marked transcript t back into the working set (Transcript.Unmark) in one
// write locked on the resourceVersion t was read at, and updates t from the answer. Its record
// stays, older than the resource; the API lists the resource over it. A transcript being
// deleted is left as it is: it is leaving, and its record takes any change.
func Rejoin(ctx context.Context, c client.Client, t *tcsv1.Transcript) error {
	if !t.MarkedArchived() || !t.DeletionTimestamp.IsZero() {
		return nil
	}
	before := t.DeepCopy()
	t.Unmark()
	if err := c.Patch(ctx, t, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("bringing %s back into the working set: %w", t.Spec.ID, err)
	}
	return nil
}
