// Package e2e drives the real tcs binary, as a newcomer runs it with `make run`, over HTTP.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// tcsBin is the binary under test: $TCS_BIN, or one built for this run.
var tcsBin string

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run builds the binary under test unless $TCS_BIN names one, and runs the tests.
func run(m *testing.M) int {
	// The tests' own Kubernetes clients log nothing: controller-runtime would otherwise print
	// a stack trace in the tests' output, saying that no logger was set.
	ctrllog.SetLogger(logr.Discard())
	tcsBin = os.Getenv("TCS_BIN")
	if tcsBin == "" {
		dir, err := os.MkdirTemp("", "tcs-e2e-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		tcsBin = filepath.Join(dir, "tcs")
		build := exec.Command("go", "build", "-o", tcsBin, "./cmd/tcs")
		build.Dir = testenv.Root()
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		defer os.RemoveAll(dir)
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building tcs:", err)
			return 1
		}
	}
	return m.Run()
}

// devProcess is a running `tcs dev`.
type devProcess struct {
	cmd    *exec.Cmd
	env    map[string]string
	stderr *testenv.SyncBuffer
	done   chan error
}

// startDev starts `tcs dev` on a free port with stateDir and waits for its env file.
func startDev(t *testing.T, stateDir string, extra ...string) *devProcess {
	t.Helper()
	args := append([]string{"dev", "--state-dir", stateDir, "--listen", "127.0.0.1:0", "--root", testenv.Root()}, extra...)
	cmd := exec.Command(tcsBin, args...)
	envFile := filepath.Join(stateDir, "env")
	if _, err := os.Stat(envFile); err == nil {
		t.Fatalf("%s is left from an earlier run: tcs dev must remove it when it stops", envFile)
	}
	stdout, stderr := &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &devProcess{cmd: cmd, stderr: stderr, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { p.stop(t) })

	deadline := time.Now().Add(2 * time.Minute)
	for {
		if data, err := os.ReadFile(envFile); err == nil {
			p.env = parseEnv(data)
			break
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("tcs dev exited before it was ready: %v\n%s", err, stderr)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("tcs dev was not ready after 2 minutes\n%s", stderr)
		}
	}
	for _, k := range []string{"TCS_URL", "TCS_API_KEY", "TCS_ORG", "TCS_API_KEY_B", "TCS_ORG_B", "KUBECONFIG"} {
		if p.env[k] == "" {
			t.Fatalf("env file lacks %s: %v", k, p.env)
		}
	}
	// The same lines are printed on stdout, before the file is written; the pipe's copier may
	// hand them over a moment later.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := parseEnv(stdout.Bytes())
		if got["TCS_API_KEY"] == p.env["TCS_API_KEY"] && got["TCS_URL"] == p.env["TCS_URL"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stdout %q does not carry the env lines %v", stdout, p.env)
		}
	}
	return p
}

// stop sends SIGINT, as Ctrl-C does, and waits for the process to end.
func (p *devProcess) stop(t *testing.T) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("tcs dev exited with %v after SIGINT\n%s", err, p.stderr)
		}
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("tcs dev did not stop within 60 s of SIGINT\n%s", p.stderr)
	}
}

func parseEnv(data []byte) map[string]string {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && strings.HasPrefix(k, "TCS_") || k == "KUBECONFIG" {
			env[k] = v
		}
	}
	return env
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func call(t *testing.T, method, url, key, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		// What `curl -d` sends.
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	// Every answer the tests see must be one the OpenAPI document describes.
	validateResponse(t, method, url, res.StatusCode, res.Header, raw)
	a := answer{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, url, raw)
	}
	if !strings.HasPrefix(res.Header.Get("X-Request-Id"), "req_") {
		t.Fatalf("%s %s: no X-Request-Id", method, url)
	}
	return a
}

func errType(a answer) string {
	e, _ := a.body["error"].(map[string]any)
	s, _ := e["type"].(string)
	return s
}

// children lists the pids of the running processes whose parent is pid.
func children(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(strings.Fields(string(data))[0])
			out = append(out, child)
		}
	}
	return out
}

// alive reports whether process pid still exists (and is no zombie).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// childProcesses lists processes whose command line mentions dir.
func childProcesses(t *testing.T, dir string) []string {
	t.Helper()
	entries, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, e := range entries {
		data, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		cmdline := strings.ReplaceAll(string(data), "\x00", " ")
		if strings.Contains(cmdline, dir) {
			found = append(found, cmdline)
		}
	}
	return found
}

func TestDevPasteFlow(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	dev := startDev(t, stateDir)
	url, keyA, keyB := dev.env["TCS_URL"], dev.env["TCS_API_KEY"], dev.env["TCS_API_KEY_B"]

	if a := call(t, http.MethodGet, url+"/healthz", "", ""); a.status != 200 {
		t.Fatalf("healthz: %d %s", a.status, a.raw)
	}
	for key, org := range map[string]string{keyA: dev.env["TCS_ORG"], keyB: dev.env["TCS_ORG_B"]} {
		if a := call(t, http.MethodGet, url+"/api/v1/me", key, ""); a.status != 200 || a.body["organization_id"] != org {
			t.Fatalf("me: %d %s, want organization %s", a.status, a.raw, org)
		}
	}

	// Authentication failures.
	for _, key := range []string{"", "sk_live_nope", "sk_live_abcdefghijklmnopqrstuvwxyz012345"} {
		if a := call(t, http.MethodGet, url+"/api/v1/me", key, ""); a.status != 401 || errType(a) != "unauthorized" {
			t.Fatalf("key %q: %d %s", key, a.status, a.raw)
		}
	}

	created := call(t, http.MethodPost, url+"/api/v1/transcripts", keyA,
		`{"source_type":"paste","content":"Sunday sermon\nopen your bibles to Revelations 21:4 and Phillipians 4:13"}`)
	if created.status != http.StatusCreated || created.body["status"] != "completed" {
		t.Fatalf("paste: %d %s", created.status, created.raw)
	}
	want := "Sunday sermon\nopen your bibles to Revelation 21:4 and Philippians 4:13"
	if created.body["content"] != want || created.body["title"] != "Sunday sermon" {
		t.Fatalf("paste content %q title %q", created.body["content"], created.body["title"])
	}
	id := created.body["id"].(string)

	got := call(t, http.MethodGet, url+"/api/v1/transcripts/"+id, keyA, "")
	if got.status != 200 || got.body["content"] != want {
		t.Fatalf("GET: %d %s", got.status, got.raw)
	}
	if a := call(t, http.MethodGet, url+"/api/v1/transcripts/"+id, keyB, ""); a.status != 403 || errType(a) != "forbidden" {
		t.Fatalf("GET with another organization's key: %d %s", a.status, a.raw)
	}
	if a := call(t, http.MethodGet, url+"/api/v1/transcripts/tr_missing", keyA, ""); a.status != 404 || errType(a) != "not_found" {
		t.Fatalf("GET of an unknown id: %d %s", a.status, a.raw)
	}
	if a := call(t, http.MethodPost, url+"/api/v1/transcripts", keyA, `{"source_type":"paste"}`); a.status != 400 {
		t.Fatalf("paste without content: %d %s", a.status, a.raw)
	}

	// With normalize_references, a spoken reference is written as one that exists, and the
	// change carries it as data, in the shape the OpenAPI document gives (call validates it).
	spoken := call(t, http.MethodPost, url+"/api/v1/transcripts", keyA,
		`{"source_type":"paste","content":"turn with me to psalm one forty five verse three","options":{"normalize_references":true}}`)
	if spoken.status != http.StatusCreated || !strings.Contains(spoken.body["content"].(string), "Psalm 145:3") {
		t.Fatalf("a spoken reference: %d %s", spoken.status, spoken.raw)
	}
	changes := call(t, http.MethodGet, url+"/api/v1/transcripts/"+spoken.body["id"].(string)+"/changes", keyA, "")
	osis := []string{}
	for _, c := range changes.body["data"].([]any) {
		if ref, ok := c.(map[string]any)["reference"].(map[string]any); ok {
			osis = append(osis, fmt.Sprint(ref["osis"]))
		}
	}
	if changes.status != 200 || !slices.Contains(osis, "Ps.145.3") {
		t.Fatalf("the references of the changes: %v\n%s", osis, changes.raw)
	}

	// Soft delete, then a cluster admin restores it.
	if a := call(t, http.MethodDelete, url+"/api/v1/transcripts/"+id, keyA, ""); a.status != 200 || a.body["deleted"] != true {
		t.Fatalf("DELETE: %d %s", a.status, a.raw)
	}
	if a := call(t, http.MethodGet, url+"/api/v1/transcripts/"+id, keyA, ""); a.status != 404 {
		t.Fatalf("GET after DELETE: %d %s", a.status, a.raw)
	}
	restore := exec.Command(tcsBin, "admin", "transcript", "restore", id, "--kubeconfig", dev.env["KUBECONFIG"])
	if out, err := restore.CombinedOutput(); err != nil || !strings.Contains(string(out), "restored "+id) {
		t.Fatalf("tcs admin transcript restore: %v\n%s", err, out)
	}
	if a := call(t, http.MethodGet, url+"/api/v1/transcripts/"+id, keyA, ""); a.status != 200 || a.body["content"] != want {
		t.Fatalf("GET after restore: %d %s", a.status, a.raw)
	}
	if out, err := exec.Command(tcsBin, "admin", "transcript", "restore", id, "--kubeconfig", dev.env["KUBECONFIG"]).CombinedOutput(); err == nil {
		t.Fatalf("restoring a transcript that is not deleted succeeded: %s", out)
	}

	// kubectl users see the transcript with its printer columns.
	assets, err := controlplane.FindAssets(testenv.Root())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(assets, "kubectl"), "--kubeconfig", dev.env["KUBECONFIG"], "get", "transcripts", "-A").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl: %v\n%s", err, out)
	}
	header := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
	if strings.Join(header, " ") != "NAMESPACE NAME ID ORG SOURCE STATUS AI CHANGES AGE" {
		t.Fatalf("kubectl columns %v", header)
	}
	if !strings.Contains(string(out), id) || !strings.Contains(string(out), "completed") {
		t.Fatalf("kubectl does not list %s as completed:\n%s", id, out)
	}

	// Ctrl-C stops every child process: etcd and kube-apiserver.
	kids := children(dev.cmd.Process.Pid)
	if len(kids) < 2 {
		t.Fatalf("tcs dev runs %d child processes, want etcd and kube-apiserver", len(kids))
	}
	dev.stop(t)
	for _, k := range kids {
		if alive(k) {
			t.Errorf("child process %d left after stop", k)
		}
	}
	if left := childProcesses(t, stateDir); len(left) > 0 {
		t.Fatalf("processes left after stop: %v", left)
	}

	// A second run on the same state dir keeps the data and the demo keys.
	again := startDev(t, stateDir)
	for _, k := range []string{"TCS_API_KEY", "TCS_ORG", "TCS_API_KEY_B", "TCS_ORG_B"} {
		if again.env[k] != dev.env[k] {
			t.Errorf("%s changed across restarts: %s → %s", k, dev.env[k], again.env[k])
		}
	}
	if a := call(t, http.MethodGet, again.env["TCS_URL"]+"/api/v1/transcripts/"+id, keyA, ""); a.status != 200 || a.body["content"] != want {
		t.Fatalf("GET after restart: %d %s", a.status, a.raw)
	}
	again.stop(t)

	// Only one tcs dev may use a state dir at a time.
	first := startDev(t, stateDir)
	second := exec.Command(tcsBin, "dev", "--state-dir", stateDir, "--listen", "127.0.0.1:0", "--root", testenv.Root())
	out, err = second.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another tcs dev is running") {
		t.Fatalf("a second tcs dev on the same state dir: %v\n%s", err, out)
	}
	first.stop(t)
}

// A tcs dev whose parent died (its output pipes closed) still stops its children on SIGINT.
func TestDevStopsChildrenAfterItsParentWentAway(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	cmd := exec.Command(tcsBin, "dev", "--state-dir", stateDir, "--listen", "127.0.0.1:0", "--root", testenv.Root())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	ready := false
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "KUBECONFIG=") {
			ready = true
			break
		}
	}
	if !ready {
		t.Fatalf("tcs dev did not print its env lines")
	}
	kids := children(cmd.Process.Pid)
	// The reader goes away, as a terminal or a parent process does.
	stdout.Close()
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("tcs dev did not stop")
	}
	time.Sleep(200 * time.Millisecond)
	for _, k := range kids {
		if alive(k) {
			_ = syscallKill(k)
			t.Errorf("child process %d left behind", k)
		}
	}
}

func syscallKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
