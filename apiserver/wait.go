package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/resourceversion"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// cacheWait bounds how long awaitCached holds an answer for the informer cache.
const cacheWait = 2 * time.Second

// awaitCached waits, at most cacheWait, until the informer cache holds t as written or newer,
// so that a list right after the answer (lists are served from the cache) shows the write.
func (s *Server) awaitCached(ctx context.Context, t *tcsv1.Transcript) {
	if s.cache == nil || t.ResourceVersion == "" {
		return
	}
	changed, stop := s.waiters.watch(t.Name)
	defer stop()
	timer := time.NewTimer(cacheWait)
	defer timer.Stop()
	// The informer's events wake the wait; the ticker only covers a server whose events are
	// not wired (Serve registers them).
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		// Read after registering, so that no change between the two is missed.
		cached := &tcsv1.Transcript{}
		if err := s.cache.Get(ctx, client.ObjectKeyFromObject(t), cached); err == nil {
			if cmp, err := resourceversion.CompareResourceVersion(cached.ResourceVersion, t.ResourceVersion); err != nil || cmp >= 0 {
				return
			}
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// waiters wakes synchronous requests when their transcript changes, from the informer's watch.
type waiters struct {
	mu sync.Mutex
	m  map[string]map[chan struct{}]struct{}
}

func newWaiters() *waiters {
	return &waiters{m: map[string]map[chan struct{}]struct{}{}}
}

// watch returns a channel that is signalled when transcript name changes, and a func to stop.
func (ws *waiters) watch(name string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	ws.mu.Lock()
	if ws.m[name] == nil {
		ws.m[name] = map[chan struct{}]struct{}{}
	}
	ws.m[name][ch] = struct{}{}
	ws.mu.Unlock()
	return ch, func() {
		ws.mu.Lock()
		delete(ws.m[name], ch)
		if len(ws.m[name]) == 0 {
			delete(ws.m, name)
		}
		ws.mu.Unlock()
	}
}

func (ws *waiters) notify(obj any) {
	t, ok := obj.(*tcsv1.Transcript)
	if !ok {
		return
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for ch := range ws.m[t.Name] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// handler is the informer event handler that feeds the waiters.
func (ws *waiters) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { ws.notify(obj) },
		UpdateFunc: func(_, obj any) { ws.notify(obj) },
	}
}

// waitAndRespond holds the request until t is completed or failed, with the AI pass it asked
// for ended too, or timeout passes; it answers with status and the transcript.
func (s *Server) waitAndRespond(w http.ResponseWriter, r *http.Request, t *tcsv1.Transcript, timeout time.Duration, status int) error {
	ctx := r.Context()
	changed, stop := s.waiters.watch(t.Name)
	defer stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		// Read after registering, so that no change between the two is missed.
		// Archived meanwhile (or long ago, for a resumed request), it is read from its record.
		found, err := s.transcripts.Find(ctx, principalFrom(ctx).OrganizationID, t.Spec.ID)
		if err == nil && found == nil {
			err = transcripts.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("reading transcript %s: %w", t.Spec.ID, err)
		}
		t = found
		if finished(t) {
			return s.respondTranscript(w, r, t, status)
		}
		select {
		case <-changed:
		case <-deadline.C:
			writeJSON(w, http.StatusGatewayTimeout, map[string]any{
				"id": t.Spec.ID,
				"error": errorObject{Type: ErrTimeout, RequestID: RequestID(ctx),
					Message: fmt.Sprintf("Transcript %s did not finish within %s; it goes on: poll GET /api/v1/transcripts/%s.", t.Spec.ID, timeout, t.Spec.ID)},
				"transcript": apiview.NewTranscript(t, nil),
			})
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
