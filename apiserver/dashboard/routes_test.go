package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/pipeline"
)

// router returns the router of the API's port with only the dashboard's routes on it.
func router(d *Dashboard) *mux.Router {
	r := mux.NewRouter()
	d.Register(r)
	return r
}

// countingTranscripts is a transcripts service that holds no transcript: a read by id is
// transcripts.ErrForeign for the ids of foreign and transcripts.ErrNotFound for any other, a
// list is empty. It counts its calls by organization.
type countingTranscripts struct {
	foreign []string
	mu      sync.Mutex
	calls   map[string]int
}

func (c *countingTranscripts) saw(org, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[org]++
	if slices.Contains(c.foreign, id) {
		return fmt.Errorf("transcript %s: %w", id, transcripts.ErrForeign)
	}
	return fmt.Errorf("transcript %s: %w", id, transcripts.ErrNotFound)
}

// take returns the calls by organization since the last take.
func (c *countingTranscripts) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = map[string]int{}
	return out
}

func (c *countingTranscripts) Get(_ context.Context, org, id string) (*tcsv1.Transcript, bool, error) {
	return nil, false, c.saw(org, id)
}

func (c *countingTranscripts) Content(_ context.Context, org string, t *tcsv1.Transcript) (*string, error) {
	return nil, c.saw(org, t.Name)
}

func (c *countingTranscripts) List(_ context.Context, org string, _ transcripts.ListOptions) ([]*tcsv1.Transcript, bool, error) {
	_ = c.saw(org, "")
	return nil, false, nil
}

func (c *countingTranscripts) Delete(_ context.Context, org, id string, _ metav1.Time) (*tcsv1.Transcript, error) {
	return nil, c.saw(org, id)
}

func (c *countingTranscripts) Changes(_ context.Context, org, id string) (*tcsv1.Transcript, []pipeline.Change, error) {
	return nil, nil, c.saw(org, id)
}

// Make counts its call and makes nothing; the transcript it returns is d's of org.
func (c *countingTranscripts) Make(_ context.Context, org string, d transcripts.Draft) (*tcsv1.Transcript, error) {
	_ = c.saw(org, d.ID)
	return &tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: d.ID, Organization: org, Source: d.Source, Options: d.Options}}, nil
}

func (c *countingTranscripts) Complete(_ context.Context, org string, t *tcsv1.Transcript, _ *pipeline.Result, _ metav1.Time) (bool, error) {
	_ = c.saw(org, t.Spec.ID)
	return true, nil
}

func (c *countingTranscripts) Queue(_ context.Context, org string, t *tcsv1.Transcript, _ string, _ metav1.Time) error {
	_ = c.saw(org, t.Spec.ID)
	return nil
}

func (c *countingTranscripts) ConfirmUpload(_ context.Context, org, id string, _ transcripts.Confirmation) (*tcsv1.Transcript, error) {
	return nil, c.saw(org, id)
}

func (c *countingTranscripts) Decide(_ context.Context, org, id string, _ transcripts.Batch, _ *int64) (*tcsv1.Transcript, error) {
	return nil, c.saw(org, id)
}

func (c *countingTranscripts) Marked(_ context.Context, org string, t *tcsv1.Transcript, _ []pipeline.Change) (*pipeline.Marked, error) {
	return nil, c.saw(org, t.Spec.ID)
}

// memoryPayloads keeps webhook payloads in memory.
type memoryPayloads struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (p *memoryPayloads) Get(_ context.Context, key string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.m[key]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("payload %s: not found", key)
}

func (p *memoryPayloads) Put(_ context.Context, key string, data []byte, _ string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[key] = data
	return nil
}

// memoryAudit keeps the audit trail in memory.
type memoryAudit struct {
	mu      sync.Mutex
	entries []*results.AuditEntry
}

func (a *memoryAudit) PutAudit(_ context.Context, e *results.AuditEntry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, e)
	return nil
}

func (a *memoryAudit) ListAudit(_ context.Context, opts results.AuditListOptions) (*results.AuditPage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	page := &results.AuditPage{}
	for _, e := range a.entries {
		if e.Organization == opts.Organization {
			page.Entries = append(page.Entries, e)
		}
	}
	return page, nil
}

// TestEveryOrganizationRouteIsAccountedFor lists every route of the dashboard on the router of
// the API's port and sends each, as an owner of organization A, against a transcript, API key,
// webhook endpoint and member of organization B and then of A. Each route that shows
// transcripts must reach the transcripts service, with A's organization and never B's; each
// other route must name the package that keeps it to its organization (or say why it holds
// nothing of one), never reach the transcripts service, and leave B's objects as they were;
// every page of an organization sent under B's path is not found. A route the tables do not
// know fails the test, so a new route must say which it is.
func TestEveryOrganizationRouteIsAccountedFor(t *testing.T) {
	env := startSignInEnv(t)
	ctx := t.Context()
	orgA, err := orgs.Create(ctx, env.c, env.ns, "A", nil)
	if err != nil {
		t.Fatal(err)
	}
	orgB, err := orgs.Create(ctx, env.c, env.ns, "B", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := orgA.Spec.ID, orgB.Spec.ID

	acc, err := accounts.New(accounts.Options{Client: env.c, Reader: env.c, Namespace: env.ns})
	if err != nil {
		t.Fatal(err)
	}
	const owner, memberA, memberB, password = "ann@example.org", "amy@example.org", "bob@example.org", "a long enough password"
	for _, m := range []struct{ org, email string }{{a, owner}, {a, memberA}, {b, memberB}} {
		if err := acc.SetMember(ctx, m.org, m.email, accounts.RoleOwner); err != nil {
			t.Fatal(err)
		}
	}
	if err := acc.SetPassword(ctx, owner, password); err != nil {
		t.Fatal(err)
	}
	session, err := acc.SignIn(ctx, owner, password)
	if err != nil {
		t.Fatal(err)
	}
	keyA, err := orgs.CreateKey(ctx, env.c, env.ns, a, "of A")
	if err != nil {
		t.Fatal(err)
	}
	keyB, err := orgs.CreateKey(ctx, env.c, env.ns, b, "of B")
	if err != nil {
		t.Fatal(err)
	}
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	eps := &endpoints.Manager{Client: env.c, Secrets: env.c, Namespace: env.ns, AllowCIDRs: allow}
	epA, _, err := eps.Create(ctx, a, "http://127.0.0.1:9/a", []string{"transcript.completed"})
	if err != nil {
		t.Fatal(err)
	}
	epB, _, err := eps.Create(ctx, b, "http://127.0.0.1:9/b", []string{"transcript.completed"})
	if err != nil {
		t.Fatal(err)
	}

	gm := &glossary.Manager{Client: env.c, Namespace: env.ns}
	gleA, _, err := gm.Add(ctx, a, owner, glossary.Input{Term: "Okonkwo of A"}, "")
	if err != nil {
		t.Fatal(err)
	}
	gleB, _, err := gm.Add(ctx, b, memberB, glossary.Input{Term: "Okonkwo of B"}, "")
	if err != nil {
		t.Fatal(err)
	}

	svc := &countingTranscripts{foreign: []string{"tr_b"}, calls: map[string]int{}}
	d, err := New(Options{Client: env.c, Reader: env.c, Namespace: env.ns, PublicURL: "http://127.0.0.1:8080", Transcripts: svc,
		Accounts: acc, Endpoints: eps, Payloads: &memoryPayloads{m: map[string][]byte{}}, Audit: &memoryAudit{}})
	if err != nil {
		t.Fatal(err)
	}
	h := router(d)

	// The routes that show transcripts.
	viaTranscripts := map[string]bool{
		"GET /dashboard/o/{org}/":                            true,
		"GET /dashboard/o/{org}/transcripts":                 true,
		"GET /dashboard/o/{org}/transcripts/{id}":            true,
		"GET /dashboard/o/{org}/transcripts/{id}/download":   true,
		"POST /dashboard/o/{org}/transcripts/{id}/delete":    true,
		"POST /dashboard/o/{org}/transcripts/{id}/decisions": true,
		"POST /dashboard/o/{org}/transcripts/new":            true,
	}
	// The other routes of an organization, and what keeps them to it.
	viaOthers := map[string]string{
		"GET /dashboard/o/{org}/live":            "the transcript watch, each event sent only where transcripts.Belongs",
		"GET /dashboard/o/{org}/audit":           "the results store's audit trail, listed by organization",
		"GET /dashboard/o/{org}/api":             "the service's OpenAPI document, the same for every organization",
		"GET /dashboard/o/{org}/transcripts/new": "the form that adds a transcript, which holds nothing of the organization",
	}
	for _, p := range []string{"GET /keys", "POST /keys", "POST /keys/{id}/reveal", "POST /keys/{id}/revoke"} {
		viaOthers[orgPath(p)] = "internal/domain/orgs (the organization's API keys), which refuses an empty organization"
	}
	for _, p := range []string{"GET /glossary", "POST /glossary", "GET /glossary/export", "POST /glossary/import", "POST /glossary/{id}", "POST /glossary/{id}/delete"} {
		viaOthers[orgPath(p)] = "internal/domain/glossary (the organization's glossary), which refuses an empty organization"
	}
	for _, p := range []string{"GET /settings", "POST /settings"} {
		viaOthers[orgPath(p)] = "internal/domain/orgs (the organization's own settings), which refuses an empty organization"
	}
	for _, p := range []string{"GET /endpoints", "POST /endpoints", "GET /endpoints/{id}", "POST /endpoints/{id}",
		"POST /endpoints/{id}/reveal", "POST /endpoints/{id}/rotate", "POST /endpoints/{id}/pause", "POST /endpoints/{id}/resume",
		"POST /endpoints/{id}/delete", "POST /endpoints/{id}/test", "GET /deliveries/{id}", "POST /deliveries/{id}/replay"} {
		viaOthers[orgPath(p)] = "internal/domain/endpoints, which refuses an empty organization"
	}
	for _, p := range []string{"GET /members", "POST /members", "POST /members/role", "POST /members/remove", "POST /members/invitations/revoke"} {
		viaOthers[orgPath(p)] = "internal/domain/accounts (the organization's members), which refuses an empty organization"
	}
	// The routes outside organizations hold nothing of one: the redirect of /, sign-in,
	// invitations (of the signed-in person), password resets and static files.
	public := map[string]bool{}
	for _, p := range []string{"GET /", "GET /dashboard/static/", "GET /dashboard/", "GET /dashboard/signin", "POST /dashboard/signin",
		"POST /dashboard/signout", "GET /dashboard/invitation", "POST /dashboard/invitation/open", "POST /dashboard/invitation",
		"GET /dashboard/forgot", "POST /dashboard/forgot", "GET /dashboard/reset", "POST /dashboard/reset/open",
		"POST /dashboard/reset", "GET /dashboard/invitations", "POST /dashboard/invitations/accept", "POST /dashboard/invitations/decline"} {
		public[p] = true
	}

	var registered []string
	err = h.Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := r.GetPathTemplate()
		if err != nil {
			return err
		}
		// The subrouter of the dashboard's prefix has no methods; its routes are walked next.
		methods, _ := r.GetMethods()
		for _, m := range methods {
			if m == http.MethodHead {
				// Every GET route answers HEAD too.
				continue
			}
			registered = append(registered, m+" "+tpl)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range registered {
		if !viaTranscripts[r] && viaOthers[r] == "" && !public[r] {
			t.Errorf("route %s is not accounted for: say whether it shows transcripts (and so goes through internal/domain/transcripts) or how it keeps to its organization", r)
		}
	}
	for _, table := range []map[string]bool{public, viaTranscripts, keys(viaOthers)} {
		for r := range table {
			if !slices.Contains(registered, r) {
				t.Errorf("route %s of the tables is not registered", r)
			}
		}
	}

	// send sends the route r of template tpl with {org} and {id} as given, and the form a
	// route of members reads, as the owner of A through the router.
	send := func(r, org, id, email string) *httptest.ResponseRecorder {
		method, tpl, _ := strings.Cut(r, " ")
		path := strings.NewReplacer("{org}", org, "{id}", id).Replace(tpl)
		if strings.HasSuffix(tpl, "/static/") {
			path += "style.css"
		}
		form := url.Values{"csrf": {session.CSRF}, "email": {email}, "role": {accounts.RoleMember}, "label": {"new"},
			"url": {"http://127.0.0.1:9/new"}, "events": {"transcript.completed"},
			"source": {"youtube"}, "youtube": {"https://www.youtube.com/watch?v=dQw4w9WgXcQ"}, "category": {"bible", "place"}}
		req := httptest.NewRequest(method, "http://127.0.0.1:8080"+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.AddCookie(&http.Cookie{Name: d.cookieName(), Value: session.Token})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	// The routes that remove or revoke go last, so that the others find A's objects, and the
	// sign-out, which ends the session, last of all.
	order := func(r string) int {
		switch {
		case strings.HasSuffix(r, "/signout"):
			return 2
		case strings.HasSuffix(r, "/delete") || strings.HasSuffix(r, "/revoke") || strings.HasSuffix(r, "/remove"):
			return 1
		}
		return 0
	}
	slices.SortStableFunc(registered, func(x, y string) int { return order(x) - order(y) })
	ids := func(r string) [2]string {
		switch {
		case strings.Contains(r, "/keys/"):
			return [2]string{keyB.ID, keyA.ID}
		case strings.Contains(r, "/endpoints/"):
			return [2]string{epB.Spec.ID, epA.Spec.ID}
		case strings.Contains(r, "/glossary/"):
			return [2]string{gleB.ID, gleA.ID}
		case strings.Contains(r, "/deliveries/"):
			return [2]string{"dlv_b", "dlv_a"}
		}
		return [2]string{"tr_b", "tr_a"}
	}
	for _, r := range registered {
		svc.take()
		if public[r] {
			if rec := send(r, a, "", owner); rec.Code >= 500 {
				t.Errorf("%s: %d %s", r, rec.Code, rec.Body)
			}
			if calls := svc.take(); len(calls) != 0 {
				t.Errorf("%s holds nothing of an organization but reached the transcripts service as %v", r, calls)
			}
			continue
		}
		// Under B's path, every page of an organization is not found for a member of A.
		if rec := send(r, b, ids(r)[0], memberB); rec.Code != http.StatusNotFound {
			t.Errorf("%s under B's path: %d, want 404", r, rec.Code)
		}
		if calls := svc.take(); len(calls) != 0 {
			t.Errorf("%s under B's path reached the transcripts service as %v", r, calls)
		}
		for i, email := range []string{memberB, memberA} {
			rec := send(r, a, ids(r)[i], email)
			calls := svc.take()
			switch {
			case rec.Code >= 500:
				t.Errorf("%s against %s: %d %s", r, []string{"B", "A"}[i], rec.Code, rec.Body)
			case viaTranscripts[r] && (calls[a] == 0 || len(calls) != 1):
				t.Errorf("%s against %s reached the transcripts service as %v, want only as %s", r, []string{"B", "A"}[i], calls, a)
			case !viaTranscripts[r] && len(calls) != 0:
				t.Errorf("%s does not show transcripts but reached the transcripts service as %v", r, calls)
			}
		}
	}

	// B's key, endpoint and member are as they were.
	if _, err := orgs.GetKey(ctx, env.c, env.ns, b, keyB.ID); err != nil {
		t.Errorf("B's key: %v", err)
	}
	if ep, err := eps.Get(ctx, epB.Spec.ID, b); err != nil || ep.Spec.Paused || ep.Spec.URL != epB.Spec.URL {
		t.Errorf("B's endpoint: %+v, %v; want it as it was", ep, err)
	}
	if role, err := acc.Role(ctx, b, memberB); err != nil || role != accounts.RoleOwner {
		t.Errorf("B's member: role %q, %v; want %s", role, err, accounts.RoleOwner)
	}
	if g, err := gm.Get(ctx, b); err != nil || len(g.Entries) != 1 || g.Entries[0].ID != gleB.ID || g.Entries[0].Term != gleB.Term {
		t.Errorf("B's glossary: %+v, %v; want it as it was", g, err)
	}
	// And the routes did reach A's: its key is revoked, its endpoint gone, its member removed.
	if _, err := orgs.GetKey(ctx, env.c, env.ns, a, keyA.ID); err == nil {
		t.Error("A's key was not revoked: the routes did not reach A's objects")
	}
	if _, _, err := gm.Entry(ctx, a, gleA.ID); err == nil {
		t.Error("A's glossary entry was not deleted: the routes did not reach A's objects")
	}
	if role, _ := acc.Role(ctx, a, memberA); role != "" {
		t.Errorf("A's member still has role %q: the routes did not reach A's objects", role)
	}
}

// orgPath returns the route of an organization's page p, given below /dashboard/o/{org}.
func orgPath(p string) string {
	method, path, _ := strings.Cut(p, " ")
	return method + " /dashboard/o/{org}" + path
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
