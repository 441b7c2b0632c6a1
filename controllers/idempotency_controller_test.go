package controllers

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/scheme"
	"tcs.dev/tcs/internal/testenv"
)

func TestIdempotencyRecordsExpire(t *testing.T) {
	ctx := t.Context()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-idem")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mgr := env.NewManager(t, ns)
	if err := (&IdempotencyRecordReconciler{Client: mgr.GetClient(), Store: store}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	defer testenv.Run(t, mgr)()

	mk := func(name string, expires time.Time, bodyRef string) *tcsv1.IdempotencyRecord {
		rec := &tcsv1.IdempotencyRecord{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       tcsv1.IdempotencyRecordSpec{Organization: "org_a", Route: "POST /api/v1/transcripts", KeyHash: "00", ExpiresAt: metav1.NewTime(expires)},
			Status:     tcsv1.IdempotencyRecordStatus{State: tcsv1.IdempotencyCompleted, StatusCode: 201, BodyRef: bodyRef},
		}
		if bodyRef != "" {
			if err := store.Put(ctx, bodyRef, []byte("{}"), "application/json"); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Create(ctx, rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	expired := mk("idem-expired", time.Now().Add(-time.Minute), "idempotency/org_a/idem-expired")
	soon := mk("idem-soon", time.Now().Add(2*time.Second), "")
	kept := mk("idem-kept", time.Now().Add(time.Hour), "")

	gone := func(rec *tcsv1.IdempotencyRecord) bool {
		err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: rec.Name}, &tcsv1.IdempotencyRecord{})
		return apierrors.IsNotFound(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !(gone(expired) && gone(soon)) {
		if time.Now().After(deadline) {
			t.Fatalf("expired records not collected: expired gone %v, soon gone %v", gone(expired), gone(soon))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if gone(kept) {
		t.Fatal("a live record was collected")
	}
	if ok, _ := store.Exists(ctx, "idempotency/org_a/idem-expired"); ok {
		t.Fatal("the body of a collected record is left in the store")
	}
}
