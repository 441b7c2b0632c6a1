package controlplane

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// envChildAssets, when set in the environment of tcs started as "etcd" or "kube-apiserver",
// names the directory of the real binary: see ExecChild.
const envChildAssets = "TCS_CONTROL_PLANE_ASSETS"

// envChildParent holds the pid of the tcs that starts the control plane, so that a child can
// tell that its parent died before the parent-death signal was set: reading the parent pid
// only in the child would see init's pid after such a death, and miss it.
const envChildParent = "TCS_CONTROL_PLANE_PARENT"

// childNames are the control-plane processes that run through the ExecChild shim.
var childNames = []string{"etcd", "kube-apiserver"}

// ExecChild replaces the current process with the real etcd or kube-apiserver when the
// binary was started as one of them by a control plane with Options.Executable, after asking
// the kernel to kill it when its parent dies; it returns, doing nothing, otherwise. Call it
// first in main.
func ExecChild() {
	dir := os.Getenv(envChildAssets)
	name := filepath.Base(os.Args[0])
	if dir == "" || !slices.Contains(childNames, name) {
		return
	}
	// The parent-death signal belongs to this thread, which must be the one that execs.
	runtime.LockOSThread()
	parent, err := strconv.Atoi(os.Getenv(envChildParent))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s is not a pid: %v\n", name, envChildParent, err)
		os.Exit(1)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "%s: setting the parent-death signal: %v\n", name, err)
		os.Exit(1)
	}
	if os.Getppid() != parent {
		os.Exit(1) // the parent died before the signal was set
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, envChildAssets+"=") || strings.HasPrefix(kv, envChildParent+"=")
	})
	real := filepath.Join(dir, name)
	err = unix.Exec(real, append([]string{real}, os.Args[1:]...), env)
	fmt.Fprintf(os.Stderr, "%s: starting %s: %v\n", name, real, err)
	os.Exit(1)
}

// shim prepares, in dir, the names etcd and kube-apiserver for exe (the running tcs binary),
// so that envtest starts them through ExecChild, and sets the environment it reads.
func shim(dir, exe, assets string) (etcd, apiserver string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("creating %s: %w", dir, err)
	}
	for _, name := range childNames {
		link := filepath.Join(dir, name)
		_ = os.Remove(link)
		if err := os.Symlink(exe, link); err != nil {
			return "", "", fmt.Errorf("linking %s: %w", link, err)
		}
	}
	if err := os.Setenv(envChildAssets, assets); err != nil {
		return "", "", err
	}
	if err := os.Setenv(envChildParent, strconv.Itoa(os.Getpid())); err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "etcd"), filepath.Join(dir, "kube-apiserver"), nil
}

// Leftover is a process of an earlier control plane on the same etcd data dir.
type Leftover struct {
	PID  int
	Name string
}

// FindLeftovers returns the etcd that keeps its data in dataDir, and the kube-apiservers that
// use that etcd, as /proc shows them: what an earlier control plane on the same data dir left
// running when its parent was killed.
func FindLeftovers(dataDir string) ([]Leftover, error) {
	dataDir = filepath.Clean(dataDir)
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		return nil, err
	}
	type proc struct {
		pid  int
		args []string
	}
	var procs []proc
	for _, f := range cmdlines {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil || len(data) == 0 {
			continue
		}
		procs = append(procs, proc{pid, strings.Split(string(bytes.TrimRight(data, "\x00")), "\x00")})
	}
	var out []Leftover
	var clientURLs []string
	for _, p := range procs {
		if filepath.Base(p.args[0]) == "etcd" && filepath.Clean(flag(p.args, "data-dir")) == dataDir {
			out = append(out, Leftover{PID: p.pid, Name: "etcd"})
			for _, u := range strings.Split(flag(p.args, "listen-client-urls"), ",") {
				if u != "" {
					clientURLs = append(clientURLs, u)
				}
			}
		}
	}
	for _, p := range procs {
		if filepath.Base(p.args[0]) != "kube-apiserver" {
			continue
		}
		for _, u := range strings.Split(flag(p.args, "etcd-servers"), ",") {
			if u != "" && slices.Contains(clientURLs, u) {
				out = append(out, Leftover{PID: p.pid, Name: "kube-apiserver"})
				break
			}
		}
	}
	return out, nil
}

// flag returns the value of --name=value or --name value in args, or "".
func flag(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// StopLeftovers stops the processes FindLeftovers finds for dataDir: SIGTERM, and SIGKILL
// to those still running after grace. It returns what it stopped; the error names, in one
// line, what it could not stop and how to.
func StopLeftovers(dataDir string, grace time.Duration) ([]Leftover, error) {
	found, err := FindLeftovers(dataDir)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	// kube-apiserver first: it loses its etcd otherwise and logs for nothing.
	slices.SortStableFunc(found, func(a, b Leftover) int { return strings.Compare(b.Name, a.Name) })
	var failed []string
	for _, l := range found {
		if err := syscall.Kill(l.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			failed = append(failed, fmt.Sprintf("%s (pid %d): %v", l.Name, l.PID, err))
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%s, left by an earlier tcs dev, still use %s; stop them with: kill %s",
			strings.Join(failed, ", "), dataDir, pids(found))
	}
	deadline := time.Now().Add(grace)
	for _, l := range found {
		for processAlive(l.PID) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if processAlive(l.PID) {
			_ = syscall.Kill(l.PID, syscall.SIGKILL)
		}
	}
	for _, l := range found {
		for i := 0; processAlive(l.PID) && i < 100; i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if processAlive(l.PID) {
			return found, fmt.Errorf("%s (pid %d), left by an earlier tcs dev, does not stop and still uses %s; stop it with: kill -9 %s",
				l.Name, l.PID, dataDir, pids(found))
		}
	}
	return found, nil
}

func pids(ls []Leftover) string {
	var s []string
	for _, l := range ls {
		s = append(s, strconv.Itoa(l.PID))
	}
	return strings.Join(s, " ")
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
