package main

import (
	"context"
	"fmt"
	"net"

	"github.com/spf13/cobra"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/apiserver"
	"tcs.dev/tcs/controllers"
	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/correction"
	"tcs.dev/tcs/internal/pipeline"
	"tcs.dev/tcs/internal/scheme"
)

// serveOptions configures the API and the controllers.
type serveOptions struct {
	kubeconfig  string
	namespace   string
	listen      string
	storeURL    string
	metricsAddr string
	probeAddr   string
	leaderElect bool
	verbosity   int
	api         bool
	controllers bool
}

func (o *serveOptions) addFlags(cmd *cobra.Command, defaultListen, defaultStore string) {
	f := cmd.Flags()
	f.StringVar(&o.namespace, "namespace", envOr("TCS_NAMESPACE", "tcs-system"), "namespace of the transcripts and API keys (env TCS_NAMESPACE)")
	f.StringVar(&o.listen, "listen", envOr("TCS_LISTEN", defaultListen), "address of the REST API (env TCS_LISTEN)")
	f.StringVar(&o.storeURL, "store", envOr("TCS_STORE", defaultStore), "object store: a directory or file:///dir (env TCS_STORE)")
	f.IntVarP(&o.verbosity, "verbosity", "v", 0, "log verbosity; 1 logs every request")
}

func newServeCommand(use, short string, api, ctrls bool) *cobra.Command {
	o := &serveOptions{api: api, controllers: ctrls}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(o.kubeconfig)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), cfg, *o, nil)
		},
	}
	o.addFlags(cmd, ":8080", "/var/lib/tcs/objects")
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file; empty means in-cluster or $KUBECONFIG")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8081", "address of the metrics endpoint; 0 disables it")
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8082", "address of the manager's health probes")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "elect one active controller among replicas")
	return cmd
}

func loadConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		cfg, err := ctrl.GetConfig()
		if err != nil {
			return nil, fmt.Errorf("loading the cluster config: %w", err)
		}
		return cfg, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	return cfg, nil
}

// serve runs the API and/or the controllers until ctx ends; ready, when not nil, is called
// with the API's address once it answers requests.
func serve(ctx context.Context, cfg *rest.Config, o serveOptions, ready func(apiAddr string)) error {
	log := zap.New(zap.Level(zapcore.Level(-o.verbosity)))
	ctrl.SetLogger(log)

	apiKeys, err := labels.Parse(tcsv1.LabelAPIKeyID)
	if err != nil {
		return fmt.Errorf("parsing the API-key selector: %w", err)
	}
	metricsAddr := o.metricsAddr
	if metricsAddr == "" {
		metricsAddr = "0"
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme.New(),
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{o.namespace: {}},
			// Only API-key Secrets are cached: the service never reads other Secrets this way.
			ByObject: map[client.Object]cache.ByObject{&corev1.Secret{}: {Label: apiKeys}},
		},
		Metrics:                 metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "tcs-manager.tcs.dev",
		LeaderElectionNamespace: o.namespace,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if o.probeAddr != "" && o.probeAddr != "0" {
		if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
			return fmt.Errorf("adding the health check: %w", err)
		}
		if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
			return fmt.Errorf("adding the ready check: %w", err)
		}
	}

	store, err := blob.Open(ctx, o.storeURL)
	if err != nil {
		return err
	}
	defer store.Close()
	engine, err := correction.NewEngine()
	if err != nil {
		return fmt.Errorf("building the correction engine: %w", err)
	}
	processor := pipeline.New(engine, store)

	if o.controllers {
		if err := (&controllers.TranscriptReconciler{Client: mgr.GetClient(), Processor: processor}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the transcript controller: %w", err)
		}
	}
	if o.api {
		if err := mgr.GetFieldIndexer().IndexField(ctx, &corev1.Secret{}, apiserver.IndexAPIKeyHash, apiserver.APIKeyHashIndex); err != nil {
			return fmt.Errorf("indexing API keys: %w", err)
		}
		ln, err := net.Listen("tcp", o.listen)
		if err != nil {
			return fmt.Errorf("listening on %s: %w", o.listen, err)
		}
		srv := apiserver.New(apiserver.Options{
			Namespace: o.namespace,
			Cache:     mgr.GetCache(),
			APIReader: mgr.GetAPIReader(),
			Client:    mgr.GetClient(),
			Processor: processor,
			Log:       log.WithName("api"),
		})
		if err := mgr.Add(apiRunnable(func(ctx context.Context) error {
			if !mgr.GetCache().WaitForCacheSync(ctx) {
				return fmt.Errorf("the cache did not sync")
			}
			if ready != nil {
				ready(ln.Addr().String())
			}
			return srv.Serve(ctx, ln)
		})); err != nil {
			return fmt.Errorf("adding the API server: %w", err)
		}
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the manager: %w", err)
	}
	return nil
}

// apiRunnable runs on every replica, leader or not.
type apiRunnable func(ctx context.Context) error

func (f apiRunnable) Start(ctx context.Context) error { return f(ctx) }

func (apiRunnable) NeedLeaderElection() bool { return false }
