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
	// label, when set, is set to "true" with the mark (so that a label-selected cache lets the
	// object go).
	label string
	// afterPut and afterMark, when set (by tests only), run after the record was written and
	// after the resource was marked.
	afterPut, afterMark func(T)
}

// run writes obj's record, marks the intent on the resource and deletes it (see mark and
// remove).
func (a archival[T]) run(ctx context.Context, c client.Client, obj T) (ctrl.Result, error) {
	if !marked(obj) {
		res, err := a.mark(ctx, c, obj)
		if err != nil || !res.IsZero() {
			return res, err
		}
		return a.delete(ctx, c, obj)
	}
	return a.remove(ctx, c, obj)
}

// mark writes obj's record and then marks the intent on the resource (the
// tcs.dev/archived-at annotation, with a.label set and a.finalizer removed), each step
// idempotent: a process killed between the two loses nothing and leaves no duplicate, and
// readers find obj in one place or the other at every moment. A conflict (obj changed
// meanwhile) requeues, so the next reconcile decides again.
func (a archival[T]) mark(ctx context.Context, c client.Client, obj T) (ctrl.Result, error) {
	version, err := resourceVersion(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	// The record reflects exactly this version of the resource; the mark below changes
	// nothing but metadata the record leaves out.
	if err := a.put(ctx, unmarked(obj, a.label), version); err != nil {
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
	if annotations[tcsv1.AnnotationArchivedAt] == "" {
		annotations[tcsv1.AnnotationArchivedAt] = a.now.UTC().Format(time.RFC3339)
	}
	obj.SetAnnotations(annotations)
	if a.label != "" {
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[a.label] = "true"
		obj.SetLabels(labels)
	}
	if a.finalizer != "" {
		controllerutil.RemoveFinalizer(obj, a.finalizer)
	}
	if err := c.Patch(ctx, obj, patch); err != nil {
		if apierrors.IsNotFound(err) {
			// Reconciled again like after a conflict: the next read tells what happened.
			return ctrl.Result{RequeueAfter: conflictRequeue}, nil
		}
		return afterWrite(err, "marking %s archived", a.what)
	}
	if a.afterMark != nil {
		a.afterMark(obj)
	}
	return ctrl.Result{}, nil
}

// remove deletes marked obj from the cluster after writing its record again, as it may have
// changed since it was marked (an AI pass, a replay); the store keeps the newer version.
func (a archival[T]) remove(ctx context.Context, c client.Client, obj T) (ctrl.Result, error) {
	version, err := resourceVersion(obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := a.put(ctx, unmarked(obj, a.label), version); err != nil {
		return ctrl.Result{}, fmt.Errorf("archiving %s: %w", a.what, err)
	}
	return a.delete(ctx, c, obj)
}

// delete deletes obj as it was read: a change since then (a conflict) requeues.
func (a archival[T]) delete(ctx context.Context, c client.Client, obj T) (ctrl.Result, error) {
	rv := obj.GetResourceVersion()
	err := c.Delete(ctx, obj, client.Preconditions{ResourceVersion: &rv})
	return afterWrite(client.IgnoreNotFound(err), "removing archived %s from the cluster", a.what)
}

// marked reports whether obj carries the archiver's mark.
func marked(obj client.Object) bool {
	return obj.GetAnnotations()[tcsv1.AnnotationArchivedAt] != ""
}

// unmarked returns a copy of obj without the archiver's mark (annotation and label), which is
// not part of its record.
func unmarked[T client.Object](obj T, label string) T {
	c := obj.DeepCopyObject().(T)
	annotations := c.GetAnnotations()
	delete(annotations, tcsv1.AnnotationArchivedAt)
	c.SetAnnotations(annotations)
	if label != "" {
		labels := c.GetLabels()
		delete(labels, label)
		c.SetLabels(labels)
	}
	return c
}
