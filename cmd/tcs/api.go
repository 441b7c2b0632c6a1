package main

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/go-logr/logr"
	"github.com/redis/go-redis/v9"
	ctrl "sigs.k8s.io/controller-runtime"

	"tcs.dev/tcs/apiserver"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/ratelimit"
)

// apiListener is where the API serves and how it tells that it does.
type apiListener struct {
	ln net.Listener
	// publicURL is where clients reach the API.
	publicURL string
	// serving is marked while the API serves.
	serving *readiness
	// ready, when not nil, is called with the API's address once it answers requests.
	ready func(apiAddr string)
}

// setupAPI adds the REST API and the dashboard to mgr, served on l once mgr's cache has
// synced, on every replica. The returned function closes what the API holds.
func setupAPI(ctx context.Context, mgr ctrl.Manager, o serveOptions, svc *services, l apiListener, log logr.Logger) (func(), error) {
	if err := apiserver.SetupIndexes(ctx, mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	limiter, syncSem, closeLimits, err := sharedLimits(o.redisURL, log)
	if err != nil {
		return nil, err
	}
	srv := apiserver.New(apiserver.Options{
		Limiter:       limiter,
		SyncSemaphore: syncSem,
		Namespace:     o.namespace,
		Cache:         mgr.GetCache(),
		APIReader:     mgr.GetAPIReader(),
		Client:        mgr.GetClient(),
		Processor:     svc.processor,
		Store:         svc.store,
		Results:       svc.results,
		OutboundAllow: svc.allow,
		Resolver:      net.DefaultResolver,
		AIProvider:    svc.provider,
		Glossaries:    svc.glossaries,
		Log:           log.WithName("api"),
		Metrics:       svc.metrics,
		Recorder:      svc.events.Recorder(recorder.API),
		Clock:         svc.clock,
		// Over https, browsers are told to keep to it (the dashboard says so too).
		StrictTransportSecurity: strings.HasPrefix(l.publicURL, "https://"),
	})
	if err := mountDashboard(mgr, srv, svc, o, l.publicURL, log); err != nil {
		closeLimits()
		return nil, err
	}
	if err := mgr.Add(apiRunnable(func(ctx context.Context) error {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return fmt.Errorf("the cache did not sync")
		}
		if l.ready != nil {
			l.ready(l.ln.Addr().String())
		}
		l.serving.during(ctx)
		return srv.Serve(ctx, l.ln)
	})); err != nil {
		closeLimits()
		return nil, fmt.Errorf("adding the API server: %w", err)
	}
	return closeLimits, nil
}

// sharedLimits returns the rate limiter and the semaphore of synchronous requests that
// replicas share through the Redis of redisURL, and the function that closes its client;
// with redisURL empty, none (the API keeps them in memory).
func sharedLimits(redisURL string, log logr.Logger) (ratelimit.Limiter, ratelimit.Semaphore, func(), error) {
	if redisURL == "" {
		return nil, nil, func() {}, nil
	}
	ropts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--redis-url: %w", err)
	}
	rc := redis.NewClient(ropts)
	sem := ratelimit.NewRedisSemaphore(rc)
	sem.Log = log.WithName("sync-semaphore")
	return ratelimit.NewRedis(rc), sem, func() { rc.Close() }, nil
}
