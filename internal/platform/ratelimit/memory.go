package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// numShards is the number of independently locked parts of a Memory.
const numShards = 64

// sweepEvery is how often a Memory forgets its full buckets.
const sweepEvery = time.Minute

// Memory is a [Limiter] that keeps its buckets in memory. It is exact for a single
// replica: each replica of a service using Memory limits on its own.
//
// Memory is safe for concurrent use. It forgets idle keys: a bucket that is full again is
// the same as no bucket, and at most once a minute the call that notices it deletes every
// such bucket. Memory must be created with [NewMemory].
type Memory struct {
	now       func() time.Time
	seed      maphash.Seed
	nextSweep atomic.Int64 // microseconds
	shards    [numShards]memoryShard
}

type memoryShard struct {
	mu   sync.Mutex
	tats map[string]int64 // key → TAT in Unix microseconds
	_    [48]byte         // keeps shards on separate cache lines
}

// NewMemory returns a Memory reading the time from now, or from [time.Now] when now is
// nil.
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].tats = make(map[string]int64)
	}
	return m
}

// Allow decides a request under key at the current time, and counts it when allowed. It
// returns an error only when ctx is done or l is invalid (a Rate or Period that is not
// positive, or more than one request per microsecond).
func (m *Memory) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	g, err := newGCRA(l)
	if err != nil {
		return Result{}, err
	}
	now := m.now().UnixMicro()
	if next := m.nextSweep.Load(); now >= next && m.nextSweep.CompareAndSwap(next, now+sweepEvery.Microseconds()) {
		m.sweep(now)
	}
	s := &m.shards[maphash.String(m.seed, key)%numShards]
	s.mu.Lock()
	tat, allowed, retry := g.take(s.tats[key], now)
	if allowed {
		s.tats[key] = tat
	}
	s.mu.Unlock()
	return g.result(allowed, tat, now, retry), nil
}

// sweep deletes the buckets that are full at now.
func (m *Memory) sweep(now int64) {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		for k, tat := range s.tats {
			if tat <= now {
				delete(s.tats, k)
			}
		}
		s.mu.Unlock()
	}
}

// len returns the number of buckets m holds.
func (m *Memory) len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.tats)
		s.mu.Unlock()
	}
	return n
}
