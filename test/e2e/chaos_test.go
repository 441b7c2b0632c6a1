package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
	"tcs.dev/tcs/pkg/webhook"
)

// Credentials of the chaos test's S3 server.
const (
	chaosAccessKey = "tcs-chaos-access"
	chaosSecretKey = "tcs-chaos-secret-0123456789"
	chaosBucket    = "tcs-chaos"
)

// chaosSermon is the text every input of the chaos test holds.
const chaosSermon = "Sermon notes\nturn to first corinthians 13 4 and read revelations 21\nthey sailed past capernum that night\n"

// service is a helper process of the chaos test (versitygw, redis-server) that the test stops
// and starts again on the same address and data.
type service struct {
	t    *testing.T
	name string
	args []string
	cmd  *exec.Cmd
	done chan struct{}
}

func (s *service) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.args[0], s.args[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, io.Discard
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("starting %s: %v", s.name, err)
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(s.cmd, s.done)
}

// kill stops the service with SIGKILL and waits for it.
func (s *service) kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// waitHTTP waits up to 20 s for url to answer.
func waitHTTP(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// s3ServerBinary finds versitygw: $TCS_S3SERVER, else what hack/s3server.sh built.
func s3ServerBinary(t *testing.T) string {
	bin, err := testenv.Tool("TCS_S3SERVER", "versitygw", "s3server")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// chaosReceiver is an HTTPS webhook receiver with two endpoints, /a and /b, that fails a share
// of the first attempts at random, and every attempt while it is down.
type chaosReceiver struct {
	mu       sync.Mutex
	secrets  map[string]string // path → signing secret
	down     bool
	failRate float64
	attempts int
	failed   int
	tries    map[string]int // delivery id → attempts
	bad      []string
	// accepted maps endpoint path → delivery id → the payloads accepted.
	accepted map[string]map[string][]map[string]any
}

func (rc *chaosReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	secret, down, failRate := rc.secrets[r.URL.Path], rc.down, rc.failRate
	rc.attempts++
	rc.mu.Unlock()
	body, err := webhook.VerifyRequest(r, secret, 5*time.Minute)
	if err != nil {
		rc.mu.Lock()
		rc.bad = append(rc.bad, r.URL.Path+": "+err.Error())
		rc.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// A share of the deliveries fail their first attempt (never a retry, so that with the
	// outage no delivery runs out of attempts by bad luck).
	rc.mu.Lock()
	id := r.Header.Get(webhook.HeaderDelivery)
	rc.tries[id]++
	first := rc.tries[id] == 1
	rc.mu.Unlock()
	if down || first && rand.Float64() < failRate {
		rc.mu.Lock()
		rc.failed++
		rc.mu.Unlock()
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	var payload map[string]any
	if err := json.Unmarshal(body, &payload); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if payload["delivery_id"] != id {
		rc.bad = append(rc.bad, "delivery_id in the body differs from the header")
	}
	rc.accepted[r.URL.Path][id] = append(rc.accepted[r.URL.Path][id], payload)
}

func (rc *chaosReceiver) setDown(down bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.down = down
}

// subscribe creates an endpoint of org to url for every event with tcs admin, and gives its
// secret to the receiver's path.
func (rc *chaosReceiver) subscribe(t *testing.T, kubeconfig, org, url, path string) {
	t.Helper()
	out, err := exec.Command(tcsBin, "admin", "webhook", "create", "--org", org, "--url", url+path,
		"--events", "all", "--kubeconfig", kubeconfig).CombinedOutput()
	if err != nil {
		t.Fatalf("tcs admin webhook create: %v\n%s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 || !strings.HasPrefix(fields[1], "whsec_") {
		t.Fatalf("create printed %q", out)
	}
	rc.mu.Lock()
	rc.secrets[path] = fields[1]
	rc.accepted[path] = map[string][]map[string]any{}
	rc.mu.Unlock()
}

// acked is a transcript the API acknowledged, and what its input deserves.
type acked struct {
	id, key, kind string
	want          string // completed or failed
	ai            bool
}

// chaosClient sends requests as a careful client does: every POST with an Idempotency-Key,
// retried with the same key on a connection error, 429, 500, 502, 503 and 504.
type chaosClient struct {
	t       *testing.T
	base    string
	apiKey  string
	http    *http.Client
	retries atomic.Int64
	// unexpected collects answers a careful client should never get.
	mu         sync.Mutex
	unexpected []string
}

// post sends body to path until it gets a final answer, and returns it; ok is false when the
// context ended first.
func (c *chaosClient) post(ctx context.Context, path, key string, body []byte) (status int, out map[string]any, ok bool) {
	backoff := 100 * time.Millisecond
	giveUp := time.Now().Add(2 * time.Minute)
	last := "no answer"
	for {
		if ctx.Err() != nil {
			return 0, nil, false
		}
		if time.Now().After(giveUp) {
			c.mu.Lock()
			c.unexpected = append(c.unexpected, fmt.Sprintf("POST %s: still failing after 2 minutes of retries: %s", path, last))
			c.mu.Unlock()
			return 0, nil, false
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		res, err := c.http.Do(req)
		if err != nil {
			last = err.Error()
		} else {
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			last = fmt.Sprintf("%d %s", res.StatusCode, raw)
			switch {
			case slices.Contains([]int{429, 500, 502, 503, 504}, res.StatusCode):
			case res.StatusCode == 409 && bytes.Contains(raw, []byte(`"param":"Idempotency-Key"`)):
				// The first request with this key is still being processed: retry later.
			default:
				_ = json.Unmarshal(raw, &out)
				if res.StatusCode >= 300 {
					c.mu.Lock()
					c.unexpected = append(c.unexpected, fmt.Sprintf("POST %s: %d %s", path, res.StatusCode, raw))
					c.mu.Unlock()
				}
				return res.StatusCode, out, true
			}
		}
		c.retries.Add(1)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// get reads a transcript; status 0 means no answer.
func (c *chaosClient) get(id string) (int, map[string]any) {
	req, _ := http.NewRequest(http.MethodGet, c.base+"/api/v1/transcripts/"+id, nil)
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

// one submits the n-th input of the load and returns what was acknowledged.
func (c *chaosClient) one(ctx context.Context, n int, sources string) (acked, bool) {
	key := fmt.Sprintf("chaos-%d-%s", n, ids.Random(8))
	var a acked
	var body map[string]any
	switch n % 10 {
	case 0, 1, 2, 3:
		a = acked{kind: "paste", want: "completed"}
		body = map[string]any{"source_type": "paste", "content": fmt.Sprintf("%s(%d)\n", chaosSermon, n)}
	case 4, 5:
		a = acked{kind: "paste+ai", want: "completed", ai: true}
		body = map[string]any{"source_type": "paste", "content": fmt.Sprintf("%s(%d)\n", chaosSermon, n),
			"options": map[string]any{"ai_pass": map[string]any{"enabled": true}}}
	case 6:
		a = acked{kind: "url", want: "completed"}
		body = map[string]any{"source_type": "url", "source_format": "txt", "url": fmt.Sprintf("%s/sermons/%d.txt", sources, n)}
	case 7:
		a = acked{kind: "url 404", want: "failed"}
		body = map[string]any{"source_type": "url", "source_format": "txt", "url": fmt.Sprintf("%s/missing/%d.txt", sources, n)}
	default:
		a = acked{kind: "upload", want: "completed"}
		id, ok := c.upload(ctx, key, n)
		if !ok {
			return acked{}, false
		}
		body = map[string]any{"source_type": "upload", "transcript_id": id}
	}
	raw, _ := json.Marshal(body)
	status, out, ok := c.post(ctx, "/api/v1/transcripts", key, raw)
	if !ok || status >= 300 {
		return acked{}, false
	}
	a.id, _ = out["id"].(string)
	a.key = key
	return a, a.id != ""
}

// upload asks for an upload grant and puts the file, retrying both; it returns the grant's
// transcript id.
func (c *chaosClient) upload(ctx context.Context, key string, n int) (string, bool) {
	status, grant, ok := c.post(ctx, "/api/v1/transcripts/uploads", key+"-grant", []byte(`{"filename":"notes.txt","source_format":"txt"}`))
	if !ok || status >= 300 {
		return "", false
	}
	url, _ := grant["upload_url"].(string)
	headers, _ := grant["upload_headers"].(map[string]any)
	giveUp := time.Now().Add(2 * time.Minute)
	for ctx.Err() == nil && time.Now().Before(giveUp) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url, strings.NewReader(fmt.Sprintf("%s(%d)\n", chaosSermon, n)))
		for k, v := range headers {
			req.Header.Set(k, fmt.Sprint(v))
		}
		res, err := c.http.Do(req)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode < 300 {
				id, _ := grant["transcript_id"].(string)
				return id, true
			}
		}
		c.retries.Add(1)
		time.Sleep(200 * time.Millisecond)
	}
	c.mu.Lock()
	c.unexpected = append(c.unexpected, "PUT of an upload: still failing after 2 minutes")
	c.mu.Unlock()
	return "", false
}

// The fault-injection suite: the real tcs dev under mixed load (paste, url from a loopback
// HTTPS server, upload to S3, the AI pass, webhooks to a loopback HTTPS receiver that fails
// now and then), killed with SIGKILL with etcd and kube-apiserver several times and restarted
// on the same state dir; the object store, the webhook receiver and the rate limits' Redis
// each go away for a while. Then every acknowledged transcript must exist once and end as its
// input deserves, every event reach the endpoint subscribed to it under one delivery_id, and
// no event reach an endpoint created after it.
func TestDevSurvivesKillsUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault-injection suite takes minutes")
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("seed %d", seed)
	tmp := t.TempDir()
	stateDir := filepath.Join(tmp, "state")

	// The S3 server (versitygw) and Redis, on fixed addresses so they can come back.
	s3Addr, redisAddr, apiAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	s3Data, s3Meta := filepath.Join(tmp, "s3", "data"), filepath.Join(tmp, "s3", "meta")
	for _, d := range []string{s3Data, s3Meta} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	s3srv := &service{t: t, name: "versitygw", args: []string{s3ServerBinary(t), "--access", chaosAccessKey, "--secret", chaosSecretKey,
		"--port", s3Addr, "posix", "--sidecar", s3Meta, s3Data}}
	s3srv.start()
	t.Cleanup(s3srv.kill)
	waitHTTP(t, "http://"+s3Addr)
	s3c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://" + s3Addr), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(chaosAccessKey, chaosSecretKey, "")})
	if _, err := s3c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(chaosBucket)}); err != nil {
		t.Fatal(err)
	}
	redisBin := os.Getenv("TCS_REDIS_SERVER")
	if redisBin == "" {
		redisBin = "redis-server"
	}
	host, port, _ := strings.Cut(redisAddr, ":")
	redis := &service{t: t, name: "redis-server", args: []string{redisBin, "--bind", host, "--port", port, "--save", "", "--appendonly", "no"}}
	redis.start()
	t.Cleanup(redis.kill)
	t.Setenv("AWS_ACCESS_KEY_ID", chaosAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", chaosSecretKey)

	// The loopback HTTPS servers: sources for url transcripts, and the webhook receiver (the
	// httptest servers share one certificate, so one CA file trusts both).
	rc := &chaosReceiver{secrets: map[string]string{}, tries: map[string]int{}, accepted: map[string]map[string][]map[string]any{}, failRate: 0.1}
	hooks, caFile := startReceiverWith(t, rc)
	sources := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/sermons/") {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "%s(%s)\n", chaosSermon, r.URL.Path)
	}))
	t.Cleanup(sources.Close)

	args := []string{"--listen", apiAddr, "--outbound-ca-file", caFile,
		"--store", "s3://" + chaosBucket + "?endpoint=http://" + s3Addr + "&region=us-east-1&use_path_style=true",
		"--redis-url", "redis://" + redisAddr + "/0",
		"--webhook-retry-delays", "500ms,1s,2s,4s,8s"}
	start := func() *devProcess {
		t.Helper()
		_ = os.Remove(filepath.Join(stateDir, "env")) // left by a killed tcs dev
		return startDev(t, stateDir, args...)
	}
	dev := start()
	kubeconfig, org := dev.env["KUBECONFIG"], dev.env["TCS_ORG"]
	raiseLimits(t, kubeconfig)
	rc.subscribe(t, kubeconfig, org, hooks.URL, "/a")

	c := &chaosClient{t: t, base: dev.env["TCS_URL"], apiKey: dev.env["TCS_API_KEY"], http: &http.Client{Timeout: 20 * time.Second}}
	// Stopping the load lets every client finish the request it is retrying: a request given
	// up would leave a transcript nobody acknowledged.
	var stopped atomic.Bool
	var mu sync.Mutex
	var all []acked
	var n atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stopped.Load() {
				if a, ok := c.one(t.Context(), int(n.Add(1)), sources.URL); ok {
					mu.Lock()
					all = append(all, a)
					mu.Unlock()
				}
			}
		}()
	}

	// The faults: three SIGKILLs of the whole stack at random moments, with the object store,
	// the receiver and Redis each away for a while in between.
	kills := 0
	kill := func() {
		time.Sleep(time.Duration(2000+rng.IntN(4000)) * time.Millisecond)
		kids := children(dev.cmd.Process.Pid)
		for _, pid := range append([]int{dev.cmd.Process.Pid}, kids...) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		killDev(t, dev)
		waitDead(t, kids, "after the kill")
		kills++
		dev = start()
	}
	var settledBeforeB []string
	var redisServed int
	phases := []func(){
		func() { // the object store goes away for 3 s
			time.Sleep(time.Duration(1000+rng.IntN(2000)) * time.Millisecond)
			s3srv.kill()
			time.Sleep(3 * time.Second)
			s3srv.start()
			waitHTTP(t, "http://"+s3Addr)
		},
		func() { // the receiver answers 503 to everything for 2.5 s; an endpoint is created
			rc.setDown(true)
			time.Sleep(2500 * time.Millisecond)
			rc.setDown(false)
			// The transcripts already settled have sent all their events: none may reach an
			// endpoint created now.
			mu.Lock()
			done := slices.Clone(all)
			mu.Unlock()
			for _, a := range done {
				if status, tr := c.get(a.id); status == 200 && settled(tr) {
					settledBeforeB = append(settledBeforeB, a.id)
				}
			}
			time.Sleep(1100 * time.Millisecond) // event times are whole seconds
			rc.subscribe(t, dev.env["KUBECONFIG"], org, hooks.URL, "/b")
		},
		func() { // Redis goes away: the API serves, uncounted, and says so in its log
			redis.kill()
			for i := range 5 {
				raw := fmt.Sprintf(`{"source_type":"paste","content":"redis is away %d: read revelations 21"}`, i)
				status, out, ok := c.post(t.Context(), "/api/v1/transcripts", "redis-away-"+ids.Random(8), []byte(raw))
				if ok && status == 201 {
					redisServed++
					mu.Lock()
					all = append(all, acked{id: out["id"].(string), kind: "paste", want: "completed"})
					mu.Unlock()
				}
			}
			if !strings.Contains(dev.stderr.String(), "rate limiter unavailable; request not counted") {
				t.Errorf("no log line says the rate limiter is unavailable")
			}
			redis.start()
		},
	}
	for i, phase := range phases {
		kill()
		t.Logf("kill %d done, tcs dev ready again", kills)
		phase()
		t.Logf("fault phase %d done", i+1)
	}
	time.Sleep(3 * time.Second)
	stopped.Store(true)
	wg.Wait()
	if kills < 3 {
		t.Fatalf("%d kills", kills)
	}

	t.Logf("load stopped: %d transcripts acknowledged", len(all))
	// Settle: every acknowledged transcript ends, and its events are delivered.
	settleStart := time.Now()
	ids := make([]string, len(all))
	for i, a := range all {
		ids[i] = a.id
	}
	deadline := settleStart.Add(90 * time.Second)
	final := awaitSettled(ids, deadline, 500*time.Millisecond, c.get)
	// Expected events per transcript (endpoint /a subscribed to all from the start).
	want := expectedEvents(final)
	delivered := func() (got map[string][]string, toB []map[string]any) {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		got = map[string][]string{}
		for id, payloads := range rc.accepted["/a"] {
			p := payloads[0]
			k := p["id"].(string) + " " + p["event"].(string)
			if strings.HasPrefix(p["event"].(string), "ai_pass.") {
				k += " " + p["ai_pass"].(map[string]any)["job_id"].(string)
			}
			got[k] = append(got[k], id)
		}
		for _, payloads := range rc.accepted["/b"] {
			toB = append(toB, payloads[0])
		}
		return got, toB
	}
	for time.Now().Before(deadline) {
		got, _ := delivered()
		missing := 0
		for k := range want {
			if len(got[k]) == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	settleTook := time.Since(settleStart)

	// The checks, and the figures.
	var lost, stuck, wrong []string
	kinds := map[string]int{}
	for _, a := range all {
		kinds[a.kind]++
		tr, ok := final[a.id]
		switch {
		case !ok:
			stuck = append(stuck, a.id)
		case tr == nil:
			lost = append(lost, fmt.Sprintf("%s (%s)", a.id, a.kind))
		case tr["status"] != a.want:
			wrong = append(wrong, fmt.Sprintf("%s (%s) ended %v, want %s: %v", a.id, a.kind, tr["status"], a.want, tr["error"]))
		case a.ai && tr["ai_pass_status"] != "completed":
			wrong = append(wrong, fmt.Sprintf("%s (%s) AI pass %v: %v", a.id, a.kind, tr["ai_pass_status"], tr["ai_pass"]))
		}
	}
	// Duplicates: transcripts of the organization that no acknowledged request names.
	known := map[string]bool{}
	for _, a := range all {
		known[a.id] = true
	}
	var duplicates []string
	for _, tr := range listTranscripts(t, dev.env["KUBECONFIG"], org) {
		if !known[tr.Spec.ID] {
			duplicates = append(duplicates, fmt.Sprintf("%s (%s, phase %q)", tr.Spec.ID, tr.Spec.Source.Type, tr.Status.Phase))
		}
	}
	kc := kubeClient(t, dev.env["KUBECONFIG"])
	got, toB := delivered()
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
	// An event reached /b wrongly when its transcript had settled before /b was created (as
	// the client saw it), or when the transcript records it as emitted before /b's creation.
	bCreated := endpointCreated(t, kc, "/b")
	var backfilled []string
	for _, p := range toB {
		id := p["id"].(string)
		event := p["event"].(string)
		jobID := ""
		if ai, ok := p["ai_pass"].(map[string]any); ok && strings.HasPrefix(event, "ai_pass.") {
			jobID, _ = ai["job_id"].(string)
		}
		emitted, ok := emittedAt(t, kc, id, event, jobID)
		if slices.Contains(settledBeforeB, id) || !ok || emitted.Before(bCreated) {
			backfilled = append(backfilled, fmt.Sprintf("%s %s (endpoint created %s, settled before it %t; %s)", id, event,
				bCreated.Format(time.RFC3339), slices.Contains(settledBeforeB, id), eventTimes(t, kc, id)))
		}
	}
	// Nothing may fail silently: a delivery that gave up is a failure of the suite too.
	var gaveUp []string
	dl := &tcsv1.WebhookDeliveryList{}
	if err := kc.List(t.Context(), dl); err != nil {
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

	t.Logf("figures: kills %d, transcripts %d %v, client retries %d, duplicates %d, lost %d, stuck %d, wrong outcome %d",
		kills, len(all), kinds, c.retries.Load(), len(duplicates), len(lost), len(stuck), len(wrong))
	t.Logf("figures: deliveries %d to /a (%d expected, %d missing, %d events under two delivery_ids), %d to /b (created after %d settled transcripts; %d from before it), %d attempts of which %d failed by the receiver, %d refused signatures",
		deliveries, len(want), len(missing), len(twice), len(toB), len(settledBeforeB), len(backfilled), attempts, failedAttempts, len(bad))
	t.Logf("figures: %d creates served while Redis was away; settled %s after the load", redisServed, settleTook.Round(100*time.Millisecond))

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
	report("events delivered under two delivery_ids", twice)
	report("events that reached an endpoint created after them", backfilled)
	report("deliveries whose signature did not verify", bad)
	report("deliveries not succeeded", gaveUp)
	c.mu.Lock()
	report("answers a careful client should not get", c.unexpected)
	c.mu.Unlock()
	if redisServed != 5 {
		t.Errorf("%d of 5 creates served while Redis was away", redisServed)
	}
	if len(all) < 40 {
		t.Errorf("only %d transcripts acknowledged: the load did not run", len(all))
	}
}

// eventTimes describes when the events of transcript id were emitted, for a failure message.
func eventTimes(t *testing.T, c client.Client, id string) string {
	tr := &tcsv1.Transcript{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "tcs-system", Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		return err.Error()
	}
	var out []string
	for _, e := range tr.Status.EmittedEvents {
		out = append(out, e.Type+" at "+e.Time.UTC().Format(time.RFC3339))
	}
	return "created " + tr.CreationTimestamp.UTC().Format(time.RFC3339) + ", events " + strings.Join(out, ", ")
}

// endpointCreated returns the creation time of the endpoint whose URL ends in path.
func endpointCreated(t *testing.T, c client.Client, path string) time.Time {
	t.Helper()
	list := &tcsv1.WebhookEndpointList{}
	if err := c.List(t.Context(), list); err != nil {
		t.Fatal(err)
	}
	for _, ep := range list.Items {
		if strings.HasSuffix(ep.Spec.URL, path) {
			return ep.CreationTimestamp.Time
		}
	}
	t.Fatalf("no endpoint to %s", path)
	return time.Time{}
}

// emittedAt returns when transcript id emitted event (of the AI pass jobID, for ai_pass.*).
func emittedAt(t *testing.T, c client.Client, id, event, jobID string) (time.Time, bool) {
	tr := &tcsv1.Transcript{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "tcs-system", Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		return time.Time{}, false
	}
	for _, e := range tr.Status.EmittedEvents {
		if e.Type == event && e.Key == jobID {
			return e.Time.Time, true
		}
	}
	return time.Time{}, false
}

// deliveryStates describes the deliveries of transcript id, for a failure message.
func deliveryStates(t *testing.T, c client.Client, id string) string {
	list := &tcsv1.WebhookDeliveryList{}
	if err := c.List(t.Context(), list); err != nil {
		return err.Error()
	}
	var out []string
	for _, d := range list.Items {
		if d.Spec.TranscriptID == id {
			last := ""
			if n := len(d.Status.Attempts); n > 0 {
				a := d.Status.Attempts[n-1]
				last = fmt.Sprintf(" last %d %q", a.StatusCode, a.Error)
			}
			out = append(out, fmt.Sprintf("%s to %s: %s after %d attempts%s", d.Spec.Event, d.Spec.Endpoint, d.Status.State, len(d.Status.Attempts), last))
		}
	}
	return eventTimes(t, c, id) + "; deliveries: " + strings.Join(out, "; ")
}

// settled reports whether a transcript as the API shows it has ended, AI pass included.
func settled(tr map[string]any) bool {
	s := tr["status"]
	ai := tr["ai_pass_status"]
	return (s == "completed" || s == "failed") && ai != "queued" && ai != "running"
}

// awaitSettled reads each transcript of ids with get, every pause, until all have settled or
// are gone, or until deadline: it returns each as last read when it settled, nil when it is gone,
// and leaves out those that did neither.
func awaitSettled(ids []string, deadline time.Time, pause time.Duration, get func(id string) (int, map[string]any)) map[string]map[string]any {
	final := map[string]map[string]any{}
	for len(final) < len(ids) && time.Now().Before(deadline) {
		for _, id := range ids {
			if _, ok := final[id]; ok {
				continue
			}
			if status, tr := get(id); status == http.StatusOK && settled(tr) {
				final[id] = tr
			} else if status == http.StatusNotFound {
				final[id] = nil
			}
		}
		time.Sleep(pause)
	}
	return final
}

// expectedEvents returns the events that settled transcripts (of awaitSettled) must have been
// delivered to an endpoint subscribed to every event, as "<id> <event>[ <job>]".
func expectedEvents(final map[string]map[string]any) map[string]bool {
	want := map[string]bool{}
	for id, tr := range final {
		if tr == nil {
			continue
		}
		want[id+" transcript.created"] = true
		want[id+" transcript."+tr["status"].(string)] = true
		if p, ok := tr["ai_pass"].(map[string]any); ok && p != nil {
			want[id+" ai_pass.started "+p["job_id"].(string)] = true
			want[id+" ai_pass."+tr["ai_pass_status"].(string)+" "+p["job_id"].(string)] = true
		}
	}
	return want
}

// startReceiverWith serves h over HTTPS on loopback; caFile is a PEM file of its certificate.
func startReceiverWith(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, caFile
}

// kubeClient returns a client of the cluster of kubeconfig.
func kubeClient(t *testing.T, kubeconfig string) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// raiseLimits lifts the create and read limits of every organization, so that the load is
// limited by the faults, not by the rate limits.
func raiseLimits(t *testing.T, kubeconfig string) {
	t.Helper()
	c := kubeClient(t, kubeconfig)
	list := &tcsv1.OrganizationList{}
	if err := c.List(t.Context(), list); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		o := &list.Items[i]
		// A merge patch of the spec: the organization controller writes the status meanwhile,
		// which would make an update from the list conflict.
		patch := client.MergeFrom(o.DeepCopy())
		create, read := int32(100000), int32(100000)
		o.Spec.Limits = &tcsv1.LimitOverrides{CreatePerMinute: &create, ReadPerMinute: &read}
		if err := c.Patch(t.Context(), o, patch); err != nil {
			t.Fatal(err)
		}
	}
}

// listTranscripts lists the transcripts of org.
func listTranscripts(t *testing.T, kubeconfig, org string) []tcsv1.Transcript {
	t.Helper()
	var list tcsv1.TranscriptList
	err := errors.New("not tried")
	for i := 0; i < 20 && err != nil; i++ {
		if err = kubeClient(t, kubeconfig).List(t.Context(), &list, client.MatchingLabels{tcsv1.LabelOrganization: org}); err != nil {
			time.Sleep(500 * time.Millisecond)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}
