// Package testenv starts the real local control plane for tests that need a Kubernetes API.
// Tests fail, never skip, when its binaries are missing.
package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/config/crd"
	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/kube/workingset"
)

// Root returns the repository root (where go.mod is).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Env is a running control plane with the tcs CRDs installed.
type Env struct {
	Config     *rest.Config
	Kubeconfig []byte
	cp         *controlplane.ControlPlane
}

// Start starts etcd and kube-apiserver with the CRDs; call Stop when done. It exits the test
// binary with a clear message when the binaries are missing, so that no test silently skips.
func Start() (*Env, error) {
	assets, err := controlplane.FindAssets(Root())
	if err != nil {
		return nil, err
	}
	crds, err := crd.CRDs()
	if err != nil {
		return nil, err
	}
	cp, err := controlplane.Start(controlplane.Options{AssetsDir: assets, CRDs: crds, AttachOutput: os.Getenv("TCS_TEST_ATTACH") != ""})
	if err != nil {
		return nil, err
	}
	return &Env{Config: cp.Config, Kubeconfig: cp.Kubeconfig, cp: cp}, nil
}

// Stop stops the control plane.
func (e *Env) Stop() error { return e.cp.Stop() }

// Client returns a client of e for scheme-registered types; it fails t on error.
func (e *Env) Client(t testing.TB, opts client.Options) client.Client {
	t.Helper()
	c, err := client.New(e.Config, opts)
	if err != nil {
		t.Fatalf("creating a client: %v", err)
	}
	return c
}

// Main starts the control plane into *env, runs the tests of a package and stops it; it exits
// with a clear message, never skipping, when the control plane cannot start.
func Main(m *testing.M, env **Env) {
	e, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need the local control plane:", err)
		os.Exit(1)
	}
	*env = e
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// Namespace creates a new namespace named prefix and a unique suffix.
func (e *Env) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
	c := e.Client(t, client.Options{Scheme: scheme.New()})
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	return ns
}

// NewManager returns a manager watching namespace ns, with no metrics endpoint, and logs on
// stderr when TCS_TEST_LOG is set. Tests start several managers: controller names may repeat.
func (e *Env) NewManager(t testing.TB, ns string) ctrl.Manager {
	t.Helper()
	var logOut io.Writer = io.Discard
	if os.Getenv("TCS_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	opts, err := managerOptions(ns, logOut, zapcore.Level(-1))
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(e.Config, opts)
	if err != nil {
		t.Fatalf("creating a manager: %v", err)
	}
	return mgr
}

// NewChildManager returns a manager for a child process that a test starts and kills, to show
// that a step survives a crash: it reaches the test's control plane through kubeconfigFile,
// watches namespace ns and logs on stderr.
func NewChildManager(kubeconfigFile, ns string) (ctrl.Manager, error) {
	kubeconfig, err := os.ReadFile(kubeconfigFile)
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	opts, err := managerOptions(ns, os.Stderr, zapcore.InfoLevel)
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("creating a manager: %w", err)
	}
	return mgr, nil
}

// managerOptions are the options of a test's manager: namespace ns only, Transcripts of the
// working set only (not marked archived, as in the service), no metrics endpoint, logs on out
// from level, and controller names that may repeat across managers.
func managerOptions(ns string, out io.Writer, level zapcore.Level) (ctrl.Options, error) {
	workingSet, err := workingset.Selector()
	if err != nil {
		return ctrl.Options{}, err
	}
	return ctrl.Options{
		Scheme: scheme.New(),
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}},
			ByObject: map[client.Object]cache.ByObject{&tcsv1.Transcript{}: {Label: workingSet}}},
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Logger:     zap.New(zap.WriteTo(out), zap.Level(level)),
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}, nil
}

// Run starts mgr and returns a func that stops it and waits for it to end.
func Run(t testing.TB, mgr ctrl.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("manager: %v", err)
			}
		})
	}
}

// SyncBuffer is a bytes.Buffer safe for a writer (such as a child process's output) and a
// concurrent reader.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns a copy of what was written so far.
func (b *SyncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// String returns what was written so far.
func (b *SyncBuffer) String() string { return string(b.Bytes()) }

// DefaultImage returns the image `make docker-build` builds when IMG is not given, as make
// itself works it out.
func DefaultImage() (string, error) {
	cmd := exec.Command("make", "--no-print-directory", "-n", "docker-build")
	cmd.Dir = Root()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IMG=") && !strings.HasPrefix(kv, "VERSION=") && !strings.HasPrefix(kv, "MAKEFLAGS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("make -n docker-build: %w", err)
	}
	fields := strings.Fields(string(out))
	for i, f := range fields {
		if f == "-t" && i+1 < len(fields) {
			return fields[i+1], nil
		}
	}
	return "", fmt.Errorf("make -n docker-build printed %q, without -t IMAGE", out)
}
