package apiserver

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// apiRequests counts the requests an API server replica sends to the API server: the writes
// of its client and the reads of its API reader (the cache's reads send none), by verb and
// kind, as "create Transcript" or "status patch Transcript".
type apiRequests struct {
	mu sync.Mutex
	n  map[string]int
}

func (a *apiRequests) count(verb string, obj any) {
	kind := strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
	if _, k, ok := strings.Cut(kind, "."); ok {
		kind = k
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == nil {
		a.n = map[string]int{}
	}
	a.n[verb+" "+kind]++
}

// take returns the counts so far and starts again from none.
func (a *apiRequests) take() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.n
	a.n = nil
	return n
}

func (a *apiRequests) client(c client.Client) client.Client { return &countingClient{Client: c, a: a} }
func (a *apiRequests) reader(r client.Reader) client.Reader { return &countingReader{Reader: r, a: a} }

type countingClient struct {
	client.Client
	a *apiRequests
}

func (c *countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.a.count("create", obj)
	return c.Client.Create(ctx, obj, opts...)
}

func (c *countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.a.count("update", obj)
	return c.Client.Update(ctx, obj, opts...)
}

func (c *countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.a.count("patch", obj)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c *countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.a.count("delete", obj)
	return c.Client.Delete(ctx, obj, opts...)
}

func (c *countingClient) Status() client.SubResourceWriter {
	return &countingStatus{SubResourceWriter: c.Client.Status(), a: c.a}
}

type countingStatus struct {
	client.SubResourceWriter
	a *apiRequests
}

func (s *countingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.a.count("status update", obj)
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

func (s *countingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.a.count("status patch", obj)
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

type countingReader struct {
	client.Reader
	a *apiRequests
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.a.count("get", obj)
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r *countingReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r.a.count("list", list)
	return r.Reader.List(ctx, list, opts...)
}

func TestAPasteSendsOneCreateAndOneStatusUpdateToTheAPIServer(t *testing.T) {
	requests := &apiRequests{}
	h := newHarnessWith(t, harnessOptions{requests: requests})
	const n = 10
	for _, tc := range []struct {
		name string
		body map[string]any
		want map[string]int
	}{
		{"a paste", map[string]any{"source_type": "paste", "content": "turn to first corinthians 13 4"},
			map[string]int{"create Transcript": n, "status update Transcript": n}},
		{"a paste with a title and options", map[string]any{"source_type": "paste", "content": "in revelations 21 4", "title": "Sermon",
			"options": map[string]any{"normalize_references": true, "metadata": map[string]string{"service": "9am"}}},
			map[string]int{"create Transcript": n, "status update Transcript": n}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requests.take()
			for range n {
				if r := h.paste(t, h.keyA.Value, tc.body); r.status != http.StatusCreated {
					t.Fatalf("paste: HTTP %d %v", r.status, r.body)
				}
			}
			got := requests.take()
			// The first use of an API key records its last use, once a minute, in the background.
			delete(got, "patch Secret")
			if !maps.Equal(got, tc.want) {
				t.Fatalf("%d pastes sent %v to the API server; want %v", n, got, tc.want)
			}
		})
	}
}
