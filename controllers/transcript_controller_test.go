package controllers

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/correction"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/orgs"
	"tcs.dev/tcs/internal/pipeline"
	"tcs.dev/tcs/internal/scheme"
	"tcs.dev/tcs/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	var err error
	env, err = testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller tests need the local control plane:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// startReconciler runs the transcript reconciler against the real control plane in a new namespace.
func startReconciler(t *testing.T) (client.Client, *blob.Store, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := scheme.New()
	c := env.Client(t, client.Options{Scheme: s})
	ns := fmt.Sprintf("tcs-ctrl-%d", time.Now().UnixNano())
	if err := orgs.EnsureNamespace(ctx, c, ns); err != nil {
		t.Fatal(err)
	}
	var logOut io.Writer = io.Discard
	if os.Getenv("TCS_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:  s,
		Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics: metricsserver.Options{BindAddress: "0"},
		Logger:  zap.New(zap.WriteTo(logOut)),
		// Each test starts its own manager; controller names must not clash across them.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	r := &TranscriptReconciler{Client: mgr.GetClient(), Processor: pipeline.New(engine, store), PasteGrace: 50 * time.Millisecond}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return c, store, ns
}

func newTranscript(ns, org string, source tcsv1.SourceType) *tcsv1.Transcript {
	id := ids.New("tr")
	return &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: ns,
			Labels: map[string]string{tcsv1.LabelOrganization: org, tcsv1.LabelSourceType: string(source)}},
		Spec: tcsv1.TranscriptSpec{ID: id, Organization: org, Source: tcsv1.TranscriptSource{
			Type: source, InputRef: pipeline.KeysFor(org, id).Input, URL: "https://example.org/a.txt"}},
	}
}

// eventually polls the transcript until check is true or 20 s pass.
func eventually(t *testing.T, c client.Client, tr *tcsv1.Transcript, what string, check func(*tcsv1.Transcript) bool) *tcsv1.Transcript {
	t.Helper()
	got := &tcsv1.Transcript{}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := c.Get(t.Context(), types.NamespacedName{Namespace: tr.Namespace, Name: tr.Name}, got); err != nil {
			t.Fatal(err)
		}
		if check(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached; status %+v", what, got.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func wantCondition(t *testing.T, tr *tcsv1.Transcript, condType string, status metav1.ConditionStatus, reason string) {
	t.Helper()
	c := meta.FindStatusCondition(tr.Status.Conditions, condType)
	if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != tr.Generation {
		t.Fatalf("condition %s = %+v, want %s/%s at generation %d", condType, c, status, reason, tr.Generation)
	}
	if tr.Status.ObservedGeneration != tr.Generation {
		t.Fatalf("observedGeneration %d, generation %d", tr.Status.ObservedGeneration, tr.Generation)
	}
}

func TestReconcilerFinishesAPasteTheAPIServerLeftHalfDone(t *testing.T) {
	c, store, ns := startReconciler(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
	input := "Sermon notes\nread Revelations 22:20 tonight\n"
	if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte(input), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
	wantCondition(t, got, tcsv1.ConditionReady, metav1.ConditionTrue, "Completed")
	wantCondition(t, got, tcsv1.ConditionCorrected, metav1.ConditionTrue, "Corrected")
	if got.Status.Title != "Sermon notes" || got.Status.Format != "txt" || got.Status.AIPassStatus != tcsv1.AIPassIdle ||
		got.Status.ChangesSummary == nil || got.Status.ChangesSummary.AutoApplied != 1 || got.Status.CompletedAt == nil {
		t.Fatalf("status %+v", got.Status)
	}
	content, err := store.Get(t.Context(), got.Status.ContentRef)
	if err != nil || string(content) != "Sermon notes\nread Revelation 22:20 tonight\n" {
		t.Fatalf("content %q, %v", content, err)
	}
	if _, err := store.Get(t.Context(), got.Status.ChangesRef); err != nil {
		t.Fatalf("change list: %v", err)
	}
}

func TestReconcilerFailsAPasteWithoutInput(t *testing.T) {
	c, _, ns := startReconciler(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "failed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseFailed })
	wantCondition(t, got, tcsv1.ConditionReady, metav1.ConditionFalse, "Failed")
	if got.Status.Error == nil || got.Status.Error.Type != "server_error" {
		t.Fatalf("error %+v", got.Status.Error)
	}
}

func TestReconcilerFailsUnreadableContent(t *testing.T) {
	c, store, ns := startReconciler(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
	tr.Spec.Source.Format = "json"
	if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte("{not json"), "application/json"); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "failed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseFailed })
	if got.Status.Error == nil || got.Status.Error.Type != "unprocessable" {
		t.Fatalf("error %+v", got.Status.Error)
	}
}

func TestReconcilerKeepsOtherSourcesPending(t *testing.T) {
	c, _, ns := startReconciler(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourceURL)
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "pending", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhasePending })
	wantCondition(t, got, tcsv1.ConditionReady, metav1.ConditionFalse, "Pending")
	wantCondition(t, got, tcsv1.ConditionCorrected, metav1.ConditionFalse, "Pending")
	if got.Status.AIPassStatus != tcsv1.AIPassIdle {
		t.Fatalf("aiPassStatus %q", got.Status.AIPassStatus)
	}
}

func TestReconcilerLeavesCompletedTranscriptsAlone(t *testing.T) {
	c, _, ns := startReconciler(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	// The API server completes pastes itself within the grace period.
	tr.Status.Phase = tcsv1.PhaseCompleted
	tr.Status.AIPassStatus = tcsv1.AIPassIdle
	tr.Status.ContentRef = "transcripts/org_a/" + tr.Spec.ID + "/content"
	tr.SyncConditions()
	if err := c.Status().Update(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	got := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
	if got.Status.ContentRef != tr.Status.ContentRef || got.Status.Error != nil {
		t.Fatalf("the reconciler changed a completed transcript: %+v", got.Status)
	}
}
