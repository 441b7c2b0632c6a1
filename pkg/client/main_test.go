package client_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// TestMain runs the examples against the real service: it starts `tcs dev` ($TCS_BIN, or a
// binary built for this run) and hands its URL and demo keys to the examples as TCS_URL,
// TCS_API_KEY and TCS_API_KEY_B, the variables `make run` prints.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "tcs-client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin := os.Getenv("TCS_BIN")
	if bin == "" {
		bin = filepath.Join(tmp, "tcs")
		build := exec.Command("go", "build", "-o", bin, "./cmd/tcs")
		build.Dir = testenv.Root()
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building tcs:", err)
			return 1
		}
	}
	stateDir := filepath.Join(tmp, "state")
	cmd := exec.Command(bin, "dev", "--state-dir", stateDir, "--listen", "127.0.0.1:0", "--root", testenv.Root())
	// A file, not a pipe: the control plane tcs dev starts inherits it, and a pipe would keep
	// cmd.Wait waiting for them.
	logPath := filepath.Join(tmp, "tcs-dev.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	showLog := func() {
		data, _ := os.ReadFile(logPath)
		fmt.Fprintf(os.Stderr, "tcs dev's log:\n%s", data)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "starting tcs dev:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()

	env, err := waitForEnv(filepath.Join(stateDir, "env"), done)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		showLog()
		return 1
	}
	for _, k := range []string{"TCS_URL", "TCS_API_KEY", "TCS_API_KEY_B"} {
		if env[k] == "" {
			fmt.Fprintf(os.Stderr, "tcs dev's env file lacks %s\n", k)
			return 1
		}
		os.Setenv(k, env[k])
	}
	code := m.Run()
	if code != 0 {
		showLog()
	}
	return code
}

// waitForEnv waits for tcs dev to write its env file, which it does once it serves.
func waitForEnv(path string, done chan error) (map[string]string, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			env := map[string]string{}
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), "="); ok {
					env[k] = v
				}
			}
			return env, nil
		}
		select {
		case err := <-done:
			done <- err // for the deferred stop
			return nil, fmt.Errorf("tcs dev exited before it was ready: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("tcs dev was not ready after 2 minutes")
}
