package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// scale creates n pasted 5 KB transcripts in a fresh `tcs dev` per archive setting (archiving
// on with a short archive-after, and --archive-after=0 as the baseline, in the same run) and
// reports what the cluster and the processes hold afterwards and how fast lists and gets are.
func scale(n int, tcsBin string, archiveAfter time.Duration) error {
	fmt.Printf("## Scale: %d pasted 5 KB transcripts (tcs dev, 8 concurrent clients)\n\n", n)
	fmt.Println("| archive-after | create/s | Transcripts left in etcd | etcd db size | etcd db in use | tcs RSS | kube-apiserver RSS | list p50/p99 | deep page p50/p99 | GET live p50/p99 | GET archived p50/p99 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, after := range []time.Duration{archiveAfter, 0} {
		if err := scaleRun(n, tcsBin, after); err != nil {
			return err
		}
	}
	fmt.Println()
	return nil
}

func scaleRun(n int, tcsBin string, after time.Duration) error {
	state, err := os.MkdirTemp("", "tcs-scale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	dev, env, stop, err := startDev(tcsBin, state, "--archive-after", after.String())
	if err != nil {
		return err
	}
	defer stop()
	api, key := env["TCS_URL"], env["TCS_API_KEY"]
	hc := &http.Client{Timeout: 70 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	c, err := kubeClient(env["KUBECONFIG"])
	if err != nil {
		return err
	}
	if err := liftLimits(c, env["TCS_ORG"]); err != nil {
		return err
	}
	body := bytes.Repeat([]byte("turn with me to first corinthians 13 4 through 7 love is patient and in revelations 21 4 he will wipe every tear\n"), 45)[:5000]
	var mu sync.Mutex
	created := make([]string, 0, n)
	start := time.Now()
	if _, err := concurrent(8, n, func() error {
		id, err := paste(hc, api, key, body)
		mu.Lock()
		created = append(created, id)
		mu.Unlock()
		return err
	}); err != nil {
		return err
	}
	rate := float64(n) / time.Since(start).Seconds()

	if after > 0 {
		// Wait for the archiver to move what is finished and past archive-after.
		deadline := time.Now().Add(time.Duration(n)*20*time.Millisecond + 2*time.Minute)
		for {
			left, err := countTranscripts(c)
			if err != nil {
				return err
			}
			if left == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Second)
		}
	}
	time.Sleep(4 * time.Second) // settle, and let the caches catch up
	inEtcd, err := countTranscripts(c)
	if err != nil {
		return err
	}
	apiserverPid := childNamed(dev.Process.Pid, "kube-apiserver")
	dbSize, dbInUse := etcdSizes(apiserverPid)
	tcsRSS, apiserverRSS := rss(dev.Process.Pid), rss(apiserverPid)
	// One transcript made last is live in both runs while its GET is measured (first, well
	// within archive-after).
	live, err := paste(hc, api, key, body)
	if err != nil {
		return err
	}
	get := func(path string) func() error {
		return func() error {
			req, _ := http.NewRequest(http.MethodGet, api+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := hc.Do(req)
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
	const reps = 200
	getLive, err := measure(reps, get("/api/v1/transcripts/"+live))
	if err != nil {
		return err
	}
	list, err := measure(reps, get("/api/v1/transcripts?limit=10"))
	if err != nil {
		return err
	}
	// created is in completion order, close to creation order: its middle is deep in the list.
	deep, err := measure(reps, get("/api/v1/transcripts?limit=10&starting_after="+created[len(created)/2]))
	if err != nil {
		return err
	}
	getOld, err := measure(reps, get("/api/v1/transcripts/"+created[0]))
	if err != nil {
		return err
	}
	pp := func(lat []time.Duration) string {
		return pct(lat, 50).Round(10*time.Microsecond).String() + " / " + pct(lat, 99).Round(10*time.Microsecond).String()
	}
	label := after.String()
	if after == 0 {
		label = "0 (baseline)"
	}
	fmt.Printf("| %s | %.0f | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", label, rate, inEtcd, mb(dbSize), mb(dbInUse),
		mb(tcsRSS), mb(apiserverRSS), pp(list), pp(deep), pp(getLive), pp(getOld))
	return nil
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
func countTranscripts(c client.Client) (int, error) {
	var list tcsv1.TranscriptList
	if err := c.List(context.Background(), &list, client.InNamespace("tcs-system")); err != nil {
		return 0, err
	}
	return len(list.Items), nil
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

// childNamed returns the pid of a child process of parent whose command is name, or 0.
func childNamed(parent int, name string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "("+name) {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			return pid
		}
	}
	return 0
}

// etcdSizes reads etcd's database size and the part of it in use from the metrics of the etcd
// that kube-apiserver apiserverPid talks to.
func etcdSizes(apiserverPid int) (size, inUse int64) {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", apiserverPid))
	if err != nil {
		return 0, 0
	}
	var servers string
	for _, arg := range strings.Split(string(cmdline), "\x00") {
		if v, ok := strings.CutPrefix(arg, "--etcd-servers="); ok {
			servers = strings.Split(v, ",")[0]
		}
	}
	if servers == "" {
		return 0, 0
	}
	res, err := http.Get(servers + "/metrics")
	if err != nil {
		return 0, 0
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for metric, dst := range map[string]*int64{"etcd_mvcc_db_total_size_in_bytes ": &size, "etcd_mvcc_db_total_size_in_use_in_bytes ": &inUse} {
			if v, ok := strings.CutPrefix(line, metric); ok {
				f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
				*dst = int64(f)
			}
		}
	}
	return size, inUse
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
