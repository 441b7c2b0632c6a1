package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/tooling/apicount"
)

// pasteText is the file whose text every paste of the end-to-end mode sends: a 5 KB excerpt of
// a real Whisper sermon transcript.
const pasteText = "internal/text/correction/testdata/realworld/sermon_hope.txt"

// e2eOptions configure the end-to-end mode.
type e2eOptions struct {
	// n is the number of pastes of the latency measurement (each interleaved with a yardstick
	// write) and of each throughput measurement.
	n int
	// clients is the number of concurrent clients of the throughput measurements.
	clients int
	// tcsBin is the tcs binary.
	tcsBin string
	// cpuProfile, when set, is the file tcs's CPU profile of a throughput run is written to.
	cpuProfile string
	// profileSeconds is how long that run lasts.
	profileSeconds int
}

// pasteBench is what the end-to-end mode works with: the tcs dev it started and its clients.
type pasteBench struct {
	api, key string
	hc       *http.Client
	c        client.Client
	// metrics is kube-apiserver's admin config, for its request counts.
	metrics *rest.Config
	objects string
	content []byte
}

// e2e is the end-to-end mode: against a tcs dev it starts, the paste's create latency next to
// the yardstick's (interleaved), pastes per second with o.clients clients, webhook deliveries per
// second while pastes run, and the writes per paste and per delivery counted at kube-apiserver.
func e2e(o e2eOptions) error {
	content, err := os.ReadFile(pasteText)
	if err != nil {
		return fmt.Errorf("reading the paste's text (run from the repository's root): %w", err)
	}
	fmt.Printf("# tcs end-to-end benchmark, %s, %s, load average %s\n\n", time.Now().UTC().Format(time.RFC3339), machine(), loadAverage())

	state, err := os.MkdirTemp("", "tcs-bench-e2e")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	rcv, hooks, caFile, err := startReceiver(state)
	if err != nil {
		return err
	}
	defer hooks.Close()
	extra := []string{"--outbound-ca-file", caFile}
	pprofAddr := ""
	if o.cpuProfile != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		pprofAddr = ln.Addr().String()
		ln.Close()
		extra = append(extra, "--pprof-bind-address", pprofAddr)
	}
	_, env, stop, err := startDev(o.tcsBin, state, nil, extra...)
	if err != nil {
		return err
	}
	defer stop()
	c, err := kubeClient(env["KUBECONFIG"])
	if err != nil {
		return err
	}
	metrics, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		return fmt.Errorf("the kubeconfig of tcs dev: %w", err)
	}
	if err := liftLimits(c, env["TCS_ORG"]); err != nil {
		return err
	}
	b := &pasteBench{api: env["TCS_URL"], key: env["TCS_API_KEY"], c: c, metrics: metrics,
		objects: filepath.Join(state, "objects"), content: content,
		hc: &http.Client{Timeout: 70 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}

	// Warm up connections, caches and the engine.
	for range 20 {
		if err := b.paste(); err != nil {
			return err
		}
	}
	yardOne := yardstickWrite(c)
	for range 20 {
		if _, err := yardOne(); err != nil {
			return err
		}
	}

	// Latency: a yardstick write and a paste alternate, so that both see the same load.
	yard := make([]time.Duration, 0, o.n)
	pastes := make([]time.Duration, 0, o.n)
	for range o.n {
		y, err := yardOne()
		if err != nil {
			return err
		}
		yard = append(yard, y)
		start := time.Now()
		if err := b.paste(); err != nil {
			return err
		}
		pastes = append(pastes, time.Since(start))
	}
	slices.Sort(yard)
	slices.Sort(pastes)
	fmt.Printf("## Paste create latency (one client, %d bytes of sermon text, interleaved with the yardstick)\n\n", len(content))
	fmt.Println("| measurement | n | p50 | p95 | p99 |")
	fmt.Println("|---|---|---|---|---|")
	row("yardstick: Transcript create + status patch (client-go, straight to kube-apiserver)", yard)
	row("paste: POST /api/v1/transcripts, 201 with the corrected content", pastes)
	fmt.Println()
	fmt.Printf("paste p50 / yardstick p50: **%.2f×** (target ≤ 1.3×)\n\n", float64(pct(pastes, 50))/float64(pct(yard, 50)))

	// Throughput and writes per paste, without webhooks, once the controllers are done with
	// the yardstick's transcripts.
	if err := b.settle(); err != nil {
		return err
	}
	before, err := b.counts()
	if err != nil {
		return err
	}
	start := time.Now()
	lat, err := concurrent(o.clients, o.n, b.paste)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if err := b.settle(); err != nil {
		return err
	}
	after, err := b.counts()
	if err != nil {
		return err
	}
	perPaste := after.minus(before)

	// The same number of yardstick writes with as many clients, in a namespace tcs does not
	// watch: what kube-apiserver and etcd manage on this machine when nothing else writes.
	yardBulk := yardstickWriteIn(c, yardstickNamespace)
	if err := ensureNamespace(c, yardstickNamespace); err != nil {
		return err
	}
	ystart := time.Now()
	ylat, err := concurrent(o.clients, o.n, func() error { _, err := yardBulk(); return err })
	if err != nil {
		return err
	}
	ysecs := time.Since(ystart).Seconds()

	fmt.Printf("## Pastes per second (%d clients, %d pastes of %d bytes)\n\n", o.clients, o.n, len(content))
	fmt.Println("| webhooks | pastes/s | p50 | p95 | p99 |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| yardstick: create + status patch, %d clients, namespace %s | %.1f | %s | %s | %s |\n", o.clients, yardstickNamespace,
		float64(o.n)/ysecs, ms(pct(ylat, 50)), ms(pct(ylat, 95)), ms(pct(ylat, 99)))
	fmt.Printf("| none | **%.1f** | %s | %s | %s |\n", float64(o.n)/secs, ms(pct(lat, 50)), ms(pct(lat, 95)), ms(pct(lat, 99)))

	// The same with an endpoint subscribed to every event: two deliveries per paste.
	out, err := exec.Command(o.tcsBin, "admin", "webhook", "create", "--org", env["TCS_ORG"], "--url", hooks.URL,
		"--events", "all", "--kubeconfig", env["KUBECONFIG"]).CombinedOutput()
	if err != nil {
		return fmt.Errorf("creating the webhook endpoint: %w: %s", err, out)
	}
	time.Sleep(time.Second) // the delivery controller sees the endpoint
	if err := b.settle(); err != nil {
		return err
	}
	before, err = b.counts()
	if err != nil {
		return err
	}
	start = time.Now()
	lat, err = concurrent(o.clients, o.n, b.paste)
	if err != nil {
		return err
	}
	lastPaste := time.Now()
	psecs := lastPaste.Sub(start).Seconds()
	at, err := rcv.await(2*o.n, 5*time.Minute)
	if err != nil {
		return err
	}
	last := slices.MaxFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	if err := b.settle(); err != nil {
		return err
	}
	after, err = b.counts()
	if err != nil {
		return err
	}
	withHooks := after.minus(before)
	dsecs := last.Sub(start).Seconds()
	fmt.Printf("| one endpoint, every event | **%.1f** | %s | %s | %s |\n\n", float64(o.n)/psecs, ms(pct(lat, 50)), ms(pct(lat, 95)), ms(pct(lat, 99)))
	fmt.Printf("Webhooks: %d deliveries of %d pastes in %.2f s from the first paste: **%.0f deliveries/s** (target ≥ 200/s); "+
		"the last delivery came %s after the last paste's answer.\n\n",
		2*o.n, o.n, dsecs, float64(2*o.n)/dsecs, last.Sub(lastPaste).Round(time.Millisecond))

	fmt.Println("## Writes counted at kube-apiserver (apiserver_request_total) and in the object store")
	fmt.Println()
	fmt.Printf("Per paste: the %d pastes without webhooks (the controllers' writes included); per delivery: the run with webhooks less %d × the writes per paste, over its %d deliveries. "+
		"Objects are the files of the filesystem object store `tcs dev` uses (it has no Redis).\n\n", o.n, o.n, 2*o.n)
	fmt.Println("| resource | verb | per paste | per delivery |")
	fmt.Println("|---|---|---|---|")
	keys := map[string]bool{}
	for k := range perPaste.requests {
		keys[k] = true
	}
	for k := range withHooks.requests {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var writesPaste, writesDelivery, readsPaste float64
	for _, k := range sorted {
		resource, verb, _ := strings.Cut(k, " ")
		p := float64(perPaste.requests[k]) / float64(o.n)
		d := (float64(withHooks.requests[k]) - p*float64(o.n)) / float64(2*o.n)
		if isWrite(verb) {
			writesPaste += p
			writesDelivery += d
		} else {
			readsPaste += p
		}
		fmt.Printf("| %s | %s | %.2f | %.2f |\n", resource, verb, p, d)
	}
	fmt.Printf("| **all writes** | | **%.2f** | **%.2f** |\n", writesPaste, writesDelivery)
	fmt.Printf("| objects stored | | %.2f | %.2f |\n\n", float64(perPaste.objects)/float64(o.n),
		(float64(withHooks.objects)-float64(perPaste.objects))/float64(2*o.n))
	fmt.Printf("Reads per paste at kube-apiserver: %.2f.\n\n", readsPaste)

	if o.cpuProfile != "" {
		if err := b.settle(); err != nil {
			return err
		}
		if err := b.profile(pprofAddr, o); err != nil {
			return err
		}
	}
	return nil
}

// settle waits, at most a minute, for the controllers to finish what the measured requests
// started (no write to kube-apiserver for a second, and every transcript archived), so that
// their writes fall into the count of the requests that caused them and do not load the next
// measurement.
func (b *pasteBench) settle() error {
	last, err := b.counts()
	if err != nil {
		return err
	}
	for range 60 {
		time.Sleep(time.Second)
		now, err := b.counts()
		if err != nil {
			return err
		}
		quiet := true
		for k, v := range now.minus(last).requests {
			if _, verb, _ := strings.Cut(k, " "); isWrite(verb) && v != 0 && !strings.HasPrefix(k, "leases ") {
				quiet = false
			}
		}
		if quiet {
			// The archiver records a transcript once it has been quiet for a while
			// (--archive-record-after): a second without writes may come before.
			waiting, err := b.unmarked()
			if err != nil {
				return err
			}
			if waiting == 0 {
				return nil
			}
		}
		last = now
	}
	return nil
}

// unmarked returns the number of transcripts of tcs dev not yet recorded and marked by the
// archiver.
func (b *pasteBench) unmarked() (int, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(tcsv1.GroupVersion.WithKind("TranscriptList"))
	sel, err := labels.Parse("!" + tcsv1.LabelArchived)
	if err != nil {
		return 0, err
	}
	if err := b.c.List(context.Background(), list, client.InNamespace("tcs-system"), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return 0, fmt.Errorf("listing the transcripts not archived yet: %w", err)
	}
	return len(list.Items), nil
}

func ms(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }

// isWrite reports whether a request verb of kube-apiserver's metrics writes.
func isWrite(verb string) bool { return slices.Contains(apicount.Writes, verb) }

// paste creates one paste transcript and expects a 201 with its content.
func (b *pasteBench) paste() error {
	body, _ := json.Marshal(map[string]string{"source_type": "paste", "content": string(b.content)})
	req, _ := http.NewRequest(http.MethodPost, b.api+"/api/v1/transcripts", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+b.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusCreated {
		return fmt.Errorf("paste: HTTP %d: %s", res.StatusCode, data)
	}
	return nil
}

// profile runs pastes with o.clients clients for o.profileSeconds while it takes tcs's CPU
// profile, and writes the profile to o.cpuProfile.
func (b *pasteBench) profile(pprofAddr string, o e2eOptions) error {
	done, kubeDone := make(chan error, 1), make(chan error, 1)
	kubeProfile := o.cpuProfile + ".kube-apiserver"
	go func() {
		// kube-apiserver serves its own profile (--profiling, on by default) to its admin.
		cs, err := kubernetes.NewForConfig(b.metrics)
		if err != nil {
			kubeDone <- err
			return
		}
		raw, err := cs.Discovery().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(o.profileSeconds)).Timeout(time.Duration(o.profileSeconds+30) * time.Second).DoRaw(context.Background())
		if err == nil {
			err = os.WriteFile(kubeProfile, raw, 0o644)
		}
		kubeDone <- err
	}()
	go func() {
		res, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", pprofAddr, o.profileSeconds))
		if err != nil {
			done <- err
			return
		}
		defer res.Body.Close()
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, res.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	stop := time.Now().Add(time.Duration(o.profileSeconds) * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	count := 0
	for range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				err := b.paste()
				mu.Lock()
				count++
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := <-done; err != nil {
		return fmt.Errorf("taking the CPU profile: %w", err)
	}
	if err := <-kubeDone; err != nil {
		return fmt.Errorf("taking kube-apiserver's CPU profile: %w", err)
	}
	if firstErr != nil {
		return firstErr
	}
	fmt.Printf("CPU profiles over %d s of pastes (%d clients, %d pastes, the webhook subscribed): tcs's %s, kube-apiserver's %s (go tool pprof -top FILE)\n\n",
		o.profileSeconds, o.clients, count, o.cpuProfile, kubeProfile)
	return nil
}

// counts are the requests kube-apiserver served, by "resource[/subresource] VERB", and the
// objects in the object store, at one moment.
type counts struct {
	requests map[string]int64
	objects  int64
}

func (c counts) minus(o counts) counts {
	d := counts{requests: map[string]int64{}, objects: c.objects - o.objects}
	for k, v := range c.requests {
		if v-o.requests[k] != 0 {
			d.requests[k] = v - o.requests[k]
		}
	}
	return d
}

// counts reads apiserver_request_total from kube-apiserver's /metrics and counts the objects
// stored.
func (b *pasteBench) counts() (counts, error) {
	c := counts{requests: map[string]int64{}}
	all, err := apicount.Read(context.Background(), b.metrics)
	if err != nil {
		return c, err
	}
	// The resources of tcs.dev and the core ones the service writes (events, leases).
	for k, v := range all {
		if k.Group == "tcs.dev" || k.Resource == "events" || k.Resource == "leases" {
			c.requests[k.String()] += v
		}
	}
	err = filepath.WalkDir(b.objects, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.HasSuffix(path, ".attrs") {
			c.objects++
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return c, fmt.Errorf("counting the stored objects: %w", err)
	}
	return c, nil
}

// yardstickWrite returns one yardstick measurement: a bare Transcript create followed by one
// status patch, as the service writes them (with the finalizer the service creates it with, so
// that the transcript controller does not add it in between). A patch that loses to another
// writer all the same is measured again with a new transcript.
func yardstickWrite(c client.Client) func() (time.Duration, error) {
	return yardstickWriteIn(c, "tcs-system")
}

// yardstickNamespace is where the yardstick's throughput run writes: tcs watches only its own
// namespace, so no controller of it adds a write.
const yardstickNamespace = "tcs-bench-yardstick"

// ensureNamespace creates namespace ns unless it exists.
func ensureNamespace(c client.Client, ns string) error {
	err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	return nil
}

// yardstickWriteIn is yardstickWrite in namespace ns.
func yardstickWriteIn(c client.Client, ns string) func() (time.Duration, error) {
	ctx := context.Background()
	return func() (time.Duration, error) {
		for range 10 {
			id := ids.New("tr")
			t := &tcsv1.Transcript{
				ObjectMeta: metav1.ObjectMeta{Name: tcsv1.TranscriptName(id), Namespace: ns,
					Labels:     map[string]string{tcsv1.LabelOrganization: "org_bench", tcsv1.LabelSourceType: string(tcsv1.SourceUpload)},
					Finalizers: []string{tcsv1.FinalizerStoredObjects}},
				Spec: tcsv1.TranscriptSpec{ID: id, Organization: "org_bench", Source: tcsv1.TranscriptSource{Type: tcsv1.SourceUpload}},
			}
			start := time.Now()
			if err := c.Create(ctx, t); err != nil {
				return 0, err
			}
			patch := statuspatch.New(t, "tcs-bench")
			t.Status.Phase = tcsv1.PhaseFailed
			t.Status.Error = &tcsv1.TranscriptError{Type: "server_error", Message: "yardstick"}
			err := patch.Patch(ctx, c, t)
			if !apierrors.IsConflict(err) {
				return time.Since(start), err
			}
		}
		return 0, fmt.Errorf("the yardstick's status patch lost to another writer ten times")
	}
}
