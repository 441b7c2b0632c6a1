package controllers

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/blob"
)

// IdempotencyRecordReconciler garbage-collects IdempotencyRecords once they expire, with the
// response bodies they keep in the object store.
type IdempotencyRecordReconciler struct {
	Client client.Client
	Store  *blob.Store
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// +kubebuilder:rbac:groups=tcs.dev,resources=idempotencyrecords,verbs=get;list;watch;create;update;patch;delete,namespace=tcs-system

// Reconcile deletes an expired record, or comes back when it expires.
func (r *IdempotencyRecordReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rec := &tcsv1.IdempotencyRecord{}
	if err := r.Client.Get(ctx, req.NamespacedName, rec); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	if wait := rec.Spec.ExpiresAt.Sub(now()); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	// The body goes first and the record last: an error on either is retried, because the
	// record that points at the body is still there to bring the reconciler back.
	if rec.Status.BodyRef != "" {
		if err := r.Store.Delete(ctx, rec.Status.BodyRef); err != nil {
			return ctrl.Result{}, fmt.Errorf("deleting the body of idempotency record %s: %w", rec.Name, err)
		}
	}
	if err := r.Client.Delete(ctx, rec, client.Preconditions{ResourceVersion: &rec.ResourceVersion}); err != nil && !apierrors.IsNotFound(err) {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: conflictRequeue}, nil
		}
		return ctrl.Result{}, fmt.Errorf("deleting idempotency record %s: %w", rec.Name, err)
	}
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler with mgr.
func (r *IdempotencyRecordReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.IdempotencyRecord{}).
		Named("idempotencyrecord").
		Complete(r)
}
