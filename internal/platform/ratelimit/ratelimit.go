// Package ratelimit limits the rate of requests per key with the generic cell rate
// algorithm (GCRA), and reports each decision as the X-RateLimit-* headers of the API.
//
// A key is typically an organization and a rate class, such as "org-123:create". The
// caller passes the [Limit] with every call, since organizations may override the
// defaults of their classes. The burst equals the rate: a fresh bucket allows Rate
// requests at once, then one request every Period/Rate. After Period without requests a
// bucket is full again.
//
// Two backends implement [Limiter] with the same arithmetic: [Memory], exact for a single
// replica, and [Redis], whose state and clock are shared by every replica using the same
// Redis server. Both compute in whole microseconds: the emission interval is Period/Rate
// truncated to a microsecond, and a Limit whose emission interval would be shorter than a
// microsecond is rejected.
package ratelimit

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// A Limit is a rate of Rate requests per Period, with a burst of Rate.
type Limit struct {
	Rate   int
	Period time.Duration
}

// PerMinute returns a Limit of rate requests per minute.
func PerMinute(rate int) Limit { return Limit{Rate: rate, Period: time.Minute} }

// A Result is a decision of a [Limiter] and what the API reports about it.
type Result struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Limit is the Rate of the Limit applied (X-RateLimit-Limit).
	Limit int
	// Remaining is how many requests would be allowed now, after this one (0..Limit;
	// X-RateLimit-Remaining).
	Remaining int
	// ResetAt is when the bucket is full again, that is when Limit requests would be
	// allowed at once (X-RateLimit-Reset, in Unix seconds rounded up). It is the time of
	// the decision when the bucket is already full.
	ResetAt time.Time
	// RetryAfter is, when Allowed is false, how long to wait before the next request can
	// be allowed; it is zero when Allowed is true. It is exact to the microsecond; the
	// Retry-After header written by Headers rounds it up to whole seconds, at least 1.
	RetryAfter time.Duration
}

// Headers writes r to h as X-RateLimit-Limit, X-RateLimit-Remaining and
// X-RateLimit-Reset, and, when r is not Allowed, Retry-After. It replaces any value
// already present.
func (r Result) Headers(h http.Header) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(r.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(r.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(r.ResetUnix(), 10))
	if !r.Allowed {
		h.Set("Retry-After", strconv.FormatInt(r.RetryAfterSeconds(), 10))
	} else {
		h.Del("Retry-After")
	}
}

// ResetUnix returns ResetAt in Unix seconds, rounded up: the value of X-RateLimit-Reset.
func (r Result) ResetUnix() int64 {
	s := r.ResetAt.Unix()
	if r.ResetAt.Nanosecond() != 0 {
		s++
	}
	return s
}

// RetryAfterSeconds returns RetryAfter in seconds, rounded up and at least 1: the value of
// Retry-After. It is meaningful only when r is not Allowed.
func (r Result) RetryAfterSeconds() int64 {
	s := int64((r.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}

// A Limiter decides whether a request under key is allowed by l, and counts it when it is.
// A refused request is not counted.
type Limiter interface {
	Allow(ctx context.Context, key string, l Limit) (Result, error)
}

var (
	_ Limiter = (*Memory)(nil)
	_ Limiter = (*Redis)(nil)
)

// gcra is a Limit in microseconds, the unit in which both backends compute. A bucket's
// whole state is its theoretical arrival time (TAT): the time at which it is full again.
type gcra struct {
	rate      int
	interval  int64 // emission interval: Period/Rate, in microseconds
	tolerance int64 // interval*rate: how far the TAT may run ahead of now
}

func newGCRA(l Limit) (gcra, error) {
	if l.Rate <= 0 {
		return gcra{}, fmt.Errorf("ratelimit: rate %d is not positive", l.Rate)
	}
	if l.Period <= 0 {
		return gcra{}, fmt.Errorf("ratelimit: period %v is not positive", l.Period)
	}
	iv := l.Period.Microseconds() / int64(l.Rate)
	if iv < 1 {
		return gcra{}, fmt.Errorf("ratelimit: %d per %v is more than one per microsecond", l.Rate, l.Period)
	}
	return gcra{rate: l.Rate, interval: iv, tolerance: iv * int64(l.Rate)}, nil
}

// take decides a request at now on a bucket whose stored TAT is tat (0 for a new bucket).
// It returns the TAT after the decision, which is to be stored only when allowed, and when
// refused how long to wait, in microseconds. The Lua script of Redis mirrors it.
func (g gcra) take(tat, now int64) (next int64, allowed bool, retry int64) {
	tat = max(tat, now)
	next = tat + g.interval
	if allowAt := next - g.tolerance; now < allowAt {
		return tat, false, allowAt - now
	}
	return next, true, 0
}

// result returns the Result of a decision at now that left the bucket with TAT tat.
func (g gcra) result(allowed bool, tat, now, retry int64) Result {
	tat = max(tat, now)
	remaining := (now + g.tolerance - tat) / g.interval
	remaining = min(max(remaining, 0), int64(g.rate))
	return Result{
		Allowed:    allowed,
		Limit:      g.rate,
		Remaining:  int(remaining),
		ResetAt:    time.UnixMicro(tat),
		RetryAfter: time.Duration(retry) * time.Microsecond,
	}
}
