package statuspatch

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/scheme"
)

func TestUpdate(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "statuspatch")
	refused := errors.New("refused")
	for _, tc := range []struct {
		name      string
		exists    bool
		create    bool // CreateMissing
		steps     int
		interfere int // writes by another writer during the first tries
		skip      bool
		fail      error
		// wantData is the stored "by" entries after Update; nil means the object does not exist.
		wantData    map[string]string
		wantWritten bool
		wantErr     func(error) bool
	}{
		{"a change lands at the first try", true, false, 1, 0, false, nil,
			map[string]string{"other": "0", "mine": "1"}, true, nil},
		{"a change that lost to another writer is redone on the newer version", true, false, 2, 1, false, nil,
			map[string]string{"other": "1", "mine": "2"}, true, nil},
		{"a change that lost every try ends in a conflict", true, false, 2, 2, false, nil,
			map[string]string{"other": "2"}, false, apierrors.IsConflict},
		{"a mutation that finds nothing to do writes nothing", true, false, 1, 0, true, nil,
			map[string]string{"other": "0"}, false, nil},
		{"a mutation's error ends it without writing", true, false, 3, 0, false, refused,
			map[string]string{"other": "0"}, false, func(err error) bool { return errors.Is(err, refused) }},
		{"a missing object is not found", false, false, 1, 0, false, nil,
			nil, false, apierrors.IsNotFound},
		{"with CreateMissing a missing object is created from the one given", false, true, 1, 0, false, nil,
			map[string]string{"given": "yes", "mine": "1"}, true, nil},
		{"with CreateMissing an object another writer created meanwhile is updated", false, true, 2, 1, false, nil,
			map[string]string{"other": "1", "mine": "2"}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			name := "update-" + ids.Random(8)
			key := client.ObjectKey{Namespace: ns, Name: name}
			if tc.exists {
				if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"other": "0"}}); err != nil {
					t.Fatal(err)
				}
			}
			// other is a write by another writer after obj was read; the next try reads it.
			writes := 0
			other := func() {
				writes++
				cm := &corev1.ConfigMap{}
				err := c.Get(ctx, key, cm)
				if apierrors.IsNotFound(err) {
					cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"other": "1"}}
					err = c.Create(ctx, cm)
				} else if err == nil {
					cm.Data["other"] = string(rune('0' + writes))
					err = c.Update(ctx, cm)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"given": "yes"}}
			var opts []Option
			if tc.create {
				opts = append(opts, CreateMissing)
			}
			tries := 0
			written, err := Update(ctx, c, c, wait.Backoff{Steps: tc.steps}, obj, func() (bool, error) {
				tries++
				if tc.fail != nil {
					return false, tc.fail
				}
				if tc.skip {
					return false, nil
				}
				if obj.Data == nil {
					obj.Data = map[string]string{}
				}
				obj.Data["mine"] = string(rune('0' + tries))
				if writes < tc.interfere {
					other()
				}
				return true, nil
			}, opts...)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("Update = %v", err)
			case tc.wantErr != nil && !tc.wantErr(err):
				t.Fatalf("Update = %v, not the error wanted", err)
			case written != tc.wantWritten:
				t.Fatalf("written = %t, want %t", written, tc.wantWritten)
			case tc.fail != nil && tries != 1:
				t.Fatalf("mutate ran %d times after it failed, want once", tries)
			}
			got := &corev1.ConfigMap{}
			err = c.Get(ctx, key, got)
			if tc.wantData == nil {
				if !apierrors.IsNotFound(err) {
					t.Fatalf("stored %v (%v), want none", got.Data, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Data) != len(tc.wantData) {
				t.Fatalf("stored %v, want %v", got.Data, tc.wantData)
			}
			for k, v := range tc.wantData {
				if got.Data[k] != v {
					t.Fatalf("stored %v, want %v", got.Data, tc.wantData)
				}
			}
		})
	}
}
