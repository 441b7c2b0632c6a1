package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// scaleClients is how many clients create transcripts at once in the scale benchmark.
const scaleClients = 8

// scale creates n pasted 5 KB transcripts in a fresh `tcs dev` per archive setting (archiving
// on with a short archive-after, and --archive-after=0 as the baseline, in the same run) and
// at each checkpoint reports what etcd and the processes hold and how fast lists and gets are.
func scale(n int, checkpoints []int, tcsBin string, archiveAfter time.Duration, parallel bool) error {
	checkpoints = slices.DeleteFunc(slices.Clone(checkpoints), func(c int) bool { return c <= 0 || c >= n })
	checkpoints = append(checkpoints, n)
	slices.Sort(checkpoints)
	checkpoints = slices.Compact(checkpoints)
	fmt.Printf("## Scale: %d pasted 5 KB transcripts (tcs dev, %d concurrent clients per setting), checkpoints %v, settings side by side: %v\n\n", n, scaleClients, checkpoints, parallel)
	settings := []time.Duration{archiveAfter, 0}
	rows := make([][]scaleRow, len(settings))
	base := make([]scaleRow, len(settings))
	errs := make([]error, len(settings))
	run := func(i int) { rows[i], base[i], errs[i] = scaleRun(checkpoints, tcsBin, settings[i]) }
	if parallel {
		// Side by side, each setting gets the same share of a machine whose load changes.
		var wg sync.WaitGroup
		for i := range settings {
			wg.Add(1)
			go func() { defer wg.Done(); run(i) }()
		}
		wg.Wait()
	} else {
		for i := range settings {
			if run(i); errs[i] != nil {
				break
			}
		}
	}
	printScale(slices.Concat(rows...), base)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// scaleRow is what one checkpoint of one setting measured.
type scaleRow struct {
	after             time.Duration
	created           int
	rate              float64 // creates per second since the previous checkpoint
	peakLeft          int     // most Transcripts seen in etcd while creating (sampled)
	left              int     // Transcripts in etcd at the checkpoint
	events            int     // Kubernetes Events in etcd at the checkpoint (they expire after an hour)
	dbSize, dbInUse   int64   // etcd before compaction and defragmentation
	dbSize2, dbInUse2 int64   // after
	etcdRSS           int64
	tcsRSS, tcsHeap   int64 // tcs resident, and its heap live after the last collection
	apiserverRSS      int64
	list, deep        []time.Duration
	getLive, getOld   []time.Duration
	load              string
	settle            time.Duration // waited for the archiver after the creates stopped
}

func label(after time.Duration) string {
	if after == 0 {
		return "0 (baseline)"
	}
	return after.String()
}

func printScale(rows, base []scaleRow) {
	fmt.Println("### Footprint (etcd: before → after a compaction to the current revision and a defragmentation)")
	fmt.Println()
	fmt.Println("| archive-after | transcripts created | create/s | Transcripts in etcd (peak while creating) | Events in etcd | etcd db size | etcd db in use | etcd RSS | tcs RSS | tcs heap live | kube-apiserver RSS | load average |")
	fmt.Println("|---|---:|---:|---|---:|---|---|---:|---:|---:|---:|---|")
	for _, b := range base {
		fmt.Printf("| %s | 0 | | 0 | | %s | %s | %s | %s | %s | %s | %s |\n", label(b.after), mb(b.dbSize), mb(b.dbInUse), mb(b.etcdRSS), mb(b.tcsRSS), mb(b.tcsHeap), mb(b.apiserverRSS), b.load)
	}
	for _, r := range rows {
		fmt.Printf("| %s | %d | %.0f | %d (%d) | %d | %s → %s | %s → %s | %s | %s | %s | %s | %s |\n", label(r.after), r.created, r.rate, r.left, r.peakLeft, r.events,
			mb(r.dbSize), mb(r.dbSize2), mb(r.dbInUse), mb(r.dbInUse2), mb(r.etcdRSS), mb(r.tcsRSS), mb(r.tcsHeap), mb(r.apiserverRSS), r.load)
	}
	fmt.Println()
	fmt.Println("### Latency (200 requests each, p50 / p99)")
	fmt.Println()
	fmt.Println("| archive-after | transcripts created | first list page | page deep in the list | GET live | GET archived (baseline: the oldest, live) |")
	fmt.Println("|---|---:|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", label(r.after), r.created, p50p99(r.list), p50p99(r.deep), p50p99(r.getLive), p50p99(r.getOld))
	}
	fmt.Println()
	// Resident memory per live transcript: the baseline keeps every transcript live.
	var zero *scaleRow
	for i := range base {
		if base[i].after == 0 {
			zero = &base[i]
		}
	}
	if zero == nil {
		return
	}
	fmt.Println("### tcs memory per live transcript (baseline: every transcript stays in the cluster)")
	fmt.Println()
	fmt.Println("| live transcripts | tcs RSS − at 0, per transcript | tcs heap live − at 0, per transcript |")
	fmt.Println("|---:|---:|---:|")
	for _, r := range rows {
		if r.after != 0 || r.left == 0 {
			continue
		}
		fmt.Printf("| %d | %s | %s |\n", r.left, kb(float64(r.tcsRSS-zero.tcsRSS)/float64(r.left)), kb(float64(r.tcsHeap-zero.tcsHeap)/float64(r.left)))
	}
	fmt.Println()
}

func scaleRun(checkpoints []int, tcsBin string, after time.Duration) ([]scaleRow, scaleRow, error) {
	zero := scaleRow{after: after}
	state, err := os.MkdirTemp("", "tcs-scale")
	if err != nil {
		return nil, zero, err
	}
	defer os.RemoveAll(state)
	gc := &gcTrace{}
	dev, env, stop, err := startDev(tcsBin, state, gc, "--archive-after", after.String())
	if err != nil {
		return nil, zero, err
	}
	defer stop()
	api, key := env["TCS_URL"], env["TCS_API_KEY"]
	hc := &http.Client{Timeout: 70 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * scaleClients}}
	c, err := kubeClient(env["KUBECONFIG"])
	if err != nil {
		return nil, zero, err
	}
	if err := liftLimits(c, env["TCS_ORG"]); err != nil {
		return nil, zero, err
	}
	body := bytes.Repeat([]byte("turn with me to first corinthians 13 4 through 7 love is patient and in revelations 21 4 he will wipe every tear\n"), 45)[:5000]
	apiserverPid, etcdPid := childNamed(dev.Process.Pid, "kube-apiserver"), childNamed(dev.Process.Pid, "etcd")
	p := &probe{hc: hc, api: api, key: key, gc: gc, etcdURL: etcdServer(apiserverPid)}

	// The footprint with no transcript, read the same way as at a checkpoint.
	if zero.tcsHeap, err = p.quietHeap(); err != nil {
		return nil, zero, err
	}
	zero.tcsRSS, zero.apiserverRSS, zero.etcdRSS = rss(dev.Process.Pid), rss(apiserverPid), rss(etcdPid)
	if st, err := etcdStatus(p.etcdURL); err == nil {
		zero.dbSize, zero.dbInUse = st.size, st.inUse
	}
	zero.load = loadAverage()
	fmt.Fprintf(os.Stderr, "scale %s: at 0: tcs %s (heap %s), kube-apiserver %s, etcd %s\n", label(after), mb(zero.tcsRSS), mb(zero.tcsHeap), mb(zero.apiserverRSS), mb(zero.etcdRSS))

	var rows []scaleRow
	created := make([]string, 0, checkpoints[len(checkpoints)-1])
	var mu sync.Mutex
	for _, cp := range checkpoints {
		r := scaleRow{after: after, created: cp}
		todo := cp - len(created)
		// Sample the working set while creating, from a cheap paginated count.
		var peak atomic.Int64
		sampling := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				select {
				case <-sampling:
					return
				case <-time.After(5 * time.Second):
				}
				if k, err := countTranscripts(c); err == nil && int64(k) > peak.Load() {
					peak.Store(int64(k))
				}
			}
		}()
		start := time.Now()
		_, err := concurrent(scaleClients, todo, func() error {
			id, err := paste(hc, api, key, body)
			if err == nil {
				mu.Lock()
				created = append(created, id)
				mu.Unlock()
			}
			return err
		})
		r.rate = float64(todo) / time.Since(start).Seconds()
		close(sampling)
		<-sampled
		if err != nil {
			return rows, zero, err
		}
		r.peakLeft = int(peak.Load())

		waited := time.Now()
		if after > 0 {
			// Wait for the archiver to move what is finished and past archive-after.
			deadline := time.Now().Add(time.Duration(todo)*20*time.Millisecond + 2*time.Minute)
			for {
				left, err := countTranscripts(c)
				if err != nil {
					return rows, zero, err
				}
				if left == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(2 * time.Second)
			}
		}
		time.Sleep(4 * time.Second) // settle, and let the caches catch up
		r.settle = time.Since(waited)
		if err := p.reading(&r, c, dev.Process.Pid, body, created[0], created[len(created)/2]); err != nil {
			return rows, zero, err
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "scale %s: %d created at %.0f/s, %d in etcd (peak %d), %d events, etcd %s/%s → %s/%s, RSS tcs %s (heap %s) kube-apiserver %s etcd %s; list %s deep %s get live %s archived %s; load %s; %s\n",
			label(after), cp, r.rate, r.left, r.peakLeft, r.events, mb(r.dbSize), mb(r.dbInUse), mb(r.dbSize2), mb(r.dbInUse2), mb(r.tcsRSS), mb(r.tcsHeap), mb(r.apiserverRSS), mb(r.etcdRSS),
			p50p99(r.list), p50p99(r.deep), p50p99(r.getLive), p50p99(r.getOld), r.load, time.Now().UTC().Format(time.TimeOnly))
	}
	return rows, zero, nil
}

// probe reads the API of one tcs dev.
type probe struct {
	hc       *http.Client
	api, key string
	// gc traces tcs's collections; nil when tcs was not started by this process.
	gc      *gcTrace
	etcdURL string
}

// reading fills r with what the cluster and the processes hold now and how fast the API reads:
// first is the oldest transcript (archived, with archiving on), middle a cursor deep in the list.
func (p *probe) reading(r *scaleRow, c client.Client, devPid int, body []byte, first, middle string) error {
	var err error
	if r.left, err = countTranscripts(c); err != nil {
		return err
	}
	if r.events, err = count(c, &corev1.EventList{}); err != nil {
		return err
	}
	r.load = loadAverage()
	apiserverPid, etcdPid := childNamed(devPid, "kube-apiserver"), childNamed(devPid, "etcd")
	if st, err := etcdStatus(p.etcdURL); err == nil {
		r.dbSize, r.dbInUse = st.size, st.inUse
	} else {
		fmt.Fprintln(os.Stderr, "scale: etcd status:", err)
	}
	if st, err := etcdCompactDefrag(p.etcdURL); err == nil {
		r.dbSize2, r.dbInUse2 = st.size, st.inUse
	} else {
		fmt.Fprintln(os.Stderr, "scale: etcd compaction and defragmentation:", err)
	}

	// One transcript made last is live in both settings while its GET is measured (first,
	// well within archive-after).
	live, err := paste(p.hc, p.api, p.key, body)
	if err != nil {
		return err
	}
	const reps = 200
	if r.getLive, err = measure(reps, p.get("/api/v1/transcripts/"+live)); err != nil {
		return err
	}
	if r.list, err = measure(reps, p.get("/api/v1/transcripts?limit=10")); err != nil {
		return err
	}
	if r.deep, err = measure(reps, p.get("/api/v1/transcripts?limit=10&starting_after="+middle)); err != nil {
		return err
	}
	if r.getOld, err = measure(reps, p.get("/api/v1/transcripts/"+first)); err != nil {
		return err
	}
	if p.gc != nil {
		if r.tcsHeap, err = p.quietHeap(); err != nil {
			return err
		}
	}
	r.tcsRSS, r.apiserverRSS, r.etcdRSS = rss(devPid), rss(apiserverPid), rss(etcdPid)
	return nil
}

// get returns a func that GETs path and wants 200.
func (p *probe) get(path string) func() error {
	return func() error {
		req, _ := http.NewRequest(http.MethodGet, p.api+path, nil)
		req.Header.Set("Authorization", "Bearer "+p.key)
		res, err := p.hc.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: HTTP %d", path, res.StatusCode)
		}
		return nil
	}
}

// quietHeap returns tcs's heap live after a garbage collection that began a few seconds after
// the last request, so that no request's garbage or in-flight page is counted: with nothing to
// do the runtime collects at least every two minutes.
func (p *probe) quietHeap() (int64, error) {
	time.Sleep(5 * time.Second)
	n := p.gc.count()
	deadline := time.Now().Add(3 * time.Minute)
	for p.gc.count() <= n {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("tcs ran no garbage collection in 3 minutes (is GODEBUG=gctrace=1 traced?)")
		}
		time.Sleep(time.Second)
	}
	return p.gc.live(), nil
}

// gcTrace reads the Go runtime's gctrace lines of a process: how many collections ran and the
// heap live after the last one.
type gcTrace struct {
	mu      sync.Mutex
	partial []byte
	n       int
	liveMB  int64
}

var gcLine = regexp.MustCompile(`^gc (\d+) @.* \d+->\d+->(\d+) MB`)

func (g *gcTrace) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.partial = append(g.partial, p...)
	for {
		i := bytes.IndexByte(g.partial, '\n')
		if i < 0 {
			break
		}
		if m := gcLine.FindSubmatch(g.partial[:i]); m != nil {
			g.n, _ = strconv.Atoi(string(m[1]))
			g.liveMB, _ = strconv.ParseInt(string(m[2]), 10, 64)
		}
		g.partial = g.partial[i+1:]
	}
	return len(p), nil
}

func (g *gcTrace) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

// live is the heap live after the last collection, in bytes (the trace counts whole MB).
func (g *gcTrace) live() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.liveMB << 20
}

// paste creates a pasted transcript and returns its id.
func paste(hc *http.Client, api, key string, content []byte) (string, error) {
	b, _ := json.Marshal(map[string]string{"source_type": "paste", "content": string(content)})
	req, _ := http.NewRequest(http.MethodPost, api+"/api/v1/transcripts", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("paste: HTTP %d", res.StatusCode)
	}
	return out.ID, nil
}

// countTranscripts counts the Transcript resources, as kubectl get transcripts would.
func countTranscripts(c client.Client) (int, error) { return count(c, &tcsv1.TranscriptList{}) }

// count counts the objects of list's kind in tcs-system from one item and the count of those
// remaining.
func count(c client.Client, list client.ObjectList) (int, error) {
	if err := c.List(context.Background(), list, client.InNamespace("tcs-system"), client.Limit(1)); err != nil {
		return 0, err
	}
	n := meta.LenList(list)
	if rest := list.GetRemainingItemCount(); rest != nil {
		n += int(*rest)
	}
	return n, nil
}

// rss returns the resident memory of pid in bytes (0 when unknown).
func rss(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// childNamed returns the pid of a child process of parent whose command is name, or 0.
func childNamed(parent int, name string) int {
	found := 0
	eachProcess("stat", func(pid int, stat string) {
		// pid (comm) state ppid …
		i := strings.LastIndexByte(stat, ')')
		if i < 0 || !strings.Contains(stat[:i], "("+name) {
			return
		}
		if fields := strings.Fields(stat[i+1:]); len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			found = pid
		}
	})
	return found
}

// eachProcess calls f with the pid and the file /proc/<pid>/<file> of every process it can read.
func eachProcess(file string, f func(pid int, data string)) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file)); err == nil {
			f(pid, string(data))
		}
	}
}

// etcdServer returns the client URL of the etcd that kube-apiserver apiserverPid talks to.
func etcdServer(apiserverPid int) string {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", apiserverPid))
	if err != nil {
		return ""
	}
	for _, arg := range strings.Split(string(cmdline), "\x00") {
		if v, ok := strings.CutPrefix(arg, "--etcd-servers="); ok {
			return strings.Split(v, ",")[0]
		}
	}
	return ""
}

// etcdStat is what etcd's Maintenance.Status says of its database.
type etcdStat struct {
	revision    int64
	size, inUse int64
}

// etcdCall posts a request to etcd's v3 API through its JSON gateway (the gRPC API of etcdctl
// and the Go client, served on the client URL) and decodes the answer into out.
func etcdCall(server, path string, in, out any) error {
	if server == "" {
		return fmt.Errorf("etcd's client URL is unknown")
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 5 * time.Minute}
	res, err := hc.Post(server+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(bufio.NewReader(res.Body))
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: HTTP %d: %s", path, res.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("etcd %s: %w: %s", path, err, data)
	}
	return nil
}

// etcdStatus reads etcd's current revision, database size and the part of it in use.
func etcdStatus(server string) (etcdStat, error) {
	var out struct {
		Header struct {
			Revision int64 `json:"revision,string"`
		} `json:"header"`
		DBSize      int64 `json:"dbSize,string"`
		DBSizeInUse int64 `json:"dbSizeInUse,string"`
	}
	if err := etcdCall(server, "/v3/maintenance/status", struct{}{}, &out); err != nil {
		return etcdStat{}, err
	}
	return etcdStat{revision: out.Header.Revision, size: out.DBSize, inUse: out.DBSizeInUse}, nil
}

// etcdCompactDefrag compacts etcd's history to the current revision and defragments its
// database, as an operator's maintenance would, and returns the status after.
func etcdCompactDefrag(server string) (etcdStat, error) {
	st, err := etcdStatus(server)
	if err != nil {
		return st, err
	}
	err = etcdCall(server, "/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(st.revision, 10), "physical": true}, nil)
	if err != nil && !strings.Contains(err.Error(), "compacted") {
		return st, err
	}
	if err := etcdCall(server, "/v3/maintenance/defragment", struct{}{}, nil); err != nil {
		return st, err
	}
	return etcdStatus(server)
}

// p50p99 formats the median and the 99th percentile of sorted latencies.
func p50p99(lat []time.Duration) string {
	return pct(lat, 50).Round(10*time.Microsecond).String() + " / " + pct(lat, 99).Round(10*time.Microsecond).String()
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

func kb(b float64) string { return fmt.Sprintf("%.2f KB", b/(1<<10)) }

// liveMemory measures tcs's memory per live transcript: a `tcs dev` with archiving off holds
// every transcript in its cache; its resident memory and its heap live after a collection are
// read with none and with n transcripts, with no request in flight (the runtime collects by
// itself at least every two minutes).
// With profiles set, tcs's heap profile is written there at both readings (heap0.pb.gz and
// heap1.pb.gz; compare them with go tool pprof -diff_base).
//
// With archiveAfter 0 every transcript stays in tcs's cache; with a positive one (longer than
// the run) the transcripts stay in the cluster, marked once settled, and leave the cache: the
// reading after creating waits until every one is marked.
func liveMemory(n int, tcsBin, profiles string, archiveAfter time.Duration) error {
	fmt.Printf("## tcs memory per live transcript (%d pasted 5 KB transcripts, --archive-after=%s)\n\n", n, archiveAfter)
	state, err := os.MkdirTemp("", "tcs-live")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	gc := &gcTrace{}
	args := []string{"--archive-after", archiveAfter.String()}
	pprofAddr := ""
	if profiles != "" {
		if pprofAddr, err = freeAddr(); err != nil {
			return err
		}
		args = append(args, "--pprof-bind-address", pprofAddr)
	}
	dev, env, stop, err := startDev(tcsBin, state, gc, args...)
	if err != nil {
		return err
	}
	defer stop()
	api, key := env["TCS_URL"], env["TCS_API_KEY"]
	hc := &http.Client{Timeout: 70 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * scaleClients}}
	c, err := kubeClient(env["KUBECONFIG"])
	if err != nil {
		return err
	}
	if err := liftLimits(c, env["TCS_ORG"]); err != nil {
		return err
	}
	profile := func(name string) error {
		if profiles == "" {
			return nil
		}
		return saveURL(hc, "http://"+pprofAddr+"/debug/pprof/heap?gc=1", filepath.Join(profiles, name))
	}
	body := bytes.Repeat([]byte("turn with me to first corinthians 13 4 through 7 love is patient and in revelations 21 4 he will wipe every tear\n"), 45)[:5000]
	// One transcript first, so that every code path has run once before the reading at zero.
	if _, err := paste(hc, api, key, body); err != nil {
		return err
	}
	p := &probe{gc: gc}
	heap0, err := p.quietHeap()
	if err != nil {
		return err
	}
	rss0 := rss(dev.Process.Pid)
	if err := profile("heap0.pb.gz"); err != nil {
		return err
	}
	if _, err := concurrent(scaleClients, n, func() error { _, err := paste(hc, api, key, body); return err }); err != nil {
		return err
	}
	if archiveAfter > 0 {
		if err := waitMarked(c, n+1); err != nil {
			return err
		}
	}
	// The first reading holds the Events the recorder keeps of recent transcripts, to fold
	// repeats into series.
	heap1, err := p.quietHeap()
	if err != nil {
		return err
	}
	rss1 := rss(dev.Process.Pid)
	if err := profile("heap1.pb.gz"); err != nil {
		return err
	}
	// The recorder forgets an Event six to twelve minutes after it was sent: read again once
	// all of them are gone, for what the live transcripts alone cost.
	fmt.Fprintf(os.Stderr, "live: %d transcripts, heap %s, RSS %s; waiting %s for the Event recorder's cache to turn over\n", n+1, mb(heap1), mb(rss1), eventTurnover)
	time.Sleep(eventTurnover)
	heap2, err := p.quietHeap()
	if err != nil {
		return err
	}
	rss2 := rss(dev.Process.Pid)
	if err := profile("heap2.pb.gz"); err != nil {
		return err
	}
	per := func(a, b int64) string { return kb(float64(b-a) / float64(n)) }
	fmt.Println("| | heap live after a collection | resident (RSS) |")
	fmt.Println("|---|---:|---:|")
	fmt.Printf("| 1 transcript | %s | %s |\n", mb(heap0), mb(rss0))
	fmt.Printf("| %d transcripts, right after creating them | %s | %s |\n", n+1, mb(heap1), mb(rss1))
	fmt.Printf("| %d transcripts, %s later | %s | %s |\n", n+1, eventTurnover, mb(heap2), mb(rss2))
	fmt.Printf("| per live transcript, with the recorder's recent Events | %s | %s |\n", per(heap0, heap1), per(rss0, rss1))
	fmt.Printf("| per live transcript | **%s** | **%s** |\n\n", per(heap0, heap2), per(rss0, rss2))
	return nil
}

// waitMarked waits until n transcripts are marked archived (recorded, out of tcs's cache).
func waitMarked(c client.Client, n int) error {
	deadline := time.Now().Add(30 * time.Minute)
	for {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(tcsv1.GroupVersion.WithKind("TranscriptList"))
		if err := c.List(context.Background(), list, client.HasLabels{tcsv1.LabelArchived}); err != nil {
			return err
		}
		if len(list.Items) >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d transcripts marked archived after 30 minutes", len(list.Items), n)
		}
		time.Sleep(5 * time.Second)
	}
}

// eventTurnover is how long client-go's Event recorder keeps an Event it sent, at most (it
// drops Events older than six minutes every six minutes), and a little more.
const eventTurnover = 13 * time.Minute

// freeAddr returns a loopback address no one listens on now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// saveURL writes the body of a GET of url to file.
func saveURL(hc *http.Client, url, file string) error {
	resp, err := hc.Get(url)
	if err != nil {
		return fmt.Errorf("getting %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("getting %s: %s", url, resp.Status)
	}
	out, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, resp.Body); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return out.Close()
}

// probeRunning takes a checkpoint reading of a `tcs dev` already running on state (started by
// an earlier, stopped scale run), for a last reading where a run cannot reach its last
// checkpoint in the time there is. Its transcripts are found in the object store, oldest first
// by the time their input was written; tcs's heap is not read (its collections are traced to
// the process that started it).
func probeRunning(state string) error {
	data, err := os.ReadFile(filepath.Join(state, "env"))
	if err != nil {
		return err
	}
	env := parseEnv(data)
	devPid, after := 0, time.Duration(-1)
	eachProcess("cmdline", func(pid int, cmdline string) {
		args := strings.Split(cmdline, "\x00")
		if len(args) < 2 || args[1] != "dev" || !slices.Contains(args, state) {
			return
		}
		devPid = pid
		if i := slices.Index(args, "--archive-after"); i >= 0 && i+1 < len(args) {
			after, _ = time.ParseDuration(args[i+1])
		}
	})
	if devPid == 0 || after < 0 {
		return fmt.Errorf("no tcs dev with --archive-after runs on %s", state)
	}
	type made struct {
		id string
		at time.Time
	}
	var all []made
	orgs, err := os.ReadDir(filepath.Join(state, "objects", "transcripts"))
	if err != nil {
		return err
	}
	for _, org := range orgs {
		dir := filepath.Join(state, "objects", "transcripts", org.Name())
		trs, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, tr := range trs {
			if st, err := os.Stat(filepath.Join(dir, tr.Name(), "input")); err == nil {
				all = append(all, made{tr.Name(), st.ModTime()})
			}
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("no transcript in %s", state)
	}
	slices.SortFunc(all, func(a, b made) int { return a.at.Compare(b.at) })
	c, err := kubeClient(env["KUBECONFIG"])
	if err != nil {
		return err
	}
	p := &probe{hc: &http.Client{Timeout: 70 * time.Second}, api: env["TCS_URL"], key: env["TCS_API_KEY"],
		etcdURL: etcdServer(childNamed(devPid, "kube-apiserver"))}
	body := bytes.Repeat([]byte("turn with me to first corinthians 13 4 through 7 love is patient and in revelations 21 4 he will wipe every tear\n"), 45)[:5000]
	r := scaleRow{after: after, created: len(all)}
	if err := p.reading(&r, c, devPid, body, all[0].id, all[len(all)/2].id); err != nil {
		return err
	}
	printScale([]scaleRow{r}, nil)
	return nil
}
