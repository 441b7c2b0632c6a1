package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// testHeartbeat is the heartbeat of idempotent requests in the tests' API servers.
const testHeartbeat = 200 * time.Millisecond

// The environment of the child process of TestIdempotencySurvivesKill: when crashChildEnv is
// set, the test binary is an API server that stops dead once a request reached the step
// crashStepEnv names: "effect" (the default; it made its effect), "claimed" (it claimed its
// idempotency record), "recorded" (it recorded its response) or "stored" (a decisions request
// stored the objects of its review version, before the status names them).
const (
	crashChildEnv      = "TCS_APISERVER_CRASH_CHILD"
	crashKubeconfigEnv = "TCS_APISERVER_CRASH_KUBECONFIG"
	crashNamespaceEnv  = "TCS_APISERVER_CRASH_NAMESPACE"
	crashStoreEnv      = "TCS_APISERVER_CRASH_STORE"
	crashResultsEnv    = "TCS_APISERVER_CRASH_RESULTS"
	crashStepEnv       = "TCS_APISERVER_CRASH_STEP"
)

// runCrashChild serves the API on loopback against the test's control plane, object store
// and results store. It prints "listening <url>" when ready and "<step> <transcript id>" when
// a request reached a step (effect, claimed, recorded); at the step of crashStepEnv the
// request hangs until the test kills the process.
func runCrashChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "crash child:", err); return 2 }
	ctx := context.Background()
	ns := os.Getenv(crashNamespaceEnv)
	mgr, err := testenv.NewChildManager(os.Getenv(crashKubeconfigEnv), ns)
	if err != nil {
		return fail(err)
	}
	if err := SetupIndexes(ctx, mgr.GetFieldIndexer()); err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	baseURL := "http://" + ln.Addr().String()
	store, err := blob.Open(ctx, os.Getenv(crashStoreEnv), blob.Options{SigningSecret: []byte("test-secret-test-secret"), UploadBaseURL: baseURL + "/uploads/"})
	if err != nil {
		return fail(err)
	}
	rs, err := results.Open(ctx, os.Getenv(crashResultsEnv))
	if err != nil {
		return fail(err)
	}
	engine, err := correction.NewEngine()
	if err != nil {
		return fail(err)
	}
	stopAt := os.Getenv(crashStepEnv)
	if stopAt == "" {
		stopAt = "effect"
	}
	step := func(name, id string) {
		fmt.Printf("%s %s\n", name, id)
		if name == stopAt {
			select {} // the test kills the process here
		}
	}
	srv := New(Options{
		Namespace: ns, Cache: mgr.GetCache(), APIReader: mgr.GetAPIReader(), Client: mgr.GetClient(),
		Processor: pipeline.New(engine, store), Store: store, Results: rs,
		OutboundAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		AIProvider:    aipass.NewRules(), Log: mgr.GetLogger(),
	})
	srv.idempotency.heartbeatEvery = testHeartbeat
	srv.hooks.afterEffect = func(_ context.Context, id string) { step("effect", id) }
	srv.hooks.afterIdempotencyStep = func(_ context.Context, name, id string) { step(name, id) }
	srv.service.ReviewStored = func(_ context.Context, id string) { step("stored", id) }
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "crash child: manager:", err)
			os.Exit(2)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fail(fmt.Errorf("cache did not sync"))
	}
	fmt.Printf("listening %s\n", baseURL)
	if err := srv.Serve(ctx, ln); err != nil {
		return fail(err)
	}
	return 0
}

// crashChild is a running child API server.
type crashChild struct {
	url string
	cmd *exec.Cmd
	// stopped receives the transcript id of the request stopped at its step.
	stopped chan string
}

// startCrashChild starts the test binary as an API server for h's namespace and stores that
// stops requests at step.
func startCrashChild(t *testing.T, h *harness, step string) *crashChild {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"=1", crashKubeconfigEnv+"="+kubeconfig,
		crashNamespaceEnv+"="+h.namespace, crashStoreEnv+"="+h.storeDir, crashResultsEnv+"="+h.resultsDSN, crashStepEnv+"="+step)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &crashChild{cmd: cmd, stopped: make(chan string, 1)}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "listening "); ok {
				ready <- u
			}
			if id, ok := strings.CutPrefix(line, step+" "); ok {
				c.stopped <- id
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case c.url = <-ready:
	case <-time.After(60 * time.Second):
		t.Fatalf("the child API server did not start: %s", stderr.String())
	}
	return c
}

// killMidRequest sends a POST with an Idempotency-Key to a new child API server, waits until
// the request made its effect, and kills the child with SIGKILL before it answers and records
// its response. It returns the transcript id the effect was on.
func (h *harness) killMidRequest(t *testing.T, path, idemKey, body string) string {
	t.Helper()
	return h.killAtStep(t, "effect", path, idemKey, body)
}

// killAtStep is killMidRequest at the given step of the request (see crashStepEnv).
func (h *harness) killAtStep(t *testing.T, step, path, idemKey, body string) string {
	t.Helper()
	c := startCrashChild(t, h, step)
	sent := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, c.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+h.keyA.Value)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(HeaderIdempotencyKey, idemKey)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			err = fmt.Errorf("the child answered %d %s", res.StatusCode, b)
		}
		sent <- err
	}()
	var id string
	select {
	case id = <-c.stopped:
	case err := <-sent:
		t.Fatalf("the request ended before the step %s: %v", step, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("the request did not reach the step %s", step)
	}
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	if err := <-sent; err == nil || strings.Contains(err.Error(), "answered") {
		t.Fatalf("the client got an answer from the killed server: %v", err)
	}
	return id
}

// transcriptCount counts the transcripts (upload grants included) of h's namespace.
func (h *harness) transcriptCount(t *testing.T) int {
	t.Helper()
	var list tcsv1.TranscriptList
	if err := h.client.List(t.Context(), &list, client.InNamespace(h.namespace)); err != nil {
		t.Fatal(err)
	}
	// A transcript being deleted (its objects purged) is gone for the API.
	n := 0
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp.IsZero() {
			n++
		}
	}
	return n
}

// TestIdempotencySurvivesKill kills the API server process (SIGKILL) after a request with an
// Idempotency-Key made its effect and before it recorded its response, then retries the
// request with the same key on another server: the retry resumes the first run (same
// transcript, nothing made twice), and the next one replays its answer.
func TestIdempotencySurvivesKill(t *testing.T) {
	h := newHarness(t)
	const transcripts = "/api/v1/transcripts"
	retry := func(t *testing.T, path, idemKey, body string, status int) response {
		t.Helper()
		r := h.post(t, path, h.keyA.Value, idemKey, body)
		if r.status != status || r.header.Get(HeaderIdempotentReplayed) != "" {
			t.Fatalf("retry after the kill: %d %s", r.status, r.raw)
		}
		again := h.post(t, path, h.keyA.Value, idemKey, body)
		if again.status != status || again.header.Get(HeaderIdempotentReplayed) != "true" || !bytes.Equal(again.raw, r.raw) {
			t.Fatalf("replay: %d %s", again.status, again.raw)
		}
		return r
	}

	t.Run("paste", func(t *testing.T) {
		before := h.transcriptCount(t)
		body := `{"source_type":"paste","content":"turn to phillipians 4:13"}`
		id := h.killMidRequest(t, transcripts, "crash-paste", body)
		// The transcript exists, not completed: the killed run never finished it.
		tr := &tcsv1.Transcript{}
		if err := h.client.Get(t.Context(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
			t.Fatal(err)
		}
		if tr.Status.Phase != "" {
			t.Fatalf("phase %q before the retry", tr.Status.Phase)
		}
		// A retry whose body differs still gets the first request's transcript.
		r := retry(t, transcripts, "crash-paste", `{"source_type":"paste","content":"another text"}`, 201)
		if r.body["id"] != id || r.body["status"] != "completed" || !strings.Contains(r.body["content"].(string), "Philippians 4:13") {
			t.Fatalf("retry answered %s, want %s completed", r.raw, id)
		}
		if n := h.transcriptCount(t); n != before+1 {
			t.Fatalf("%d transcripts made, want 1", n-before)
		}
	})

	t.Run("paste killed after its create, before its input was stored", func(t *testing.T) {
		// The input is stored while the transcript is created: a run may die with the
		// transcript made and no input. Its retry stores its own text and completes it.
		before := h.transcriptCount(t)
		body := `{"source_type":"paste","content":"turn to revelations 3:20"}`
		id := h.killMidRequest(t, transcripts, "crash-paste-input", body)
		if err := h.store.Delete(t.Context(), pipeline.KeysFor(h.keyA.OrganizationID, id).Input); err != nil {
			t.Fatal(err)
		}
		r := retry(t, transcripts, "crash-paste-input", body, 201)
		if r.body["id"] != id || r.body["status"] != "completed" || !strings.Contains(r.body["content"].(string), "Revelation 3:20") {
			t.Fatalf("retry answered %s, want %s completed", r.raw, id)
		}
		if n := h.transcriptCount(t); n != before+1 {
			t.Fatalf("%d transcripts made, want 1", n-before)
		}
	})

	t.Run("url", func(t *testing.T) {
		before := h.transcriptCount(t)
		body := `{"source_type":"url","url":"http://127.0.0.1:9/sermon.txt","source_format":"txt"}`
		id := h.killMidRequest(t, transcripts, "crash-url", body)
		r := retry(t, transcripts, "crash-url", body, 202)
		if r.body["id"] != id || len(jobTypes(r)) != 1 || jobTypes(r)[0] != tcsv1.JobURLFetch {
			t.Fatalf("retry answered %s, want %s with its fetch job", r.raw, id)
		}
		if n := h.transcriptCount(t); n != before+1 {
			t.Fatalf("%d transcripts made, want 1", n-before)
		}
	})

	t.Run("upload grant and confirmation", func(t *testing.T) {
		before := h.transcriptCount(t)
		id := h.killMidRequest(t, transcripts+"/uploads", "crash-grant", `{"filename":"a.txt"}`)
		g := retry(t, transcripts+"/uploads", "crash-grant", `{"filename":"a.txt"}`, 201)
		if g.body["transcript_id"] != id {
			t.Fatalf("retry answered %s, want the grant of %s", g.raw, id)
		}
		if n := h.transcriptCount(t); n != before+1 {
			t.Fatalf("%d grants made, want 1", n-before)
		}
		if code := put(t, g.body, []byte("read revelations 3:20\n"), nil); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("PUT: %d", code)
		}
		confirm := `{"source_type":"upload","transcript_id":"` + id + `"}`
		if got := h.killMidRequest(t, transcripts, "crash-confirm", confirm); got != id {
			t.Fatalf("confirmed %s, want %s", got, id)
		}
		// The killed run confirmed it; its retry answers as it would have, not 409.
		r := retry(t, transcripts, "crash-confirm", confirm, 202)
		if r.body["id"] != id || len(jobTypes(r)) != 1 {
			t.Fatalf("retry answered %s", r.raw)
		}
		// Another key still finds it confirmed.
		wantError(t, h.post(t, transcripts, h.keyA.Value, "crash-confirm-2", confirm), 409, ErrConflict, "transcript_id")
	})

	t.Run("killed after the claim", func(t *testing.T) {
		// The record names the transcript before anything is made: the retry makes that one.
		before := h.transcriptCount(t)
		body := `{"source_type":"paste","content":"read romans 8:28"}`
		id := h.killAtStep(t, "claimed", transcripts, "crash-claimed", body)
		if n := h.transcriptCount(t); n != before {
			t.Fatalf("%d transcripts made before the effect", n-before)
		}
		if rec := h.record(t, "POST "+transcripts, "crash-claimed"); rec.State != results.IdempotencyInProgress || rec.TranscriptID != id {
			t.Fatalf("record after the kill: %+v, want in progress for %s", rec, id)
		}
		r := retry(t, transcripts, "crash-claimed", body, 201)
		if r.body["id"] != id || r.body["status"] != "completed" {
			t.Fatalf("retry answered %s, want %s completed", r.raw, id)
		}
		if n := h.transcriptCount(t); n != before+1 {
			t.Fatalf("%d transcripts made, want 1", n-before)
		}
	})

	t.Run("killed after the record", func(t *testing.T) {
		// The response was committed with its body before the process died: the retry replays it.
		before := h.transcriptCount(t)
		body := `{"source_type":"paste","content":"read psalm 23"}`
		id := h.killAtStep(t, "recorded", transcripts, "crash-recorded", body)
		r := h.post(t, transcripts, h.keyA.Value, "crash-recorded", body)
		if r.status != 201 || r.header.Get(HeaderIdempotentReplayed) != "true" || r.body["id"] != id || r.body["status"] != "completed" {
			t.Fatalf("retry answered %d %s (replayed %q), want the recorded answer for %s", r.status, r.raw, r.header.Get(HeaderIdempotentReplayed), id)
		}
		if n := h.transcriptCount(t); n != before+1 {
			t.Fatalf("%d transcripts made, want 1", n-before)
		}
	})

	t.Run("ai_pass", func(t *testing.T) {
		p := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": "read genesis 1:1"})
		id := p.body["id"].(string)
		path := transcripts + "/" + id + "/ai_pass"
		if got := h.killMidRequest(t, path, "crash-ai", `{}`); got != id {
			t.Fatalf("AI pass queued on %s, want %s", got, id)
		}
		r := retry(t, path, "crash-ai", `{}`, 202)
		if jt := jobTypes(r); len(jt) != 2 || jt[1] != tcsv1.JobAIPass || r.body["ai_pass_status"] != "queued" {
			t.Fatalf("retry answered %s, want one AI pass queued", r.raw)
		}
	})
}
