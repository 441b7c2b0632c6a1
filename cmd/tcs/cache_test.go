package main

import (
	"context"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// newServiceCacheManager returns a manager (not started) with the service's cache on ns.
func newServiceCacheManager(t *testing.T, ns string) ctrl.Manager {
	t.Helper()
	sel, workingSet, err := selectors()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: scheme.New(), Cache: cacheOptions(ns, sel, workingSet),
		Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

// TestCacheDropsManagedFields checks that the service's cache keeps Transcripts without their
// managedFields, and that a status written from a cached object leaves the server's
// managedFields in place.
func TestCacheDropsManagedFields(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t, "cache")
	mgr := newServiceCacheManager(t, ns)
	defer testenv.Run(t, mgr)()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	id := ids.New("tr")
	tr := &tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: ns},
		Spec: tcsv1.TranscriptSpec{ID: id, Organization: ids.New("org"), Source: tcsv1.TranscriptSource{Type: tcsv1.SourcePaste}}}
	if err := c.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.ManagedFields) == 0 {
		t.Fatal("the API server keeps no managedFields here; the test shows nothing")
	}
	cached := &tcsv1.Transcript{}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(tr), cached)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(cached.ManagedFields) != 0 {
		t.Fatalf("the cached Transcript keeps %d managedFields entries", len(cached.ManagedFields))
	}
	cached.Status.Phase = tcsv1.PhasePending
	if err := mgr.GetClient().Status().Update(ctx, cached); err != nil {
		t.Fatal(err)
	}
	got := &tcsv1.Transcript{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(tr), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != tcsv1.PhasePending || len(got.ManagedFields) == 0 {
		t.Fatalf("after an update from the cache: phase %q, %d managedFields entries", got.Status.Phase, len(got.ManagedFields))
	}
}

// TestCacheSharesWhatTranscriptsRepeat checks that the service's cache holds one labels map
// for the transcripts of one organization and source type (cachecompact), and each its own
// for different labels; and that it holds no transcript marked archived.
func TestCacheSharesWhatTranscriptsRepeat(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t, "cache")
	mgr := newServiceCacheManager(t, ns)
	defer testenv.Run(t, mgr)()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	org := ids.New("org")
	sources := []tcsv1.SourceType{tcsv1.SourcePaste, tcsv1.SourcePaste, tcsv1.SourceYouTube, tcsv1.SourcePaste}
	for i, src := range sources {
		id := ids.New("tr")
		labels := map[string]string{tcsv1.LabelOrganization: org, tcsv1.LabelSourceType: string(src)}
		if i == len(sources)-1 {
			labels[tcsv1.LabelArchived] = "true" // recorded, waiting for its deletion
		}
		tr := &tcsv1.Transcript{ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: ns, Labels: labels},
			Spec: tcsv1.TranscriptSpec{ID: id, Organization: org, Source: tcsv1.TranscriptSource{Type: src}}}
		if err := c.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	var list tcsv1.TranscriptList
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The cache's own objects, not copies.
		if err := mgr.GetCache().List(ctx, &list, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) >= len(sources)-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d transcripts cached, want %d", len(list.Items), len(sources)-1)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The marked one was created last: had the cache taken it, it would hold it by now.
	time.Sleep(200 * time.Millisecond)
	if err := mgr.GetCache().List(ctx, &list, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != len(sources)-1 {
		t.Fatalf("%d transcripts cached, want the %d not marked archived", len(list.Items), len(sources)-1)
	}
	maps := map[tcsv1.SourceType][]uintptr{}
	for _, tr := range list.Items {
		if tr.Labels[tcsv1.LabelOrganization] != org {
			t.Fatalf("cached labels %v", tr.Labels)
		}
		src := tcsv1.SourceType(tr.Labels[tcsv1.LabelSourceType])
		maps[src] = append(maps[src], uintptr(reflect.ValueOf(tr.Labels).UnsafePointer()))
	}
	if p := maps[tcsv1.SourcePaste]; len(p) != 2 || p[0] != p[1] {
		t.Errorf("two paste transcripts of one organization hold labels maps %v, want one shared", p)
	}
	if y := maps[tcsv1.SourceYouTube]; len(y) != 1 || y[0] == maps[tcsv1.SourcePaste][0] {
		t.Errorf("the youtube transcript's labels map %v is the paste ones' %v", y, maps[tcsv1.SourcePaste])
	}
}
