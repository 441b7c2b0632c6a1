package main

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// services are what the controllers and the API server of one process share.
type services struct {
	metrics   *metrics.Metrics
	store     *blob.Store
	results   *results.Store
	processor *pipeline.Processor
	// allow is the outbound allow-list (--outbound-allow-cidrs).
	allow []netip.Prefix
	// outbound is the SSRF-safe client of url sources, captions and webhook deliveries.
	outbound *http.Client
	provider aipass.Provider
	// clock is what the controllers and the API read the time from.
	clock clock.PassiveClock
	// glossaries compiles the organizations' glossaries, read from the manager's cache, for
	// every deterministic pass of the process.
	glossaries *glossary.Compiler
	// events records the Kubernetes Events of the API and the controllers, within
	// --event-qps and --event-burst.
	events *recorder.Broadcaster
}

// newServices builds the services of o; publicURL is where clients reach the API, empty in
// a process without it. The returned function closes the stores.
func newServices(ctx context.Context, mgr ctrl.Manager, o serveOptions, allow []netip.Prefix, publicURL string) (*services, func(), error) {
	m, err := metrics.New(ctrlmetrics.Registry)
	if err != nil {
		return nil, nil, fmt.Errorf("registering the metrics: %w", err)
	}
	store, resultsStore, err := openStores(ctx, o, publicURL)
	if err != nil {
		return nil, nil, err
	}
	broadcaster, err := recorder.StartBroadcaster(ctx, mgr.GetConfig(), mgr.GetScheme(), o.eventQPS, o.eventBurst)
	if err != nil {
		resultsStore.Close()
		store.Close()
		return nil, nil, err
	}
	closeStores := func() {
		broadcaster.Shutdown()
		resultsStore.Close()
		store.Close()
	}
	svc, err := func() (*services, error) {
		engine, err := correction.NewEngine()
		if err != nil {
			return nil, fmt.Errorf("building the correction engine: %w", err)
		}
		processor := pipeline.New(engine, store)
		processor.ObserveCorrections(m.Correction)
		roots, err := outboundRoots(o.outboundCAFile)
		if err != nil {
			return nil, err
		}
		provider, err := o.ai.newProvider(mgr.GetAPIReader(), o.namespace, roots)
		if err != nil {
			return nil, err
		}
		return &services{
			metrics:    m,
			store:      store,
			results:    resultsStore,
			processor:  processor,
			allow:      allow,
			outbound:   newOutboundClient(allow, roots),
			provider:   provider,
			clock:      clock.RealClock{},
			glossaries: glossary.NewCompiler(mgr.GetClient(), o.namespace, 0),
			events:     broadcaster,
		}, nil
	}()
	if err != nil {
		closeStores()
		return nil, nil, err
	}
	return svc, closeStores, nil
}
