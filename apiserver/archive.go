package apiserver

import (
	"context"
	"fmt"
	"maps"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/results"
)

// unarchive brings the archived transcript rec back into the cluster as a resource with rec's
// status, and returns the resource. It is idempotent: a resource that exists already (brought
// back by a concurrent request) is the answer, and one created by a run killed before it
// restored the status gets its status here or from the archiver.
func (s *Server) unarchive(ctx context.Context, rec *tcsv1.Transcript) (*tcsv1.Transcript, error) {
	annotations := maps.Clone(rec.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	delete(annotations, tcsv1.AnnotationArchivedAt)
	labels := maps.Clone(rec.Labels)
	delete(labels, tcsv1.LabelArchived)
	annotations[tcsv1.AnnotationUnarchived] = s.clock.Now().UTC().Format(time.RFC3339)
	created := rec.Created()
	annotations[tcsv1.AnnotationCreatedAt] = created.UTC().Format(time.RFC3339)
	t := &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(rec.Spec.ID), Namespace: s.namespace,
			Labels: labels, Annotations: annotations,
			// Its objects are in the store already: a deletion must remove them.
			Finalizers: []string{tcsv1.FinalizerStoredObjects}},
		Spec: rec.Spec,
	}
	// A resource still leaving the cluster (its finalizer runs) is waited for, briefly.
	for wait := 0; ; wait++ {
		err := s.client.Create(ctx, t.DeepCopy())
		if err == nil {
			break
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("bringing back archived %s: %w", rec.Spec.ID, err)
		}
		existing := &tcsv1.Transcript{}
		err = s.apiReader.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: t.Name}, existing)
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
	err := s.updateStatus(ctx, t, func(t *tcsv1.Transcript) bool {
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

// archivedPage returns the page of org's archived transcripts that f, limit and the cursor
// select, leaving out those that also are resources in the cluster (in the moment between the
// archiver's write and its delete, or brought back for an AI pass): the resource is the truth.
func (s *Server) archivedPage(ctx context.Context, org string, f listFilter, limit int, cursor *tcsv1.Transcript, before bool) ([]*tcsv1.Transcript, bool, error) {
	if s.results == nil {
		return nil, false, nil
	}
	opts := results.ListOptions{Status: f.status, SourceType: f.sourceType, CreatedGTE: f.createdFrom, CreatedLTE: f.createdTo}
	if cursor != nil {
		c := &results.Cursor{ID: cursor.Spec.ID, CreatedAt: cursor.Created().Truncate(time.Second)}
		if before {
			opts.EndingBefore = c
		} else {
			opts.StartingAfter = c
		}
	}
	for extra := 0; ; {
		opts.Limit = limit + extra
		page, err := s.results.List(ctx, org, opts)
		if err != nil {
			return nil, false, err
		}
		out := make([]*tcsv1.Transcript, 0, len(page.Records))
		for _, rec := range page.Records {
			live := &tcsv1.Transcript{}
			err := s.cache.Get(ctx, types.NamespacedName{Namespace: s.namespace, Name: tcsv1.TranscriptName(rec.ID)}, live)
			switch {
			case err == nil:
				continue
			case !apierrors.IsNotFound(err):
				return nil, false, fmt.Errorf("reading transcript %s: %w", rec.ID, err)
			}
			out = append(out, rec.Transcript)
		}
		if len(out) >= limit || !page.HasMore {
			return out, page.HasMore || len(out) > limit, nil
		}
		extra += limit - len(out) + 1
	}
}

// mergePages merges two pages in list order (newest first) into one of at most limit
// transcripts; hasMore tells whether either page had more, or the merge left some out.
func mergePages(a, b []*tcsv1.Transcript, aMore, bMore bool, limit int, before bool) ([]*tcsv1.Transcript, bool) {
	out := make([]*tcsv1.Transcript, 0, min(limit+1, len(a)+len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j >= len(b) || i < len(a) && newerFirst(a[i], b[j]) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	hasMore := aMore || bMore || len(out) > limit
	if len(out) > limit {
		if before {
			// The page right before the cursor is the oldest of the newer ones.
			out = out[len(out)-limit:]
		} else {
			out = out[:limit]
		}
	}
	return out, hasMore
}
