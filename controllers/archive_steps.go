package controllers

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// archival is one move of a finished object from the cluster to the results store.
type archival[T client.Object] struct {
	// what names the object in errors, such as "transcript tr_…".
	what string
	// put writes the object's record at version; the store keeps the newer of two versions.
	put func(ctx context.Context, obj T, version int64) error
	// now is the time the intent is marked with.
	now time.Time
	// finalizer, when set, is removed with the mark: what it guards stays with the record, so
	// the deletion that follows ends at once, without a write and a reconcile more.
	finalizer string
	// afterPut and afterMark, when set (by tests only), run after the record was written and
	// after the resource was marked.
	afterPut, afterMark func(T)
}

// run writes obj's record, marks the intent on the resource (the tcs.dev/archived-at
// annotation, with the finalizer removed) and deletes it, each step idempotent: a process killed between two steps loses
// nothing and leaves no duplicate, and readers find obj in one place or the other at every
// moment. A conflict (obj changed meanwhile) requeues, so the next reconcile decides again.
func (a archival[T]) run(ctx context.Context, c client.Client, obj T) (ctrl.Result, error) {
	version, err := resourceVersion(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	if obj.GetAnnotations()[tcsv1.AnnotationArchivedAt] == "" {
		// The record reflects exactly this version of the resource; the mark below changes
		// nothing but the annotation.
		if err := a.put(ctx, obj, version); err != nil {
			return ctrl.Result{}, fmt.Errorf("archiving %s: %w", a.what, err)
		}
		if a.afterPut != nil {
			a.afterPut(obj)
		}
		patch := client.MergeFromWithOptions(obj.DeepCopyObject().(T), client.MergeFromWithOptimisticLock{})
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[tcsv1.AnnotationArchivedAt] = a.now.UTC().Format(time.RFC3339)
		obj.SetAnnotations(annotations)
		if a.finalizer != "" {
			controllerutil.RemoveFinalizer(obj, a.finalizer)
		}
		if err := c.Patch(ctx, obj, patch); err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return ctrl.Result{RequeueAfter: conflictRequeue}, nil
			}
			return ctrl.Result{}, fmt.Errorf("marking %s archived: %w", a.what, err)
		}
		if a.afterMark != nil {
			a.afterMark(obj)
		}
	} else {
		// Marked in an earlier run: written again, as it may have changed since (an AI pass,
		// a replay); the store keeps the newer version. The mark is not part of the record.
		unmarked := obj.DeepCopyObject().(T)
		annotations := unmarked.GetAnnotations()
		delete(annotations, tcsv1.AnnotationArchivedAt)
		unmarked.SetAnnotations(annotations)
		if err := a.put(ctx, unmarked, version); err != nil {
			return ctrl.Result{}, fmt.Errorf("archiving %s: %w", a.what, err)
		}
	}
	rv := obj.GetResourceVersion()
	if err := c.Delete(ctx, obj, client.Preconditions{ResourceVersion: &rv}); err != nil && !apierrors.IsNotFound(err) {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: conflictRequeue}, nil
		}
		return ctrl.Result{}, fmt.Errorf("removing archived %s from the cluster: %w", a.what, err)
	}
	return ctrl.Result{}, nil
}
