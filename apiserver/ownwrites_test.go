package apiserver

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// written is a transcript of org in namespace ns as a write at resourceVersion rv left it.
func written(ns, org, rv string) *tcsv1.Transcript {
	return &tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tr-" + rv, ResourceVersion: rv},
		Spec: tcsv1.TranscriptSpec{Organization: org}}
}

// waited reports whether await of org returned only after release ran; it fails t when await
// has not returned a second after release.
func waited(t *testing.T, w *ownWrites, org string, release func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		w.await(context.Background(), org)
		close(done)
	}()
	select {
	case <-done:
		return false
	case <-time.After(100 * time.Millisecond):
	}
	release()
	select {
	case <-done:
		return true
	case <-time.After(time.Second):
		t.Fatal("the list still waits a second after the delivery")
		return true
	}
}

func TestAListWaitsForTheWritesOfItsOrganizationUntilTheInformerDeliversThem(t *testing.T) {
	const ns = "tcs-system"
	for _, tc := range []struct {
		name string
		// before runs on a wired ownWrites before the write of org_a at version 10 is recorded.
		before func(w *ownWrites)
		// delivered is what the informer delivers after the list began to wait.
		delivered *tcsv1.Transcript
		list      string
		wantWait  bool
	}{
		{"the write itself delivered", nil, written(ns, "org_a", "10"), "org_a", true},
		{"a newer transcript of another organization delivered", nil, written(ns, "org_b", "11"), "org_a", true},
		{"another organization's list", nil, written(ns, "org_a", "10"), "org_b", false},
		{"the write delivered before it was recorded", func(w *ownWrites) { w.saw(written(ns, "org_a", "10")) }, nil, "org_a", false},
		{"a newer transcript delivered before the write was recorded", func(w *ownWrites) { w.saw(written(ns, "org_b", "12")) }, nil, "org_a", false},
		{"an older transcript delivered before", func(w *ownWrites) { w.saw(written(ns, "org_b", "9")) }, written(ns, "org_a", "10"), "org_a", true},
		{"a transcript of another namespace delivered before", func(w *ownWrites) { w.saw(written("other", "org_a", "12")) }, written(ns, "org_a", "10"), "org_a", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newOwnWrites(ns)
			w.wire(true)
			if tc.before != nil {
				tc.before(w)
			}
			if !w.record(written(ns, "org_a", "10"), time.Now()) {
				t.Fatal("a wired ownWrites did not record the write")
			}
			got := waited(t, w, tc.list, func() {
				if tc.delivered != nil {
					w.saw(tc.delivered)
				}
			})
			if got != tc.wantWait {
				t.Fatalf("the list waited: %t, want %t", got, tc.wantWait)
			}
			if got {
				// Once delivered, the write is forgotten: the next list does not wait.
				if waited(t, w, tc.list, func() {}) {
					t.Fatal("a second list waited for a delivered write")
				}
			}
		})
	}
}

func TestAListWaitsForAnUndeliveredWriteAtMostCacheWait(t *testing.T) {
	w := newOwnWrites("tcs-system")
	w.wire(true)
	w.record(written("tcs-system", "org_a", "10"), time.Now().Add(-cacheWait+200*time.Millisecond))
	start := time.Now()
	w.await(context.Background(), "org_a")
	if took := time.Since(start); took < 100*time.Millisecond || took > cacheWait {
		t.Fatalf("the list waited %s, want about 200ms (cacheWait from the write)", took)
	}
	start = time.Now()
	w.await(context.Background(), "org_a")
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Fatalf("a second list waited %s for the write given up on", took)
	}
}

func TestAWriteIsNotRecordedWithoutTheInformersEvents(t *testing.T) {
	w := newOwnWrites("tcs-system")
	if w.record(written("tcs-system", "org_a", "10"), time.Now()) {
		t.Fatal("recorded before the informer's events were wired: the writer must wait itself")
	}
	w.wire(true)
	w.record(written("tcs-system", "org_a", "11"), time.Now())
	w.wire(false)
	if waited(t, w, "org_a", func() {}) {
		t.Fatal("a list waited for a write after the informer's events stopped")
	}
	if w.record(written("tcs-system", "org_a", "12"), time.Now()) {
		t.Fatal("recorded after the informer's events stopped")
	}
}
