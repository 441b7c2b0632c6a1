// Package testenv starts the real local control plane for tests that need a Kubernetes API.
// Tests fail, never skip, when its binaries are missing.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/config/crd"
	"tcs.dev/tcs/internal/controlplane"
)

// Root returns the repository root (where go.mod is).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
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
