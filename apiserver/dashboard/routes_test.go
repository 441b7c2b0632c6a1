package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/text/pipeline"
)

// foreignTranscripts is a transcripts service that holds only another organization's
// transcripts: every read by id is transcripts.ErrForeign, every list empty. It counts its
// calls by organization.
type foreignTranscripts struct {
	mu    sync.Mutex
	calls map[string]int
}

func (f *foreignTranscripts) saw(org string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[org]++
}

func (f *foreignTranscripts) Get(_ context.Context, org, id string) (*tcsv1.Transcript, bool, error) {
	f.saw(org)
	return nil, false, fmt.Errorf("transcript %s: %w", id, transcripts.ErrForeign)
}

func (f *foreignTranscripts) Content(_ context.Context, org string, _ *tcsv1.Transcript) (*string, error) {
	f.saw(org)
	return nil, transcripts.ErrForeign
}

func (f *foreignTranscripts) List(_ context.Context, org string, _ transcripts.ListOptions) ([]*tcsv1.Transcript, bool, error) {
	f.saw(org)
	return nil, false, nil
}

func (f *foreignTranscripts) Changes(_ context.Context, org, id string) (*tcsv1.Transcript, []pipeline.Change, error) {
	f.saw(org)
	return nil, nil, fmt.Errorf("transcript %s: %w", id, transcripts.ErrForeign)
}

// TestEveryOrganizationRouteIsAccountedFor lists every route of the dashboard: each page of an
// organization that shows transcripts must read them through the transcripts service, with the
// organization of its path and no other, and show another organization's as not found; each
// other route must say which organization-scoped package it goes through instead, or why it
// holds nothing of an organization. A route the tables do not know fails the test.
func TestEveryOrganizationRouteIsAccountedFor(t *testing.T) {
	svc := &foreignTranscripts{calls: map[string]int{}}
	d, err := New(Options{PublicURL: "https://tcs.example.org", Transcripts: svc})
	if err != nil {
		t.Fatal(err)
	}
	// The pages that show transcripts, and the status they answer when the service has none
	// of the organization's.
	viaTranscripts := map[string]int{
		"GET /{$}":                       http.StatusOK,
		"GET /transcripts":               http.StatusOK,
		"GET /transcripts/{id}":          http.StatusNotFound,
		"GET /transcripts/{id}/download": http.StatusNotFound,
	}
	// The other pages of an organization, and what keeps them to it.
	viaOthers := map[string]string{
		"GET /live": "the transcript watch, each event sent only where transcripts.Belongs",
	}
	for _, p := range []string{"GET /keys", "POST /keys", "POST /keys/{id}/reveal", "POST /keys/{id}/revoke"} {
		viaOthers[p] = "internal/domain/orgs (the organization's API keys)"
	}
	for _, p := range []string{"GET /endpoints", "POST /endpoints", "GET /endpoints/{id}", "POST /endpoints/{id}",
		"POST /endpoints/{id}/reveal", "POST /endpoints/{id}/rotate", "POST /endpoints/{id}/pause", "POST /endpoints/{id}/resume",
		"POST /endpoints/{id}/delete", "POST /endpoints/{id}/test", "GET /deliveries/{id}", "POST /deliveries/{id}/replay"} {
		viaOthers[p] = "internal/domain/endpoints, which refuses an empty organization"
	}
	for _, p := range []string{"GET /members", "POST /members", "POST /members/role", "POST /members/remove", "POST /members/invitations/revoke"} {
		viaOthers[p] = "internal/domain/accounts (the organization's members)"
	}
	viaOthers["GET /audit"] = "the results store's audit trail, listed by organization"
	// The routes outside organizations hold nothing of one: sign-in, invitations (of the
	// signed-in person), password resets and static files.
	public := map[string]bool{}
	for _, p := range []string{"GET /dashboard/static/", "GET /dashboard/{$}", "GET /dashboard/signin", "POST /dashboard/signin",
		"POST /dashboard/signout", "GET /dashboard/invitation", "POST /dashboard/invitation/open", "POST /dashboard/invitation",
		"GET /dashboard/forgot", "POST /dashboard/forgot", "GET /dashboard/reset", "POST /dashboard/reset/open",
		"POST /dashboard/reset", "GET /dashboard/invitations", "POST /dashboard/invitations/accept", "POST /dashboard/invitations/decline"} {
		public[p] = true
	}

	registered := map[string]bool{}
	for _, rt := range d.publicRoutes() {
		registered[rt.pattern] = true
		if !public[rt.pattern] {
			t.Errorf("route %s is not accounted for", rt.pattern)
		}
	}
	for _, rt := range d.orgRoutes() {
		registered[rt.pattern] = true
	}
	for _, table := range []map[string]bool{public, keys(viaTranscripts), keys(viaOthers)} {
		for p := range table {
			if !registered[p] {
				t.Errorf("route %s of the tables is not registered", p)
			}
		}
	}
	const org = "org_a"
	for _, rt := range d.orgRoutes() {
		want, ok := viaTranscripts[rt.pattern]
		if !ok {
			if viaOthers[rt.pattern] == "" {
				t.Errorf("route /dashboard/o/{org}%s is not accounted for: say how it keeps to its organization", rt.pattern)
			}
			continue
		}
		t.Run(rt.pattern, func(t *testing.T) {
			method, path, _ := strings.Cut(rt.pattern, " ")
			path = strings.NewReplacer("{$}", "", "{id}", "tr_b").Replace(path)
			r := httptest.NewRequest(method, "/dashboard/o/"+org+path, nil)
			r.SetPathValue("org", org)
			r.SetPathValue("id", "tr_b")
			w := httptest.NewRecorder()
			svc.mu.Lock()
			svc.calls = map[string]int{}
			svc.mu.Unlock()
			rt.h(w, r, &view{Org: &accounts.Membership{OrganizationID: org, Role: accounts.RoleOwner}, Path: r.URL.Path})
			svc.mu.Lock()
			calls := svc.calls
			svc.mu.Unlock()
			if calls[org] == 0 || len(calls) != 1 {
				t.Errorf("reached the transcripts service as %v, want only as %s", calls, org)
			}
			if w.Code != want {
				t.Errorf("answered %d, want %d: %s", w.Code, want, w.Body)
			}
		})
	}
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
