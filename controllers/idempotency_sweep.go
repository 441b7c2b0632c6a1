package controllers

import (
	"context"
	"errors"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"tcs.dev/tcs/internal/platform/results"
)

// DefaultIdempotencySweepEvery is how often expired idempotency records are removed.
const DefaultIdempotencySweepEvery = 5 * time.Minute

// idempotencySweepBatch bounds the records one statement of the sweep removes, so that the
// sweep never holds the database's write lock long.
const idempotencySweepBatch = 500

// IdempotencySweeper removes the idempotency records of the results store once they expired,
// with the responses they keep. A record past its expiry no longer replays even before it is
// removed: a request with its key takes it over.
type IdempotencySweeper struct {
	Results *results.Store
	// Every is the period of the sweep; zero means DefaultIdempotencySweepEvery.
	Every time.Duration
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
}

// Start sweeps until ctx ends.
func (r *IdempotencySweeper) Start(ctx context.Context) error {
	if r.Results == nil {
		return errors.New("the idempotency sweeper needs the results store")
	}
	r.setDefaults()
	return runEvery(ctx, r.Every, "removing expired idempotency records", func(ctx context.Context) error {
		_, err := r.Sweep(ctx)
		return err
	})
}

// runEvery runs f at once and then every period until ctx ends, logging its errors as what.
func runEvery(ctx context.Context, period time.Duration, what string, f func(context.Context) error) error {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		if err := f(ctx); err != nil && ctx.Err() == nil {
			log.FromContext(ctx).Error(err, what)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// setDefaults gives the zero fields their defaults.
func (r *IdempotencySweeper) setDefaults() {
	orDefault(&r.Every, DefaultIdempotencySweepEvery)
	orRealClock(&r.Clock)
}

// NeedLeaderElection makes the sweep run on the leader only.
func (r *IdempotencySweeper) NeedLeaderElection() bool { return true }

// Sweep removes every record expired now, in bounded batches, and returns how many it removed.
func (r *IdempotencySweeper) Sweep(ctx context.Context) (int, error) {
	now := r.Clock.Now()
	total := 0
	for {
		n, err := r.Results.DeleteExpiredIdempotency(ctx, now, idempotencySweepBatch)
		total += n
		if err != nil || n < idempotencySweepBatch {
			return total, err
		}
	}
}
