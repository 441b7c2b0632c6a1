// Package dashboard is the web UI of tcs for the members of organizations: sign-in, invitations
// and password resets (sent by email), transcripts
// with live progress, API keys, webhook endpoints, delivery history and replay, members and an
// audit trail. It renders HTML on the server and reads and writes through the same code as the
// API (internal/domain/transcripts, the organization-scoped access to transcripts) and `tcs admin`
// (internal/domain/orgs, internal/domain/endpoints, internal/domain/accounts).
package dashboard

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/domain/limits"
	tcsorgs "tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/mail"
	"tcs.dev/tcs/internal/platform/ratelimit"
	"tcs.dev/tcs/internal/text/pipeline"
)

// The dashboard writes webhook endpoints, organizations (members) and Events (notifications of
// the audit trail, which is kept in the results store).
// +kubebuilder:rbac:groups=tcs.dev,resources=webhookendpoints,verbs=get;list;watch;create;update;patch;delete,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=webhookdeliveries/status,verbs=get;patch,namespace=tcs-system
// +kubebuilder:rbac:groups=tcs.dev,resources=organizations,verbs=get;list;watch;update;patch,namespace=tcs-system
// +kubebuilder:rbac:groups="",resources=events,verbs=create;list;watch,namespace=tcs-system

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Prefix is the path the dashboard is served under.
const Prefix = "/dashboard/"

// The names of the session cookie. Over https it has the __Host- prefix, which browsers accept
// only from a secure origin, with Secure, Path=/ and no Domain: so no other site, not even
// one on a sibling or parent domain or on plain http, can set or overwrite it. Over plain http
// (tcs dev on loopback) browsers refuse the prefix, so the cookie has a plain name and the
// dashboard's path.
const (
	cookieNameHTTPS = "__Host-tcs_session"
	cookieNameHTTP  = "tcs_session"
)

// cookieName returns the name of the session cookie.
func (d *Dashboard) cookieName() string {
	if d.secure {
		return cookieNameHTTPS
	}
	return cookieNameHTTP
}

// cookiePath returns the path of the session cookie: / as the __Host- prefix requires over
// https, so the browser also sends it to the API, which authenticates by API key only and
// never reads it.
func (d *Dashboard) cookiePath() string {
	if d.secure {
		return "/"
	}
	return Prefix
}

// hstsValue is the Strict-Transport-Security header of responses over https: a year, for this
// host only (tcs may live on a subdomain of a domain that also serves plain http).
const hstsValue = "max-age=31536000"

// Transcripts is the organization-scoped access to transcripts, their changes, jobs and
// content that the API's handlers use too (*transcripts.Service).
type Transcripts interface {
	Get(ctx context.Context, org, id string) (*tcsv1.Transcript, bool, error)
	Content(ctx context.Context, org string, t *tcsv1.Transcript) (*string, error)
	List(ctx context.Context, org string, o transcripts.ListOptions) ([]*tcsv1.Transcript, bool, error)
	Changes(ctx context.Context, org, id string) (*tcsv1.Transcript, []pipeline.Change, error)
	Delete(ctx context.Context, org, id string, now metav1.Time) (*tcsv1.Transcript, error)
	// The methods of the API's create and upload paths (see add.go).
	Make(ctx context.Context, org string, d transcripts.Draft) (*tcsv1.Transcript, error)
	Complete(ctx context.Context, org string, t *tcsv1.Transcript, res *pipeline.Result, now metav1.Time) (bool, error)
	Queue(ctx context.Context, org string, t *tcsv1.Transcript, record string, now metav1.Time) error
	ConfirmUpload(ctx context.Context, org, id string, c transcripts.Confirmation) (*tcsv1.Transcript, error)
	// The methods of review (see review.go).
	Decide(ctx context.Context, org, id string, batch transcripts.Batch, ifVersion *int64) (*tcsv1.Transcript, error)
	Marked(ctx context.Context, org string, t *tcsv1.Transcript, changes []pipeline.Change) (*pipeline.Marked, error)
}

// Payloads reads and writes webhook payloads by object-store key.
type Payloads interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Put(ctx context.Context, key string, data []byte, contentType string) error
}

// Options configures a Dashboard.
type Options struct {
	// Namespace holds the service's objects.
	Namespace string
	// Client writes objects and reads custom resources (from the cache).
	Client client.Client
	// Reader reads straight from the API server (Secrets, Events).
	Reader client.Reader
	// Cache is the informer cache whose transcript watch feeds live progress.
	Cache cache.Cache
	// Transcripts reads transcripts, changes and jobs by the same rules as the API.
	Transcripts Transcripts
	// Accounts manages members, passwords and sessions.
	Accounts *accounts.Accounts
	// Endpoints manages webhook endpoints and deliveries.
	Endpoints *endpoints.Manager
	// Payloads keeps the bodies of deliveries.
	Payloads Payloads
	// Add holds what adding a transcript from the dashboard needs beyond Transcripts.
	Add AddOptions
	// PublicURL is where people reach the service: invitation and reset links point there,
	// cookies are Secure when it is https, and state-changing requests must come from its origin.
	PublicURL string
	// OpenAPI is the OpenAPI document the API serves, which the API reference page shows.
	OpenAPI []byte
	// Mail sends invitations and password resets to their people; nil writes them to Log.
	Mail mail.Sender
	// Audit keeps the audit trail (the results store); Events on the Organization only notify.
	Audit AuditTrail
	// Limiter counts the attempts of people not signed in (per client address and in all) and
	// the webhook test events and replays of each organization (at most
	// limits.WebhookSendsPerMinute); nil means one in memory (exact for one replica). With the
	// API's Redis limiter, replicas share the counts.
	Limiter ratelimit.Limiter
	// SignInPerAddress is the rate of sign-in attempts allowed from one client address (see
	// clientAddress); zero means DefaultSignInsPerAddress a minute.
	SignInPerAddress ratelimit.Limit
	// SignInGlobal is the rate of sign-in attempts allowed in all; zero means
	// DefaultSignInsGlobal a minute.
	SignInGlobal ratelimit.Limit
	// TrustedProxies are the networks of the reverse proxies (an ingress) whose X-Forwarded-For
	// names the client that sign-ins are counted under; none means the connection's peer.
	TrustedProxies []netip.Prefix
	// Log receives server errors.
	Log logr.Logger
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
}

// Dashboard serves the web UI.
type Dashboard struct {
	o      Options
	origin string
	secure bool
	pages  map[string]*template.Template
	live   *hub
	cop    *http.CrossOriginProtection
	// auditRetryFor bounds the retries of an audit entry's write (tests shorten it).
	auditRetryFor time.Duration
	// resets holds a slot per password reset being looked up and sent.
	resets chan struct{}
	// liveWriteTimeout and liveRecheck are limits.LiveWriteTimeout and
	// limits.LiveMembershipRecheck; tests shorten them.
	liveWriteTimeout, liveRecheck time.Duration
	// liveRole reads a member's role from the API server (Accounts.LiveRole); tests replace it.
	liveRole func(ctx context.Context, orgID, email string) (string, error)
}

// New returns a Dashboard; its templates are parsed once here.
func New(o Options) (*Dashboard, error) {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Limiter == nil {
		o.Limiter = ratelimit.NewMemory(o.Clock.Now)
	}
	if o.SignInPerAddress.Rate <= 0 {
		o.SignInPerAddress = ratelimit.PerMinute(DefaultSignInsPerAddress)
	}
	if o.SignInGlobal.Rate <= 0 {
		o.SignInGlobal = ratelimit.PerMinute(DefaultSignInsGlobal)
	}
	if o.Mail == nil {
		o.Mail = mail.Log{Log: o.Log.WithName("mail")}
	}
	u, err := url.Parse(o.PublicURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("the public URL %q is not an absolute http(s) URL", o.PublicURL)
	}
	d := &Dashboard{o: o, origin: u.Scheme + "://" + u.Host, secure: u.Scheme == "https", pages: map[string]*template.Template{}, cop: http.NewCrossOriginProtection(),
		live:             newHub(streamLimits{perSession: limits.MaxLiveStreamsPerSession, perOrg: limits.MaxLiveStreamsPerOrganization, total: limits.MaxLiveStreams}),
		liveWriteTimeout: limits.LiveWriteTimeout, liveRecheck: limits.LiveMembershipRecheck,
		auditRetryFor: auditRetryFor, resets: make(chan struct{}, resetWorkers)}
	d.liveRole = func(ctx context.Context, orgID, email string) (string, error) {
		return d.o.Accounts.LiveRole(ctx, orgID, email)
	}
	if err := d.cop.AddTrustedOrigin(d.origin); err != nil {
		return nil, fmt.Errorf("the public URL %q: %w", o.PublicURL, err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", n, err)
		}
		d.pages[base] = t
	}
	return d, nil
}

// sweepEvery is how often expired sessions and invitations are deleted.
const sweepEvery = 10 * time.Minute

// Start feeds live progress from the transcript watch, and deletes expired sessions and
// invitations every sweepEvery, until ctx ends.
func (d *Dashboard) Start(ctx context.Context) error {
	go func() {
		tick := time.NewTicker(sweepEvery)
		defer tick.Stop()
		for {
			if _, err := d.o.Accounts.Sweep(ctx); err != nil && ctx.Err() == nil {
				d.o.Log.Error(err, "deleting expired sessions and invitations")
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return d.live.start(ctx, d.o.Cache)
}

// Register adds the dashboard's routes to r, the router of the API's port: its pages and forms
// under Prefix, each with the dashboard's security headers, and / redirected to Prefix. A path
// under Prefix that no route serves is answered as net/http's ServeMux would (see unmatched),
// not by r's own not-found and method-not-allowed handlers.
func (d *Dashboard) Register(r *mux.Router) {
	r.HandleFunc("/", RootRedirect).Methods(http.MethodGet, http.MethodHead)
	sub := r.PathPrefix(Prefix).Subrouter()
	handle := func(route *mux.Route, method string, h http.Handler) {
		methods := []string{method}
		if method == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
		route.Handler(d.securityHeaders(h)).Methods(methods...)
	}
	for _, rt := range d.publicRoutes() {
		if strings.HasSuffix(rt.path, "/") && rt.path != "/" {
			handle(sub.PathPrefix(rt.path), rt.method, rt.h)
			continue
		}
		handle(sub.Path(rt.path), rt.method, rt.h)
	}
	for _, rt := range d.orgRoutes() {
		handle(sub.Path("/o/{org}"+rt.path), rt.method, d.inOrg(rt.min, rt.method != http.MethodGet, rt.h))
	}
	sub.NotFoundHandler = d.securityHeaders(unmatched(sub))
	sub.MethodNotAllowedHandler = sub.NotFoundHandler
}

// unmatched answers a request under Prefix that no route of routes serves as net/http's
// ServeMux does: a path that a route serves with a slash appended is redirected there, a path
// that routes serve by other methods is refused with 405 and the Allow header, anything else
// is not found.
func unmatched(routes *mux.Router) http.Handler {
	// serves returns the methods of routes that serve path.
	serves := func(r *http.Request, path string) []string {
		u := *r.URL
		u.Path, u.RawPath = path, ""
		var methods []string
		_ = routes.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
			// Every route of the dashboard has methods.
			ms, _ := route.GetMethods()
			for _, m := range ms {
				try := &http.Request{Method: m, URL: &u, Host: r.Host, Header: r.Header}
				var match mux.RouteMatch
				if route.Match(try, &match) && match.MatchErr == nil && !slices.Contains(methods, m) {
					methods = append(methods, m)
				}
			}
			return nil
		})
		return methods
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if !strings.HasSuffix(path, "/") && slices.Contains(serves(r, path+"/"), r.Method) {
			http.Redirect(w, r, (&url.URL{Path: path + "/", RawQuery: r.URL.RawQuery}).String(), http.StatusTemporaryRedirect)
			return
		}
		allowed := serves(r, path)
		if !strings.HasSuffix(path, "/") {
			for _, m := range serves(r, path+"/") {
				if !slices.Contains(allowed, m) {
					allowed = append(allowed, m)
				}
			}
		}
		if len(allowed) > 0 {
			slices.Sort(allowed)
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
			return
		}
		http.NotFound(w, r)
	})
}

// publicRoute is a page or form of the dashboard outside any organization: its method, its
// path below Prefix (a path ending in / serves every path below it), and its handler.
type publicRoute struct {
	method, path string
	h            http.Handler
}

// publicRoutes are the dashboard's pages and forms outside organizations: sign-in, invitations,
// password resets and static files.
func (d *Dashboard) publicRoutes() []publicRoute {
	static, _ := fs.Sub(staticFS, "static")
	return []publicRoute{
		{http.MethodGet, "/static/", http.StripPrefix(Prefix+"static/", cacheFor(time.Hour, http.FileServerFS(static)))},
		{http.MethodGet, "/", http.HandlerFunc(d.home)},
		{http.MethodGet, "/signin", http.HandlerFunc(d.signInPage)},
		{http.MethodPost, "/signin", d.sameOrigin(d.signIn)},
		{http.MethodPost, "/signout", d.sameOrigin(d.signOut)},
		{http.MethodGet, "/invitation", d.tokenPage("Invitation", Prefix+"invitation/open",
			"Open the link of your invitation email in this browser, or paste the code that follows # in it.")},
		{http.MethodPost, "/invitation/open", d.sameOrigin(d.limitAnonymous(d.openInvitation))},
		{http.MethodPost, "/invitation", d.sameOrigin(d.limitAnonymous(d.acceptWithPassword))},
		{http.MethodGet, "/forgot", http.HandlerFunc(d.forgotPage)},
		{http.MethodPost, "/forgot", d.sameOrigin(d.limitAnonymous(d.forgot))},
		{http.MethodGet, "/reset", d.tokenPage("Set a password", Prefix+"reset/open",
			"Open the link of your password email in this browser, or paste the code that follows # in it.")},
		{http.MethodPost, "/reset/open", d.sameOrigin(d.limitAnonymous(d.openReset))},
		{http.MethodPost, "/reset", d.sameOrigin(d.limitAnonymous(d.completeReset))},
		{http.MethodGet, "/invitations", http.HandlerFunc(d.invitations)},
		{http.MethodPost, "/invitations/accept", d.sameOrigin(d.answerInvitation(true))},
		{http.MethodPost, "/invitations/decline", d.sameOrigin(d.answerInvitation(false))},
	}
}

// orgRoute is a page or form of one organization, below /dashboard/o/{org}: its method, its
// path below that, the role it needs, and its handler.
type orgRoute struct {
	method, path string
	min          string
	h            orgHandler
}

// orgRoutes are the pages and forms of an organization. Those that show transcripts read them
// through Options.Transcripts only (TestEveryOrganizationRouteIsAccountedFor).
func (d *Dashboard) orgRoutes() []orgRoute {
	const get, post = http.MethodGet, http.MethodPost
	return []orgRoute{
		{get, "/", accounts.RoleMember, d.overview},
		{get, "/transcripts", accounts.RoleMember, d.transcripts},
		// Before /transcripts/{id}, which would take "new" as an id.
		{get, "/transcripts/new", accounts.RoleMember, d.addPage},
		{post, "/transcripts/new", accounts.RoleMember, d.add},
		{get, "/transcripts/{id}", accounts.RoleMember, d.transcript},
		{get, "/transcripts/{id}/download", accounts.RoleMember, d.download},
		{post, "/transcripts/{id}/delete", accounts.RoleAdmin, d.deleteTranscript},
		{post, "/transcripts/{id}/decisions", accounts.RoleMember, d.decide},
		{get, "/live", accounts.RoleMember, d.liveEvents},
		{get, "/keys", accounts.RoleMember, d.keys},
		{post, "/keys", accounts.RoleAdmin, d.createKey},
		{post, "/keys/{id}/reveal", accounts.RoleMember, d.revealKey},
		{post, "/keys/{id}/revoke", accounts.RoleAdmin, d.revokeKey},
		{get, "/endpoints", accounts.RoleMember, d.endpoints},
		{post, "/endpoints", accounts.RoleAdmin, d.createEndpoint},
		{get, "/endpoints/{id}", accounts.RoleMember, d.endpoint},
		{post, "/endpoints/{id}", accounts.RoleAdmin, d.editEndpoint},
		{post, "/endpoints/{id}/reveal", accounts.RoleMember, d.revealEndpoint},
		{post, "/endpoints/{id}/rotate", accounts.RoleAdmin, d.rotateEndpoint},
		{post, "/endpoints/{id}/pause", accounts.RoleAdmin, d.pauseEndpoint(true)},
		{post, "/endpoints/{id}/resume", accounts.RoleAdmin, d.pauseEndpoint(false)},
		{post, "/endpoints/{id}/delete", accounts.RoleAdmin, d.deleteEndpoint},
		{post, "/endpoints/{id}/test", accounts.RoleAdmin, d.testEndpoint},
		{get, "/deliveries/{id}", accounts.RoleMember, d.delivery},
		{post, "/deliveries/{id}/replay", accounts.RoleAdmin, d.replayDelivery},
		{get, "/members", accounts.RoleMember, d.members},
		{post, "/members", accounts.RoleOwner, d.inviteMember},
		{post, "/members/role", accounts.RoleOwner, d.changeRole},
		{post, "/members/remove", accounts.RoleOwner, d.removeMember},
		{post, "/members/invitations/revoke", accounts.RoleAdmin, d.revokeInvitation},
		{get, "/audit", accounts.RoleAdmin, d.audit},
		// Organization settings and the API reference (issue #23).
		{get, "/settings", accounts.RoleMember, d.settings},
		{post, "/settings", accounts.RoleAdmin, d.saveSettings},
		{get, "/api", accounts.RoleMember, d.apiReference},
		// The organization's glossary (issue #23); the import before /glossary/{id}, which would
		// take "import" as an id.
		{get, "/glossary", accounts.RoleMember, d.glossaryList},
		{post, "/glossary", accounts.RoleAdmin, d.addGlossaryEntry},
		{get, "/glossary/export", accounts.RoleMember, d.exportGlossary},
		{post, glossaryImportPath, accounts.RoleAdmin, d.importGlossary},
		{post, "/glossary/{id}", accounts.RoleAdmin, d.editGlossaryEntry},
		{post, "/glossary/{id}/delete", accounts.RoleAdmin, d.deleteGlossaryEntry},
	}
}

// RootRedirect sends / to the dashboard.
func RootRedirect(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, Prefix, http.StatusFound)
}

func cacheFor(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(d.Seconds())))
		h.ServeHTTP(w, r)
	})
}

// maxForm bounds the body of a form.
const maxForm = 64 << 10

// securityHeaders keeps pages out of frames and scripts to the dashboard's own, tells browsers
// to reach it over https only when its public URL is https, and bounds request bodies.
func (d *Dashboard) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if d.secure {
			h.Set("Strict-Transport-Security", hstsValue)
		}
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, "/dashboard/static/") {
			h.Set("Cache-Control", "no-store")
		}
		if r.Body != nil {
			// Forms are small; a larger body reads as an empty form.
			r.Body = http.MaxBytesReader(w, r.Body, bodyLimit(r.URL.Path))
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed reports whether a state-changing request comes from the dashboard's own
// origin, by net/http's cross-origin protection (Sec-Fetch-Site, else Origin against Host),
// with the public URL's origin trusted for proxies that change the Host.
func (d *Dashboard) originAllowed(r *http.Request) bool {
	return d.cop.Check(r) == nil
}

// sameOrigin refuses a cross-site request.
func (d *Dashboard) sameOrigin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !d.originAllowed(r) {
			d.fail(w, r, http.StatusForbidden, "This form was sent from another site, so it was refused.")
			return
		}
		h(w, r)
	}
}

// session returns the request's live session, or nil.
func (d *Dashboard) session(r *http.Request) (*accounts.Session, error) {
	c, err := r.Cookie(d.cookieName())
	if errors.Is(err, http.ErrNoCookie) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the session cookie: %w", err)
	}
	s, err := d.o.Accounts.Session(r.Context(), c.Value)
	if errors.Is(err, accounts.ErrNoSession) {
		return nil, nil
	}
	return s, err
}

// view is what every page template gets.
type view struct {
	Title   string
	Session *accounts.Session
	// Orgs are the organizations of the signed-in member; Org is the current one.
	Orgs []accounts.Membership
	Org  *accounts.Membership
	// Pending are the invitations the signed-in member may accept or decline.
	Pending []accounts.Invitation
	// Flash is a message about the last action.
	Flash string
	// Errors are messages about form fields, by field name.
	Errors map[string]string
	// Form holds the values a refused form is shown again with.
	Form url.Values
	// Path is the path of the request.
	Path string
	// Data is the page's own.
	Data any
	// Organization is the current organization as read for the page; nil outside one.
	Organization *tcsv1.Organization
	// Zone is the time zone dates are shown in: the organization's (orgs.TimeZone), else UTC.
	Zone *time.Location
	// Now is when the page is made, in which year dates are read.
	Now time.Time
}

// Can reports whether the current member's role is at least min.
func (v *view) Can(min string) bool {
	return v.Org != nil && accounts.RoleAtLeast(v.Org.Role, min)
}

// CSRF is the token forms carry.
func (v *view) CSRF() string {
	if v.Session == nil {
		return ""
	}
	return v.Session.CSRF
}

// Base is the path of the current organization's pages.
func (v *view) Base() string {
	if v.Org == nil {
		return strings.TrimSuffix(Prefix, "/")
	}
	return Prefix + "o/" + v.Org.OrganizationID
}

type orgHandler func(w http.ResponseWriter, r *http.Request, v *view)

// inOrg requires a session whose member belongs to the {org} of the path with a role of at
// least min; a state-changing request must also come from the dashboard's origin and carry
// the session's CSRF token. Anything else of another organization reads as not found.
func (d *Dashboard) inOrg(min string, changes bool, h orgHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := d.session(r)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		if changes && !d.originAllowed(r) {
			d.fail(w, r, http.StatusForbidden, "This form was sent from another site, so it was refused.")
			return
		}
		if s == nil {
			if changes {
				d.fail(w, r, http.StatusForbidden, "Your session has ended. Sign in again.")
				return
			}
			http.Redirect(w, r, Prefix+"signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		if changes && (s.CSRF == "" || subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.CSRF)) != 1) {
			d.fail(w, r, http.StatusForbidden, "This form has expired. Go back, reload the page and try again.")
			return
		}
		orgs, err := d.o.Accounts.Memberships(r.Context(), s.Email)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		pending, err := d.o.Accounts.PendingInvitations(r.Context(), s.Email)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		v := &view{Session: s, Orgs: orgs, Pending: pending, Flash: d.takeFlash(w, r), Path: r.URL.Path}
		for i := range orgs {
			if orgs[i].OrganizationID == mux.Vars(r)["org"] {
				v.Org = &orgs[i]
			}
		}
		if v.Org == nil {
			// Not a member, or no such organization: the same page, so that it does not tell
			// which organizations exist.
			d.notFound(w, r, &view{Session: s, Orgs: orgs})
			return
		}
		organization, err := d.o.Accounts.Organization(r.Context(), v.Org.OrganizationID)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		v.Organization, v.Zone, v.Now = organization, tcsorgs.TimeZone(organization), d.o.Clock.Now()
		if !accounts.RoleAtLeast(v.Org.Role, min) {
			d.render(w, r, http.StatusForbidden, "error", &view{Session: s, Orgs: orgs, Org: v.Org, Title: "Not allowed",
				Data: fmt.Sprintf("Your role (%s) does not allow this; it needs %s or above.", v.Org.Role, min)})
			return
		}
		h(w, r, v)
	})
}

// render writes page with v.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, page string, v *view) {
	t, ok := d.pages[page]
	if !ok {
		d.serverError(w, r, fmt.Errorf("no template %q", page))
		return
	}
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		d.serverError(w, r, fmt.Errorf("rendering %s: %w", page, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// fail answers with a page that says msg.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	d.render(w, r, status, "error", &view{Title: http.StatusText(status), Data: msg})
}

// serverError logs err and answers with a page that shows nothing of it.
func (d *Dashboard) serverError(w http.ResponseWriter, r *http.Request, err error) {
	id := r.Header.Get("X-Request-Id")
	if id == "" {
		id = w.Header().Get("X-Request-Id")
	}
	d.o.Log.Error(err, "dashboard request failed", "method", r.Method, "path", r.URL.Path, "requestID", id)
	t := d.pages["error"]
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_ = t.Execute(w, &view{Title: "Something went wrong", Data: "Something went wrong on our side. Try again in a moment; if it keeps happening, quote request " + id + "."})
}

// flashCookie carries a message about an action to the page shown after it. A cookie, not a
// query parameter, so that nobody can make the dashboard say something with a link.
const flashCookie = "tcs_flash"

// redirectWithFlash sends the browser to u, where msg is shown once.
func (d *Dashboard) redirectWithFlash(w http.ResponseWriter, r *http.Request, u, msg string) {
	if msg != "" {
		http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: url.QueryEscape(msg), Path: Prefix, MaxAge: 60,
			HttpOnly: true, Secure: d.secure, SameSite: http.SameSiteLaxMode})
	}
	http.Redirect(w, r, u, http.StatusSeeOther)
}

// takeFlash returns the message of the last action, once.
func (d *Dashboard) takeFlash(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, Secure: d.secure, SameSite: http.SameSiteLaxMode})
	msg, err := url.QueryUnescape(c.Value)
	if err != nil || len(msg) > 300 {
		return ""
	}
	return msg
}

// redirect sends the browser to path of the current organization with a message.
func (d *Dashboard) redirect(w http.ResponseWriter, r *http.Request, v *view, path, flash string) {
	d.redirectWithFlash(w, r, v.Base()+path, flash)
}

var funcs = template.FuncMap{
	// when shows a date of a page (when $ .Time); ago shows one in UTC where no page is at hand.
	"when": when,
	"ago":  func(t any) string { return when(nil, t) },
	// say puts an internal value in the words staff read (say "status" .Status).
	"say":  say,
	"join": strings.Join,
	// args passes several values to a template, which reads them with index.
	"args": func(vs ...any) []any { return vs },
	"list": func(vs ...string) []string { return vs },
	"inc":  func(i int) int { return i + 1 },
	"has": func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	},
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
}
