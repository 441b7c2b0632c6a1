package controllers

import (
	"context"
	"errors"
	"time"

	"k8s.io/utils/clock"

	"tcs.dev/tcs/internal/platform/results"
)

// DefaultAuditRetention is how long the entries of the audit trail are kept: over a year, so
// that a yearly review finds the whole year.
const DefaultAuditRetention = 400 * 24 * time.Hour

// auditSweepEvery is how often entries past the audit retention are removed.
const auditSweepEvery = time.Hour

// auditSweepBatch bounds the entries one statement of the sweep removes.
const auditSweepBatch = 500

// AuditSweeper removes the entries of the organizations' audit trail from the results store
// once they are older than the retention.
type AuditSweeper struct {
	Results *results.Store
	// Retention is how long entries are kept; zero means DefaultAuditRetention.
	Retention time.Duration
	// Clock is what the time is read from; nil means the real clock.
	Clock clock.PassiveClock
}

// Start sweeps until ctx ends.
func (r *AuditSweeper) Start(ctx context.Context) error {
	if r.Results == nil {
		return errors.New("the audit sweeper needs the results store")
	}
	r.setDefaults()
	return runEvery(ctx, auditSweepEvery, "removing audit entries past their retention", func(ctx context.Context) error {
		_, err := r.Sweep(ctx)
		return err
	})
}

// setDefaults gives the zero fields their defaults.
func (r *AuditSweeper) setDefaults() {
	orDefault(&r.Retention, DefaultAuditRetention)
	orRealClock(&r.Clock)
}

// NeedLeaderElection makes the sweep run on the leader only.
func (r *AuditSweeper) NeedLeaderElection() bool { return true }

// Sweep removes every entry older than the retention, in bounded batches, and returns how many
// it removed.
func (r *AuditSweeper) Sweep(ctx context.Context) (int, error) {
	cut := r.Clock.Now().Add(-r.Retention)
	total := 0
	for {
		n, err := r.Results.DeleteAuditBefore(ctx, cut, auditSweepBatch)
		total += n
		if err != nil || n < auditSweepBatch {
			return total, err
		}
	}
}
