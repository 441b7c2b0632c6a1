package controllers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

func TestOrganizationReadyOnceItHasAKey(t *testing.T) {
	ctx := t.Context()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-org")
	mgr := env.NewManager(t, ns)
	if err := (&OrganizationReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	defer testenv.Run(t, mgr)()

	org, err := orgs.Create(ctx, c, ns, "Grace", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitReady := func(want metav1.ConditionStatus, reason string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			got := &tcsv1.Organization{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(org), got); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, "Ready")
			if cond != nil && cond.Status == want && cond.Reason == reason && cond.ObservedGeneration == got.Generation && got.Status.ObservedGeneration == got.Generation {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("Ready = %+v, want %s/%s", cond, want, reason)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitReady(metav1.ConditionFalse, "NoAPIKeys")
	if _, err := orgs.CreateKey(ctx, c, ns, org.Spec.ID, "first"); err != nil {
		t.Fatal(err)
	}
	waitReady(metav1.ConditionTrue, "HasAPIKeys")
}
