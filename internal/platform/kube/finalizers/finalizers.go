// Package finalizers adds and removes an object's finalizers, each in a merge patch conditional
// on the version read.
//
// A reconciler that keeps objects outside the cluster for a resource adds its finalizer first,
// before it stores anything, and ends that reconcile there: the write brings the resource back
// (flux's "finalizer first"). Its finalize step removes the objects and only then the
// finalizer. The API, which creates a transcript with its finalizer, removes it the same way
// when it discards a transcript it will not answer. Every such write goes through Add or
// Remove.
package finalizers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Add adds finalizer to obj, in a merge patch conditional on the version read, and returns
// the write's error; it writes nothing when obj has it already.
func Add(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	return patch(ctx, c, obj, func() bool { return controllerutil.AddFinalizer(obj, finalizer) })
}

// Remove removes finalizer from obj, in a merge patch conditional on the version read, and
// returns the write's error; it writes nothing when obj does not have it.
func Remove(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	return patch(ctx, c, obj, func() bool { return controllerutil.RemoveFinalizer(obj, finalizer) })
}

// patch writes the change of obj's finalizers that change makes, when it reports one.
func patch(ctx context.Context, c client.Client, obj client.Object, change func() bool) error {
	orig := obj.DeepCopyObject().(client.Object)
	if !change() {
		return nil
	}
	return c.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
}
