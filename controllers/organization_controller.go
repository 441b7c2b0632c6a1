package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
)

// OrganizationReconciler keeps an Organization's Ready condition true to whether it can use
// the API: it needs at least one API key.
type OrganizationReconciler struct {
	Client client.Client
}

// Reconcile sets the Ready condition of one Organization.
func (r *OrganizationReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	org := &tcsv1.Organization{}
	if err := r.Client.Get(ctx, req.NamespacedName, org); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var keys corev1.SecretList
	if err := r.Client.List(ctx, &keys, client.InNamespace(org.Namespace),
		client.MatchingLabels{tcsv1.LabelOrganization: org.Spec.ID}, client.HasLabels{tcsv1.LabelAPIKeyID}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the API keys of %s: %w", org.Spec.ID, err)
	}
	before := org.Status.DeepCopy()
	patch := statuspatch.New(org, statuspatch.OwnerOrganization)
	cond := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "HasAPIKeys",
		Message: fmt.Sprintf("%d API key(s).", len(keys.Items)), ObservedGeneration: org.Generation}
	if len(keys.Items) == 0 {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "NoAPIKeys", "The organization has no API key yet."
	}
	meta.SetStatusCondition(&org.Status.Conditions, cond)
	org.Status.ObservedGeneration = org.Generation
	if equality.Semantic.DeepEqual(before, &org.Status) {
		return ctrl.Result{}, nil
	}
	return afterWrite(patch.Patch(ctx, r.Client, org), "updating the status of %s", org.Name)
}

// SetupWithManager registers the reconciler with mgr; a change of an API-key Secret
// reconciles its organization.
func (r *OrganizationReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&tcsv1.Organization{}).
		Watches(&corev1.Secret{}, handlerForKeys(mgr.GetClient())).
		Named("organization").
		Complete(r)
}

// handlerForKeys maps an API-key Secret to the Organization it belongs to.
func handlerForKeys(c client.Client) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, obj client.Object) []reconcile.Request {
		org := obj.GetLabels()[tcsv1.LabelOrganization]
		if org == "" || obj.GetLabels()[tcsv1.LabelAPIKeyID] == "" {
			return nil
		}
		var list tcsv1.OrganizationList
		if err := c.List(ctx, &list, client.InNamespace(obj.GetNamespace())); err != nil {
			return nil
		}
		for _, o := range list.Items {
			if o.Spec.ID == org {
				return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(&o)}}
			}
		}
		return nil
	})
}
