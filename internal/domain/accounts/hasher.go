package accounts

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Defaults of the bound on argon2id computations: each holds argonMemory (19 MiB) while it
// runs, so the defaults keep password work under about 80 MiB and 4 cores at any time.
const (
	// DefaultHashConcurrency is how many argon2id computations run at once in a process.
	DefaultHashConcurrency = 4
	// DefaultHashQueue is how many sign-ins wait for one of them before more are refused.
	DefaultHashQueue = 16
)

// ErrBusy is a sign-in refused before any password was checked, because the process runs and
// queues as many password checks as it allows (or several replicas raced for one account's
// count): it is worth trying again in a moment.
var ErrBusy = errors.New("too many sign-ins at the moment: try again in a moment")

// hasher bounds the argon2id computations of one Accounts, and so of the process, which has
// one: at most slots run at once, and at most queue sign-ins wait for a slot; any more are
// refused with ErrBusy without computing anything. Setting a password waits for a slot
// without that bound, as it follows a one-time invitation, not a guess.
type hasher struct {
	sem     *semaphore.Weighted
	queue   int64
	waiting atomic.Int64
	running atomic.Int64
	// peak is the most computations that ran at once.
	peak atomic.Int64
}

func newHasher(slots, queue int) *hasher {
	return &hasher{sem: semaphore.NewWeighted(int64(slots)), queue: int64(queue)}
}

// acquire takes a slot and returns the function that gives it back (at most once). With
// bounded, it returns ErrBusy rather than wait behind queue others.
func (h *hasher) acquire(ctx context.Context, bounded bool) (func(), error) {
	if !h.sem.TryAcquire(1) {
		if bounded {
			if h.waiting.Add(1) > h.queue {
				h.waiting.Add(-1)
				return nil, ErrBusy
			}
			defer h.waiting.Add(-1)
		}
		if err := h.sem.Acquire(ctx, 1); err != nil {
			return nil, fmt.Errorf("waiting to check a password: %w", err)
		}
	}
	for n := h.running.Add(1); ; {
		p := h.peak.Load()
		if n <= p || h.peak.CompareAndSwap(p, n) {
			break
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			h.running.Add(-1)
			h.sem.Release(1)
		})
	}, nil
}

// hash returns HashPassword(password), waiting for a slot as long as ctx allows.
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	release, err := h.acquire(ctx, false)
	if err != nil {
		return "", err
	}
	defer release()
	return HashPassword(password)
}
