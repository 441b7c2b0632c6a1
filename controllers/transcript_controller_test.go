package controllers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	if os.Getenv(archiveChildEnv) != "" {
		// This process is the archiver of TestArchiveSurvivesKill (or
		// TestDeliveryArchiveSurvivesKill), not a test run.
		os.Exit(runArchiveChild())
	}
	testenv.Main(m, &env)
}

// startReconciler runs the transcript reconciler against the real control plane in a new namespace.
func startReconciler(t *testing.T) (client.Client, *blob.Store, string) {
	t.Helper()
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-ctrl")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runManager(t, ns, store))
	return c, store, ns
}

// runManager runs a manager with the transcript reconciler on namespace ns; stop ends it and
// waits for it, as a killed and restarted pod would.
func runManager(t *testing.T, ns string, store *blob.Store) (stop func()) {
	t.Helper()
	return runManagerWith(t, ns, store, sources.NewClient(sources.ClientOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}))
}

// runManagerWith is runManager with the outbound client of the sources.
func runManagerWith(t *testing.T, ns string, store *blob.Store, outbound *http.Client) (stop func()) {
	t.Helper()
	return runManagerWithResults(t, ns, store, outbound, nil)
}

// runManagerWithResults is runManagerWith with the results store of archived deliveries.
func runManagerWithResults(t *testing.T, ns string, store *blob.Store, outbound *http.Client, rs *results.Store) (stop func()) {
	t.Helper()
	return runManagerTuned(t, ns, store, outbound, rs, nil)
}

// runManagerTuned is runManagerWithResults with tune, if not nil, changing the reconciler
// before it starts.
func runManagerTuned(t *testing.T, ns string, store *blob.Store, outbound *http.Client, rs *results.Store, tune func(*TranscriptReconciler)) (stop func()) {
	t.Helper()
	mgr := env.NewManager(t, ns)
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	r := &TranscriptReconciler{
		Client:      mgr.GetClient(),
		Processor:   pipeline.New(engine, store),
		Store:       store,
		Sources:     &sources.Fetcher{YouTube: &sources.YouTube{BaseURL: "http://127.0.0.1:9", Client: outbound}, Client: outbound},
		AdoptAfter:  50 * time.Millisecond,
		MaxAttempts: 2,
		Results:     rs,
	}
	if tune != nil {
		tune(r)
	}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return testenv.Run(t, mgr)
}

func newTranscript(ns, org string, source tcsv1.SourceType) *tcsv1.Transcript {
	id := ids.New("tr")
	return &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: ns,
			Labels: map[string]string{tcsv1.LabelOrganization: org, tcsv1.LabelSourceType: string(source)}},
		Spec: tcsv1.TranscriptSpec{ID: id, Organization: org, Source: tcsv1.TranscriptSource{
			Type: source, InputRef: pipeline.KeysFor(org, id).Input}},
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

func wantCondition(t *testing.T, tr *tcsv1.Transcript, condType string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(tr.Status.Conditions, condType)
	if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != tr.Generation {
		t.Fatalf("condition %s = %+v, want %s/%s at generation %d", condType, c, status, reason, tr.Generation)
	}
	if tr.Status.ObservedGeneration != tr.Generation {
		t.Fatalf("observedGeneration %d, generation %d", tr.Status.ObservedGeneration, tr.Generation)
	}
	return c
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

func TestAPasteWithoutItsInputIsDeletedUnansweredAndFailedOnceAnswered(t *testing.T) {
	const adoptAfter, discardAfter = 2 * time.Second, 5 * time.Second
	for _, tc := range []struct {
		name string
		// answered writes the first status the API server writes before it answers, if set.
		answered bool
		// inputAfter, when set, stores the input that long after the create, as a slow
		// request does.
		inputAfter time.Duration
	}{
		{"left without a status (its request died before answering): deleted, no event", false, 0},
		{"pending, as a request answered it: failed, the input lost", true, 0},
		{"its input stored after the adoption delay, before the discard: kept and corrected", false, adoptAfter + time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := env.Client(t, client.Options{Scheme: scheme.New()})
			ns := env.Namespace(t, "tcs-ctrl")
			store, err := blob.OpenDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			// Long enough for the test's first status to come before the reconciler adopts.
			t.Cleanup(runManagerTuned(t, ns, store, http.DefaultClient, nil, func(r *TranscriptReconciler) {
				r.AdoptAfter, r.DiscardAfter = adoptAfter, discardAfter
			}))
			tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
			tr.Finalizers = []string{tcsv1.FinalizerStoredObjects}
			created := time.Now()
			if err := c.Create(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
			if tc.inputAfter > 0 {
				time.Sleep(tc.inputAfter)
				if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte("read revelation 22:20 tonight\n"), "text/plain"); err != nil {
					t.Fatal(err)
				}
				got := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
				if got.Status.ChangesSummary == nil || got.Status.ChangesSummary.AutoApplied != 1 {
					t.Fatalf("status %+v", got.Status)
				}
				return
			}
			if !tc.answered {
				deadline := time.Now().Add(20 * time.Second)
				for {
					err := c.Get(t.Context(), client.ObjectKeyFromObject(tr), &tcsv1.Transcript{})
					if apierrors.IsNotFound(err) {
						// The creation timestamp counts whole seconds, so the age the
						// reconciler reads may be up to a second more than the test's.
						if took := time.Since(created); took < discardAfter-time.Second {
							t.Fatalf("deleted after %s, before the discard delay %s", took, discardAfter)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if time.Now().After(deadline) {
						t.Fatal("the paste without its input was not deleted")
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			p := statuspatch.New(tr, "tcs-test")
			tr.Status.Phase, tr.Status.AIPassStatus = tcsv1.PhasePending, tcsv1.AIPassIdle
			tr.AddJob(tcsv1.JobCorrection, metav1.Now())
			tr.Emit(tcsv1.EventTranscriptCreated, time.Now())
			if err := p.Patch(t.Context(), c, tr); err != nil {
				t.Fatal(err)
			}
			got := eventually(t, c, tr, "failed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseFailed })
			wantCondition(t, got, tcsv1.ConditionReady, metav1.ConditionFalse, "Failed")
			if got.Status.Error == nil || got.Status.Error.Type != "server_error" {
				t.Fatalf("error %+v", got.Status.Error)
			}
		})
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

func TestReconcilerShowsARunningFetchAsPending(t *testing.T) {
	c, _, ns := startReconciler(t)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	tr := newTranscript(ns, "org_a", tcsv1.SourceURL)
	tr.Spec.Source.URL = slow.URL + "/a.txt"
	tr.Spec.Source.Format = "txt"
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "running", func(t *tcsv1.Transcript) bool {
		return t.Status.Phase == tcsv1.PhasePending && len(t.Status.Jobs) == 1 && t.Status.Jobs[0].State == tcsv1.JobRunning
	})
	wantCondition(t, got, tcsv1.ConditionReady, metav1.ConditionFalse, "Pending")
	wantCondition(t, got, tcsv1.ConditionCorrected, metav1.ConditionFalse, "Pending")
	if got.Status.AIPassStatus != tcsv1.AIPassIdle || got.Status.Jobs[0].StartedAt == nil {
		t.Fatalf("status %+v", got.Status)
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

// fileServer serves sermon files on 127.0.0.1.
func fileServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sermon.srt":
			w.Header().Set("Content-Type", "application/x-subrip")
			fmt.Fprint(w, "1\n00:00:01,000 --> 00:00:03,000\nturn to revelations 21:4\n")
		case "/sermon.mp3":
			w.Header().Set("Content-Type", "audio/mpeg")
			w.Write([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReconcilerFetchesAndCorrectsAURL(t *testing.T) {
	c, store, ns := startReconciler(t)
	files := fileServer(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourceURL)
	tr.Spec.Source.URL = files.URL + "/sermon.srt"
	tr.Spec.Source.Format = "srt"
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
	wantCondition(t, got, tcsv1.ConditionReady, metav1.ConditionTrue, "Completed")
	if len(got.Status.Jobs) != 2 || got.Status.Jobs[0].Type != tcsv1.JobURLFetch || got.Status.Jobs[1].Type != tcsv1.JobCorrection {
		t.Fatalf("jobs %+v", got.Status.Jobs)
	}
	if strings.Join(got.EmittedEventTypes(), ",") != "transcript.created,transcript.completed" {
		t.Fatalf("emitted events %v", got.Status.EmittedEvents)
	}
	for _, j := range got.Status.Jobs {
		if j.State != tcsv1.JobSucceeded || j.StartedAt == nil || j.FinishedAt == nil || j.Progress != 100 || j.ID != tcsv1.JobID(got.Spec.ID, map[string]int{tcsv1.JobURLFetch: 1, tcsv1.JobCorrection: 2}[j.Type]) {
			t.Fatalf("job %+v", j)
		}
	}
	content, err := store.Get(t.Context(), got.Status.ContentRef)
	if err != nil || string(content) != "1\n00:00:01,000 --> 00:00:03,000\nturn to Revelation 21:4\n" {
		t.Fatalf("content %q, %v", content, err)
	}
}

func TestReconcilerFailsBadSources(t *testing.T) {
	c, _, ns := startReconciler(t)
	files := fileServer(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	for _, tc := range []struct {
		name, url, wantType string
	}{
		{"not found", files.URL + "/missing.txt", "unprocessable"},
		{"audio", files.URL + "/sermon.mp3", "unprocessable"},
		{"private address", "http://127.0.0.2:9/a.txt", "unprocessable"},
		{"unreachable, retried then failed", closedURL + "/a.txt", "server_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(ns, "org_a", tcsv1.SourceURL)
			tr.Spec.Source.URL = tc.url
			tr.Spec.Source.Format = "txt"
			if err := c.Create(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
			got := eventually(t, c, tr, "failed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseFailed })
			wantCondition(t, got, tcsv1.ConditionReady, metav1.ConditionFalse, "Failed")
			if got.Status.Error == nil || got.Status.Error.Type != tc.wantType || got.Status.Error.Message == "" {
				t.Fatalf("error %+v", got.Status.Error)
			}
			if j := got.Status.Jobs[0]; j.State != tcsv1.JobFailed || j.Error == "" || j.FinishedAt == nil {
				t.Fatalf("job %+v", j)
			}
			if strings.Join(got.EmittedEventTypes(), ",") != "transcript.created,transcript.failed" {
				t.Fatalf("emitted events %v", got.Status.EmittedEvents)
			}
		})
	}
}

func TestReconcilerIngestsAConfirmedUpload(t *testing.T) {
	c, store, ns := startReconciler(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourceUpload)
	exp := metav1.NewTime(time.Now().Add(time.Hour))
	tr.Spec.Source.UploadExpiresAt = &exp
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	// An unconfirmed grant is left alone.
	time.Sleep(300 * time.Millisecond)
	if got := eventually(t, c, tr, "untouched", func(*tcsv1.Transcript) bool { return true }); got.Status.Phase != "" {
		t.Fatalf("an unconfirmed upload got phase %q", got.Status.Phase)
	}
	if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte("we read phillipians 4:13"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	// Confirm as the API server does (the reconciler may be adding its finalizer meanwhile).
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got := eventually(t, c, tr, "fetched", func(*tcsv1.Transcript) bool { return true })
		got.Status.Phase = tcsv1.PhasePending
		got.AddJob(tcsv1.JobUploadIngest, metav1.Now())
		return c.Status().Update(t.Context(), got)
	})
	if err != nil {
		t.Fatal(err)
	}
	done := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
	content, err := store.Get(t.Context(), done.Status.ContentRef)
	if err != nil || string(content) != "we read Philippians 4:13" {
		t.Fatalf("content %q, %v", content, err)
	}
}

func TestReconcilerRemovesExpiredGrants(t *testing.T) {
	c, _, ns := startReconciler(t)
	tr := newTranscript(ns, "org_a", tcsv1.SourceUpload)
	exp := metav1.NewTime(time.Now().Add(-2 * time.Minute))
	tr.Spec.Source.UploadExpiresAt = &exp
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: tr.Name}, &tcsv1.Transcript{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("expired grant still there: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestReconcilerFinishesOnceAfterARestartMidFetch(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-restart")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	requests := 0
	hold := make(chan struct{})
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		first := requests == 1
		mu.Unlock()
		if first {
			// The first manager dies while this request is in flight.
			select {
			case <-hold:
			case <-r.Context().Done():
			}
			return
		}
		fmt.Fprint(w, "open to revelations 21:4")
	}))
	t.Cleanup(files.Close)
	t.Cleanup(func() { close(hold) })

	stop1 := runManager(t, ns, store)
	tr := newTranscript(ns, "org_a", tcsv1.SourceURL)
	tr.Spec.Source.URL = files.URL + "/a.txt"
	tr.Spec.Source.Format = "txt"
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	eventually(t, c, tr, "fetch in flight", func(*tcsv1.Transcript) bool {
		mu.Lock()
		defer mu.Unlock()
		return requests == 1
	})
	stop1()

	stop2 := runManager(t, ns, store)
	t.Cleanup(stop2)
	got := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
	if len(got.Status.Jobs) != 2 || got.Status.Jobs[0].State != tcsv1.JobSucceeded || got.Status.Jobs[1].State != tcsv1.JobSucceeded {
		t.Fatalf("jobs after the restart %+v", got.Status.Jobs)
	}
	if got.Status.ChangesSummary == nil || got.Status.ChangesSummary.Total != 1 {
		t.Fatalf("summary %+v", got.Status.ChangesSummary)
	}
	content, err := store.Get(t.Context(), got.Status.ContentRef)
	if err != nil || string(content) != "open to Revelation 21:4" {
		t.Fatalf("content %q, %v", content, err)
	}
	// Completed stays completed: a third manager changes nothing.
	rv := got.ResourceVersion
	stop2()
	stop3 := runManager(t, ns, store)
	t.Cleanup(stop3)
	time.Sleep(500 * time.Millisecond)
	again := eventually(t, c, tr, "still completed", func(*tcsv1.Transcript) bool { return true })
	if again.ResourceVersion != rv {
		t.Fatalf("a restarted manager rewrote a completed transcript: %+v", again.Status)
	}
}

func TestReconcilerPurgesDeletedTranscriptsAfterRetention(t *testing.T) {
	c, store, ns := startReconciler(t)
	for _, tc := range []struct {
		name      string
		deletedAt time.Time
		purged    bool
	}{
		{"inside the window", time.Now().Add(-24 * time.Hour), false},
		{"past the window", time.Now().Add(-DefaultRetention - time.Minute), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
			keys := pipeline.KeysFor("org_a", tr.Spec.ID)
			for _, k := range []string{keys.Input, keys.Content, keys.Changes} {
				if err := store.Put(t.Context(), k, []byte("x"), "text/plain"); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Create(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
			deleted := metav1.NewTime(tc.deletedAt)
			// The reconciler may write the status first: retry on its conflicts.
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				if err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: tr.Name}, tr); err != nil {
					return err
				}
				tr.Status.Phase = tcsv1.PhaseCompleted
				tr.Status.DeletedAt = &deleted
				return c.Status().Update(t.Context(), tr)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.purged {
				time.Sleep(500 * time.Millisecond)
				got := eventually(t, c, tr, "kept", func(*tcsv1.Transcript) bool { return true })
				if got.Status.DeletedAt == nil {
					t.Fatal("DeletedAt was cleared")
				}
				if ok, _ := store.Exists(t.Context(), keys.Content); !ok {
					t.Fatal("content purged inside the retention window")
				}
				return
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: tr.Name}, &tcsv1.Transcript{})
				if apierrors.IsNotFound(err) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("not purged: %v", err)
				}
				time.Sleep(50 * time.Millisecond)
			}
			for _, k := range []string{keys.Input, keys.Content, keys.Changes} {
				if ok, _ := store.Exists(t.Context(), k); ok {
					t.Fatalf("%s left after the purge", k)
				}
			}
		})
	}
}

func TestAGlossaryEntryChangesTheNextPassAndAnEditTheOneAfter(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-gloss")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The reconciler's compiler reads the manager's cache, as in the service.
	var compiler *glossary.Compiler
	t.Cleanup(runManagerTuned(t, ns, store, nil, nil, func(r *TranscriptReconciler) {
		compiler = glossary.NewCompiler(r.Client, ns, 0)
		r.Glossaries = compiler
	}))
	o, err := orgs.Create(t.Context(), c, ns, "Grace Chapel", nil)
	if err != nil {
		t.Fatal(err)
	}
	org := o.Spec.ID
	m := &glossary.Manager{Client: c, Namespace: ns}
	const input = "Pastor Oconquo preached at beth el tabernacle.\n"
	// run corrects input as a new paste and returns its content and summary.
	run := func(what string) (string, *tcsv1.ChangesSummary) {
		t.Helper()
		tr := newTranscript(ns, org, tcsv1.SourcePaste)
		if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte(input), "text/plain"); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(t.Context(), tr); err != nil {
			t.Fatal(err)
		}
		got := eventually(t, c, tr, what, func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
		content, err := store.Get(t.Context(), got.Status.ContentRef)
		if err != nil {
			t.Fatal(err)
		}
		return string(content), got.Status.ChangesSummary
	}
	// cached waits until the reconciler's cache holds a glossary of n entries.
	cached := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			g, err := compiler.Compiled(t.Context(), org)
			if err != nil {
				t.Fatal(err)
			}
			if g != nil && g.Len() == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cache never held a glossary of %d entries (%v)", n, g)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	if content, sum := run("completed without a glossary"); content != input || sum.Total != 0 {
		t.Fatalf("without a glossary: %q, %+v; want the input unchanged", content, sum)
	}
	e, _, err := m.Add(t.Context(), org, "ruth@grace.example", glossary.Input{Term: "Pastor Okonkwo", Forms: []string{"pastor oconquo"}, Auto: true, Category: "name"}, "")
	if err != nil {
		t.Fatal(err)
	}
	cached(1)
	if content, sum := run("completed with one entry"); content != "Pastor Okonkwo preached at beth el tabernacle.\n" ||
		sum.AutoApplied != 1 || sum.ByCategory["name"] != 1 {
		t.Fatalf("with the entry: %q, %+v; want it applied as a change of its category", content, sum)
	}
	// The entry is now suggested, and another one applied.
	if _, _, err := m.Update(t.Context(), org, "ruth@grace.example", e.ID, glossary.Input{Term: "Pastor Okonkwo", Forms: []string{"pastor oconquo"}, Category: "name"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Add(t.Context(), org, "ruth@grace.example", glossary.Input{Term: "Bethel Tabernacle", Forms: []string{"beth el tabernacle"}, Auto: true, Category: "church"}, ""); err != nil {
		t.Fatal(err)
	}
	cached(2)
	if content, sum := run("completed after the edit"); content != "Pastor Oconquo preached at Bethel Tabernacle.\n" ||
		sum.AutoApplied != 1 || sum.NeedsReview != 1 || sum.ByCategory["church"] != 1 || sum.ByCategory["name"] != 1 {
		t.Fatalf("after the edit: %q, %+v; want the new entry applied and the edited one suggested", content, sum)
	}
}

func TestAnInvalidGlossaryFailsTheTranscriptWithWhatIsWrong(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-gloss")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runManagerTuned(t, ns, store, nil, nil, func(r *TranscriptReconciler) {
		r.Glossaries = glossary.NewCompiler(r.Client, ns, 0)
	}))
	// Written around the service, as kubectl would: two entries of the same words.
	org := ids.New("org")
	g := &tcsv1.Glossary{
		ObjectMeta: metav1.ObjectMeta{Name: glossary.ObjectName(org), Namespace: ns},
		Spec: tcsv1.GlossarySpec{Organization: org, Entries: []tcsv1.GlossaryEntry{
			{ID: "gle_a", Term: "Zorbanath"}, {ID: "gle_b", Term: "zorbanath"},
		}},
	}
	if err := c.Create(t.Context(), g); err != nil {
		t.Fatal(err)
	}
	tr := newTranscript(ns, org, tcsv1.SourcePaste)
	if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte("Zorbanath\n"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "failed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseFailed })
	if got.Status.Error == nil || got.Status.Error.Type != "server_error" || !strings.Contains(got.Status.Error.Message, "entries[1].term") {
		t.Fatalf("error %+v, want a server_error naming entries[1].term", got.Status.Error)
	}
}
