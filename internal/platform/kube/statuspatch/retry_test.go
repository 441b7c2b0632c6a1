package statuspatch

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/scheme"
)

func TestRetry(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	for _, tc := range []struct {
		name        string
		steps       int
		conflicts   int // writes by another writer before the first tries
		skip        bool
		wantWritten bool
		wantCount   int
		wantErr     func(error) bool
	}{
		{"a write without a conflict lands at the first try", 1, 0, false, true, 1, nil},
		{"a write that lost to another writer is redone on the newer version", 2, 1, false, true, 2, nil},
		{"a write that lost every try ends in a conflict", 2, 2, false, false, 0, apierrors.IsConflict},
		{"a mutation that finds nothing to do writes nothing", 1, 0, true, false, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			tr := pendingTranscript(t, c)
			// Each conflict is a write by another writer after tr was read; the reads of the
			// retries see them.
			stale := tr.DeepCopy()
			other := tr.DeepCopy()
			tries := 0
			written, err := Retry(ctx, c, c, wait.Backoff{Steps: tc.steps}, stale, "tcs-test", func() bool {
				if tries < tc.conflicts {
					p := New(other, "tcs-other")
					other.Status.Jobs[0].Attempts++
					if err := p.Patch(ctx, c, other, Locked); err != nil {
						t.Fatal(err)
					}
				}
				tries++
				if tc.skip {
					return false
				}
				stale.Status.Jobs[0].Error = "seen"
				stale.Status.Jobs[0].Progress = tries
				return true
			}, Locked)
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("Retry = %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if written != tc.wantWritten {
				t.Fatalf("written = %t, want %t", written, tc.wantWritten)
			}
			got := &tcsv1.Transcript{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tr), got); err != nil {
				t.Fatal(err)
			}
			if tc.wantCount > 0 && (got.Status.Jobs[0].Error != "seen" || got.Status.Jobs[0].Progress != tc.wantCount || got.Status.Jobs[0].Attempts != tc.conflicts) {
				t.Fatalf("stored job %+v, want the try %d on top of %d writes of the other writer", got.Status.Jobs[0], tc.wantCount, tc.conflicts)
			}
			if tc.wantCount == 0 && got.Status.Jobs[0].Error == "seen" {
				t.Fatalf("stored job %+v, want no write", got.Status.Jobs[0])
			}
		})
	}
}

func TestRetryWithReadFirstStartsFromTheObjectAsTheReaderHasIt(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	for _, tc := range []struct {
		name        string
		opts        []Option
		wantWritten bool
		wantErr     func(error) bool
	}{
		{"without it a stale copy loses its one try", []Option{Locked}, false, apierrors.IsConflict},
		{"with it the one try reads first and lands", []Option{Locked, ReadFirst}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			tr := pendingTranscript(t, c)
			stale := tr.DeepCopy()
			p := New(tr, "tcs-other")
			tr.Status.Jobs[0].Attempts++
			if err := p.Patch(ctx, c, tr, Locked); err != nil {
				t.Fatal(err)
			}
			seen := -1
			written, err := Retry(ctx, c, c, wait.Backoff{Steps: 1}, stale, "tcs-test", func() bool {
				seen = stale.Status.Jobs[0].Attempts
				stale.Status.Jobs[0].Error = "seen"
				return true
			}, tc.opts...)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("Retry = %v", err)
			case tc.wantErr != nil && !tc.wantErr(err):
				t.Fatalf("Retry = %v, not the error wanted", err)
			case written != tc.wantWritten:
				t.Fatalf("written = %t, want %t", written, tc.wantWritten)
			case tc.wantWritten && seen != 1:
				t.Fatalf("mutate saw %d attempts, want the 1 the other writer wrote", seen)
			}
		})
	}
}
