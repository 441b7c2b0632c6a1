package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// A reconciler that keeps objects outside the cluster for a resource adds its finalizer
// first, before it stores anything, and ends that reconcile there: the write brings the
// resource back (flux's "finalizer first"). Its finalize step removes the objects and only
// then the finalizer. Both writes go through the two functions below.

// addFinalizer adds finalizer to obj, in a merge patch conditional on the version read, and
// returns the write's error; it writes nothing when obj has it already.
func addFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	return patchFinalizers(ctx, c, obj, func() bool { return controllerutil.AddFinalizer(obj, finalizer) })
}

// removeFinalizer removes finalizer from obj, in a merge patch conditional on the version
// read, and returns the write's error; it writes nothing when obj does not have it.
func removeFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	return patchFinalizers(ctx, c, obj, func() bool { return controllerutil.RemoveFinalizer(obj, finalizer) })
}

// patchFinalizers writes the change of obj's finalizers that change makes, when it reports one.
func patchFinalizers(ctx context.Context, c client.Client, obj client.Object, change func() bool) error {
	orig := obj.DeepCopyObject().(client.Object)
	if !change() {
		return nil
	}
	return c.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
}
