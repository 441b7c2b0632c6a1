// Package apiserver is the REST front-end of tcs: it authenticates callers, validates requests,
// turns created transcripts into Transcript resources and renders them back as the API's JSON.
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/metrics"
	"tcs.dev/tcs/internal/platform/ratelimit"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/pipeline"
)

// Options configures a Server.
type Options struct {
	// Namespace holds the transcripts and API-key Secrets.
	Namespace string
	// Cache serves reads from the informers; it must have the IndexAPIKeyHash index on Secrets.
	Cache cache.Cache
	// APIReader reads from the API server directly, for objects the cache may not have yet.
	APIReader client.Reader
	// Client writes objects.
	Client client.Client
	// Processor runs the deterministic pass and stores content.
	Processor *pipeline.Processor
	// Store is the object store: upload grants are signed URLs into it.
	Store *blob.Store
	// Results is the results store of archived transcripts and of the idempotency records of
	// requests; requests with an Idempotency-Key fail without it.
	Results *results.Store
	// OutboundAllow lists the CIDRs outbound traffic may reach despite being private (tests, tcs dev).
	OutboundAllow []netip.Prefix
	// Resolver, when set, looks up the host of a url source at create time, so that a host
	// that does not exist is refused at once (422) rather than by its fetch job.
	Resolver *net.Resolver
	// UploadExpiry is how long an upload grant lasts; zero means 15 minutes.
	UploadExpiry time.Duration
	// SyncConcurrent bounds the synchronous creates of one organization; zero means the spec's 10.
	SyncConcurrent int
	// Limiter counts requests per organization and class; nil means one in memory (exact for
	// one replica).
	Limiter ratelimit.Limiter
	// SyncSemaphore counts the synchronous requests of each organization; a Redis one makes
	// the limit hold across replicas. Nil means a count in memory (exact for one replica).
	// When it fails (Redis unreachable), each replica counts its own requests.
	SyncSemaphore ratelimit.Semaphore
	// AIProvider is the provider the AI passes run with; a repeatable one is not asked again
	// for a pass it already completed with the same settings. Nil means unknown.
	AIProvider aipass.Provider
	// Log receives one line per request at V(1) and every server error.
	Log logr.Logger
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
	// Metrics records the API's metrics; nil records none.
	Metrics *metrics.Metrics
	// Recorder records Events about the transcripts the API server completes; nil records none.
	Recorder events.EventRecorder
	// Glossaries gives the inline paste pass the organization's compiled glossary (the
	// controllers' Compiler); nil means none.
	Glossaries *glossary.Compiler
	// StrictTransportSecurity, set when clients reach the service over https, makes every
	// answer tell browsers to use https only for the host, for a year (HSTS).
	StrictTransportSecurity bool
}

// Server is the REST front-end.
type Server struct {
	// Where transcripts and keys are: the cluster, the object store and the results store.
	namespace string
	cache     cache.Cache
	client    client.Client
	processor *pipeline.Processor
	store     *blob.Store
	results   *results.Store
	// service is the organization-scoped access to transcripts; transcripts is the same, as
	// the handlers go through it (tests wrap it).
	service     *transcripts.Service
	transcripts scope

	// glossary keeps the organizations' glossaries; compiled gives the pass the compiled ones.
	glossary *glossary.Manager
	compiled *glossary.Compiler

	// What requests may ask for: the sources they may name, their upload grants, the AI
	// provider their passes run with.
	sources    sourceChecks
	uploads    uploadGrants
	aiProvider aipass.Provider

	// How much an organization may ask for at once, and how its synchronous requests wait.
	limiter ratelimit.Limiter
	sync    syncLimit
	waiters *waiters
	// writes holds this replica's status writes of transcripts that lists wait for.
	writes *ownWrites

	// The idempotency of POSTs with an Idempotency-Key.
	idempotency idempotencyTunables

	// Serving and observing.
	// keyUses holds when this process last recorded each key's use (by Secret name).
	keyUses sync.Map
	// mounts add the routes of other front-ends served on the same port (the dashboard).
	mounts []func(*mux.Router)
	// hsts sends Strict-Transport-Security.
	hsts     bool
	log      logr.Logger
	clock    clock.PassiveClock
	metrics  *metrics.Metrics
	recorder events.EventRecorder

	// hooks are the tests' only.
	hooks hooks
}

// sourceChecks are the checks of url sources at create time.
type sourceChecks struct {
	// allow lists the CIDRs outbound traffic may reach despite being private.
	allow []netip.Prefix
	// resolver, when set, looks up a url source's host (Options.Resolver).
	resolver *net.Resolver
}

// uploadGrants are the upload grants the API signs.
type uploadGrants struct {
	// expiry is how long a grant lasts.
	expiry time.Duration
	// handler takes the uploads of a filesystem store, whose URLs point at this server; nil
	// for an S3 store, which takes its uploads itself.
	handler http.Handler
}

// syncLimit bounds the synchronous requests of each organization: shared across replicas when
// shared is set (Redis), and counted by this replica (slots) without it or when it fails.
type syncLimit struct {
	slots  *syncSlots
	shared ratelimit.Semaphore
}

// idempotencyTunables are the heartbeat of requests with an Idempotency-Key and how long
// their records replay; tests shorten them.
type idempotencyTunables struct {
	heartbeatEvery, staleAfter, wait, retention time.Duration
}

// hooks are set by tests only, to stop or slow a request at a step.
type hooks struct {
	// afterIdempotencyStep is called once a request with an Idempotency-Key claimed its record
	// ("claimed") and once it recorded its response ("recorded"), with the id of the
	// transcript it makes.
	afterIdempotencyStep func(ctx context.Context, step, transcriptID string)
	// afterEffect is called once a request made its effect (created or queued transcript id)
	// and before it answers and records its response.
	afterEffect func(ctx context.Context, id string)
}

// Mount serves another front-end (the dashboard) on the API's port: register adds that
// front-end's routes, on paths of its own, to the API's router; call it before Serve.
func (s *Server) Mount(register func(*mux.Router)) {
	s.mounts = append(s.mounts, register)
}

// New returns a Server.
func New(opts Options) *Server {
	var clk clock.PassiveClock = clock.RealClock{}
	if opts.Clock != nil {
		clk = opts.Clock
	}
	expiry := opts.UploadExpiry
	if expiry <= 0 {
		expiry = 15 * time.Minute
	}
	sync := opts.SyncConcurrent
	if sync <= 0 {
		sync = limits.SyncConcurrent
	}
	limiter := opts.Limiter
	if limiter == nil {
		limiter = ratelimit.NewMemory(clk.Now)
	}
	s := &Server{
		namespace:  opts.Namespace,
		cache:      opts.Cache,
		client:     opts.Client,
		processor:  opts.Processor,
		store:      opts.Store,
		results:    opts.Results,
		sources:    sourceChecks{allow: opts.OutboundAllow, resolver: opts.Resolver},
		uploads:    uploadGrants{expiry: expiry},
		aiProvider: opts.AIProvider,
		limiter:    limiter,
		sync:       syncLimit{slots: newSyncSlots(sync), shared: opts.SyncSemaphore},
		waiters:    newWaiters(),
		writes:     newOwnWrites(opts.Namespace),
		idempotency: idempotencyTunables{heartbeatEvery: heartbeatEvery, staleAfter: staleAfter, wait: idempotencyWait,
			retention: limits.IdempotencyRetention},
		hsts:     opts.StrictTransportSecurity,
		log:      opts.Log,
		clock:    clk,
		metrics:  opts.Metrics,
		recorder: opts.Recorder,
		glossary: newGlossaryManager(opts.Namespace, opts.Client, opts.APIReader),
		compiled: opts.Glossaries,
	}
	s.service = &transcripts.Service{Namespace: opts.Namespace, Cache: opts.Cache, APIReader: opts.APIReader,
		Client: opts.Client, Store: opts.Processor, Results: opts.Results, Written: s.wrote,
		Listing: s.writes.await, Processor: opts.Processor, Clock: clk}
	if opts.Store != nil {
		s.service.Files = opts.Store
	}
	s.transcripts = s.service
	// The filesystem store's upload URLs point at this server, which checks and stores them;
	// an S3 store takes its uploads itself.
	if opts.Store != nil {
		if h, err := opts.Store.UploadHandler(limits.MaxRemoteFile, s.uploadError); err == nil {
			s.uploads.handler = h
		}
	}
	return s
}

// Transcripts returns the organization-scoped access to transcripts the API's handlers use, for
// the other front-ends on its port.
func (s *Server) Transcripts() *transcripts.Service { return s.service }

// scope is the organization-scoped access to transcripts that every handler's work on
// transcripts goes through: *transcripts.Service. Every method takes the organization of the
// request's API key first.
type scope interface {
	Make(ctx context.Context, org string, d transcripts.Draft) (*tcsv1.Transcript, error)
	Queue(ctx context.Context, org string, t *tcsv1.Transcript, record string, now metav1.Time) error
	Complete(ctx context.Context, org string, t *tcsv1.Transcript, res *pipeline.Result, now metav1.Time) (bool, error)
	Discard(ctx context.Context, org string, t *tcsv1.Transcript) error
	ConfirmUpload(ctx context.Context, org, id string, c transcripts.Confirmation) (*tcsv1.Transcript, error)
	Get(ctx context.Context, org, id string) (*tcsv1.Transcript, bool, error)
	Find(ctx context.Context, org, id string) (*tcsv1.Transcript, error)
	Archived(ctx context.Context, org, id string) (*tcsv1.Transcript, error)
	Content(ctx context.Context, org string, t *tcsv1.Transcript) (*string, error)
	Changes(ctx context.Context, org, id string) (*tcsv1.Transcript, []pipeline.Change, error)
	Job(ctx context.Context, org, jobID string) (*tcsv1.Transcript, *tcsv1.Job, error)
	List(ctx context.Context, org string, o transcripts.ListOptions) ([]*tcsv1.Transcript, bool, error)
	Delete(ctx context.Context, org, id string, now metav1.Time) (*tcsv1.Transcript, error)
	Unarchive(ctx context.Context, org string, rec *tcsv1.Transcript, now time.Time) (*tcsv1.Transcript, error)
	TriggerAIPass(ctx context.Context, org, id string, req transcripts.AIPassRequest) (*tcsv1.Transcript, error)
	Decide(ctx context.Context, org, id string, batch transcripts.Batch, ifVersion *int64) (*tcsv1.Transcript, error)
}

// Limiter returns the rate limiter of the server, for the other front-ends on its port.
func (s *Server) Limiter() ratelimit.Limiter { return s.limiter }

// Handler returns the HTTP handler of the whole API.
func (s *Server) Handler() http.Handler {
	r := s.router()
	return s.withHSTS(withRequestID(s.withMetrics(r, withLogging(s.log)(r))))
}

// router returns the routes of the API. Every route whose handler works on an organization's
// transcripts reaches them through s.transcripts only (TestEveryRouteIsAccountedFor).
func (s *Server) router() *mux.Router {
	notFound := s.handle(func(_ http.ResponseWriter, r *http.Request) error {
		return &apiError{Status: http.StatusNotFound, Type: ErrNotFound,
			Message: fmt.Sprintf("Unrecognized request URL (%s %s).", metrics.MethodLabel(r.Method), quote(r.URL.Path))}
	})
	notAllowed := s.handle(func(_ http.ResponseWriter, r *http.Request) error {
		return &apiError{Status: http.StatusMethodNotAllowed, Type: ErrInvalidRequest,
			Message: fmt.Sprintf("Method %s is not allowed on %s.", quote(r.Method), quote(r.URL.Path))}
	})
	r := mux.NewRouter()
	r.NotFoundHandler, r.MethodNotAllowedHandler = notFound, notAllowed
	r.HandleFunc("/healthz", s.healthz).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/api/v1/openapi.json", s.openAPI).Methods(http.MethodGet)

	// Routes are registered on the root router (not a subrouter) so that a wrong method
	// answers 405 rather than 404.
	// Handlers return their error, which s.handle answers (answerError).
	v1 := func(path string, h handlerFunc, methods ...string) {
		r.Handle("/api/v1"+path, s.handle(s.authenticate(h))).Methods(methods...)
	}
	create := func(h handlerFunc) handlerFunc { return s.rateLimited(classCreate, s.idempotent(h)) }
	read := func(h handlerFunc) handlerFunc { return s.rateLimited(classRead, h) }
	v1("/me", s.me, http.MethodGet)
	v1("/transcripts", create(s.createTranscript), http.MethodPost)
	v1("/transcripts", read(s.listTranscripts), http.MethodGet)
	v1("/transcripts/uploads", create(s.createUpload), http.MethodPost)
	v1("/transcripts/{id}", read(s.getTranscript), http.MethodGet)
	v1("/transcripts/{id}", s.rateLimited(classCreate, s.deleteTranscript), http.MethodDelete)
	v1("/transcripts/{id}/changes", read(s.listChanges), http.MethodGet)
	v1("/transcripts/{id}/ai_pass", create(s.triggerAIPass), http.MethodPost)
	v1("/transcripts/{id}/decisions", create(s.createDecisions), http.MethodPost)
	v1("/jobs/{id}", read(s.getJob), http.MethodGet)
	v1("/glossary", read(s.getGlossary), http.MethodGet)
	v1("/glossary", s.rateLimited(classCreate, s.replaceGlossary), http.MethodPut)
	v1("/glossary/entries", create(s.createGlossaryEntry), http.MethodPost)
	v1("/glossary/entries/{id}", read(s.getGlossaryEntry), http.MethodGet)
	v1("/glossary/entries/{id}", create(s.updateGlossaryEntry), http.MethodPost)
	v1("/glossary/entries/{id}", s.rateLimited(classCreate, s.deleteGlossaryEntry), http.MethodDelete)
	v1("/glossary/export", read(s.exportGlossary), http.MethodGet)
	v1("/glossary/import", create(s.importGlossary), http.MethodPost)
	if s.uploads.handler != nil {
		// Upload URLs carry their own signature; they need no API key.
		r.PathPrefix("/uploads/").Handler(s.uploads.handler).Methods(http.MethodPut)
	}

	for _, register := range s.mounts {
		register(r)
	}
	return r
}

// hstsValue is the Strict-Transport-Security of answers over https: a year, this host only (it
// may be a subdomain of a domain that also serves plain http).
const hstsValue = "max-age=31536000"

// withHSTS sets Strict-Transport-Security on every answer when the service is reached over https.
func (s *Server) withHSTS(next http.Handler) http.Handler {
	if !s.hsts {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", hstsValue)
		next.ServeHTTP(w, r)
	})
}

// Serve answers requests on ln until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	inf, err := s.cache.GetInformer(ctx, &tcsv1.Transcript{})
	if err != nil {
		return fmt.Errorf("watching transcripts: %w", err)
	}
	reg, err := inf.AddEventHandler(s.waiters.handler())
	if err != nil {
		return fmt.Errorf("watching transcripts: %w", err)
	}
	defer func() { _ = inf.RemoveEventHandler(reg) }()
	writes, err := inf.AddEventHandler(s.writes.handler())
	if err != nil {
		return fmt.Errorf("watching transcripts: %w", err)
	}
	s.writes.wire(true)
	defer func() {
		s.writes.wire(false)
		_ = inf.RemoveEventHandler(writes)
	}()
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      90 * time.Second, // above the longest synchronous wait (60 s)
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving the API: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutting down the API: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving the API: %w", err)
	}
	return nil
}

func (s *Server) metaNow() metav1.Time { return metav1.NewTime(s.clock.Now()) }

// healthz is the liveness check.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// me describes the API key of the request.
func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string]string{
		"object":          "api_key",
		"api_key_id":      p.KeyID,
		"organization_id": p.OrganizationID,
		"label":           p.Label,
	})
	return nil
}
