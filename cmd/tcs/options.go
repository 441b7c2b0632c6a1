package main

import (
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"tcs.dev/tcs/apiserver/dashboard"
	"tcs.dev/tcs/controllers"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/kube/recorder"
)

// serveOptions configures the API and the controllers.
type serveOptions struct {
	kubeconfig  string
	namespace   string
	listen      string
	storeURL    string
	metricsAddr string
	// metrics configures how the metrics endpoint is served.
	metrics   metricsOptions
	probeAddr string
	// pprofAddr serves net/http/pprof when set.
	pprofAddr   string
	leaderElect bool
	// leaderElection times the election of the replica that runs the controllers.
	leaderElection leaderElectionOptions
	verbosity      int
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
	// auditRetention is how long the entries of the audit trail are kept.
	auditRetention time.Duration
	// redisURL selects the Redis rate limiter (several replicas); empty means in memory.
	redisURL string
	// signIn bounds the dashboard's sign-ins.
	signIn signInOptions
	// archiveAfter is how long a finished transcript stays in the cluster; 0 keeps all.
	archiveAfter time.Duration
	// archiveRecordAfter is how long a finished transcript stays unchanged before it is
	// recorded and leaves the controllers' cache.
	archiveRecordAfter time.Duration
	// eventQPS and eventBurst bound the Kubernetes Events the process records.
	eventQPS   float32
	eventBurst int
	// resultsDSN names the results store of archived transcripts.
	resultsDSN string
	// ai configures the AI validation pass.
	ai aiOptions
	// mail configures how invitations and password resets are sent.
	mail mailOptions
	// invitationTTL is how long an invitation lasts.
	invitationTTL time.Duration
	api           bool
	controllers   bool
}

func (o *serveOptions) addFlags(cmd *cobra.Command, defaultListen, defaultStore, defaultResults string) {
	f := cmd.Flags()
	f.DurationVar(&o.archiveAfter, "archive-after", controllers.DefaultArchiveAfter, "how long a finished transcript (or an ended webhook delivery) stays a resource in the cluster before it moves to the results store; 0 keeps everything in the cluster")
	f.DurationVar(&o.archiveRecordAfter, "archive-record-after", controllers.DefaultRecordAfter, "how long a finished transcript stays unchanged before it is recorded in the results store and leaves the controllers' cache (at most --archive-after), so that a burst of transcripts or of review decisions does not wait on the archiver's writes")
	f.Float32Var(&o.eventQPS, "event-qps", recorder.DefaultQPS, "Kubernetes Events the process records per second at most (after --event-burst), as kubelet's flag of the name; Events beyond a queue of 1,000 are dropped")
	f.IntVar(&o.eventBurst, "event-burst", recorder.DefaultBurst, "Kubernetes Events the process may record at once before --event-qps applies")
	f.StringVar(&o.resultsDSN, "results-dsn", envOr("TCS_RESULTS_DSN", defaultResults), "results store of archived transcripts: sqlite:///path/results.db or postgres://… (env TCS_RESULTS_DSN)")
	f.StringVar(&o.namespace, "namespace", envOr("TCS_NAMESPACE", "tcs-system"), "namespace of the transcripts and API keys (env TCS_NAMESPACE)")
	f.StringVar(&o.listen, "listen", envOr("TCS_LISTEN", defaultListen), "address of the REST API (env TCS_LISTEN)")
	f.StringVar(&o.storeURL, "store", envOr("TCS_STORE", defaultStore), "object store: a directory or file:///dir (env TCS_STORE)")
	f.StringVar(&o.pprofAddr, "pprof-bind-address", "", "address of the net/http/pprof endpoints, for profiling (default: off; keep it on loopback)")
	f.IntVarP(&o.verbosity, "verbosity", "v", 0, "log verbosity; 1 logs every request")
	f.StringVar(&o.publicURL, "public-url", os.Getenv("TCS_PUBLIC_URL"), "base URL clients reach the API at (env TCS_PUBLIC_URL; default: http:// and the listen address)")
	f.StringVar(&o.uploadSecret, "upload-secret", os.Getenv("TCS_UPLOAD_SECRET"), "secret that signs upload URLs of the filesystem store (env TCS_UPLOAD_SECRET; default: random per process)")
	f.StringSliceVar(&o.outboundAllow, "outbound-allow-cidrs", nil, "CIDRs outbound requests may reach although private (empty in production)")
	f.DurationSliceVar(&o.webhookRetryDelays, "webhook-retry-delays", webhook.RetryDelays[:], "delays before the retries of a failed webhook delivery")
	f.DurationVar(&o.webhookRetention, "webhook-retention", 30*24*time.Hour, "how long webhook delivery history is kept")
	f.DurationVar(&o.auditRetention, "audit-retention", controllers.DefaultAuditRetention, "how long the entries of the organizations' audit trail are kept in the results store")
	f.StringVar(&o.outboundCAFile, "outbound-ca-file", "", "PEM file of certificate authorities outbound HTTPS (webhooks, fetches) trusts besides the system's")
	f.StringVar(&o.redisURL, "redis-url", os.Getenv("TCS_REDIS_URL"), "Redis for the rate limits of several replicas, e.g. redis://127.0.0.1:6379/0 (env TCS_REDIS_URL; default: in memory)")
	f.StringVar(&o.youtubeBaseURL, "youtube-base-url", envOr("TCS_YOUTUBE_BASE_URL", "https://www.youtube.com"), "where YouTube captions are fetched from")
	f.DurationVar(&o.invitationTTL, "invitation-ttl", 7*24*time.Hour, "how long a dashboard invitation lasts before it expires")
	o.ai.addFlags(f)
	o.signIn.addFlags(f)
	o.mail.addFlags(f)
}

// signInOptions bound the dashboard's sign-ins, whose password checks (argon2id, 19 MiB
// each) an anonymous client can ask for.
type signInOptions struct {
	// perAddress and global are the attempts allowed per minute from one client address and
	// in all (shared by the replicas through --redis-url).
	perAddress, global int
	// hashConcurrency is how many password checks and hashes run at once in the process.
	hashConcurrency int
	// trustedProxies are the CIDRs of the reverse proxies whose X-Forwarded-For names the client.
	trustedProxies []string
}

func (o *signInOptions) addFlags(f *pflag.FlagSet) {
	f.IntVar(&o.perAddress, "signin-rate-per-address", dashboard.DefaultSignInsPerAddress, "sign-in attempts per minute allowed from one client address (the connection's peer, or the client a proxy of --trusted-proxy-cidrs names; IPv6 by /64), shared by the replicas with --redis-url")
	f.IntVar(&o.global, "signin-rate-global", dashboard.DefaultSignInsGlobal, "sign-in attempts per minute allowed in all, shared by the replicas with --redis-url")
	f.IntVar(&o.hashConcurrency, "password-hash-concurrency", accounts.DefaultHashConcurrency, "password checks and hashes (argon2id, 19 MiB each) run at once by the process; a sign-in finding "+strconv.Itoa(accounts.DefaultHashQueue)+" more waiting is answered 429")
	f.StringSliceVar(&o.trustedProxies, "trusted-proxy-cidrs", nil, "CIDRs of the reverse proxies (an ingress) whose X-Forwarded-For names the client that sign-in limits count; empty: the connection's peer, and X-Forwarded-For is ignored")
}
