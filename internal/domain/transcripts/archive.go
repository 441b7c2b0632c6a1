package transcripts

import (
	"context"
	"fmt"
	"maps"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// Unarchive brings the archived transcript rec of org back into the cluster as a resource with rec's
// status, and returns the resource. It is idempotent: a resource that exists already (brought
// back by a concurrent request) is the answer, and one created by a run killed before it
// restored the status gets its status here or from the archiver.
func (s *Service) Unarchive(ctx context.Context, org string, rec *tcsv1.Transcript, now time.Time) (*tcsv1.Transcript, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	if err := owned(org, rec); err != nil {
		return nil, err
	}
	annotations := maps.Clone(rec.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	delete(annotations, tcsv1.AnnotationArchivedAt)
	labels := maps.Clone(rec.Labels)
	delete(labels, tcsv1.LabelArchived)
	annotations[tcsv1.AnnotationUnarchived] = now.UTC().Format(time.RFC3339)
	created := rec.Created()
	annotations[tcsv1.AnnotationCreatedAt] = created.UTC().Format(time.RFC3339)
	t := &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(rec.Spec.ID), Namespace: s.Namespace,
			Labels: labels, Annotations: annotations,
			// Its objects are in the store already: a deletion must remove them.
			Finalizers: []string{tcsv1.FinalizerStoredObjects}},
		Spec: rec.Spec,
	}
	// A resource still leaving the cluster (its finalizer runs) is waited for, briefly.
	for wait := 0; ; wait++ {
		err := s.Client.Create(ctx, t.DeepCopy())
		if err == nil {
			break
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("bringing back archived %s: %w", rec.Spec.ID, err)
		}
		existing := &tcsv1.Transcript{}
		err = s.APIReader.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: t.Name}, existing)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("bringing back archived %s: %w", rec.Spec.ID, err)
		case existing.DeletionTimestamp.IsZero():
			// Brought back by a concurrent request.
		case wait < 100:
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			continue
		default:
			return nil, fmt.Errorf("bringing back archived %s: it is still leaving the cluster", rec.Spec.ID)
		}
		break
	}
	err := s.UpdateStatus(ctx, org, t, func(t *tcsv1.Transcript) bool {
		if t.Status.Phase != "" {
			return false
		}
		t.Status = rec.Status
		t.Status.DeletedAt = nil
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("restoring the status of archived %s: %w", rec.Spec.ID, err)
	}
	return t, nil
}
