package apiserver

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/text/pipeline"
)

// countingScope is the transcripts service that counts its calls by organization.
type countingScope struct {
	scope
	mu    sync.Mutex
	calls map[string]int
	// writes are the calls of the methods that create and queue, as "Method org".
	writes []string
}

// wrote records a call of a creating method.
func (c *countingScope) wrote(method, org string) {
	c.saw(org)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, method+" "+org)
}

// takeWrites returns the calls of the creating methods since the last takeWrites.
func (c *countingScope) takeWrites() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.writes
	c.writes = nil
	return out
}

func (c *countingScope) saw(org string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[org]++
}

// take returns the calls by organization since the last take.
func (c *countingScope) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = map[string]int{}
	return out
}

func (c *countingScope) Make(ctx context.Context, org string, d transcripts.Draft) (*tcsv1.Transcript, error) {
	c.wrote("Make", org)
	return c.scope.Make(ctx, org, d)
}

func (c *countingScope) Queue(ctx context.Context, org string, t *tcsv1.Transcript, record string, now metav1.Time) error {
	c.wrote("Queue", org)
	return c.scope.Queue(ctx, org, t, record, now)
}

func (c *countingScope) Complete(ctx context.Context, org string, t *tcsv1.Transcript, res *pipeline.Result, now metav1.Time) (bool, error) {
	c.wrote("Complete", org)
	return c.scope.Complete(ctx, org, t, res, now)
}

func (c *countingScope) ConfirmUpload(ctx context.Context, org, id string, cf transcripts.Confirmation) (*tcsv1.Transcript, error) {
	c.wrote("ConfirmUpload", org)
	return c.scope.ConfirmUpload(ctx, org, id, cf)
}

func (c *countingScope) Get(ctx context.Context, org, id string) (*tcsv1.Transcript, bool, error) {
	c.saw(org)
	return c.scope.Get(ctx, org, id)
}

func (c *countingScope) Find(ctx context.Context, org, id string) (*tcsv1.Transcript, error) {
	c.saw(org)
	return c.scope.Find(ctx, org, id)
}

func (c *countingScope) Archived(ctx context.Context, org, id string) (*tcsv1.Transcript, error) {
	c.saw(org)
	return c.scope.Archived(ctx, org, id)
}

func (c *countingScope) Content(ctx context.Context, org string, t *tcsv1.Transcript) (*string, error) {
	c.saw(org)
	return c.scope.Content(ctx, org, t)
}

func (c *countingScope) Changes(ctx context.Context, org, id string) (*tcsv1.Transcript, []pipeline.Change, error) {
	c.saw(org)
	return c.scope.Changes(ctx, org, id)
}

func (c *countingScope) Job(ctx context.Context, org, jobID string) (*tcsv1.Transcript, *tcsv1.Job, error) {
	c.saw(org)
	return c.scope.Job(ctx, org, jobID)
}

func (c *countingScope) List(ctx context.Context, org string, o transcripts.ListOptions) ([]*tcsv1.Transcript, bool, error) {
	c.saw(org)
	return c.scope.List(ctx, org, o)
}

func (c *countingScope) Delete(ctx context.Context, org, id string, now metav1.Time) (*tcsv1.Transcript, error) {
	c.saw(org)
	return c.scope.Delete(ctx, org, id, now)
}

func (c *countingScope) Unarchive(ctx context.Context, org string, rec *tcsv1.Transcript, now time.Time) (*tcsv1.Transcript, error) {
	c.saw(org)
	return c.scope.Unarchive(ctx, org, rec, now)
}

func (c *countingScope) TriggerAIPass(ctx context.Context, org, id string, req transcripts.AIPassRequest) (*tcsv1.Transcript, error) {
	c.saw(org)
	return c.scope.TriggerAIPass(ctx, org, id, req)
}

func (c *countingScope) Decide(ctx context.Context, org, id string, batch transcripts.Batch, ifVersion *int64) (*tcsv1.Transcript, error) {
	c.saw(org)
	return c.scope.Decide(ctx, org, id, batch, ifVersion)
}

// TestEveryRouteIsAccountedFor lists every route of the API's router: each one that works on
// an organization's transcripts must reach the transcripts service, with the organization of
// the request's key and no other; each other one must not reach it at all. A route the table
// does not know fails the test, so a new route must say which it is.
func TestEveryRouteIsAccountedFor(t *testing.T) {
	counter := &countingScope{calls: map[string]int{}}
	h := newHarnessWith(t, harnessOptions{wrapScope: func(s scope) scope { counter.scope = s; return counter }})
	org, key := h.keyA.OrganizationID, h.keyA.Value

	created := h.paste(t, key, map[string]any{"source_type": "paste", "content": "turn to revelations 21"})
	if created.status != http.StatusCreated {
		t.Fatalf("paste: %d %s", created.status, created.raw)
	}
	id := created.body["id"].(string)
	pass := h.do(t, http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", key, "application/json", []byte(`{}`))
	if pass.status != http.StatusAccepted {
		t.Fatalf("ai_pass: %d %s", pass.status, pass.raw)
	}
	job := pass.body["jobs"].([]any)[0].(map[string]any)["id"].(string)

	// Each route, by method and path template: how to send it, and whether it works on an
	// organization's transcripts. Scoped ones are sent in this order (the delete last).
	type route struct {
		path, body string
		scoped     bool
	}
	routes := map[string]route{
		"GET /healthz":                            {path: "/healthz"},
		"HEAD /healthz":                           {path: "/healthz"},
		"GET /api/v1/openapi.json":                {path: "/api/v1/openapi.json"},
		"GET /api/v1/me":                          {path: "/api/v1/me"},       // the key's own description
		"PUT /uploads/":                           {path: "/uploads/nothing"}, // signed URLs of the object store, no key
		"POST /api/v1/transcripts":                {path: "/api/v1/transcripts", body: `{"source_type":"paste","content":"first corinthians 13 4"}`, scoped: true},
		"GET /api/v1/transcripts":                 {path: "/api/v1/transcripts", scoped: true},
		"POST /api/v1/transcripts/uploads":        {path: "/api/v1/transcripts/uploads", body: `{"filename":"a.txt"}`, scoped: true},
		"GET /api/v1/transcripts/{id}":            {path: "/api/v1/transcripts/" + id, scoped: true},
		"GET /api/v1/transcripts/{id}/changes":    {path: "/api/v1/transcripts/" + id + "/changes", scoped: true},
		"POST /api/v1/transcripts/{id}/ai_pass":   {path: "/api/v1/transcripts/" + id + "/ai_pass", body: `{"apply":true}`, scoped: true},
		"POST /api/v1/transcripts/{id}/decisions": {path: "/api/v1/transcripts/" + id + "/decisions", body: `{"decisions":[{"change_id":"chg_0001","action":"reject"}]}`, scoped: true},
		"GET /api/v1/jobs/{id}":                   {path: "/api/v1/jobs/" + job, scoped: true},
		"DELETE /api/v1/transcripts/{id}":         {path: "/api/v1/transcripts/" + id, scoped: true},
	}
	var registered []string
	err := h.srv.router().Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := r.GetPathTemplate()
		if err != nil {
			return err
		}
		methods, err := r.GetMethods()
		if err != nil {
			return err
		}
		for _, m := range methods {
			registered = append(registered, m+" "+tpl)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range registered {
		if _, ok := routes[r]; !ok {
			t.Errorf("route %s is not accounted for: say whether it works on an organization's transcripts (and so goes through internal/domain/transcripts)", r)
		}
	}
	for r := range routes {
		if !slices.Contains(registered, r) {
			t.Errorf("route %s of the table is not registered", r)
		}
	}

	// The delete goes last, as it removes the transcript the others read.
	slices.SortStableFunc(registered, func(a, b string) int {
		switch {
		case a == "DELETE /api/v1/transcripts/{id}":
			return 1
		case b == "DELETE /api/v1/transcripts/{id}":
			return -1
		}
		return 0
	})
	for _, r := range registered {
		rt, ok := routes[r]
		if !ok {
			continue
		}
		method, _, _ := strings.Cut(r, " ")
		counter.take()
		res := h.do(t, method, rt.path, key, "application/json", []byte(rt.body))
		calls := counter.take()
		switch {
		case rt.scoped && res.status >= 500:
			t.Errorf("%s: %d %s", r, res.status, res.raw)
		case rt.scoped && (calls[org] == 0 || len(calls) != 1):
			t.Errorf("%s reached the transcripts service as %v, want only as %s", r, calls, org)
		case !rt.scoped && len(calls) != 0:
			t.Errorf("%s is not scoped but reached the transcripts service as %v", r, calls)
		}
	}

	// Each source kind of a create reaches the service's rules of creating, as organization A.
	g := h.grant(t, key, `{"filename":"sermon.txt","source_format":"txt"}`)
	if status := put(t, g, []byte("turn to john 3 16"), nil); status/100 != 2 {
		t.Fatalf("upload: %d", status)
	}
	for _, tc := range []struct {
		kind, body string
		want       []string
	}{
		{"paste", `{"source_type":"paste","content":"romans 8 28"}`, []string{"Make " + org, "Complete " + org}},
		{"youtube", `{"source_type":"youtube","url":"https://youtu.be/dQw4w9WgXcQ"}`, []string{"Make " + org, "Queue " + org}},
		{"url", `{"source_type":"url","url":"http://127.0.0.1:9/a.txt","source_format":"txt"}`, []string{"Make " + org, "Queue " + org}},
		{"upload", `{"source_type":"upload","transcript_id":"` + g["transcript_id"].(string) + `"}`, []string{"ConfirmUpload " + org}},
	} {
		counter.takeWrites()
		res := h.do(t, http.MethodPost, "/api/v1/transcripts", key, "application/json", []byte(tc.body))
		if res.status/100 != 2 {
			t.Errorf("create of a %s: %d %s", tc.kind, res.status, res.raw)
		}
		if got := counter.takeWrites(); !slices.Equal(got, tc.want) {
			t.Errorf("create of a %s reached the service's creating methods as %v, want %v", tc.kind, got, tc.want)
		}
	}
}
