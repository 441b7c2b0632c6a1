package apiserver

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	toolscache "k8s.io/client-go/tools/cache"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// ownWrites is read-your-writes for the lists, which the informer cache serves: it holds, per
// organization, the newest status write of its transcripts that this replica made and the
// cache has not delivered yet. A write answers at once; a list of its organization waits until
// the cache holds the write, at most cacheWait from the write.
//
// The informer delivers the transcripts of one namespace in the order of their
// resourceVersions, so once it has delivered any transcript of that namespace at a version at
// or above a write's, the cache holds that write (or something newer).
type ownWrites struct {
	namespace string

	mu sync.Mutex
	// wired says that the informer's events arrive; without them a write waits for the cache
	// itself (awaitCached).
	wired bool
	// seen is the newest resourceVersion of a transcript of namespace the informer delivered.
	seen string
	// pending is each organization's newest write not yet delivered, with when it was made.
	pending map[string]ownWrite
	// changed is closed, and replaced, whenever seen advances.
	changed chan struct{}
}

// ownWrite is one status write of a transcript: its resourceVersion and when it was made.
type ownWrite struct {
	version string
	at      time.Time
}

func newOwnWrites(namespace string) *ownWrites {
	return &ownWrites{namespace: namespace, pending: map[string]ownWrite{}, changed: make(chan struct{})}
}

// delivered reports whether the cache holds version: seen is at or above it. A version that
// does not compare (not one of the API server's) is taken as delivered, as awaitCached does.
func (w *ownWrites) delivered(version string) bool {
	if w.seen == "" {
		return false
	}
	cmp, err := resourceversion.CompareResourceVersion(w.seen, version)
	return err != nil || cmp >= 0
}

// record notes the write of t at now for the lists of its organization to wait for; it reports
// false when the informer's events are not wired, and the caller must wait itself.
func (w *ownWrites) record(t *tcsv1.Transcript, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.wired {
		return false
	}
	if t.ResourceVersion == "" || t.Namespace != w.namespace || w.delivered(t.ResourceVersion) {
		return true
	}
	org := t.Spec.Organization
	if p, ok := w.pending[org]; ok {
		if cmp, err := resourceversion.CompareResourceVersion(p.version, t.ResourceVersion); err == nil && cmp > 0 {
			return true // a newer write of the organization is waited for already
		}
	}
	w.pending[org] = ownWrite{version: t.ResourceVersion, at: now}
	return true
}

// await holds a list of org until the cache holds the organization's writes recorded so far,
// at most cacheWait from the newest of them, or ctx ends.
func (w *ownWrites) await(ctx context.Context, org string) {
	for {
		w.mu.Lock()
		p, ok := w.pending[org]
		left := cacheWait - time.Since(p.at)
		if ok && (w.delivered(p.version) || left <= 0) {
			delete(w.pending, org)
			ok = false
		}
		changed := w.changed
		w.mu.Unlock()
		if !ok {
			return
		}
		timer := time.NewTimer(left)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
		if ctx.Err() != nil {
			return
		}
	}
}

// saw advances seen to the version of obj, a transcript the informer delivered, and forgets
// the writes it covers.
func (w *ownWrites) saw(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok || m.GetNamespace() != w.namespace || m.GetResourceVersion() == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.delivered(m.GetResourceVersion()) {
		return
	}
	w.seen = m.GetResourceVersion()
	for org, p := range w.pending {
		if w.delivered(p.version) {
			delete(w.pending, org)
		}
	}
	close(w.changed)
	w.changed = make(chan struct{})
}

// wire marks the informer's events as arriving (on true) or no longer arriving (on false).
func (w *ownWrites) wire(on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wired = on
	if !on {
		// Nothing will be delivered any more: no list waits for it.
		clear(w.pending)
		close(w.changed)
		w.changed = make(chan struct{})
	}
}

// handler is the informer event handler that feeds w.
func (w *ownWrites) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.saw(obj) },
		UpdateFunc: func(_, obj any) { w.saw(obj) },
		DeleteFunc: func(obj any) { w.saw(obj) },
	}
}

// wrote follows a status write of t (the transcripts service's Written): the lists of its
// organization wait for the cache to hold it, not this request's answer. A server whose
// informer events are not wired waits here instead.
func (s *Server) wrote(ctx context.Context, t *tcsv1.Transcript) {
	if !s.writes.record(t, time.Now()) {
		s.awaitCached(ctx, t)
	}
}
