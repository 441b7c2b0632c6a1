// Package controlplane starts a local Kubernetes control plane (etcd and kube-apiserver built
// from source by hack/envtest.sh) for `tcs dev` and the tests.
package controlplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// KubernetesVersion is the version of the control plane that hack/envtest.sh builds.
const KubernetesVersion = "1.37.1"

var binaries = []string{"etcd", "kube-apiserver", "kubectl"}

// ErrNoAssets is returned when the control-plane binaries cannot be found.
var ErrNoAssets = errors.New("the local control plane (etcd, kube-apiserver, kubectl) is not built: run `make envtest` (hack/envtest.sh) or set KUBEBUILDER_ASSETS")

// FindAssets returns the directory that holds etcd, kube-apiserver and kubectl: KUBEBUILDER_ASSETS
// when set, else bin/k8s/<version>-<os>-<arch> below root (when root is not empty), else the
// directory where setup-envtest and hack/envtest.sh keep them.
func FindAssets(root string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		if complete(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("KUBEBUILDER_ASSETS=%s lacks one of %v: %w", dir, binaries, ErrNoAssets)
	}
	platform := KubernetesVersion + "-" + runtime.GOOS + "-" + runtime.GOARCH
	var candidates []string
	if root != "" {
		candidates = append(candidates, filepath.Join(root, "bin", "k8s", platform))
	}
	if shared, err := envtest.SetupEnvtestDefaultBinaryAssetsDirectory(); err == nil {
		candidates = append(candidates, filepath.Join(shared, platform))
	}
	for _, dir := range candidates {
		if complete(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("looked in %v: %w", candidates, ErrNoAssets)
}

func complete(dir string) bool {
	for _, b := range binaries {
		st, err := os.Stat(filepath.Join(dir, b))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// Options configures a control plane.
type Options struct {
	// AssetsDir holds the binaries (see FindAssets).
	AssetsDir string
	// DataDir keeps etcd's data; empty means a temporary directory removed on Stop.
	DataDir string
	// CRDs are installed once the API server is up.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// AttachOutput copies the processes' output to this process's stdout and stderr.
	AttachOutput bool
	// ShimDir, when set, holds links named etcd and kube-apiserver to the running binary,
	// which must call ExecChild first in main: through them the processes die with this one
	// even when it is killed (Linux).
	ShimDir string
}

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	env *envtest.Environment
	// Config reaches the API server as a cluster admin.
	Config *rest.Config
	// Kubeconfig is a kubeconfig file for a cluster admin.
	Kubeconfig []byte
	// KubectlPath is the kubectl binary of the same version.
	KubectlPath string
}

// Start starts etcd and kube-apiserver and installs the CRDs.
func Start(opts Options) (*ControlPlane, error) {
	env := &envtest.Environment{
		BinaryAssetsDirectory:    opts.AssetsDir,
		CRDs:                     opts.CRDs,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  20 * time.Second,
		AttachControlPlaneOutput: opts.AttachOutput,
	}
	env.ControlPlane.Etcd = &envtest.Etcd{}
	if opts.DataDir != "" {
		if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("creating etcd data dir: %w", err)
		}
		env.ControlPlane.Etcd.DataDir = opts.DataDir
	}
	if opts.ShimDir != "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the running binary: %w", err)
		}
		etcd, apiserver, err := shim(opts.ShimDir, exe, opts.AssetsDir)
		if err != nil {
			return nil, err
		}
		env.ControlPlane.Etcd.Path = etcd
		env.ControlPlane.GetAPIServer().Path = apiserver
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting the control plane from %s: %w", opts.AssetsDir, err)
	}
	user, err := env.AddUser(envtest.User{Name: "tcs-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("adding the admin user: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("writing the admin kubeconfig: %w", err)
	}
	return &ControlPlane{
		env:         env,
		Config:      cfg,
		Kubeconfig:  kubeconfig,
		KubectlPath: filepath.Join(opts.AssetsDir, "kubectl"),
	}, nil
}

// Stop stops kube-apiserver and etcd; etcd's data stays when Options.DataDir was given.
func (c *ControlPlane) Stop() error {
	if err := c.env.Stop(); err != nil {
		return fmt.Errorf("stopping the control plane: %w", err)
	}
	return nil
}
