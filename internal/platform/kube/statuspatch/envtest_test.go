package statuspatch

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Main(m, &env)
}

// pendingTranscript creates a transcript in a new namespace with a pending status and one job,
// and returns it as read back.
func pendingTranscript(t *testing.T, c client.Client) *tcsv1.Transcript {
	t.Helper()
	ctx := t.Context()
	id := ids.New("tr")
	tr := &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: env.Namespace(t, "statuspatch")},
		Spec: tcsv1.TranscriptSpec{ID: id, Organization: "org_a", Source: tcsv1.TranscriptSource{
			Type: tcsv1.SourceURL, URL: "https://example.org/a.txt", Format: "txt"}},
	}
	if err := c.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	p := New(tr, "tcs-test")
	tr.Status.Phase, tr.Status.AIPassStatus = tcsv1.PhasePending, tcsv1.AIPassIdle
	tr.AddJob(tcsv1.JobURLFetch, metav1.Now())
	if err := p.Patch(ctx, c, tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// writer is one status writer of the tests: its field manager and its change.
type writer struct {
	owner  string
	mutate func(*tcsv1.Transcript)
}

func TestConcurrentWritersOfDisjointFieldsBothLand(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	cases := []struct {
		name string
		a, b writer
		// check reports what of the two writes is missing from the final status.
		check func(*tcsv1.Transcript) string
		// unlocked tells that neither write may meet a conflict.
		unlocked bool
	}{
		{
			name:     "scalars of two owners, unlocked",
			unlocked: true,
			a:        writer{OwnerTranscript, func(t *tcsv1.Transcript) { t.Status.Title = "from the fetch" }},
			b: writer{OwnerAIPass, func(t *tcsv1.Transcript) {
				t.Status.AIPass = &tcsv1.AIPassResult{JobID: "job_x01", Provider: "rules", Confirmed: 2}
			}},
			check: func(t *tcsv1.Transcript) string {
				var missing []string
				if t.Status.Title != "from the fetch" {
					missing = append(missing, "title")
				}
				if t.Status.AIPass == nil || t.Status.AIPass.Confirmed != 2 {
					missing = append(missing, "aiPass")
				}
				return strings.Join(missing, ", ")
			},
		},
		{
			name: "one list each, locked: the loser reads again and redoes its change",
			a: writer{OwnerTranscript, func(t *tcsv1.Transcript) {
				t.Status.Jobs[0].State = tcsv1.JobRunning
				t.SetCondition(tcsv1.ConditionReady, metav1.ConditionFalse, "Pending", "pending")
			}},
			b: writer{OwnerAPI, func(t *tcsv1.Transcript) { t.QueueAIPass(false, metav1.Now()) }},
			check: func(t *tcsv1.Transcript) string {
				var missing []string
				if len(t.Status.Jobs) != 2 || t.Status.Jobs[0].State != tcsv1.JobRunning {
					missing = append(missing, "jobs")
				}
				if t.Status.AIPassStatus != tcsv1.AIPassQueued {
					missing = append(missing, "aiPassStatus")
				}
				// Corrected and Ready, which every patch derives from the phase, and
				// AIValidated, which the second writer's queued pass sets.
				if len(t.Status.Conditions) != 3 || meta.FindStatusCondition(t.Status.Conditions, tcsv1.ConditionReady) == nil ||
					meta.FindStatusCondition(t.Status.Conditions, tcsv1.ConditionAIValidated) == nil {
					missing = append(missing, "conditions")
				}
				return strings.Join(missing, ", ")
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			tr := pendingTranscript(t, c)
			// Both read the same version, then write at once.
			start := make(chan struct{})
			var wg sync.WaitGroup
			errs := make([]error, 2)
			var conflicts [2]int
			for i, w := range []writer{tc.a, tc.b} {
				mine := tr.DeepCopy()
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for attempt := 0; attempt < 5; attempt++ {
						p := New(mine, w.owner)
						w.mutate(mine)
						errs[i] = p.Patch(ctx, c, mine)
						if !apierrors.IsConflict(errs[i]) {
							return
						}
						conflicts[i]++
						if errs[i] = c.Get(ctx, client.ObjectKeyFromObject(mine), mine); errs[i] != nil {
							return
						}
					}
				}()
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("writer %d: %v", i, err)
				}
			}
			got := &tcsv1.Transcript{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tr), got); err != nil {
				t.Fatal(err)
			}
			if tc.unlocked && conflicts != [2]int{} {
				t.Fatalf("unlocked writes met conflicts: %v", conflicts)
			}
			if missing := tc.check(got); missing != "" {
				t.Fatalf("lost: %s; status %+v (conflicts %v)", missing, got.Status, conflicts)
			}
			// Each writer shows as the manager of its fields.
			for _, owner := range []string{tc.a.owner, tc.b.owner} {
				if !managesStatus(got, owner) {
					t.Fatalf("no status fields managed by %s: %+v", owner, got.ManagedFields)
				}
			}
		})
	}
}

// managesStatus reports whether field manager owner wrote t's status subresource.
func managesStatus(t *tcsv1.Transcript, owner string) bool {
	for _, m := range t.ManagedFields {
		if m.Manager == owner && m.Subresource == "status" {
			return true
		}
	}
	return false
}

func TestAStaleWriterDoesNotOverwriteAnothers(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	cases := []struct {
		name  string
		stale func(*tcsv1.Transcript)
		// conflict tells whether the stale write is refused.
		conflict bool
	}{
		{"a field of its own lands beside the newer ones", func(t *tcsv1.Transcript) { t.Status.Title = "stale title" }, false},
		{"a list is refused: it would replace the newer one", func(t *tcsv1.Transcript) { t.Status.Jobs[0].Progress = 10 }, true},
		{"a locked scalar is refused", func(t *tcsv1.Transcript) { t.Status.DeletedAt = &metav1.Time{} }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			tr := pendingTranscript(t, c)
			stale := tr.DeepCopy()
			staleP := New(stale, OwnerAPI)

			// Another writer completes the transcript meanwhile.
			p := New(tr, OwnerTranscript)
			now := metav1.Now()
			tr.Status.Phase, tr.Status.ContentRef, tr.Status.CompletedAt = tcsv1.PhaseCompleted, "content/x", &now
			tr.Status.Jobs[0].State = tcsv1.JobSucceeded
			if err := p.Patch(ctx, c, tr); err != nil {
				t.Fatal(err)
			}

			tc.stale(stale)
			var opts []Option
			if strings.Contains(tc.name, "locked") {
				opts = append(opts, Locked)
			}
			err := staleP.Patch(ctx, c, stale, opts...)
			if apierrors.IsConflict(err) != tc.conflict || (!tc.conflict && err != nil) {
				t.Fatalf("stale write: %v, want conflict %t", err, tc.conflict)
			}
			got := &tcsv1.Transcript{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tr), got); err != nil {
				t.Fatal(err)
			}
			if got.Status.Phase != tcsv1.PhaseCompleted || got.Status.ContentRef != "content/x" || got.Status.CompletedAt == nil ||
				got.Status.Jobs[0].State != tcsv1.JobSucceeded {
				t.Fatalf("the newer write was overwritten: %+v", got.Status)
			}
			if !tc.conflict && got.Status.Title != "stale title" {
				t.Fatalf("the stale writer's own field did not land: %+v", got.Status)
			}
		})
	}
}

func TestThePatchSentHoldsOnlyTheChangedFields(t *testing.T) {
	var mu sync.Mutex
	var sent [][]byte
	real, err := client.NewWithWatch(env.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	c := interceptor.NewClient(real, interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			data, err := patch.Data(obj)
			if err != nil {
				return err
			}
			mu.Lock()
			sent = append(sent, data)
			mu.Unlock()
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	ctx := t.Context()
	tr := pendingTranscript(t, c)
	mu.Lock()
	sent = nil
	mu.Unlock()

	p := New(tr, OwnerTranscript)
	tr.Status.Title = "only this"
	if err := p.Patch(ctx, c, tr); err != nil {
		t.Fatal(err)
	}
	// Nothing changed since the last patch: nothing is sent.
	if err := p.Patch(ctx, c, tr); err != nil {
		t.Fatal(err)
	}
	if len(sent) != 1 {
		t.Fatalf("%d patches sent, want 1: %s", len(sent), sent)
	}
	var body map[string]any
	if err := json.Unmarshal(sent[0], &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"status": map[string]any{"title": "only this"}}
	if b, _ := json.Marshal(body); string(b) != mustJSON(t, want) {
		t.Fatalf("sent %s, want %s", b, mustJSON(t, want))
	}
	if tr.Status.Phase != tcsv1.PhasePending || len(tr.Status.Jobs) != 1 {
		t.Fatalf("the object was not updated from the answer: %+v", tr.Status)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAPatchWritesTheConditionsTheStatusImplies(t *testing.T) {
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	for _, tc := range []struct {
		name   string
		mutate func(*tcsv1.Transcript)
		// want is the status of Ready and Corrected, by condition type; nil means none.
		want map[string]metav1.ConditionStatus
	}{
		{"pending: neither yet", func(t *tcsv1.Transcript) {
			t.Status.Phase = tcsv1.PhasePending
		}, map[string]metav1.ConditionStatus{tcsv1.ConditionReady: metav1.ConditionFalse, tcsv1.ConditionCorrected: metav1.ConditionFalse}},
		{"completed: ready and corrected", func(t *tcsv1.Transcript) {
			t.Status.Phase, t.Status.ContentRef = tcsv1.PhaseCompleted, "content/x"
		}, map[string]metav1.ConditionStatus{tcsv1.ConditionReady: metav1.ConditionTrue, tcsv1.ConditionCorrected: metav1.ConditionTrue}},
		{"failed: neither", func(t *tcsv1.Transcript) {
			t.Status.Phase, t.Status.Error = tcsv1.PhaseFailed, &tcsv1.TranscriptError{Type: "unprocessable", Message: "empty"}
		}, map[string]metav1.ConditionStatus{tcsv1.ConditionReady: metav1.ConditionFalse, tcsv1.ConditionCorrected: metav1.ConditionFalse}},
		{"no phase yet (an upload grant): none", func(t *tcsv1.Transcript) {
			t.Status.Title = "not confirmed"
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			id := ids.New("tr")
			tr := &tcsv1.Transcript{
				ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: env.Namespace(t, "statuspatch")},
				Spec: tcsv1.TranscriptSpec{ID: id, Organization: "org_a", Source: tcsv1.TranscriptSource{
					Type: tcsv1.SourceURL, URL: "https://example.org/a.txt", Format: "txt"}},
			}
			if err := c.Create(ctx, tr); err != nil {
				t.Fatal(err)
			}
			p := New(tr, "tcs-test")
			tc.mutate(tr)
			if err := p.Patch(ctx, c, tr); err != nil {
				t.Fatal(err)
			}
			got := &tcsv1.Transcript{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tr), got); err != nil {
				t.Fatal(err)
			}
			if len(got.Status.Conditions) != len(tc.want) {
				t.Fatalf("stored conditions %+v, want %v", got.Status.Conditions, tc.want)
			}
			for _, cond := range got.Status.Conditions {
				if want, ok := tc.want[cond.Type]; !ok || cond.Status != want || cond.ObservedGeneration != got.Generation {
					t.Errorf("stored condition %+v, want status %q of generation %d", cond, want, got.Generation)
				}
			}
			wantObserved := got.Generation
			if tc.want == nil {
				wantObserved = 0
			}
			if got.Status.ObservedGeneration != wantObserved {
				t.Errorf("stored observedGeneration %d, want %d", got.Status.ObservedGeneration, wantObserved)
			}
		})
	}
}

func TestReplaceWritesTheWholeStatusAtTheVersionRead(t *testing.T) {
	real, err := client.NewWithWatch(env.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		// between writes the transcript with another copy after it was read, when set.
		between  func(tr *tcsv1.Transcript)
		conflict bool
	}{
		{"nobody wrote since the read: one update, no patch", nil, false},
		{"another writer wrote since the read: a conflict, nothing overwritten", func(tr *tcsv1.Transcript) { tr.Status.Title = "the other's" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := map[string]int{}
			c := interceptor.NewClient(real, interceptor.Funcs{
				SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
					mu.Lock()
					calls["patch"]++
					mu.Unlock()
					return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				},
				SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					mu.Lock()
					calls["update"]++
					mu.Unlock()
					return c.SubResource(sub).Update(ctx, obj, opts...)
				},
			})
			ctx := t.Context()
			tr := pendingTranscript(t, real)
			if tc.between != nil {
				other := tr.DeepCopy()
				p := New(other, OwnerTranscript)
				tc.between(other)
				if err := p.Patch(ctx, real, other); err != nil {
					t.Fatal(err)
				}
			}
			p := New(tr, OwnerAPI)
			tr.Status.Phase, tr.Status.ContentRef = tcsv1.PhaseCompleted, "content/x"
			err := p.Patch(ctx, c, tr, Replace)
			if apierrors.IsConflict(err) != tc.conflict || (!tc.conflict && err != nil) {
				t.Fatalf("Patch with Replace: %v, want conflict %t", err, tc.conflict)
			}
			if want := map[string]int{"update": 1}; !maps.Equal(calls, want) {
				t.Fatalf("requests %v, want %v", calls, want)
			}
			got := &tcsv1.Transcript{}
			if err := real.Get(ctx, client.ObjectKeyFromObject(tr), got); err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.conflict && (got.Status.Title != "the other's" || got.Status.Phase != tcsv1.PhasePending):
				t.Fatalf("the other writer's status was overwritten: %+v", got.Status)
			case !tc.conflict && (got.Status.Phase != tcsv1.PhaseCompleted || got.Status.ContentRef != "content/x" || len(got.Status.Jobs) != 1):
				t.Fatalf("the status written is %+v", got.Status)
			case !tc.conflict && !managesStatus(got, OwnerAPI):
				t.Fatalf("%s does not manage the status it wrote: %+v", OwnerAPI, got.ManagedFields)
			case !slices.ContainsFunc(got.ManagedFields, func(e metav1.ManagedFieldsEntry) bool { return e.Subresource == "" }):
				t.Fatalf("the creator's managed fields were lost: %+v", got.ManagedFields)
			}
		})
	}
}
