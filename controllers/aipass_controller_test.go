package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// runAIPass runs the transcript reconciler and ai, an AIPassReconciler to which it adds the
// clients and the processor, on namespace ns; stop ends them and waits, as a killed pod would.
func runAIPass(t *testing.T, ns string, store *blob.Store, ai AIPassReconciler) (stop func()) {
	t.Helper()
	mgr := env.NewManager(t, ns)
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	processor := pipeline.New(engine, store)
	// The deterministic pass reads the glossaries the AI pass reads.
	tr := &TranscriptReconciler{Client: mgr.GetClient(), Processor: processor, Store: store, AdoptAfter: 50 * time.Millisecond, MaxAttempts: 2,
		Glossaries: ai.Glossaries}
	if err := tr.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ai.Client, ai.APIReader, ai.Processor = mgr.GetClient(), mgr.GetAPIReader(), processor
	if err := ai.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return testenv.Run(t, mgr)
}

// aiNamespace returns a client, an object store and a new namespace for a test.
func aiNamespace(t *testing.T) (client.Client, *blob.Store, string) {
	t.Helper()
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return env.Client(t, client.Options{Scheme: scheme.New()}), store, env.Namespace(t, "tcs-ai")
}

// aiSermon has an auto-applied book change, a needs-review place change and a reference.
const aiSermon = "Sermon notes\nturn to first corinthians 13 and read it\nthey sailed past capernum that night\n"

// pasteWithAIPass creates a paste transcript of input whose options ask for the AI pass.
func pasteWithAIPass(t *testing.T, c client.Client, store *blob.Store, ns, input string, apply bool) *tcsv1.Transcript {
	t.Helper()
	tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
	tr.Spec.Options.AIPass = tcsv1.AIPassOptions{Enabled: true, Apply: apply}
	if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte(input), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func aiDone(t *tcsv1.Transcript) bool {
	return t.Status.AIPassStatus == tcsv1.AIPassCompleted || t.Status.AIPassStatus == tcsv1.AIPassFailed
}

// storedChanges reads the change list t points at.
func storedChanges(t *testing.T, store *blob.Store, tr *tcsv1.Transcript) []pipeline.Change {
	t.Helper()
	raw, err := store.Get(t.Context(), tr.Status.ChangesRef)
	if err != nil {
		t.Fatal(err)
	}
	var out []pipeline.Change
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAIPassWithTheRulesProviderJudgesEveryChangeOnce(t *testing.T) {
	c, store, ns := aiNamespace(t)
	t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: aipass.NewRules()}))
	tr := pasteWithAIPass(t, c, store, ns, aiSermon, false)
	got := eventually(t, c, tr, "AI pass ended", aiDone)

	if got.Status.AIPassStatus != tcsv1.AIPassCompleted || got.Status.Phase != tcsv1.PhaseCompleted {
		t.Fatalf("status %+v", got.Status)
	}
	wantCondition(t, got, tcsv1.ConditionAIValidated, metav1.ConditionTrue, "Completed")
	want := []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted, tcsv1.EventAIPassStarted, tcsv1.EventAIPassCompleted}
	if ev := got.EmittedEventTypes(); !slices.Equal(ev, want) {
		t.Fatalf("events %v, want %v", ev, want)
	}
	res := got.Status.AIPass
	job := got.AIPassJob()
	if res == nil || res.Provider != "rules" || res.Model == "" || res.Usage != nil || res.Error != nil || res.StartedAt == nil || res.FinishedAt == nil ||
		job == nil || job.Type != tcsv1.JobAIPass || job.State != tcsv1.JobSucceeded || job.StartedAt == nil || job.FinishedAt == nil {
		t.Fatalf("AI pass %+v, job %+v", res, job)
	}
	changes := storedChanges(t, store, got)
	sum := got.Status.ChangesSummary
	if len(changes) < 2 || sum.Total != len(changes) || res.Confirmed+res.Rejected+res.Uncertain != len(changes) || sum.AIFlagged != res.Rejected+res.Uncertain {
		t.Fatalf("changes %+v, summary %+v, pass %+v", changes, sum, res)
	}
	for _, ch := range changes {
		if !ch.AIVerdict.Valid() || ch.AIReason == "" || ch.Applied == nil || *ch.Applied != (ch.Status == correction.StatusAutoApplied) {
			t.Errorf("change %+v: want a verdict, a reason and applied = auto_applied", ch)
		}
	}
	// Without apply the content is the deterministic pass's.
	if got.Status.ContentRef != pipeline.KeysFor("org_a", tr.Spec.ID).Content {
		t.Fatalf("content ref %q", got.Status.ContentRef)
	}

	// A second pass, asked for later, emits its own events once more.
	got = setTranscriptStatus(t, c, got, func(t *tcsv1.Transcript) { t.QueueAIPass(false, metav1.Now()) })
	second := got.Status.AIPass.JobID
	got = eventually(t, c, tr, "second AI pass ended", func(t *tcsv1.Transcript) bool {
		return aiDone(t) && t.Status.AIPass.JobID == second
	})
	want = append(want, tcsv1.EventAIPassStarted, tcsv1.EventAIPassCompleted)
	if ev := got.EmittedEventTypes(); !slices.Equal(ev, want) || got.Status.EmittedEvents[5].Key != second || got.Status.EmittedEvents[3].Key == second {
		t.Fatalf("events %+v", got.Status.EmittedEvents)
	}
}

// setTranscriptStatus applies change to the latest tr and writes its status.
func setTranscriptStatus(t *testing.T, c client.Client, tr *tcsv1.Transcript, change func(*tcsv1.Transcript)) *tcsv1.Transcript {
	t.Helper()
	for range 20 {
		got := &tcsv1.Transcript{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(tr), got); err != nil {
			t.Fatal(err)
		}
		change(got)
		if err := c.Status().Update(t.Context(), got); err == nil {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("could not update the status")
	return nil
}

// verdicts is a provider that gives scripted verdicts by change number, and proposes one
// change; it stands in for a model whose answers are known, to check what apply does.
type verdicts struct {
	by      map[string]aipass.Verdict
	propose string // a word of the text to propose a change of
	calls   atomic.Int32
	block   chan struct{} // when not nil, Review waits for it
	model   string        // "scripted" when empty
}

func (v *verdicts) Name() string { return "openai" }

func (v *verdicts) Model() string {
	if v.model != "" {
		return v.model
	}
	return "scripted"
}

func (v *verdicts) Review(ctx context.Context, req aipass.Request) (*aipass.Review, error) {
	v.calls.Add(1)
	if v.block != nil {
		select {
		case <-v.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	judged := map[string]aipass.Judgement{}
	for id, verdict := range v.by {
		judged[id] = aipass.Judgement{Verdict: verdict, Reason: "scripted " + string(verdict)}
	}
	var proposals []aipass.Proposal
	if i := strings.Index(req.Text, v.propose); v.propose != "" && i >= 0 {
		proposals = append(proposals, aipass.Proposal{Start: i, End: i + len(v.propose), Original: v.propose, Replacement: strings.ToUpper(v.propose), Reason: "scripted proposal"})
	}
	rev := aipass.Finish(req, judged, proposals, "not scripted")
	rev.Usage = aipass.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, Requests: 1}
	return rev, nil
}

func TestAIPassApplyRevertsRejectedAndAppliesConfirmedChanges(t *testing.T) {
	c, store, ns := aiNamespace(t)
	// chg_0001 is the auto-applied "first corinthians", chg_0002 the needs-review "capernum".
	p := &verdicts{by: map[string]aipass.Verdict{"chg_0001": aipass.Rejected, "chg_0002": aipass.Confirmed}, propose: "sailed"}
	t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: p}))
	tr := pasteWithAIPass(t, c, store, ns, aiSermon, true)
	got := eventually(t, c, tr, "AI pass ended", aiDone)
	if got.Status.AIPassStatus != tcsv1.AIPassCompleted {
		t.Fatalf("status %+v", got.Status)
	}
	keys := pipeline.KeysFor("org_a", tr.Spec.ID)
	deterministic, err := store.Get(t.Context(), keys.Content)
	if err != nil || !strings.Contains(string(deterministic), "1 Corinthians 13") || !strings.Contains(string(deterministic), "capernum") {
		t.Fatalf("deterministic content %q, %v", deterministic, err)
	}
	if got.Status.ContentRef != keys.AIContent || got.Status.ChangesRef != keys.AIChanges {
		t.Fatalf("refs %q %q", got.Status.ContentRef, got.Status.ChangesRef)
	}
	revised, err := store.Get(t.Context(), got.Status.ContentRef)
	wantText := "Sermon notes\nturn to first corinthians 13 and read it\nthey sailed past Capernaum that night\n"
	if err != nil || string(revised) != wantText {
		t.Fatalf("revised content %q, %v; want %q", revised, err, wantText)
	}
	changes := storedChanges(t, store, got)
	type row struct {
		id, category, original string
		verdict                aipass.Verdict
		applied                bool
	}
	var rows []row
	for _, ch := range changes {
		rows = append(rows, row{ch.ID, ch.Category, ch.Original, ch.AIVerdict, ch.IsApplied()})
	}
	wantRows := []row{
		{"chg_0001", "bible", "first corinthians", aipass.Rejected, false},
		{"chg_0003", "ai", "sailed", "", false},
		{"chg_0002", "place", "capernum", aipass.Confirmed, true},
	}
	if !slices.Equal(rows, wantRows) {
		t.Fatalf("changes %+v, want %+v", rows, wantRows)
	}
	if ai := changes[1]; ai.Status != correction.StatusNeedsReview || ai.Rule != pipeline.RuleAIProposal || ai.Replacement != "SAILED" || ai.AIReason != "scripted proposal" ||
		aiSermon[ai.Start:ai.End] != "sailed" || ai.Line != 3 {
		t.Fatalf("proposal %+v", ai)
	}
	sum, res := got.Status.ChangesSummary, got.Status.AIPass
	if sum.Total != 3 || sum.AIFlagged != 1 || sum.NeedsReview != 2 || sum.ByCategory["ai"] != 1 ||
		res.Confirmed != 1 || res.Rejected != 1 || res.Uncertain != 0 || res.Proposed != 1 || !res.Apply ||
		res.Usage == nil || res.Usage.TotalTokens != 120 || res.Usage.Requests != 1 {
		t.Fatalf("summary %+v, pass %+v", sum, res)
	}
}

func TestAIPassRestartedMidRunFinishesOnce(t *testing.T) {
	c, store, ns := aiNamespace(t)
	p := &verdicts{block: make(chan struct{})}
	stop := runAIPass(t, ns, store, AIPassReconciler{Provider: p})
	tr := pasteWithAIPass(t, c, store, ns, aiSermon, false)
	eventually(t, c, tr, "running", func(t *tcsv1.Transcript) bool { return t.Status.AIPassStatus == tcsv1.AIPassRunning })
	deadline := time.Now().Add(10 * time.Second)
	for p.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop() // the pass is cut off in the provider call
	close(p.block)
	p.model = "scripted-v2" // the restarted manager runs with another configuration
	t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: p}))
	got := eventually(t, c, tr, "AI pass ended", aiDone)
	want := []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted, tcsv1.EventAIPassStarted, tcsv1.EventAIPassCompleted}
	if ev := got.EmittedEventTypes(); got.Status.AIPassStatus != tcsv1.AIPassCompleted || !slices.Equal(ev, want) || p.calls.Load() != 2 {
		t.Fatalf("status %s, events %v, provider calls %d", got.Status.AIPassStatus, ev, p.calls.Load())
	}
	if m := got.Status.AIPass.Model; m != "scripted-v2" {
		t.Fatalf("model %q, want the one that gave the verdicts", m)
	}
}

func TestAIPassOfATranscriptThatFailsFailsToo(t *testing.T) {
	c, store, ns := aiNamespace(t)
	t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: aipass.NewRules()}))
	tr := newTranscript(ns, "org_a", tcsv1.SourcePaste)
	tr.Spec.Options.AIPass.Enabled = true
	// An input the deterministic pass cannot read: the transcript fails.
	tr.Spec.Source.Format = "json"
	if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte("{not json"), "application/json"); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "AI pass ended", aiDone)
	// A pass that never ran is announced all the same: ai_pass.started, then ai_pass.failed.
	want := []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptFailed, tcsv1.EventAIPassStarted, tcsv1.EventAIPassFailed}
	if ev := got.EmittedEventTypes(); got.Status.Phase != tcsv1.PhaseFailed || got.Status.AIPassStatus != tcsv1.AIPassFailed || !slices.Equal(ev, want) ||
		got.Status.AIPass.Error == nil || !strings.Contains(got.Status.AIPass.Error.Message, "failed before") {
		t.Fatalf("status %+v, events %v", got.Status, ev)
	}
	wantCondition(t, got, tcsv1.ConditionAIValidated, metav1.ConditionFalse, "Failed")
}

// A soft delete ends the transcript's work in flight as failures a receiver hears of: a queued
// pass (with the deterministic pass still pending) and a running one each send ai_pass.started
// and then ai_pass.failed, and a restore finds them ended.
func TestAIPassOfASoftDeletedTranscriptEnds(t *testing.T) {
	c, store, ns := aiNamespace(t)
	p := &verdicts{block: make(chan struct{})}
	t.Cleanup(func() { close(p.block) })

	// Queued behind a pending fetch, deleted before any manager saw it.
	queued := newTranscript(ns, "org_a", tcsv1.SourceURL)
	queued.Spec.Source.URL, queued.Spec.Source.Format = "http://127.0.0.1:9/notes.txt", "txt"
	queued.Spec.Options.AIPass.Enabled = true
	if err := c.Create(t.Context(), queued); err != nil {
		t.Fatal(err)
	}
	queued.Status.Phase, queued.Status.AIPassStatus = tcsv1.PhasePending, tcsv1.AIPassIdle
	queued.AddJob(tcsv1.JobURLFetch, metav1.Now())
	queued.QueueRequestedAIPass(metav1.Now())
	queued.Emit(tcsv1.EventTranscriptCreated, time.Now())
	deleted := metav1.Now()
	queued.Status.DeletedAt = &deleted
	if err := c.Status().Update(t.Context(), queued); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: p}))
	got := eventually(t, c, queued, "queued pass ended", aiDone)
	want := []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptFailed, tcsv1.EventAIPassStarted, tcsv1.EventAIPassFailed}
	if ev := got.EmittedEventTypes(); !slices.Equal(ev, want) || got.Status.Phase != tcsv1.PhaseFailed ||
		got.Status.AIPass.Error == nil || got.Status.AIPass.Error.Message != tcsv1.DeletedBeforeAIPassEnded || got.Status.AIPass.Error.Type != "conflict" {
		t.Fatalf("events %v, status %+v", ev, got.Status)
	}

	// Running in the provider when the delete comes.
	running := pasteWithAIPass(t, c, store, ns, aiSermon, false)
	eventually(t, c, running, "running", func(t *tcsv1.Transcript) bool { return t.Status.AIPassStatus == tcsv1.AIPassRunning })
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(running), running); err != nil {
			return err
		}
		now := metav1.Now()
		running.Status.DeletedAt = &now
		return c.Status().Update(t.Context(), running)
	})
	if err != nil {
		t.Fatal(err)
	}
	got = eventually(t, c, running, "running pass ended", aiDone)
	want = []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted, tcsv1.EventAIPassStarted, tcsv1.EventAIPassFailed}
	if ev := got.EmittedEventTypes(); !slices.Equal(ev, want) || got.Status.Phase != tcsv1.PhaseCompleted ||
		got.Status.AIPass.Error == nil || got.Status.AIPass.Error.Message != tcsv1.DeletedBeforeAIPassEnded {
		t.Fatalf("events %v, status %+v", ev, got.Status)
	}
	// The provider's late answer changes nothing.
	p.block <- struct{}{}
	time.Sleep(300 * time.Millisecond)
	again := eventually(t, c, running, "unchanged", func(*tcsv1.Transcript) bool { return true })
	if !slices.Equal(again.EmittedEventTypes(), want) || again.Status.AIPassStatus != tcsv1.AIPassFailed {
		t.Fatalf("after the provider answered: events %v, ai %s", again.EmittedEventTypes(), again.Status.AIPassStatus)
	}
}

// chatServer is a local OpenAI-compatible Chat Completions endpoint answering with answer, or
// with status when it is not 200, or after delay.
func chatServer(t *testing.T, status int, answer string, delay time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":"the model is overloaded","type":"server_error"}}`)
			return
		}
		body, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
		})
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAIPassWithTheOpenAIProvider(t *testing.T) {
	const good = `{"verdicts":[{"id":"chg_0001","verdict":"confirmed","reason":"a chapter follows"},{"id":"chg_0002","verdict":"uncertain","reason":"could be a person"}],"proposals":[]}`
	for _, tc := range []struct {
		name    string
		status  int
		answer  string
		delay   time.Duration
		timeout time.Duration
		// wantFail is a part of the failure message; empty means the pass completes.
		wantFail, wantType string
	}{
		{name: "answers", status: 200, answer: good},
		{name: "malformed answer", status: 200, answer: "I think these changes look fine!", wantFail: "not valid review JSON", wantType: "server_error"},
		{name: "server error", status: 500, answer: "", wantFail: "500", wantType: "server_error"},
		{name: "provider too slow", status: 200, answer: good, delay: 2 * time.Second, wantFail: "did not answer within", wantType: "server_error"},
		{name: "pass too slow", status: 200, answer: good, delay: 2 * time.Second, timeout: 300 * time.Millisecond, wantFail: "did not finish within 300ms", wantType: "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, store, ns := aiNamespace(t)
			srv := chatServer(t, tc.status, tc.answer, tc.delay)
			p, err := aipass.NewOpenAI(aipass.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "test-model",
				RequestTimeout: 500 * time.Millisecond, MaxRetries: 1, Output: aipass.OutputJSONSchema})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: p, Timeout: tc.timeout}))
			tr := pasteWithAIPass(t, c, store, ns, aiSermon, true)
			got := eventually(t, c, tr, "AI pass ended", aiDone)
			keys := pipeline.KeysFor("org_a", tr.Spec.ID)
			res := got.Status.AIPass
			if tc.wantFail == "" {
				want := []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted, tcsv1.EventAIPassStarted, tcsv1.EventAIPassCompleted}
				if ev := got.EmittedEventTypes(); !slices.Equal(ev, want) || res.Provider != "openai" || res.Model != "test-model" ||
					res.Usage == nil || res.Usage.TotalTokens != 60 || res.Usage.Requests != 1 || res.Confirmed != 1 || res.Uncertain != 1 {
					t.Fatalf("events %v, pass %+v", ev, res)
				}
				return
			}
			want := []string{tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted, tcsv1.EventAIPassStarted, tcsv1.EventAIPassFailed}
			if ev := got.EmittedEventTypes(); got.Status.AIPassStatus != tcsv1.AIPassFailed || !slices.Equal(ev, want) {
				t.Fatalf("status %s, events %v", got.Status.AIPassStatus, ev)
			}
			if res.Error == nil || res.Error.Type != tc.wantType || !strings.Contains(res.Error.Message, tc.wantFail) {
				t.Fatalf("error %+v, want %s containing %q", res.Error, tc.wantType, tc.wantFail)
			}
			// The tokens of answers that came back are recorded, even though the pass failed.
			if wantTokens := map[string]int64{"malformed answer": 120}[tc.name]; (res.Usage == nil && wantTokens != 0) || (res.Usage != nil && res.Usage.TotalTokens != wantTokens) {
				t.Fatalf("usage %+v, want %d tokens", res.Usage, wantTokens)
			}
			if job := got.AIPassJob(); job == nil || job.State != tcsv1.JobFailed || job.Error != res.Error.Message {
				t.Fatalf("job %+v", job)
			}
			cond := wantCondition(t, got, tcsv1.ConditionAIValidated, metav1.ConditionFalse, "Failed")
			// API clients are not told where the provider is; the cluster's operators are.
			host := strings.TrimPrefix(srv.URL, "http://")
			if strings.Contains(res.Error.Message, host) {
				t.Fatalf("the API's message %q names the provider's address", res.Error.Message)
			}
			if wantDetail := tc.wantType == "server_error" && tc.name != "malformed answer"; wantDetail != strings.Contains(cond.Message, host) ||
				!strings.Contains(cond.Message, tc.wantFail) {
				t.Fatalf("condition message %q (want the provider's address: %v)", cond.Message, wantDetail)
			}
			// The deterministic result is intact.
			if got.Status.Phase != tcsv1.PhaseCompleted || got.Status.ContentRef != keys.Content || got.Status.ChangesRef != keys.Changes ||
				got.Status.ChangesSummary.AIFlagged != 0 {
				t.Fatalf("status %+v", got.Status)
			}
			if ok, err := store.Exists(t.Context(), keys.AIContent); err != nil || ok {
				t.Fatalf("revised content written by a failed pass: %v %v", ok, err)
			}
		})
	}
}

func TestAIPassWritesItsProgress(t *testing.T) {
	c, store, ns := aiNamespace(t)
	release := make(chan struct{})
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The first part is answered at once, the others once the test saw its progress.
		if calls.Add(1) > 1 {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		body, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": `{"verdicts":[],"proposals":[]}`}}},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	p, err := aipass.NewOpenAI(aipass.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "test-model",
		Concurrency: 1, ChunkBytes: 300, ContextBytes: 40, Output: aipass.OutputJSONSchema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: p, ProgressInterval: 20 * time.Millisecond}))

	// References far apart: the review goes in several parts.
	filler := strings.Repeat("and the people listened to the word with joy and gladness. ", 8)
	text := "turn to romans 8 28. " + filler + "read john 3 16. " + filler + "see acts 2 38. " + filler + "in hebrews 11 1 we read.\n"
	tr := pasteWithAIPass(t, c, store, ns, text, false)
	mid := eventually(t, c, tr, "progress while running", func(t *tcsv1.Transcript) bool {
		job := t.AIPassJob()
		return t.Status.AIPassStatus == tcsv1.AIPassRunning && job != nil && job.Progress > 0
	})
	if p := mid.AIPassJob().Progress; p >= 100 {
		t.Fatalf("progress %d while running", p)
	}
	close(release)
	got := eventually(t, c, tr, "AI pass ended", aiDone)
	if job := got.AIPassJob(); got.Status.AIPassStatus != tcsv1.AIPassCompleted || job.Progress != 100 || calls.Load() < 2 {
		t.Fatalf("status %s, job %+v, %d calls", got.Status.AIPassStatus, job, calls.Load())
	}
}

func TestAIPassFindsTheChangesOfTheOrganizationsGlossary(t *testing.T) {
	c, store, ns := aiNamespace(t)
	o, err := orgs.Create(t.Context(), c, ns, "Grace Chapel", nil)
	if err != nil {
		t.Fatal(err)
	}
	org := o.Spec.ID
	m := &glossary.Manager{Client: c, Namespace: ns}
	if _, _, err := m.Add(t.Context(), org, "a@x", glossary.Input{Term: "Pastor Okonkwo", Forms: []string{"pastor oconquo"}, Auto: true, Category: "name"}, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runAIPass(t, ns, store, AIPassReconciler{Provider: aipass.NewRules(), Glossaries: glossary.NewCompiler(c, ns, 0)}))
	tr := newTranscript(ns, org, tcsv1.SourcePaste)
	tr.Spec.Options.AIPass = tcsv1.AIPassOptions{Enabled: true}
	if err := store.Put(t.Context(), tr.Spec.Source.InputRef, []byte("Pastor Oconquo read first corinthians 13\n"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	got := eventually(t, c, tr, "AI pass ended", aiDone)
	if got.Status.AIPassStatus != tcsv1.AIPassCompleted {
		t.Fatalf("AI pass %s: %+v; want it to find the changes the deterministic pass stored with the glossary", got.Status.AIPassStatus, got.Status.AIPass)
	}
	changes := storedChanges(t, store, got)
	i := slices.IndexFunc(changes, func(ch pipeline.Change) bool { return ch.Category == "name" })
	if i < 0 || changes[i].Replacement != "Pastor Okonkwo" || !changes[i].AIVerdict.Valid() {
		t.Fatalf("changes %+v; want the glossary's, judged", changes)
	}
}
