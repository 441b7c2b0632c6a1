package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeStartsWithoutPublicURL runs `tcs manager` and `tcs run` as child processes with
// a filesystem object store, with and without --public-url: each becomes ready and stops
// cleanly on SIGTERM. The manager serves no uploads, so it needs no public URL.
func TestServeStartsWithoutPublicURL(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"manager without --public-url", []string{"manager"}},
		{"manager with --public-url", []string{"manager", "--public-url", "http://127.0.0.1:9"}},
		{"run without --public-url", []string{"run", "--listen", "127.0.0.1:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			probes := freeAddr(t)
			args := append(tc.args, "--kubeconfig", kubeconfig, "--namespace", env.Namespace(t, "tcs-serve"),
				"--store", filepath.Join(dir, "objects"), "--results-dsn", "sqlite://"+filepath.Join(dir, "results.db"),
				"--metrics-bind-address", "0", "--health-probe-bind-address", probes)
			argsJSON, err := json.Marshal(args)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(withoutEnv(os.Environ(), "TCS_PUBLIC_URL", "TCS_STORE"), childArgsEnv+"="+string(argsJSON))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					_ = cmd.Process.Kill()
				}
			})

			deadline := time.After(60 * time.Second)
			for ready := false; !ready; {
				select {
				case err := <-exited:
					t.Fatalf("tcs %s exited before it was ready (%v):\n%s", tc.args[0], err, stderr.String())
				case <-deadline:
					t.Fatalf("tcs %s was not ready within a minute:\n%s", tc.args[0], stderr.String())
				case <-time.After(100 * time.Millisecond):
				}
				if res, err := http.Get("http://" + probes + "/readyz"); err == nil {
					res.Body.Close()
					ready = res.StatusCode == http.StatusOK
				}
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("tcs %s stopped with %v:\n%s", tc.args[0], err, stderr.String())
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("tcs %s did not stop within a minute of SIGTERM:\n%s", tc.args[0], stderr.String())
			}
		})
	}
}

// withoutEnv returns environ without the variables names.
func withoutEnv(environ []string, names ...string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
