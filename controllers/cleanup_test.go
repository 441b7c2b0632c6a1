package controllers

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/pipeline"
)

// jamKey makes deleting key from the filesystem store rooted at root fail, as a real I/O
// error does: the key's path becomes a directory that is not empty. unjam removes it, and with
// it the object.
func jamKey(t *testing.T, root, key string) (unjam func()) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(key))
	_ = os.Remove(path)
	if err := os.MkdirAll(filepath.Join(path, "jam"), 0o750); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
	}
}

// waitGone polls until obj is not found, or fails the test after 20 s.
func waitGone(t *testing.T, c client.Client, obj client.Object, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := c.Get(t.Context(), client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still there (%v)", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Deleting a transcript, with kubectl or by the purge after a soft delete, removes its
// objects, its deliveries (in the cluster and archived) and their payloads before the
// transcript goes, and retries a failure of the object store until it is done.
func TestDeletedTranscriptsLeaveNothingInTheStore(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-cleanup")
	root := t.TempDir()
	store, err := blob.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	rs := openResults(t)
	t.Cleanup(runManagerWithResults(t, ns, store, sources.NewClient(sources.ClientOptions{}), rs))

	for _, tc := range []struct {
		name   string
		delete func(t *testing.T, tr *tcsv1.Transcript)
	}{
		{"kubectl delete", func(t *testing.T, tr *tcsv1.Transcript) {
			if err := c.Delete(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
		}},
		{"purge after the soft delete's retention", func(t *testing.T, tr *tcsv1.Transcript) {
			deleted := metav1.NewTime(time.Now().Add(-DefaultRetention - time.Minute))
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				if err := c.Get(t.Context(), client.ObjectKeyFromObject(tr), tr); err != nil {
					return err
				}
				tr.Status.DeletedAt = &deleted
				return c.Status().Update(t.Context(), tr)
			})
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
			keys := pipeline.KeysFor("org_a", tr.Spec.ID)
			payload := iwebhook.PayloadKey("org_a", "evt_"+tr.Name)
			archivedPayload := iwebhook.PayloadKey("org_a", "evt_a"+tr.Name)
			// The versions of its review, the one in force and an earlier one.
			review := []string{keys.Review(1, "0123456789abcdef").Content, keys.Review(2, "fedcba9876543210").Decisions}
			objects := append(append(keys.All(), payload, archivedPayload), review...)
			for _, k := range objects {
				if err := store.Put(t.Context(), k, []byte("x"), "text/plain"); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Create(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
			d := &tcsv1.WebhookDelivery{
				ObjectMeta: metav1.ObjectMeta{Name: "evt-" + tr.Name, Namespace: ns, Labels: map[string]string{tcsv1.LabelOrganization: "org_a"}},
				Spec: tcsv1.WebhookDeliverySpec{ID: "evt_" + tr.Name, Organization: "org_a", Endpoint: "we-x", Event: tcsv1.EventTranscriptCreated,
					TranscriptID: tr.Spec.ID, PayloadRef: payload},
			}
			if err := c.Create(t.Context(), d); err != nil {
				t.Fatal(err)
			}
			// An earlier delivery, archived to the results store.
			archived := d.DeepCopy()
			archived.Name, archived.Spec.ID, archived.Spec.PayloadRef = "evt-a"+tr.Name, "evt_a"+tr.Name, archivedPayload
			archived.Status = tcsv1.WebhookDeliveryStatus{State: tcsv1.DeliverySucceeded, CompletedAt: &d.CreationTimestamp}
			if _, err := rs.PutDelivery(t.Context(), archived, 1); err != nil {
				t.Fatal(err)
			}
			// The reconciler adds the finalizer to a transcript created without it, and the
			// transcript completes from its stored input.
			eventually(t, c, tr, "completed with the finalizer", func(x *tcsv1.Transcript) bool {
				return controllerutil.ContainsFinalizer(x, tcsv1.FinalizerStoredObjects) && x.Status.Phase == tcsv1.PhaseCompleted
			})

			unjam := jamKey(t, root, keys.Content)
			tc.delete(t, tr)
			time.Sleep(1500 * time.Millisecond)
			if err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: tr.Name}, &tcsv1.Transcript{}); err != nil {
				t.Fatalf("the transcript went while the store failed to remove its content: %v", err)
			}
			unjam()
			waitGone(t, c, tr, "the deleted transcript")
			waitGone(t, c, d, "its delivery")
			if _, err := rs.GetDelivery(t.Context(), archived.Spec.ID); !errors.Is(err, results.ErrNotFound) {
				t.Errorf("the record of its archived delivery: %v, want it removed", err)
			}
			for _, k := range objects {
				if ok, err := store.Exists(t.Context(), k); ok || err != nil {
					t.Errorf("%s left in the store (%v)", k, err)
				}
			}
		})
	}
}
