package apiserver

import (
	"context"
	"sync"
	"time"
)

// acquireSync takes one of the limit slots of synchronous requests of org: from the shared
// semaphore when there is one, or from this replica's count when there is none or it fails.
func (s *Server) acquireSync(ctx context.Context, org string, limit int) (release func(), ok bool) {
	if s.sync.shared != nil {
		// A Redis that does not answer must not hold the request for its client's retries.
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		release, ok, err := s.sync.shared.Acquire(actx, org+":sync", limit)
		if err == nil {
			return release, ok
		}
		s.log.Error(err, "the shared count of synchronous requests is unavailable; counting this replica's only", "organization", org)
	}
	return s.sync.slots.acquire(org, limit)
}

// syncSlots bounds the synchronous requests waiting at once, per organization.
type syncSlots struct {
	limit int
	mu    sync.Mutex
	used  map[string]int
}

func newSyncSlots(limit int) *syncSlots {
	return &syncSlots{limit: limit, used: map[string]int{}}
}

// acquire takes one of limit slots of org; release gives it back.
func (q *syncSlots) acquire(org string, limit int) (release func(), ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.used[org] >= limit {
		return nil, false
	}
	q.used[org]++
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.used[org]--; q.used[org] <= 0 {
				delete(q.used, org)
			}
		})
	}, true
}
