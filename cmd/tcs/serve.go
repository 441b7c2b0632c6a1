package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/redis/go-redis/v9"
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
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/apiserver"
	"tcs.dev/tcs/controllers"
	"tcs.dev/tcs/internal/blob"
	"tcs.dev/tcs/internal/correction"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/limits"
	"tcs.dev/tcs/internal/metrics"
	"tcs.dev/tcs/internal/pipeline"
	"tcs.dev/tcs/internal/ratelimit"
	"tcs.dev/tcs/internal/recorder"
	"tcs.dev/tcs/internal/results"
	"tcs.dev/tcs/internal/scheme"
	"tcs.dev/tcs/internal/sources"
)

// serveOptions configures the API and the controllers.
type serveOptions struct {
	kubeconfig  string
	namespace   string
	listen      string
	storeURL    string
	metricsAddr string
	// metrics configures how the metrics endpoint is served.
	metrics     metricsOptions
	probeAddr   string
	leaderElect bool
	verbosity   int
	// publicURL is where clients reach the API (upload URLs of the filesystem store point there).
	publicURL string
	// uploadSecret signs filesystem upload URLs.
	uploadSecret string
	// outboundAllow lists CIDRs outbound traffic may reach although they are private.
	outboundAllow []string
	// outboundCAFile is a PEM file of CAs trusted by outbound HTTPS besides the system's.
	outboundCAFile string
	// youtubeBaseURL is where captions are fetched from.
	youtubeBaseURL string
	// webhookRetryDelays is the retry schedule of webhook deliveries (nil: the spec's).
	webhookRetryDelays []time.Duration
	// webhookRetention is how long delivery history is kept.
	webhookRetention time.Duration
	// redisURL selects the Redis rate limiter (several replicas); empty means in memory.
	redisURL string
	// archiveAfter is how long a finished transcript stays in the cluster; 0 keeps all.
	archiveAfter time.Duration
	// resultsDSN names the results store of archived transcripts.
	resultsDSN string
	// ai configures the AI validation pass.
	ai          aiOptions
	api         bool
	controllers bool
}

func (o *serveOptions) addFlags(cmd *cobra.Command, defaultListen, defaultStore, defaultResults string) {
	f := cmd.Flags()
	f.DurationVar(&o.archiveAfter, "archive-after", controllers.DefaultArchiveAfter, "how long a finished transcript stays a resource in the cluster before it moves to the results store; 0 keeps everything in the cluster")
	f.StringVar(&o.resultsDSN, "results-dsn", envOr("TCS_RESULTS_DSN", defaultResults), "results store of archived transcripts: sqlite:///path/results.db or postgres://… (env TCS_RESULTS_DSN)")
	f.StringVar(&o.namespace, "namespace", envOr("TCS_NAMESPACE", "tcs-system"), "namespace of the transcripts and API keys (env TCS_NAMESPACE)")
	f.StringVar(&o.listen, "listen", envOr("TCS_LISTEN", defaultListen), "address of the REST API (env TCS_LISTEN)")
	f.StringVar(&o.storeURL, "store", envOr("TCS_STORE", defaultStore), "object store: a directory or file:///dir (env TCS_STORE)")
	f.IntVarP(&o.verbosity, "verbosity", "v", 0, "log verbosity; 1 logs every request")
	f.StringVar(&o.publicURL, "public-url", os.Getenv("TCS_PUBLIC_URL"), "base URL clients reach the API at (env TCS_PUBLIC_URL; default: http:// and the listen address)")
	f.StringVar(&o.uploadSecret, "upload-secret", os.Getenv("TCS_UPLOAD_SECRET"), "secret that signs upload URLs of the filesystem store (env TCS_UPLOAD_SECRET; default: random per process)")
	f.StringSliceVar(&o.outboundAllow, "outbound-allow-cidrs", nil, "CIDRs outbound requests may reach although private (empty in production)")
	f.DurationSliceVar(&o.webhookRetryDelays, "webhook-retry-delays", limits.WebhookRetryDelays[:], "delays before the retries of a failed webhook delivery")
	f.DurationVar(&o.webhookRetention, "webhook-retention", 30*24*time.Hour, "how long webhook delivery history is kept")
	f.StringVar(&o.outboundCAFile, "outbound-ca-file", "", "PEM file of certificate authorities outbound HTTPS (webhooks, fetches) trusts besides the system's")
	f.StringVar(&o.redisURL, "redis-url", os.Getenv("TCS_REDIS_URL"), "Redis for the rate limits of several replicas, e.g. redis://127.0.0.1:6379/0 (env TCS_REDIS_URL; default: in memory)")
	f.StringVar(&o.youtubeBaseURL, "youtube-base-url", envOr("TCS_YOUTUBE_BASE_URL", "https://www.youtube.com"), "where YouTube captions are fetched from")
	o.ai.addFlags(f)
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
	o.addFlags(cmd, ":8080", "/var/lib/tcs/objects", "sqlite:///var/lib/tcs/results.db")
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file; empty means in-cluster or $KUBECONFIG")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8081", "address of the metrics endpoint; 0 disables it")
	o.metrics.addFlags(f)
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
	// Every transcript costs a few writes; client-go's default of 5 QPS would be the bottleneck.
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 200, 400
	}

	apiKeys, err := labels.Parse(tcsv1.LabelAPIKeyID)
	if err != nil {
		return fmt.Errorf("parsing the API-key selector: %w", err)
	}
	metricsAddr := o.metricsAddr
	if metricsAddr == "" {
		metricsAddr = "0"
	}
	serving := &readiness{}
	metricsServer, certs, err := o.metrics.serverOptions(metricsAddr)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme.New(),
		Cache:                   cacheOptions(o.namespace, apiKeys),
		Metrics:                 metricsServer,
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "tcs-manager.tcs.dev",
		LeaderElectionNamespace: o.namespace,
		// A stopping replica hands the lease over at once rather than after it expires; the
		// process exits as soon as the manager stopped.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if certs != nil {
		if err := mgr.Add(certs); err != nil {
			return fmt.Errorf("adding the metrics certificate watcher: %w", err)
		}
	}
	m, err := metrics.New(ctrlmetrics.Registry)
	if err != nil {
		return fmt.Errorf("registering the metrics: %w", err)
	}
	if o.probeAddr != "" && o.probeAddr != "0" {
		if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
			return fmt.Errorf("adding the health check: %w", err)
		}
		if err := mgr.AddReadyzCheck("readyz", serving.check); err != nil {
			return fmt.Errorf("adding the ready check: %w", err)
		}
	}
	// The manager starts its other runnables, the controllers among them, once its caches have
	// synced; this one marks that moment. Without the API, the service is then ready.
	running := make(chan struct{})
	if err := mgr.Add(apiRunnable(func(ctx context.Context) error {
		close(running)
		if !o.api {
			serving.during(ctx)
		}
		return nil
	})); err != nil {
		return fmt.Errorf("adding the start marker: %w", err)
	}

	allow, err := parseCIDRs(o.outboundAllow)
	if err != nil {
		return err
	}
	var ln net.Listener
	publicURL := o.publicURL
	if o.api {
		if ln, err = net.Listen("tcp", o.listen); err != nil {
			return fmt.Errorf("listening on %s: %w", o.listen, err)
		}
		if publicURL == "" {
			publicURL = "http://" + ln.Addr().String()
		}
	}
	secret := []byte(o.uploadSecret)
	if len(secret) == 0 {
		secret = []byte(ids.Random(40))
	}
	store, err := blob.Open(ctx, o.storeURL, blob.Options{
		SigningSecret: secret,
		UploadBaseURL: strings.TrimSuffix(publicURL, "/") + "/uploads/",
	})
	if err != nil {
		return err
	}
	defer store.Close()
	// One results store per process, shared by the API and the archiver; it is opened even
	// with archiving off, so that transcripts archived before stay readable.
	resultsStore, err := results.Open(ctx, o.resultsDSN)
	if err != nil {
		return fmt.Errorf("--results-dsn: %w", err)
	}
	defer resultsStore.Close()
	engine, err := correction.NewEngine()
	if err != nil {
		return fmt.Errorf("building the correction engine: %w", err)
	}
	processor := pipeline.New(engine, store)
	processor.ObserveCorrections(m.Correction)
	roots, err := outboundRoots(o.outboundCAFile)
	if err != nil {
		return err
	}
	outbound := sources.NewClient(sources.ClientOptions{AllowCIDRs: allow, RootCAs: roots})
	provider, err := o.ai.newProvider(mgr.GetAPIReader(), o.namespace, roots)
	if err != nil {
		return err
	}

	if o.controllers {
		r := &controllers.TranscriptReconciler{
			Client:    mgr.GetClient(),
			Processor: processor,
			Store:     store,
			Sources:   &sources.Fetcher{YouTube: &sources.YouTube{BaseURL: o.youtubeBaseURL, Client: outbound}, Client: outbound},
			Recorder:  mgr.GetEventRecorder(recorder.Transcript),
			Metrics:   m,
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the transcript controller: %w", err)
		}
		aiPass := &controllers.AIPassReconciler{
			Client:    mgr.GetClient(),
			APIReader: mgr.GetAPIReader(),
			Processor: processor,
			Provider:  provider,
			Timeout:   o.ai.timeout,
			Workers:   o.ai.workers,
			Recorder:  mgr.GetEventRecorder(recorder.AIPass),
			Metrics:   m,
		}
		if err := aiPass.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the AI pass controller: %w", err)
		}
		log.Info("AI validation pass", "provider", provider.Name(), "model", provider.Model())
		if err := (&controllers.WebhookEndpointReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the webhook endpoint controller: %w", err)
		}
		if err := (&controllers.WebhookDispatchReconciler{Client: mgr.GetClient(), Store: store, Retention: o.webhookRetention, Metrics: m}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the webhook dispatch controller: %w", err)
		}
		deliveries := &controllers.WebhookDeliveryReconciler{
			Client:      mgr.GetClient(),
			Reader:      mgr.GetAPIReader(),
			HTTP:        outbound,
			AllowCIDRs:  allow,
			Store:       store,
			RetryDelays: o.webhookRetryDelays,
			Retention:   o.webhookRetention,
			Recorder:    mgr.GetEventRecorder(recorder.Webhook),
			Metrics:     m,
		}
		if err := deliveries.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the webhook delivery controller: %w", err)
		}
		if o.archiveAfter > 0 {
			archiver := &controllers.ArchiveReconciler{
				Client:            mgr.GetClient(),
				Results:           resultsStore,
				Blobs:             store,
				After:             o.archiveAfter,
				DeliveryRetention: o.webhookRetention,
			}
			if err := archiver.SetupWithManager(mgr); err != nil {
				return fmt.Errorf("setting up the archiver: %w", err)
			}
		} else {
			// Without the archiver, archived transcripts soft-deleted through the API are
			// still purged after their retention.
			if err := mgr.Add(&controllers.ArchiveReconciler{Results: resultsStore, Blobs: store}); err != nil {
				return fmt.Errorf("adding the purge of archived transcripts: %w", err)
			}
		}
		if err := mgr.Add(&controllers.IdempotencySweeper{Results: resultsStore}); err != nil {
			return fmt.Errorf("adding the sweep of expired idempotency records: %w", err)
		}
		if err := (&controllers.OrganizationReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the organization controller: %w", err)
		}
	}
	if o.api {
		if err := apiserver.SetupIndexes(ctx, mgr.GetFieldIndexer()); err != nil {
			return err
		}
		var limiter ratelimit.Limiter
		var syncSem ratelimit.Semaphore
		if o.redisURL != "" {
			ropts, err := redis.ParseURL(o.redisURL)
			if err != nil {
				return fmt.Errorf("--redis-url: %w", err)
			}
			rc := redis.NewClient(ropts)
			defer rc.Close()
			limiter = ratelimit.NewRedis(rc)
			sem := ratelimit.NewRedisSemaphore(rc)
			sem.Log = log.WithName("sync-semaphore")
			syncSem = sem
		}
		srv := apiserver.New(apiserver.Options{
			Limiter:       limiter,
			SyncSemaphore: syncSem,
			Namespace:     o.namespace,
			Cache:         mgr.GetCache(),
			APIReader:     mgr.GetAPIReader(),
			Client:        mgr.GetClient(),
			Processor:     processor,
			Store:         store,
			Results:       resultsStore,
			OutboundAllow: allow,
			Resolver:      net.DefaultResolver,
			AIProvider:    provider,
			Log:           log.WithName("api"),
			Metrics:       m,
			Recorder:      mgr.GetEventRecorder(recorder.API),
		})
		if err := mountDashboard(mgr, srv, store, o.namespace, publicURL, allow, log); err != nil {
			return err
		}
		if err := mgr.Add(apiRunnable(func(ctx context.Context) error {
			if !mgr.GetCache().WaitForCacheSync(ctx) {
				return fmt.Errorf("the cache did not sync")
			}
			if ready != nil {
				ready(ln.Addr().String())
			}
			serving.during(ctx)
			return srv.Serve(ctx, ln)
		})); err != nil {
			return fmt.Errorf("adding the API server: %w", err)
		}
	}
	return runManager(ctx, mgr, running, log)
}

// cacheOptions are the options of the informer cache of the service in namespace ns: only
// API-key Secrets (selected by apiKeys) are cached, as the service never reads other Secrets
// this way, and no object keeps its managedFields, which no reconciler reads and which make up
// a good part of a cached Transcript.
func cacheOptions(ns string, apiKeys labels.Selector) cache.Options {
	return cache.Options{
		DefaultNamespaces: map[string]cache.Config{ns: {}},
		ByObject:          map[client.Object]cache.ByObject{&corev1.Secret{}: {Label: apiKeys}},
		DefaultTransform:  cache.TransformStripManagedFields(),
	}
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

func parseCIDRs(cidrs []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(cidrs))
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return nil, fmt.Errorf("--outbound-allow-cidrs: %w", err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// outboundRoots returns the system's certificate pool with the PEM certificates of file added,
// or nil (the system pool) when file is empty.
func outboundRoots(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--outbound-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--outbound-ca-file: %s holds no PEM certificate", file)
	}
	return pool, nil
}
