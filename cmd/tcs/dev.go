package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/apiserver/dashboard"
	"tcs.dev/tcs/config/crd"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/platform/kube/scheme"
)

func newDevCommand() *cobra.Command {
	o := serveOptions{api: true, controllers: true, metricsAddr: "0", probeAddr: "0"}
	var stateDir, root string
	var attach bool
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the service on its embedded default: a local control plane and a filesystem object store",
		Long: `dev starts etcd and kube-apiserver (built by hack/envtest.sh), installs the CRDs, creates two
demo organizations with one API key each, and runs the REST API and the controllers. Once ready it
prints TCS_URL, TCS_API_KEY, TCS_ORG, TCS_API_KEY_B, TCS_ORG_B, KUBECONFIG and TCS_RESULTS_DSN, and
writes the same lines to <state dir>/env. All data (etcd, the object store and the results store of
archived transcripts) lives in the state dir, so a second
run keeps it and reuses the demo keys.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.storeURL == "" {
				o.storeURL = filepath.Join(stateDir, "objects")
			}
			return runDev(cmd.Context(), cmd, stateDir, root, attach, o)
		},
	}
	o.addFlags(cmd, "127.0.0.1:8080", "", "")
	f := cmd.Flags()
	f.StringVar(&stateDir, "state-dir", envOr("TCS_STATE_DIR", ".tcs-dev"), "directory of all local state (env TCS_STATE_DIR)")
	f.StringVar(&root, "root", ".", "project root, where bin/k8s/ holds the control plane")
	f.BoolVar(&attach, "attach-control-plane-output", false, "show the output of etcd and kube-apiserver")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "address of the metrics endpoint; 0 (the default) disables it")
	o.metrics.addFlags(f)
	return cmd
}

func runDev(ctx context.Context, cmd *cobra.Command, stateDir, root string, attach bool, o serveOptions) error {
	// When whoever started us goes away, logging to its closed pipe must not kill this process
	// before it has stopped etcd and kube-apiserver.
	signal.Ignore(syscall.SIGPIPE)
	stateDir, err := filepath.Abs(stateDir)
	if err != nil {
		return fmt.Errorf("resolving the state dir: %w", err)
	}
	if o.resultsDSN == "" {
		o.resultsDSN = filepath.Join(stateDir, "results.db")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("creating the state dir: %w", err)
	}
	unlock, err := lockStateDir(stateDir)
	if err != nil {
		return err
	}
	defer unlock()
	envFile := filepath.Join(stateDir, "env")
	_ = os.Remove(envFile) // written once ready, removed on stop: it exists while the service answers
	defer os.Remove(envFile)

	if len(o.outboundAllow) == 0 {
		// Local sources and webhook receivers of a developer run on 127.0.0.1, and only there.
		o.outboundAllow = []string{"127.0.0.1/32"}
	}
	if o.uploadSecret == "" {
		// Upload URLs stay valid across restarts of the same state dir.
		secret, err := stateSecret(filepath.Join(stateDir, "upload-secret"))
		if err != nil {
			return err
		}
		o.uploadSecret = secret
	}

	assets, err := controlplane.FindAssets(root)
	if err != nil {
		return err
	}
	crds, err := crd.CRDs()
	if err != nil {
		return err
	}
	etcdDir := filepath.Join(stateDir, "etcd")
	// A tcs dev killed before this one may have left its etcd and kube-apiserver running on
	// the same data: they would hold etcd's lock and this start would wait for ever.
	stopped, err := controlplane.StopLeftovers(etcdDir, 10*time.Second)
	if err != nil {
		return err
	}
	for _, l := range stopped {
		fmt.Fprintf(cmd.ErrOrStderr(), "tcs dev: stopped %s (pid %d), left running by an earlier tcs dev on %s\n", l.Name, l.PID, stateDir)
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "tcs dev: starting the local control plane from", assets)
	opts := controlplane.Options{
		AssetsDir:    assets,
		DataDir:      etcdDir,
		CRDs:         crds,
		AttachOutput: attach,
	}
	if runtime.GOOS == "linux" {
		// Through these links etcd and kube-apiserver die with this process, even by SIGKILL.
		opts.ShimDir = filepath.Join(stateDir, "bin")
	}
	cp, err := startControlPlane(ctx, opts, etcdDir)
	if err != nil {
		return err
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "tcs dev:", err)
		}
	}()
	kubeconfig := filepath.Join(stateDir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, cp.Kubeconfig, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", kubeconfig, err)
	}

	c, err := client.New(cp.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	if err := orgs.EnsureNamespace(ctx, c, o.namespace); err != nil {
		return err
	}
	keyA, err := orgs.EnsureDemo(ctx, c, o.namespace, "a", "Demo Church A")
	if err != nil {
		return err
	}
	keyB, err := orgs.EnsureDemo(ctx, c, o.namespace, "b", "Demo Church B")
	if err != nil {
		return err
	}

	invites, err := demoPasswordLinks(ctx, c, o.namespace, keyA.OrganizationID, keyB.OrganizationID)
	if err != nil {
		return err
	}

	ready := func(addr string) {
		public := o.publicURL
		if public == "" {
			public = "http://" + addr
		}
		lines := strings.Join([]string{
			"TCS_URL=http://" + addr,
			"TCS_DASHBOARD_URL=" + strings.TrimSuffix(public, "/") + dashboard.Prefix,
			"TCS_DEMO_EMAIL=" + demoOwnerA,
			"TCS_DEMO_INVITE=" + dashboard.ResetURL(public, invites[0]),
			"TCS_DEMO_EMAIL_B=" + demoOwnerB,
			"TCS_DEMO_INVITE_B=" + dashboard.ResetURL(public, invites[1]),
			"TCS_API_KEY=" + keyA.Value,
			"TCS_ORG=" + keyA.OrganizationID,
			"TCS_API_KEY_B=" + keyB.Value,
			"TCS_ORG_B=" + keyB.OrganizationID,
			"TCS_RESULTS_DSN=" + o.resultsDSN,
			"KUBECONFIG=" + kubeconfig,
		}, "\n") + "\n"
		fmt.Fprint(cmd.OutOrStdout(), lines)
		if err := writeFileAtomic(envFile, []byte(lines), 0o600); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "tcs dev:", err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "tcs dev: the dashboard is at %s; open TCS_DEMO_INVITE to set a password for %s (a one-time link, new at every start, valid 7 days; without --smtp-host, the emails the service sends are in this log)\n", strings.TrimSuffix(public, "/")+dashboard.Prefix, demoOwnerA)
		fmt.Fprintf(cmd.ErrOrStderr(), "tcs dev: ready; the lines above are in %s (source it: set -a; . %s; set +a). Ctrl-C stops.\n", envFile, envFile)
	}
	return serve(ctx, cp.Config, o, ready)
}

// startControlPlane starts the control plane, unless ctx ends first (SIGINT or SIGTERM): then
// it stops what was started and returns ctx's error at once.
func startControlPlane(ctx context.Context, opts controlplane.Options, etcdDir string) (*controlplane.ControlPlane, error) {
	type started struct {
		cp  *controlplane.ControlPlane
		err error
	}
	done := make(chan started, 1)
	go func() {
		cp, err := controlplane.Start(opts)
		done <- started{cp, err}
	}()
	select {
	case s := <-done:
		return s.cp, s.err
	case <-ctx.Done():
		// Start cannot be interrupted: stop its processes from outside (they would also die
		// with this process), and leave it behind.
		_, _ = controlplane.StopLeftovers(etcdDir, 5*time.Second)
		return nil, fmt.Errorf("stopped while the control plane was starting: %w", context.Cause(ctx))
	}
}

// lockStateDir makes sure only one `tcs dev` uses a state dir at a time.
func lockStateDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the state-dir lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another tcs dev is running on %s", dir)
		}
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// stateSecret reads the secret kept in path, creating it the first time.
func stateSecret(path string) (string, error) {
	if data, err := os.ReadFile(path); err == nil && len(data) >= 32 {
		return strings.TrimSpace(string(data)), nil
	}
	secret := ids.Random(48)
	if err := writeFileAtomic(path, []byte(secret+"\n"), 0o600); err != nil {
		return "", err
	}
	return secret, nil
}

// The demo owners of the demo organizations of `tcs dev`.
const (
	demoOwnerA = "owner@demo-a.example"
	demoOwnerB = "owner@demo-b.example"
)

// demoPasswordLinks makes the demo owners owners of their demo organizations and returns, for
// each, the token of a fresh link at which the developer sets (again) its password. They are
// printed on the operator's own terminal, never shown in the dashboard.
func demoPasswordLinks(ctx context.Context, c client.Client, namespace, orgA, orgB string) ([]string, error) {
	// As long as the invitations of the demo owners lasted before: a developer comes back to it.
	a, err := accounts.New(accounts.Options{Client: c, Namespace: namespace, ResetTTL: 7 * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	var tokens []string
	for _, d := range []struct{ org, email string }{{orgA, demoOwnerA}, {orgB, demoOwnerB}} {
		if _, err := a.Role(ctx, d.org, d.email); errors.Is(err, accounts.ErrNotFound) {
			if err := a.SetMember(ctx, d.org, d.email, accounts.RoleOwner); err != nil {
				return nil, fmt.Errorf("making %s the owner of its demo organization: %w", d.email, err)
			}
		} else if err != nil {
			return nil, err
		}
		tok, err := a.IssueReset(ctx, d.email)
		if err != nil {
			return nil, fmt.Errorf("making a password link for the demo owner %s: %w", d.email, err)
		}
		tokens = append(tokens, tok)
	}
	return tokens, nil
}
