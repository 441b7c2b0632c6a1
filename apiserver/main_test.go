package apiserver

import (
	"context"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/recorder"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/ratelimit"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
	"tcs.dev/tcs/internal/tooling/testenv"
	"tcs.dev/tcs/internal/tooling/testenv/postgres"
)

// env is the real control plane shared by the tests of this package.
var env *testenv.Env

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		// This process is the API server of TestIdempotencySurvivesKill, not a test run.
		os.Exit(runCrashChild())
	}
	flag.Parse()
	if fuzz := flag.Lookup("test.fuzz"); fuzz != nil && fuzz.Value.String() != "" {
		// A fuzz run exercises the request parsers alone: it needs no control plane, and
		// each of its workers would start one.
		os.Exit(m.Run())
	}
	testenv.Main(m, &env)
}

// harness is an API server on loopback in front of the real control plane, with two
// organizations and a key each.
type harness struct {
	url       string
	namespace string
	client    client.Client
	store     *blob.Store
	storeDir  string
	keyA      *orgs.Key
	keyB      *orgs.Key
	// results is the results store the replicas share, at resultsDSN.
	results    *results.Store
	resultsDSN string
	// srv is the first replica's server, for in-process reads.
	srv *Server
}

// harnessOptions tune a harness.
type harnessOptions struct {
	uploadExpiry  time.Duration
	resolver      *net.Resolver
	syncSemaphore ratelimit.Semaphore
	// results is the results store of archived transcripts and idempotency records; nil for
	// the harness's own (a fresh SQLite file the replicas share). resultsDSN, when set, is
	// opened for the replica instead, as another process would.
	results    *results.Store
	resultsDSN string
	// idempotencyRetention, when set, is how long idempotency records replay.
	idempotencyRetention time.Duration
	// metrics, when set, records the API's metrics; events records Events.
	metrics *metrics.Metrics
	events  bool
	// wrapScope, when set, wraps the transcripts service the handlers go through.
	wrapScope func(scope) scope
	// requests, when set, counts the requests the replica sends to the API server.
	requests *apiRequests
}

func newHarness(t *testing.T) *harness {
	return newHarnessWith(t, harnessOptions{})
}

func newHarnessWith(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-test")
	orgA, err := orgs.Create(ctx, c, ns, "Org A", nil)
	if err != nil {
		t.Fatal(err)
	}
	orgB, err := orgs.Create(ctx, c, ns, "Org B", nil)
	if err != nil {
		t.Fatal(err)
	}
	keyA, err := orgs.CreateKey(ctx, c, ns, orgA.Spec.ID, "key of A")
	if err != nil {
		t.Fatal(err)
	}
	keyB, err := orgs.CreateKey(ctx, c, ns, orgB.Spec.ID, "key of B")
	if err != nil {
		t.Fatal(err)
	}
	storeDir := t.TempDir()
	h := &harness{namespace: ns, client: c, storeDir: storeDir, keyA: keyA, keyB: keyB, results: opts.results, resultsDSN: opts.resultsDSN}
	if h.results == nil {
		if h.resultsDSN == "" {
			h.resultsDSN = "sqlite://" + filepath.Join(t.TempDir(), "results.db")
		}
		h.results = openResults(t, h.resultsDSN)
	}
	h.url, h.store = h.startReplica(t, opts)
	return h
}

// startReplica starts another API server for h's namespace and object store, as a replica
// of the service, and returns its address and store.
func (h *harness) startReplica(t *testing.T, opts harnessOptions) (string, *blob.Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mgr := env.NewManager(t, h.namespace)
	if err := SetupIndexes(ctx, mgr.GetFieldIndexer()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	baseURL := "http://" + hs.Listener.Addr().String()
	store, err := blob.Open(ctx, h.storeDir, blob.Options{SigningSecret: []byte("test-secret-test-secret"), UploadBaseURL: baseURL + "/uploads/"})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := correction.NewEngine()
	if err != nil {
		t.Fatal(err)
	}
	processor := pipeline.New(engine, store)
	if opts.metrics != nil {
		processor.ObserveCorrections(opts.metrics.Correction)
	}
	rs := opts.results
	switch {
	case rs == nil && opts.resultsDSN != "":
		rs = openResults(t, opts.resultsDSN)
	case rs == nil:
		rs = h.results
	}
	var rec events.EventRecorder
	if opts.events {
		// As the service records them: through a broadcaster within its default rate.
		b, err := recorder.StartBroadcaster(t.Context(), mgr.GetConfig(), mgr.GetScheme(), recorder.DefaultQPS, recorder.DefaultBurst)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Shutdown)
		rec = b.Recorder(recorder.API)
	}
	var c client.Client = mgr.GetClient()
	var apiReader client.Reader = mgr.GetAPIReader()
	if opts.requests != nil {
		c, apiReader = opts.requests.client(c), opts.requests.reader(apiReader)
	}
	srv := New(Options{
		Namespace:      h.namespace,
		Cache:          mgr.GetCache(),
		APIReader:      apiReader,
		Client:         c,
		Processor:      processor,
		Store:          store,
		OutboundAllow:  []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		UploadExpiry:   opts.uploadExpiry,
		Resolver:       opts.resolver,
		SyncConcurrent: 3,
		SyncSemaphore:  opts.syncSemaphore,
		Results:        rs,
		AIProvider:     aipass.NewRules(),
		Log:            mgr.GetLogger(),
		Metrics:        opts.metrics,
		Recorder:       rec,
		Glossaries:     glossary.NewCompiler(mgr.GetClient(), h.namespace, 0),
	})
	// Short heartbeats, so that a retry resumes a killed request within a second or two.
	srv.idempotency.heartbeatEvery, srv.idempotency.staleAfter, srv.idempotency.wait = testHeartbeat, 1500*time.Millisecond, 5*time.Second
	if opts.wrapScope != nil {
		srv.transcripts = opts.wrapScope(srv.transcripts)
	}
	if opts.idempotencyRetention > 0 {
		srv.idempotency.retention = opts.idempotencyRetention
	}
	if h.srv == nil {
		h.srv = srv
	}
	t.Cleanup(testenv.Run(t, mgr))
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
	go func() {
		if err := srv.Serve(ctx, hs.Listener); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	waitHealthy(t, baseURL)
	return baseURL, store
}

// newPostgresDatabase starts a real PostgreSQL server for the test and returns the DSN of a
// fresh database on it.
func newPostgresDatabase(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := postgres.Start(ctx)
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	dsn, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// waitHealthy waits until the API answers its liveness check.
func waitHealthy(t *testing.T, baseURL string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(baseURL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API did not come up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
