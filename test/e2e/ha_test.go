package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/tooling/testenv"
	"tcs.dev/tcs/internal/tooling/testenv/postgres"
)

// The leader election of the HA test's replicas: shorter than the defaults, so that a
// takeover after a SIGKILL takes seconds; the renewal deadline keeps room for a busy machine.
const (
	haLeaseDuration = 8 * time.Second
	haRenewDeadline = 6 * time.Second
	haRetryPeriod   = 500 * time.Millisecond
	// haLease is the leader-election Lease of tcs, in the service's namespace.
	haLease     = "tcs-manager.tcs.dev"
	haNamespace = "tcs-system"
)

// replica is one `tcs run --leader-elect` process of the HA test; it can be killed and
// started again on the same addresses.
type replica struct {
	t    *testing.T
	name string
	args []string
	env  []string
	// api is the base URL of its REST API; probes that of its health probes.
	api, probes string
	cmd         *exec.Cmd
	stderr      *testenv.SyncBuffer
	done        chan struct{}
	// logs keeps the output of its earlier runs, for a failure message.
	logs []string
}

// start starts the process and waits up to a minute for it to be ready.
func (r *replica) start() {
	r.t.Helper()
	r.cmd = exec.Command(tcsBin, r.args...)
	r.cmd.Env = r.env
	r.stderr = &testenv.SyncBuffer{}
	r.cmd.Stdout, r.cmd.Stderr = r.stderr, r.stderr
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("starting %s: %v", r.name, err)
	}
	r.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(r.cmd, r.done)
	deadline := time.Now().Add(time.Minute)
	for {
		if res, err := http.Get(r.probes + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-r.done:
			r.t.Fatalf("%s exited before it was ready:\n%s", r.name, r.stderr)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s was not ready after a minute:\n%s", r.name, r.stderr)
		}
	}
}

// kill kills the process with SIGKILL, as the OOM killer or a lost node does, and waits for it.
func (r *replica) kill() {
	_ = r.cmd.Process.Kill()
	<-r.done
	r.logs = append(r.logs, r.stderr.String())
}

// stop stops the process with SIGTERM, as the kubelet does, and waits for it.
func (r *replica) stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		r.t.Errorf("%s did not stop within 30 s of SIGTERM", r.name)
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}

// acquiredLease reports whether the current run of the process logged that it acquired the
// leader-election lease.
func (r *replica) acquiredLease() bool {
	return strings.Contains(r.stderr.String(), `"msg":"Successfully acquired lease","lock":"`+haNamespace+"/"+haLease+`"`)
}

// haRequest is a POST of the HA test's load, and what it was answered.
type haRequest struct {
	kind, path, key string
	body            []byte
	// want is how the transcript ends: completed or failed; ai asks for the AI pass.
	want string
	ai   bool
	// id is the transcript acknowledged; by is the replica (0 or 1) that acknowledged it.
	id string
	by int
}

// haClient sends requests as a careful client behind a load balancer does: every POST with
// an Idempotency-Key, to a replica of its choice, and when that replica does not answer (or
// answers 429, 5xx or 409 for a key in progress) again with the same key, to the other one.
type haClient struct {
	apis   []string
	apiKey string
	http   *http.Client
	// retries counts the attempts after the first; failovers the requests that the replica
	// they were first sent to did not acknowledge.
	retries, failovers atomic.Int64
	mu                 sync.Mutex
	unexpected         []string
}

func (c *haClient) failf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unexpected = append(c.unexpected, fmt.Sprintf(format, args...))
}

// send posts r, starting at replica first, until it gets a final answer; ok is false when it
// did not within two minutes.
func (c *haClient) send(ctx context.Context, r *haRequest, first int) (status int, header http.Header, out map[string]any, ok bool) {
	at := first
	backoff := 100 * time.Millisecond
	giveUp := time.Now().Add(2 * time.Minute)
	last := "no answer"
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			c.retries.Add(1)
			select {
			case <-ctx.Done():
				return 0, nil, nil, false
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
		}
		if time.Now().After(giveUp) {
			c.failf("POST %s: still failing after 2 minutes of retries: %s", r.path, last)
			return 0, nil, nil, false
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.apis[at]+r.path, bytes.NewReader(r.body))
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", r.key)
		res, err := c.http.Do(req)
		if err != nil {
			last = err.Error()
			at = 1 - at // the load balancer sends the retry to the other replica
			continue
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		last = fmt.Sprintf("%d %s", res.StatusCode, raw)
		switch {
		case slices.Contains([]int{429, 500, 502, 503, 504}, res.StatusCode):
			at = 1 - at
			continue
		case res.StatusCode == 409 && bytes.Contains(raw, []byte(`"param":"Idempotency-Key"`)):
			continue
		}
		if err := json.Unmarshal(raw, &out); err != nil || res.StatusCode >= 300 {
			c.failf("POST %s to %s: %d %s", r.path, c.apis[at], res.StatusCode, raw)
		}
		if at != first {
			c.failovers.Add(1)
		}
		r.by = at
		return res.StatusCode, res.Header, out, true
	}
}

// get reads transcript id from replica at; status 0 means no answer.
func (c *haClient) get(at int, id string) (int, map[string]any) {
	req, _ := http.NewRequest(http.MethodGet, c.apis[at]+"/api/v1/transcripts/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// haInput returns the n-th request of the load: pastes, pastes with the AI pass (some waiting
// for it), url sources (some waiting, some missing, which fail).
func haInput(n int, sources string) *haRequest {
	text := fmt.Sprintf("%s(%d)\n", chaosSermon, n)
	r := &haRequest{key: fmt.Sprintf("ha-%d-%s", n, ids.Random(8)), path: "/api/v1/transcripts", want: "completed"}
	var body map[string]any
	switch n % 8 {
	case 0, 1:
		r.kind = "paste"
		body = map[string]any{"source_type": "paste", "content": text}
	case 2:
		r.kind, r.ai = "paste+ai", true
		body = map[string]any{"source_type": "paste", "content": text, "options": map[string]any{"ai_pass": map[string]any{"enabled": true}}}
	case 3:
		r.kind, r.ai = "paste+ai waiting", true
		r.path += "?wait=true&timeout=20"
		body = map[string]any{"source_type": "paste", "content": text, "options": map[string]any{"ai_pass": map[string]any{"enabled": true}}}
	case 4:
		r.kind = "url"
		body = map[string]any{"source_type": "url", "source_format": "txt", "url": fmt.Sprintf("%s/sermons/%d.txt", sources, n)}
	case 5:
		r.kind = "url waiting"
		r.path += "?wait=true&timeout=20"
		body = map[string]any{"source_type": "url", "source_format": "txt", "url": fmt.Sprintf("%s/sermons/%d.txt", sources, n)}
	case 6:
		r.kind, r.want = "url 404", "failed"
		body = map[string]any{"source_type": "url", "source_format": "txt", "url": fmt.Sprintf("%s/missing/%d.txt", sources, n)}
	default:
		r.kind, r.ai = "url+ai", true
		body = map[string]any{"source_type": "url", "source_format": "txt", "url": fmt.Sprintf("%s/sermons/%d.txt", sources, n),
			"options": map[string]any{"ai_pass": map[string]any{"enabled": true}}}
	}
	r.body, _ = json.Marshal(body)
	return r
}

// leaseHolder returns the holder of the leader-election Lease, empty when none holds it.
func leaseHolder(t *testing.T, c client.Client) string {
	lease := &coordinationv1.Lease{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: haNamespace, Name: haLease}, lease); err != nil {
		return ""
	}
	if h := lease.Spec.HolderIdentity; h != nil {
		return *h
	}
	return ""
}

// TestHATwoReplicasSurviveLosingTheLeader runs the service as the chart's values-ha.yaml does:
// two `tcs run --leader-elect` processes on one control plane, sharing PostgreSQL (the results
// store, with the idempotency records), Redis (the rate limits and the synchronous slots) and
// an S3 server. Clients send a mixed load (pastes, url sources, AI passes, synchronous waits,
// webhooks to an HTTPS receiver) to both, with idempotency keys; the leader is killed with
// SIGKILL, the other replica takes over and the killed one comes back as a standby. Then
// every acknowledged transcript exists once and ended as its input deserves, every event
// reached the endpoint under one delivery id, a key retried on the other replica answers the
// same transcript, and the synchronous-wait limit of an organization held across both.
func TestHATwoReplicasSurviveLosingTheLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("the HA suite runs two replicas and their stores for a minute")
	}
	tmp := t.TempDir()
	ctx := t.Context()

	// The control plane, and the stores the replicas share.
	env, err := testenv.Start()
	if err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	kc := kubeClient(t, kubeconfig)
	if err := orgs.EnsureNamespace(ctx, kc, haNamespace); err != nil {
		t.Fatal(err)
	}
	pgCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	pg, err := postgres.Start(pgCtx)
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := pg.Stop(); err != nil {
			t.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	resultsDSN, err := pg.NewDatabase(pgCtx)
	if err != nil {
		t.Fatal(err)
	}
	redisAddr := testenv.StartRedis(t)
	s3srv := testenv.StartS3(t, "tcs-ha")

	// The loopback HTTPS servers: the webhook receiver (failing a tenth of first attempts) and
	// the sources of url transcripts, whose /slow/ documents are held until released.
	rc := &chaosReceiver{secrets: map[string]string{}, tries: map[string]int{}, accepted: map[string]map[string][]map[string]any{}, failRate: 0.1}
	hooks, caFile := startReceiverWith(t, rc)
	release := make(chan struct{})
	var slowHeld atomic.Int64
	sources := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/sermons/"):
			fmt.Fprintf(w, "%s(%s)\n", chaosSermon, r.URL.Path)
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			slowHeld.Add(1)
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
			fmt.Fprintf(w, "%s(%s)\n", chaosSermon, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(sources.Close)

	// Two organizations: A takes the load, B shows the synchronous-wait limit.
	admin := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(tcsBin, append(append([]string{"admin"}, args...), "--kubeconfig", kubeconfig, "--namespace", haNamespace)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tcs admin %v: %v\n%s", args, err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	orgA, orgB := admin("org", "create", "HA Church A"), admin("org", "create", "HA Church B")
	keyA, keyB := strings.Fields(admin("key", "create", orgA, "--label", "ha load")), strings.Fields(admin("key", "create", orgB, "--label", "ha sync"))
	if len(keyA) != 2 || len(keyB) != 2 {
		t.Fatalf("tcs admin key create printed %q and %q", keyA, keyB)
	}
	const syncLimitB = 3
	setLimits(t, kc, map[string]int32{orgA: 10, orgB: syncLimitB})

	// The replicas: the chart's `tcs run --leader-elect` with the shared stores.
	store := s3srv.StoreURL()
	uploadSecret := ids.Random(48)
	var reps []*replica
	for i := range 2 {
		listen, probes := freeAddr(t), freeAddr(t)
		r := &replica{t: t, name: fmt.Sprintf("replica %d", i), api: "http://" + listen, probes: "http://" + probes,
			args: []string{"run", "--kubeconfig", kubeconfig, "--namespace", haNamespace, "--listen", listen,
				"--health-probe-bind-address", probes, "--metrics-bind-address", "0",
				"--leader-elect", "--leader-elect-lease-duration", haLeaseDuration.String(),
				"--leader-elect-renew-deadline", haRenewDeadline.String(), "--leader-elect-retry-period", haRetryPeriod.String(),
				"--store", store, "--results-dsn", resultsDSN, "--redis-url", "redis://" + redisAddr + "/0",
				"--outbound-allow-cidrs", "127.0.0.1/32", "--outbound-ca-file", caFile, "--ai-provider", "rules",
				"--webhook-retry-delays", "500ms,1s,2s,4s,8s"},
			env: append(os.Environ(), "AWS_ACCESS_KEY_ID="+s3srv.AccessKey, "AWS_SECRET_ACCESS_KEY="+s3srv.SecretKey,
				"TCS_UPLOAD_SECRET="+uploadSecret, "KUBECONFIG="+kubeconfig)}
		reps = append(reps, r)
	}
	var wg sync.WaitGroup
	for _, r := range reps {
		wg.Go(r.start)
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, r := range reps {
			r.stop()
			if t.Failed() || os.Getenv("TCS_TEST_LOG") != "" {
				for i, l := range append(r.logs, r.stderr.String()) {
					t.Logf("%s, run %d:\n%s", r.name, i+1, l)
				}
			}
		}
	})

	// One of them leads; the other runs no controller.
	leader := -1
	testenv.Eventually(t, 30*time.Second, func() (bool, string) {
		leader = slices.IndexFunc(reps, (*replica).acquiredLease)
		return leader >= 0 && leaseHolder(t, kc) != "", "no replica acquired the lease"
	})
	standby := 1 - leader
	if reps[standby].acquiredLease() {
		t.Fatal("both replicas say they acquired the lease")
	}
	holder := leaseHolder(t, kc)
	t.Logf("%s leads (lease holder %s)", reps[leader].name, holder)

	clientA := &haClient{apis: []string{reps[0].api, reps[1].api}, apiKey: keyA[1], http: &http.Client{Timeout: 30 * time.Second}}
	clientB := &haClient{apis: clientA.apis, apiKey: keyB[1], http: clientA.http}
	// Both replicas know the new keys before the load.
	for i := range reps {
		testenv.Eventually(t, 20*time.Second, func() (bool, string) {
			status, _ := clientA.get(i, "tr_"+strings.Repeat("0", 24))
			statusB, _ := clientB.get(i, "tr_"+strings.Repeat("0", 24))
			return status == http.StatusNotFound && statusB == http.StatusNotFound, fmt.Sprintf("%s answers %d and %d for a missing transcript", reps[i].name, status, statusB)
		})
	}

	t.Run("the synchronous-wait limit of an organization holds across both replicas", func(t *testing.T) {
		// syncLimitB waits held (two on one replica, one on the other) by sources that do not
		// answer yet; then a further wait is refused on either replica.
		held := make(chan int, syncLimitB)
		for i := range syncLimitB {
			go func() {
				r := &haRequest{path: "/api/v1/transcripts?wait=true&timeout=30", key: fmt.Sprintf("sync-%d-%s", i, ids.Random(6)),
					body: fmt.Appendf(nil, `{"source_type":"url","source_format":"txt","url":"%s/slow/%d.txt"}`, sources.URL, i)}
				status, _, _, _ := clientB.send(ctx, r, i%2)
				held <- status
			}()
		}
		testenv.Eventually(t, 20*time.Second, func() (bool, string) {
			return slowHeld.Load() >= syncLimitB, fmt.Sprintf("%d of %d sources fetched", slowHeld.Load(), syncLimitB)
		})
		for i, r := range reps {
			req, _ := http.NewRequest(http.MethodPost, r.api+"/api/v1/transcripts?wait=true&timeout=5",
				strings.NewReader(fmt.Sprintf(`{"source_type":"url","source_format":"txt","url":"%s/sermons/over-%d.txt"}`, sources.URL, i)))
			req.Header.Set("Authorization", "Bearer "+keyB[1])
			req.Header.Set("Content-Type", "application/json")
			res, err := clientB.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusTooManyRequests || !bytes.Contains(raw, []byte("rate_limited")) {
				t.Errorf("a synchronous wait beyond the %d held, to %s: %d %s, want 429", syncLimitB, r.name, res.StatusCode, raw)
			}
		}
		close(release)
		for range syncLimitB {
			if status := <-held; status != http.StatusOK {
				t.Errorf("a held synchronous wait ended %d, want 200", status)
			}
		}
	})

	// The webhook endpoint of organization A, subscribed to every event before the load.
	rc.subscribe(t, kubeconfig, orgA, hooks.URL, "/a")
	time.Sleep(1100 * time.Millisecond) // event times are whole seconds

	// The load: four clients, each preferring one replica, until stopped; stopping lets every
	// client finish the request it is retrying, so that none is left half acknowledged.
	var stopped atomic.Bool
	var mu sync.Mutex
	var all []*haRequest
	var n atomic.Int64
	var load sync.WaitGroup
	for i := range 4 {
		load.Go(func() {
			for !stopped.Load() {
				r := haInput(int(n.Add(1)), sources.URL)
				status, _, out, ok := clientA.send(ctx, r, i%2)
				if !ok || status >= 300 {
					continue
				}
				r.id, _ = out["id"].(string)
				mu.Lock()
				all = append(all, r)
				mu.Unlock()
			}
		})
	}
	time.Sleep(5 * time.Second)

	// The leader dies; the standby takes the lease and starts the controllers.
	if strings.Contains(reps[standby].stderr.String(), "Starting workers") {
		t.Errorf("%s, the standby, ran controllers before it led", reps[standby].name)
	}
	mu.Lock()
	beforeKill := len(all)
	mu.Unlock()
	killed := time.Now()
	reps[leader].kill()
	var leaseTaken, workersStarted time.Duration
	testenv.Eventually(t, 30*time.Second, func() (bool, string) {
		if h := leaseHolder(t, kc); leaseTaken == 0 && h != "" && h != holder {
			leaseTaken = time.Since(killed)
		}
		if workersStarted == 0 && strings.Contains(reps[standby].stderr.String(), "Starting workers") {
			workersStarted = time.Since(killed)
		}
		return leaseTaken > 0 && workersStarted > 0 && reps[standby].acquiredLease(), "the standby has not taken over"
	})
	t.Logf("takeover: the lease changed hands %s after the SIGKILL of the leader, the new leader's controllers started %s after it (lease duration %s, retry period %s)",
		leaseTaken.Round(10*time.Millisecond), workersStarted.Round(10*time.Millisecond), haLeaseDuration, haRetryPeriod)
	// With the default lease (15 s) this fails: the flags of the lease are honoured.
	if limit := haLeaseDuration + haRetryPeriod + 5*time.Second; workersStarted > limit {
		t.Errorf("the takeover took %s, more than the lease duration and a retry with %s to spare", workersStarted, limit-haLeaseDuration-haRetryPeriod)
	}

	// The killed replica comes back, as its Deployment restarts it, and stands by.
	time.Sleep(2 * time.Second)
	reps[leader].start()
	time.Sleep(3 * time.Second)
	stopped.Store(true)
	load.Wait()
	if reps[leader].acquiredLease() {
		t.Errorf("%s, restarted, took the lease from %s", reps[leader].name, reps[standby].name)
	}
	t.Logf("load stopped: %d transcripts acknowledged, %d before the kill", len(all), beforeKill)

	// Settle: every acknowledged transcript ends, and its events are delivered.
	settleStart := time.Now()
	ids, by := make([]string, len(all)), map[string]int{}
	for i, a := range all {
		ids[i], by[a.id] = a.id, a.by
	}
	deadline := settleStart.Add(90 * time.Second)
	final := awaitSettled(ids, deadline, 300*time.Millisecond,
		func(id string) (int, map[string]any) { return clientA.get(by[id], id) })
	want := expectedEvents(final)
	// delivered maps each event to the delivery ids it came under, and counts the deliveries
	// of one id accepted more than once.
	delivered := func() (map[string][]string, int) {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		got, again := map[string][]string{}, 0
		for id, payloads := range rc.accepted["/a"] {
			p := payloads[0]
			k := p["id"].(string) + " " + p["event"].(string)
			if strings.HasPrefix(p["event"].(string), "ai_pass.") {
				k += " " + p["ai_pass"].(map[string]any)["job_id"].(string)
			}
			got[k] = append(got[k], id)
			again += len(payloads) - 1
		}
		return got, again
	}
	for time.Now().Before(deadline) {
		got, _ := delivered()
		if !slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(k string) bool { return len(got[k]) == 0 }) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	settleTook := time.Since(settleStart)

	// Every key, retried on the replica that did not acknowledge it, answers the same
	// transcript, replayed.
	var replayed int
	var notReplayed []string
	for _, a := range all {
		other := 1 - a.by
		status, header, out, ok := clientA.send(ctx, &haRequest{path: a.path, key: a.key, body: a.body}, other)
		switch {
		case !ok:
			notReplayed = append(notReplayed, a.id+": no answer")
		case out["id"] != a.id || header.Get("Idempotent-Replayed") != "true":
			notReplayed = append(notReplayed, fmt.Sprintf("%s (%s) on %s: %d %v, Idempotent-Replayed %q", a.id, a.kind, reps[other].name, status, out["id"], header.Get("Idempotent-Replayed")))
		default:
			replayed++
		}
	}

	// The checks, and the figures.
	var lost, stuck, wrong []string
	kinds := map[string]int{}
	known := map[string]bool{}
	for _, a := range all {
		kinds[a.kind]++
		known[a.id] = true
		tr, ok := final[a.id]
		switch {
		case !ok:
			stuck = append(stuck, a.id+" ("+a.kind+")")
		case tr == nil:
			lost = append(lost, a.id+" ("+a.kind+")")
		case tr["status"] != a.want:
			wrong = append(wrong, fmt.Sprintf("%s (%s) ended %v, want %s: %v", a.id, a.kind, tr["status"], a.want, tr["error"]))
		case a.ai && tr["ai_pass_status"] != "completed":
			wrong = append(wrong, fmt.Sprintf("%s (%s) AI pass %v: %v", a.id, a.kind, tr["ai_pass_status"], tr["ai_pass"]))
		}
	}
	var duplicates []string
	for _, tr := range listTranscripts(t, kubeconfig, orgA) {
		if !known[tr.Spec.ID] {
			duplicates = append(duplicates, fmt.Sprintf("%s (%s, phase %q)", tr.Spec.ID, tr.Spec.Source.Type, tr.Status.Phase))
		}
	}
	got, again := delivered()
	var missing, twice []string
	deliveries := 0
	for k, idsOf := range got {
		deliveries += len(idsOf)
		if len(idsOf) > 1 {
			twice = append(twice, fmt.Sprintf("%s under %v", k, idsOf))
		}
	}
	for k := range want {
		if len(got[k]) == 0 {
			missing = append(missing, k+" ("+deliveryStates(t, kc, strings.Fields(k)[0])+")")
		}
	}
	var gaveUp []string
	dl := &tcsv1.WebhookDeliveryList{}
	if err := kc.List(ctx, dl); err != nil {
		t.Fatal(err)
	}
	for _, d := range dl.Items {
		if d.Status.State != tcsv1.DeliverySucceeded {
			gaveUp = append(gaveUp, fmt.Sprintf("%s %s to %s: %q after %d attempts", d.Spec.TranscriptID, d.Spec.Event, d.Spec.Endpoint, d.Status.State, len(d.Status.Attempts)))
		}
	}
	rc.mu.Lock()
	attempts, failedAttempts, bad := rc.attempts, rc.failed, slices.Clone(rc.bad)
	rc.mu.Unlock()

	t.Logf("figures: transcripts %d %v, client retries %d, acknowledged by the other replica %d, duplicates %d, lost %d, stuck %d, wrong outcome %d",
		len(all), kinds, clientA.retries.Load(), clientA.failovers.Load(), len(duplicates), len(lost), len(stuck), len(wrong))
	t.Logf("figures: events %d expected, %d delivered (%d missing, %d under two delivery ids), %d deliveries accepted again under the same id; %d attempts, %d failed by the receiver, %d refused signatures",
		len(want), deliveries, len(missing), len(twice), again, attempts, failedAttempts, len(bad))
	t.Logf("figures: %d of %d keys replayed on the other replica; settled %s after the load", replayed, len(all), settleTook.Round(100*time.Millisecond))

	report := func(what string, items []string) {
		if len(items) > 0 {
			slices.Sort(items)
			t.Errorf("%s: %d, e.g. %v", what, len(items), items[:min(5, len(items))])
		}
	}
	report("lost (acknowledged, then 404)", lost)
	report("stuck (not completed or failed after the settle time)", stuck)
	report("ended otherwise than the input deserves", wrong)
	report("transcripts that no acknowledged request names (an idempotency key made two)", duplicates)
	report("events never delivered", missing)
	report("events delivered under two delivery ids", twice)
	report("deliveries whose signature did not verify", bad)
	report("deliveries not succeeded", gaveUp)
	report("keys that the other replica did not answer with the same transcript", notReplayed)
	for _, c := range []*haClient{clientA, clientB} {
		c.mu.Lock()
		report("answers a careful client should not get", c.unexpected)
		c.mu.Unlock()
	}
	if beforeKill < 10 || len(all)-beforeKill < 10 {
		t.Errorf("%d transcripts acknowledged before the kill and %d after: the load did not run", beforeKill, len(all)-beforeKill)
	}
}

// setLimits lifts the create and read limits of the organizations, so that the load is not
// limited by them, and sets their limits of synchronous waits.
func setLimits(t *testing.T, c client.Client, syncOf map[string]int32) {
	t.Helper()
	list := &tcsv1.OrganizationList{}
	if err := c.List(t.Context(), list); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		o := &list.Items[i]
		sync, ok := syncOf[o.Spec.ID]
		if !ok {
			continue
		}
		patch := client.MergeFrom(o.DeepCopy())
		create, read := int32(100000), int32(100000)
		o.Spec.Limits = &tcsv1.LimitOverrides{CreatePerMinute: &create, ReadPerMinute: &read, SyncConcurrent: &sync}
		if err := c.Patch(t.Context(), o, patch); err != nil {
			t.Fatal(err)
		}
	}
}
