package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"tcs.dev/tcs/internal/platform/kube/scheme"
)

// newManager builds the manager of o: its cache, its metrics server, its health probes and
// leader election. The returned readiness is its ready check, which the caller marks.
func newManager(cfg *rest.Config, o serveOptions) (ctrl.Manager, *readiness, error) {
	// Every transcript costs a few writes; client-go's default of 5 QPS would be the bottleneck.
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 200, 400
	}
	apiKeys, workingSet, err := selectors()
	if err != nil {
		return nil, nil, err
	}
	metricsAddr := o.metricsAddr
	if metricsAddr == "" {
		metricsAddr = "0"
	}
	metricsServer, certs, err := o.metrics.serverOptions(metricsAddr)
	if err != nil {
		return nil, nil, err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme.New(),
		Cache:                   cacheOptions(o.namespace, apiKeys, workingSet),
		Metrics:                 metricsServer,
		HealthProbeBindAddress:  o.probeAddr,
		PprofBindAddress:        o.pprofAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "tcs-manager.tcs.dev",
		LeaderElectionNamespace: o.namespace,
		// A stopping replica hands the lease over at once rather than after it expires; the
		// process exits as soon as the manager stopped.
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 positive(o.leaderElection.leaseDuration),
		RenewDeadline:                 positive(o.leaderElection.renewDeadline),
		RetryPeriod:                   positive(o.leaderElection.retryPeriod),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("creating the manager: %w", err)
	}
	if certs != nil {
		if err := mgr.Add(certs); err != nil {
			return nil, nil, fmt.Errorf("adding the metrics certificate watcher: %w", err)
		}
	}
	serving := &readiness{}
	if o.probeAddr != "" && o.probeAddr != "0" {
		if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
			return nil, nil, fmt.Errorf("adding the health check: %w", err)
		}
		if err := mgr.AddReadyzCheck("readyz", serving.check); err != nil {
			return nil, nil, fmt.Errorf("adding the ready check: %w", err)
		}
	}
	return mgr, serving, nil
}

// addStartMarker adds to mgr a runnable that closes the returned channel once mgr has
// started its runnables, the controllers among them, which it does once its caches have
// synced. Without the API (api false), the service is then ready.
func addStartMarker(mgr ctrl.Manager, serving *readiness, api bool) (<-chan struct{}, error) {
	running := make(chan struct{})
	if err := mgr.Add(apiRunnable(func(ctx context.Context) error {
		close(running)
		if !api {
			serving.during(ctx)
		}
		return nil
	})); err != nil {
		return nil, fmt.Errorf("adding the start marker: %w", err)
	}
	return running, nil
}

// runManager runs mgr until ctx ends and it stopped. running is closed once mgr's caches
// have synced: a manager stopped before that (its caches never sync when, say, its
// ServiceAccount may not list its resources) never returns, but has started no controller,
// so it is left behind.
func runManager(ctx context.Context, mgr ctrl.Manager, running <-chan struct{}, log logr.Logger) error {
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	select {
	case err := <-done:
		return managerErr(err)
	case <-ctx.Done():
	}
	select {
	case <-running:
		// The manager stops its runnables within its graceful-shutdown timeout.
		return managerErr(<-done)
	case err := <-done:
		return managerErr(err)
	case <-time.After(time.Second):
		log.Info("stopped before the caches synced")
		return nil
	}
}

func managerErr(err error) error {
	if err != nil {
		return fmt.Errorf("running the manager: %w", err)
	}
	return nil
}

// readiness is the service's ready check: it passes from when the service serves until it
// begins to stop, so that no traffic is routed to a replica whose caches are still empty or
// that is shutting down.
type readiness struct{ ok atomic.Bool }

// during marks the service ready until ctx ends.
func (r *readiness) during(ctx context.Context) {
	r.ok.Store(true)
	context.AfterFunc(ctx, func() { r.ok.Store(false) })
}

func (r *readiness) check(*http.Request) error {
	if !r.ok.Load() {
		return errors.New("not serving yet, or stopping")
	}
	return nil
}

// apiRunnable runs on every replica, leader or not.
type apiRunnable func(ctx context.Context) error

func (f apiRunnable) Start(ctx context.Context) error { return f(ctx) }

func (apiRunnable) NeedLeaderElection() bool { return false }

// leaderElectionOptions time the leader election of --leader-elect: how soon a replica takes
// over from a leader that died without handing the lease over (a SIGKILL, a lost node) is
// at most leaseDuration plus retryPeriod.
type leaderElectionOptions struct {
	// leaseDuration is how long the other replicas wait, after the leader's last renewal,
	// before they take the lease.
	leaseDuration time.Duration
	// renewDeadline is how long the leader keeps trying to renew before it gives up the lead
	// (and the process exits); shorter than leaseDuration.
	renewDeadline time.Duration
	// retryPeriod is how often every replica tries to acquire or renew the lease.
	retryPeriod time.Duration
}

// The defaults of client-go's leader election, which controller-runtime uses.
const (
	defaultLeaseDuration = 15 * time.Second
	defaultRenewDeadline = 10 * time.Second
	defaultRetryPeriod   = 2 * time.Second
)

func (o *leaderElectionOptions) addFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", defaultLeaseDuration, "with --leader-elect: how long after the leader's last renewal the other replicas take over; a leader that died without handing over is replaced within this plus --leader-elect-retry-period")
	f.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", defaultRenewDeadline, "with --leader-elect: how long the leader tries to renew its lease before it gives up the lead and exits; less than --leader-elect-lease-duration")
	f.DurationVar(&o.retryPeriod, "leader-elect-retry-period", defaultRetryPeriod, "with --leader-elect: how often the replicas try to acquire or renew the lease")
}

// positive returns a pointer to d, or nil (the default) when d is not positive.
func positive(d time.Duration) *time.Duration {
	if d <= 0 {
		return nil
	}
	return &d
}
