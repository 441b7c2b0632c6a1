// Command bench measures tcs: the micro-benchmarks of the correction engine and the formats
// (with the naive regexp baseline in the same run), and, against a real `tcs dev`, the latency
// of url transcripts from create to completed next to the raw cost of one Transcript create +
// status update through the Kubernetes client, measured in the same run as the yardstick.
//
//	go run ./hack/bench              everything
//	go run ./hack/bench -micro=false only the end-to-end figures
//	go run ./hack/bench -e2e -n 1000  only the paste: its latency against the yardstick, pastes/s
//	                                 with -clients clients, deliveries/s, writes per paste and delivery
//	go run ./hack/bench -live 10000    only tcs's memory per live transcript (archiving off)
//	go run ./hack/bench -pg-size results.db  bytes per archived transcript in SQLite and PostgreSQL
//	go run ./hack/bench -results-only  only the results store (internal/platform/results, SQLite and PostgreSQL)
//	go run ./hack/bench -scale 100000  only the scale benchmark: archiving on vs --archive-after=0,
//	                                 measured at -checkpoints (10,000, 50,000 and 100,000)
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/ptr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
)

func main() {
	ctrllog.SetLogger(logr.Discard())
	micro := flag.Bool("micro", true, "run the go test benchmarks of internal/text/correction and internal/text/formats")
	n := flag.Int("n", 200, "transcripts per end-to-end measurement")
	count := flag.Int("count", 3, "runs of each micro-benchmark (compare medians: this machine is noisy)")
	tcsBin := flag.String("tcs", "bin/tcs", "the tcs binary (built when missing)")
	resultsOnly := flag.Bool("results-only", false, "run only the results store's benchmark (1,000 and 100,000 records, SQLite and PostgreSQL)")
	scaleN := flag.Int("scale", 0, "run only the scale benchmark: create this many transcripts with archiving on and with --archive-after=0")
	archiveAfter := flag.Duration("archive-after", 5*time.Second, "the archive-after of the scale benchmark's archiving run")
	pgSizeOf := flag.String("pg-size", "", "copy the records of this SQLite results store (a backup of a scale run's results.db) into PostgreSQL and report the bytes per record of both")
	probeDir := flag.String("probe", "", "take one scale reading of the tcs dev running on this state dir (left by a stopped scale run)")
	liveN := flag.Int("live", 0, "run only the measurement of tcs's memory per live transcript, with this many transcripts")
	heapProfiles := flag.String("heap-profiles", "", "with -live: write tcs's heap profile at each reading into this directory")
	liveArchiveAfter := flag.Duration("live-archive-after", 0, "with -live: the archive-after of the tcs measured (0 keeps every transcript in its cache; 1h marks them, out of the cache, once settled)")
	parallel := flag.Bool("parallel", false, "run the scale benchmark's two settings side by side rather than one after the other")
	checkpoints := flag.String("checkpoints", "10000,50000,100000", "where the scale benchmark stops creating to measure (and at -scale)")
	e2eMode := flag.Bool("e2e", false, "run only the end-to-end paste benchmark: paste latency against the yardstick, pastes/s, deliveries/s and writes per paste and per delivery")
	clients := flag.Int("clients", 8, "with -e2e: concurrent clients of the throughput runs")
	cpuProfile := flag.String("cpuprofile", "", "with -e2e: write tcs's CPU profile of a further run of pastes to this file")
	profileSeconds := flag.Int("profile-seconds", 10, "with -cpuprofile: how long that run lasts")
	flag.Parse()
	if *e2eMode {
		if err := e2e(e2eOptions{n: *n, clients: *clients, tcsBin: *tcsBin, cpuProfile: *cpuProfile, profileSeconds: *profileSeconds}); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *pgSizeOf != "" {
		if err := pgSize(context.Background(), *pgSizeOf); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *probeDir != "" {
		if err := probeRunning(*probeDir); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *liveN > 0 {
		fmt.Printf("# tcs benchmarks, %s, %s\n\n", time.Now().UTC().Format(time.RFC3339), machine())
		if err := liveMemory(*liveN, *tcsBin, *heapProfiles, *liveArchiveAfter); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *scaleN > 0 {
		fmt.Printf("# tcs benchmarks, %s, %s\n\n", time.Now().UTC().Format(time.RFC3339), machine())
		if _, err := os.Stat(*tcsBin); err != nil {
			fmt.Fprintln(os.Stderr, "bench: build tcs first (go build -o bin/tcs ./cmd/tcs):", err)
			os.Exit(1)
		}
		var at []int
		for _, f := range strings.Split(*checkpoints, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: -checkpoints:", err)
				os.Exit(2)
			}
			at = append(at, k)
		}
		if err := scale(*scaleN, at, *tcsBin, *archiveAfter, *parallel); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *resultsOnly {
		fmt.Printf("# tcs benchmarks, %s, %s\n\n", time.Now().UTC().Format(time.RFC3339), machine())
		if err := resultsStore(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*micro, *count, *n, *tcsBin); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(micro bool, count, n int, tcsBin string) error {
	fmt.Printf("# tcs benchmarks, %s, %s\n\n", time.Now().UTC().Format(time.RFC3339), machine())
	if micro {
		fmt.Println("## Micro-benchmarks (one core)")
		fmt.Println()
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-cpu", "1", "-count", strconv.Itoa(count), "./internal/text/correction/", "./internal/text/formats/")
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go test -bench: %w", err)
		}
		fmt.Println()
		fmt.Println("## Webhook delivery rate (the delivery controller alone, real control plane)")
		fmt.Println()
		hooks := exec.Command("go", "test", "-run", "^$", "-bench", "DeliveryThroughput", "-benchtime", "1x", "-count", strconv.Itoa(count), "./controllers/")
		hooks.Stdout, hooks.Stderr = os.Stdout, os.Stderr
		if err := hooks.Run(); err != nil {
			return fmt.Errorf("go test -bench DeliveryThroughput: %w", err)
		}
		fmt.Println()
		if err := resultsStore(); err != nil {
			return err
		}
	}
	if _, err := os.Stat(tcsBin); err != nil {
		build := exec.Command("go", "build", "-o", tcsBin, "./cmd/tcs")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building tcs: %w", err)
		}
	}
	return endToEnd(n, tcsBin)
}

// resultsStore runs BenchmarkStore of internal/platform/results: list and get latency at 1,000 records
// (the baseline) and 100,000, on SQLite and on a PostgreSQL it starts itself.
func resultsStore() error {
	fmt.Println("## Results store (internal/platform/results)")
	fmt.Println()
	env := os.Environ()
	if os.Getenv("TCS_POSTGRES_BIN") == "" {
		out, err := exec.Command("hack/postgres.sh").Output()
		if err != nil {
			return fmt.Errorf("hack/postgres.sh: %w", err)
		}
		env = append(env, "TCS_POSTGRES_BIN="+strings.TrimSpace(string(out)))
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "Store", "-benchtime", "2000x", "-v", "./internal/platform/results/")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go test -bench Store ./internal/platform/results/: %w", err)
	}
	fmt.Println()
	return nil
}

func machine() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	out, _ := exec.Command("nproc").Output()
	return fmt.Sprintf("%s cores of %s", strings.TrimSpace(string(out)), model)
}

// sermon is the file the url transcripts fetch: about 20 KB of caption-style text.
func sermon() []byte {
	var b bytes.Buffer
	for b.Len() < 20_000 {
		b.WriteString("turn with me to first corinthians 13 4 through 7 love is patient love is kind and in revelations 21 4 he will wipe every tear\n")
		b.WriteString("jesus went down to capernum and taught in the synagogue as mark my words says the preacher\n")
	}
	return b.Bytes()
}

func endToEnd(n int, tcsBin string) error {
	body := sermon()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	files := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(body)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = files.Serve(ln) }()
	defer files.Close()
	fileURL := "http://" + ln.Addr().String() + "/sermon.txt"

	state, err := os.MkdirTemp("", "tcs-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	rcv, hooks, caFile, err := startReceiver(state)
	if err != nil {
		return err
	}
	defer hooks.Close()
	_, env, stop, err := startDev(tcsBin, state, nil, "--outbound-ca-file", caFile)
	if err != nil {
		return err
	}
	defer stop()
	api, key := env["TCS_URL"], env["TCS_API_KEY"]
	hc := &http.Client{Timeout: 70 * time.Second}
	c, err := kubeClient(env["KUBECONFIG"])
	if err != nil {
		return err
	}
	if err := liftLimits(c, env["TCS_ORG"]); err != nil {
		return err
	}

	// Warm up connections, caches and the engine.
	for range 10 {
		if _, err := createURL(hc, api, key, fileURL); err != nil {
			return err
		}
	}

	fetch, err := measure(n, func() error {
		res, err := hc.Get(fileURL)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return err
	})
	if err != nil {
		return err
	}
	yard, err := yardstick(c, n)
	if err != nil {
		return err
	}
	seq, err := measure(n, func() error { _, err := createURL(hc, api, key, fileURL); return err })
	if err != nil {
		return err
	}

	fmt.Println("## url source to completed (tcs dev, POST /transcripts?wait=true, sequential)")
	fmt.Println()
	fmt.Println("| measurement | n | p50 | p95 | p99 |")
	fmt.Println("|---|---|---|---|---|")
	row("fetch of the 20 KB file alone", fetch)
	row("yardstick: Transcript create + status update (client-go)", yard)
	row("url transcript, create to completed", seq)
	fmt.Println()
	fmt.Printf("p50 beyond the fetch: %s (target ≤ 150ms); that is %.1f× the yardstick's p50.\n\n",
		(pct(seq, 50) - pct(fetch, 50)).Round(time.Millisecond), float64(pct(seq, 50))/float64(pct(yard, 50)))

	fmt.Println("## Throughput (url transcripts to completed, concurrent synchronous clients of one organization)")
	fmt.Println()
	fmt.Println("| clients | transcripts | seconds | transcripts/s | p50 | p99 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, c := range []int{1, 4, 8} {
		start := time.Now()
		lat, err := concurrent(c, n, func() error { _, err := createURL(hc, api, key, fileURL); return err })
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		fmt.Printf("| %d | %d | %.2f | %.1f | %s | %s |\n", c, n, secs, float64(n)/secs, pct(lat, 50).Round(time.Millisecond), pct(lat, 99).Round(time.Millisecond))
	}
	fmt.Println()
	// Last, so that the deliveries do not load the measurements above.
	return benchWebhooks(tcsBin, env, hc, hooks.URL, rcv, n)
}

func waitEnv(path string, dev *exec.Cmd) (map[string]string, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			return parseEnv(data), nil
		}
		if dev.ProcessState != nil {
			return nil, fmt.Errorf("tcs dev exited")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, fmt.Errorf("tcs dev was not ready in 3 minutes")
}

// parseEnv reads the KEY=value lines of the env file tcs dev writes.
func parseEnv(data []byte) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

// createURL creates a url transcript and waits for it to complete.
func createURL(hc *http.Client, api, key, fileURL string) (string, error) {
	req, _ := http.NewRequest(http.MethodPost, api+"/api/v1/transcripts?wait=true&timeout=60",
		strings.NewReader(`{"source_type":"url","url":"`+fileURL+`","source_format":"txt"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK || out.Status != "completed" {
		return "", fmt.Errorf("url transcript %s: HTTP %d, status %q", out.ID, res.StatusCode, out.Status)
	}
	return out.ID, nil
}

func kubeClient(kubeconfig string) (client.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	return client.New(cfg, client.Options{Scheme: scheme.New()})
}

// liftLimits raises the demo organization's rate limits, which a benchmark would exceed at once,
// and waits until the API applies them. The organization controller writes its status meanwhile,
// so a conflict is retried.
func liftLimits(c client.Client, org string) error {
	ctx := context.Background()
	found := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var list tcsv1.OrganizationList
		if err := c.List(ctx, &list, client.InNamespace("tcs-system")); err != nil {
			return err
		}
		for i := range list.Items {
			o := &list.Items[i]
			if o.Spec.ID != org {
				continue
			}
			found = true
			o.Spec.Limits = &tcsv1.LimitOverrides{CreatePerMinute: ptr.To[int32](1_000_000), ReadPerMinute: ptr.To[int32](1_000_000), SyncConcurrent: ptr.To[int32](64)}
			return c.Update(ctx, o)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("lifting the limits of %s: %w", org, err)
	}
	if !found {
		return fmt.Errorf("organization %s not found", org)
	}
	time.Sleep(time.Second) // the API server's informer sees the override
	return nil
}

// yardstick times a bare Transcript create followed by one status patch, as the service writes it.
func yardstick(c client.Client, n int) ([]time.Duration, error) {
	ctx := context.Background()
	return measure(n, func() error {
		id := ids.New("tr")
		t := &tcsv1.Transcript{
			ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: "tcs-system"},
			Spec: tcsv1.TranscriptSpec{ID: id, Organization: "org_bench", Source: tcsv1.TranscriptSource{
				Type: tcsv1.SourceUpload}},
		}
		if err := c.Create(ctx, t); err != nil {
			return err
		}
		patch := statuspatch.New(t, "tcs-bench")
		t.Status.Phase = tcsv1.PhaseFailed
		t.Status.Error = &tcsv1.TranscriptError{Type: "server_error", Message: "yardstick"}
		return patch.Patch(ctx, c, t)
	})
}

// measure times n calls of f; it stops at the first error.
func measure(n int, f func() error) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := f(); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	return lat, nil
}

func concurrent(clients, n int, f func() error) ([]time.Duration, error) {
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				start := time.Now()
				err := f()
				mu.Lock()
				lat = append(lat, time.Since(start))
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return lat, firstErr
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func row(name string, lat []time.Duration) {
	fmt.Printf("| %s | %d | %s | %s | %s |\n", name, len(lat),
		pct(lat, 50).Round(10*time.Microsecond), pct(lat, 95).Round(10*time.Microsecond), pct(lat, 99).Round(10*time.Microsecond))
}

// receiver accepts webhook deliveries and records when each delivery id first arrived.
type receiver struct {
	mu    sync.Mutex
	first map[string]time.Time
	seen  chan string
}

func newReceiver() *receiver {
	return &receiver{first: map[string]time.Time{}, seen: make(chan string, 1<<16)}
}

// startReceiver serves a new receiver over HTTPS on loopback and writes its certificate, for
// tcs's --outbound-ca-file, into a file in dir, whose name it returns.
func startReceiver(dir string) (*receiver, *httptest.Server, string, error) {
	rcv := newReceiver()
	hooks := httptest.NewTLSServer(rcv)
	caFile := filepath.Join(dir, "receiver-ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hooks.Certificate().Raw}), 0o600); err != nil {
		hooks.Close()
		return nil, nil, "", fmt.Errorf("writing the receiver's certificate: %w", err)
	}
	return rcv, hooks, caFile, nil
}

// await waits until k deliveries arrived, and returns when each first arrived.
func (rc *receiver) await(k int, within time.Duration) ([]time.Time, error) {
	var at []time.Time
	deadline := time.After(within)
	for len(at) < k {
		select {
		case id := <-rc.seen:
			rc.mu.Lock()
			at = append(at, rc.first[id])
			rc.mu.Unlock()
		case <-deadline:
			return nil, fmt.Errorf("%d of %d deliveries arrived", len(at), k)
		}
	}
	return at, nil
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	_, _ = io.Copy(io.Discard, r.Body)
	id := r.Header.Get("X-Svc-Delivery")
	rc.mu.Lock()
	if _, ok := rc.first[id]; !ok {
		rc.first[id] = now
		rc.seen <- id
	}
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// benchWebhooks measures event-to-first-attempt latency and deliveries per second: an endpoint
// subscribed to every event receives two deliveries (created, completed) per paste.
func benchWebhooks(tcsBin string, env map[string]string, hc *http.Client, hookURL string, rcv *receiver, n int) error {
	out, err := exec.Command(tcsBin, "admin", "webhook", "create", "--org", env["TCS_ORG"], "--url", hookURL,
		"--events", "all", "--kubeconfig", env["KUBECONFIG"]).CombinedOutput()
	if err != nil {
		return fmt.Errorf("creating the webhook endpoint: %w: %s", err, out)
	}
	paste := func() (time.Time, error) {
		req, _ := http.NewRequest(http.MethodPost, env["TCS_URL"]+"/api/v1/transcripts",
			strings.NewReader(`{"source_type":"paste","content":"read revelations 21:4 and first corinthians 13 4"}`))
		req.Header.Set("Authorization", "Bearer "+env["TCS_API_KEY"])
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			return time.Time{}, err
		}
		written := time.Now() // the events were written before the answer left
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			return time.Time{}, fmt.Errorf("paste: HTTP %d", res.StatusCode)
		}
		return written, nil
	}

	// Latency: one paste at a time; its first event's delivery against the moment it was written.
	lat := make([]time.Duration, 0, n)
	for range n {
		written, err := paste()
		if err != nil {
			return err
		}
		at, err := rcv.await(2, 30*time.Second)
		if err != nil {
			return err
		}
		lat = append(lat, at[0].Sub(written))
	}
	slices.Sort(lat)

	// Throughput: many pastes at once, deliveries counted until the last arrives.
	const clients = 8
	start := time.Now()
	if _, err := concurrent(clients, n, func() error { _, err := paste(); return err }); err != nil {
		return err
	}
	at, err := rcv.await(2*n, 2*time.Minute)
	if err != nil {
		return err
	}
	last := slices.MaxFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	secs := last.Sub(start).Seconds()

	fmt.Println("## Webhooks (tcs dev, HTTPS receiver on loopback, endpoint subscribed to every event)")
	fmt.Println()
	fmt.Println("| measurement | n | p50 | p95 | p99 |")
	fmt.Println("|---|---|---|---|---|")
	row("event written to first delivery attempt", lat)
	fmt.Println()
	fmt.Printf("Throughput: %d deliveries of %d pastes (%d clients) in %.2f s: %.0f deliveries/s (target ≥ 200/s); p50 latency %s (target ≤ 50ms).\n\n",
		2*n, n, clients, secs, float64(2*n)/secs, pct(lat, 50).Round(time.Millisecond))
	return nil
}

// startDev starts `tcs dev` on state with a free port and extra flags, and returns its
// process, its env lines once it is ready, and a func that stops it. With gc not nil the
// process traces its garbage collections (GODEBUG=gctrace=1, inherited by etcd and
// kube-apiserver, whose output tcs dev does not show) into gc.
func startDev(tcsBin, state string, gc *gcTrace, extra ...string) (dev *exec.Cmd, env map[string]string, stop func(), err error) {
	dev = exec.Command(tcsBin, append([]string{"dev", "--state-dir", state, "--listen", "127.0.0.1:0"}, extra...)...)
	devErr := &tail{max: 64 << 10}
	dev.Stdout, dev.Stderr = io.Discard, devErr
	if gc != nil {
		dev.Env = append(os.Environ(), "GODEBUG=gctrace=1")
		dev.Stderr = io.MultiWriter(devErr, gc)
	}
	if err := dev.Start(); err != nil {
		return nil, nil, nil, err
	}
	stop = func() {
		_ = dev.Process.Signal(os.Interrupt)
		_ = dev.Wait()
	}
	env, err = waitEnv(filepath.Join(state, "env"), dev)
	if err != nil {
		stop()
		return nil, nil, nil, fmt.Errorf("%w\n%s", err, devErr.String())
	}
	return dev, env, stop, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
