package controllers

import (
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
)

// conflictRequeue is how soon an object whose write lost a race with another writer is
// reconciled again, from the newer version the cache then holds.
const conflictRequeue = 250 * time.Millisecond

// afterWrite returns what a reconcile whose last write (a patch, a delete) ended in err
// returns: done when err is nil; a requeue after conflictRequeue when another writer changed
// the object since it was read (the write was conditional on the version read, and the next
// reconcile redoes it from the newer one); else err, wrapped with what was being done, which
// format and args describe. Callers for whom a vanished object means done pass
// client.IgnoreNotFound(err).
//
// A write that must not be lost to a conflict, because what it records happened already (a
// delivery attempt), retries at once instead: statuspatch.Retry.
func afterWrite(err error, format string, args ...any) (ctrl.Result, error) {
	switch {
	case err == nil:
		return ctrl.Result{}, nil
	case apierrors.IsConflict(err):
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	}
	return ctrl.Result{}, fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), err)
}
