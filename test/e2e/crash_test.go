package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// killDev kills p with SIGKILL, as a crash or the OOM killer does, and waits for it.
func killDev(t *testing.T, p *devProcess) {
	t.Helper()
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("tcs dev did not die of SIGKILL")
	}
}

// waitDead waits up to 10 s for the processes to be gone, and fails the test for those left.
func waitDead(t *testing.T, pids []int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			_ = syscallKill(pid)
			t.Errorf("%s: process %d left running", what, pid)
		}
	}
}

// A tcs dev killed with SIGKILL takes etcd and kube-apiserver with it, and the next start on
// the same state dir is ready within seconds with the data of the first.
func TestDevRecoversFromSIGKILL(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	first := startDev(t, stateDir)
	created := call(t, http.MethodPost, first.env["TCS_URL"]+"/api/v1/transcripts", first.env["TCS_API_KEY"], `{"source_type":"paste","content":"read revelations 21"}`)
	if created.status != 201 {
		t.Fatalf("paste: %d %s", created.status, created.raw)
	}
	kids := children(first.cmd.Process.Pid)
	if len(kids) < 2 {
		t.Fatalf("tcs dev runs %d child processes, want etcd and kube-apiserver", len(kids))
	}
	killDev(t, first)
	waitDead(t, kids, "after SIGKILL of tcs dev")

	// The env file of a killed tcs dev stays; the next start replaces it.
	_ = os.Remove(filepath.Join(stateDir, "env"))
	start := time.Now()
	second := startDev(t, stateDir)
	took := time.Since(start)
	t.Logf("ready %s after the restart", took.Round(100*time.Millisecond))
	if took > 40*time.Second {
		t.Errorf("ready after %s: the restart waited on something its predecessor left", took)
	}
	got := call(t, http.MethodGet, second.env["TCS_URL"]+"/api/v1/transcripts/"+created.body["id"].(string), second.env["TCS_API_KEY"], "")
	if got.status != 200 || got.body["status"] != "completed" {
		t.Fatalf("the transcript after the restart: %d %s", got.status, got.raw)
	}
	if strings.Contains(second.stderr.String(), "left running by an earlier tcs dev") {
		t.Errorf("the children of the killed tcs dev were still running at the restart:\n%s", second.stderr)
	}
}

// freeAddr returns a free loopback port as host:port.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// An etcd left on the state dir by an earlier tcs dev (one that did not take its children
// along) is stopped by the next start, which says so in one line and is ready within seconds.
func TestDevStopsTheEtcdItsPredecessorLeft(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	assets, err := controlplane.FindAssets(testenv.Root())
	if err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(stateDir, "etcd")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	client, peer := "http://"+freeAddr(t), "http://"+freeAddr(t)
	orphan := exec.Command(filepath.Join(assets, "etcd"), "--data-dir="+dataDir, "--listen-client-urls="+client,
		"--advertise-client-urls="+client, "--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=default="+peer)
	// Its own process group, as envtest starts it: it outlives whoever started it.
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = orphan.Wait() }()
	t.Cleanup(func() { _ = orphan.Process.Kill() })
	// etcd holds its data dir once it serves.
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(client + "/health")
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orphan etcd did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	start := time.Now()
	dev := startDev(t, stateDir)
	took := time.Since(start)
	t.Logf("ready %s after stopping the orphan", took.Round(100*time.Millisecond))
	want := fmt.Sprintf("stopped etcd (pid %d), left running by an earlier tcs dev on %s", orphan.Process.Pid, stateDir)
	if !strings.Contains(dev.stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, dev.stderr)
	}
	if took > 40*time.Second {
		t.Errorf("ready after %s", took)
	}
	waitDead(t, []int{orphan.Process.Pid}, "the orphan etcd")
}

// SIGTERM while the control plane starts ends tcs dev at once, and its children with it.
func TestDevHonoursSIGTERMWhileStarting(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	cmd := exec.Command(tcsBin, "dev", "--state-dir", stateDir, "--listen", "127.0.0.1:0", "--root", testenv.Root())
	stderr := &testenv.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until etcd runs, before kube-apiserver is ready.
	deadline := time.Now().Add(30 * time.Second)
	for len(children(cmd.Process.Pid)) == 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no child process after 30 s\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	kids := children(cmd.Process.Pid)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("tcs dev ignored SIGTERM while starting\n%s", stderr)
	}
	waitDead(t, kids, "after SIGTERM while starting")
	// A child that was still starting when its parent died (the tcs shim that becomes etcd)
	// finds its parent gone and exits by itself, a moment later.
	deadline = time.Now().Add(5 * time.Second)
	for left := childProcesses(t, stateDir); len(left) > 0; left = childProcesses(t, stateDir) {
		if time.Now().After(deadline) {
			t.Errorf("processes still on the state dir 5 s after tcs dev stopped: %v", left)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}
