package ratelimit

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// t0Unix is the start of the injected clocks: a whole second, so that ResetAt is exact.
const t0Unix = 1_700_000_000

func t0() time.Time { return time.Unix(t0Unix, 0) }

// clock is an injected clock that only moves when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: t0()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// backend makes a Limiter under test that reads the time from c.
type backend struct {
	name string
	new  func(t *testing.T, c *clock) Limiter
}

// backends returns Memory and Redis, the latter on a redis-server of its own, so that the
// Memory tests run even when redis-server is missing.
func backends() []backend {
	return []backend{
		{"memory", func(t *testing.T, c *clock) Limiter { return NewMemory(c.Now) }},
		{"redis", func(t *testing.T, c *clock) Limiter {
			r := NewRedis(startRedis(t))
			r.now = c.Now
			return r
		}},
	}
}

// step is one request of a sequence, at t0+at, and the Result it must get.
type step struct {
	at        time.Duration
	key       string
	allowed   bool
	remaining int
	resetAt   time.Duration // from t0
	retry     time.Duration
}

// burst returns the steps of n requests under key at t0+at on a bucket that is full then:
// all allowed, and then one refused.
func burst(at time.Duration, key string, l Limit) []step {
	iv := l.Period / time.Duration(l.Rate)
	var steps []step
	for i := 1; i <= l.Rate; i++ {
		steps = append(steps, step{at: at, key: key, allowed: true, remaining: l.Rate - i, resetAt: at + time.Duration(i)*iv})
	}
	return append(steps, step{at: at, key: key, remaining: 0, resetAt: at + l.Period, retry: iv})
}

func concat(parts ...[]step) []step {
	var all []step
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// TestSequence drives Memory and Redis with the same injected clock through the same
// sequences, and checks every Result exactly.
func TestSequence(t *testing.T) {
	create := Limit{Rate: 60, Period: time.Minute}
	read := Limit{Rate: 600, Period: time.Minute}
	tests := []struct {
		name  string
		limit Limit
		steps []step
	}{
		{
			name:  "create 60/min",
			limit: create,
			steps: concat(
				burst(0, "a", create),
				[]step{
					// Half the emission interval later: still refused, for the other half.
					{at: 500 * time.Millisecond, key: "a", remaining: 0, resetAt: time.Minute, retry: 500 * time.Millisecond},
					// One emission interval later: exactly one more.
					{at: time.Second, key: "a", allowed: true, remaining: 0, resetAt: time.Minute + time.Second},
					{at: time.Second, key: "a", remaining: 0, resetAt: time.Minute + time.Second, retry: time.Second},
					// Keys are independent.
					{at: time.Second, key: "b", allowed: true, remaining: 59, resetAt: 2 * time.Second},
					// 10.5 intervals later: 10 requests have been earned back.
					{at: 11*time.Second + 500*time.Millisecond, key: "a", allowed: true, remaining: 9, resetAt: time.Minute + 2*time.Second},
				},
				// A full period after the bucket's reset it is full again, and not fuller.
				burst(time.Minute+2*time.Second, "a", create),
				burst(10*time.Minute, "a", create),
			),
		},
		{
			name:  "read 600/min",
			limit: read,
			steps: concat(
				burst(0, "a", read),
				[]step{
					{at: 50 * time.Millisecond, key: "a", remaining: 0, resetAt: time.Minute, retry: 50 * time.Millisecond},
					{at: 100 * time.Millisecond, key: "a", allowed: true, remaining: 0, resetAt: time.Minute + 100*time.Millisecond},
					{at: time.Minute + 100*time.Millisecond, key: "a", allowed: true, remaining: 599, resetAt: time.Minute + 200*time.Millisecond},
				},
			),
		},
		{
			name:  "1 per 10s",
			limit: Limit{Rate: 1, Period: 10 * time.Second},
			steps: []step{
				{at: 0, key: "a", allowed: true, remaining: 0, resetAt: 10 * time.Second},
				{at: 9 * time.Second, key: "a", remaining: 0, resetAt: 10 * time.Second, retry: time.Second},
				{at: 10 * time.Second, key: "a", allowed: true, remaining: 0, resetAt: 20 * time.Second},
				{at: 30 * time.Second, key: "a", allowed: true, remaining: 0, resetAt: 40 * time.Second},
			},
		},
		{
			// 7 per minute: the emission interval is 60s/7 truncated to a microsecond.
			name:  "7/min truncated interval",
			limit: Limit{Rate: 7, Period: time.Minute},
			steps: []step{
				{at: 0, key: "a", allowed: true, remaining: 6, resetAt: 8571428 * time.Microsecond},
				{at: 8571428 * time.Microsecond, key: "a", allowed: true, remaining: 6, resetAt: 2 * 8571428 * time.Microsecond},
			},
		},
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newClock()
			lim := b.new(t, c)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					for i, s := range tt.steps {
						c.Set(t0().Add(s.at))
						got, err := lim.Allow(context.Background(), tt.name+"/"+s.key, tt.limit)
						if err != nil {
							t.Fatalf("step %d: %v", i, err)
						}
						want := Result{Allowed: s.allowed, Limit: tt.limit.Rate, Remaining: s.remaining, ResetAt: t0().Add(s.resetAt), RetryAfter: s.retry}
						if !got.ResetAt.Equal(want.ResetAt) || got.Allowed != want.Allowed || got.Limit != want.Limit ||
							got.Remaining != want.Remaining || got.RetryAfter != want.RetryAfter {
							t.Fatalf("step %d (at +%v, key %s):\n got %s\nwant %s", i, s.at, s.key, show(got), show(want))
						}
					}
				})
			}
		})
	}
}

func show(r Result) string {
	return fmt.Sprintf("{Allowed:%v Limit:%d Remaining:%d ResetAt:+%v RetryAfter:%v}", r.Allowed, r.Limit, r.Remaining, r.ResetAt.Sub(t0()), r.RetryAfter)
}

// TestConcurrent checks that concurrent requests at one instant are allowed exactly Rate
// times, each seeing a distinct Remaining.
func TestConcurrent(t *testing.T) {
	l := Limit{Rate: 1000, Period: time.Minute}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			lim := b.new(t, newClock())
			const goroutines, each = 64, 50
			var mu sync.Mutex
			var remaining []int
			var wg sync.WaitGroup
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < each; i++ {
						r, err := lim.Allow(context.Background(), "concurrent", l)
						if err != nil {
							t.Error(err)
							return
						}
						if r.Allowed {
							mu.Lock()
							remaining = append(remaining, r.Remaining)
							mu.Unlock()
						} else if r.Remaining != 0 || r.RetryAfter != time.Minute/time.Duration(l.Rate) {
							t.Errorf("refused with %s", show(r))
						}
					}
				}()
			}
			wg.Wait()
			if len(remaining) != l.Rate {
				t.Fatalf("allowed %d of %d concurrent requests, want exactly %d", len(remaining), goroutines*each, l.Rate)
			}
			sort.Ints(remaining)
			for i, r := range remaining {
				if r != i {
					t.Fatalf("Remaining of the allowed requests, sorted: %v; want 0..%d once each", remaining, l.Rate-1)
				}
			}
		})
	}
}

// TestMemoryConcurrentMovingClock checks that, with a clock moving while many goroutines
// ask, Memory never allows more than the GCRA permits: Rate plus one per emission interval
// elapsed.
func TestMemoryConcurrentMovingClock(t *testing.T) {
	var ticks atomic.Int64
	const tick = 100 * time.Microsecond
	now := func() time.Time { return t0().Add(time.Duration(ticks.Add(1)) * tick) }
	m := NewMemory(now)
	l := Limit{Rate: 20, Period: 100 * time.Millisecond} // one per 5ms = 50 ticks
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				r, err := m.Allow(context.Background(), "k", l)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Duration(ticks.Load()) * tick
	limit := int64(l.Rate) + int64(elapsed/(l.Period/time.Duration(l.Rate)))
	if got := allowed.Load(); got > limit || got < int64(l.Rate) {
		t.Fatalf("allowed %d over %v; want between %d and %d", got, elapsed, l.Rate, limit)
	}
}

func TestMemoryForgetsIdleKeys(t *testing.T) {
	c := newClock()
	m := NewMemory(c.Now)
	ctx := context.Background()
	l := Limit{Rate: 60, Period: time.Minute}
	for i := 0; i < 1000; i++ {
		if _, err := m.Allow(ctx, fmt.Sprint("k", i), l); err != nil {
			t.Fatal(err)
		}
	}
	c.Set(t0().Add(30 * time.Second))
	m.Allow(ctx, "late", l)
	if n := m.len(); n != 1001 {
		t.Fatalf("before a sweep: %d buckets, want 1001", n)
	}
	c.Set(t0().Add(61 * time.Second))
	// Full buckets are swept; the bucket of this call is then created.
	if r, _ := m.Allow(ctx, "k0", l); !r.Allowed || r.Remaining != 59 {
		t.Fatalf("after the sweep: %s", show(r))
	}
	if n := m.len(); n != 1 {
		t.Fatalf("after a sweep: %d buckets, want 1", n)
	}
}

func TestInvalidLimit(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			lim := b.new(t, newClock())
			for _, l := range []Limit{{0, time.Minute}, {-1, time.Minute}, {10, 0}, {10, -time.Second}, {2_000_000, time.Second}} {
				if r, err := lim.Allow(context.Background(), "k", l); err == nil {
					t.Errorf("Allow with %+v = %s, want an error", l, show(r))
				}
			}
		})
	}
}

func TestMemoryCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewMemory(nil).Allow(ctx, "k", PerMinute(60)); err == nil {
		t.Fatal("Allow with a canceled context succeeded")
	}
}

func TestHeaders(t *testing.T) {
	tests := []struct {
		name string
		r    Result
		want map[string]string
	}{
		{
			name: "allowed",
			r:    Result{Allowed: true, Limit: 60, Remaining: 59, ResetAt: t0().Add(time.Second)},
			want: map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59", "X-RateLimit-Reset": "1700000001"},
		},
		{
			name: "reset rounded up",
			r:    Result{Allowed: true, Limit: 600, Remaining: 598, ResetAt: t0().Add(200 * time.Millisecond)},
			want: map[string]string{"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "598", "X-RateLimit-Reset": "1700000001"},
		},
		{
			name: "refused, sub-second wait is 1",
			r:    Result{Limit: 600, ResetAt: t0().Add(time.Minute), RetryAfter: 100 * time.Millisecond},
			want: map[string]string{"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000060", "Retry-After": "1"},
		},
		{
			name: "refused, wait rounded up",
			r:    Result{Limit: 1, ResetAt: t0().Add(10 * time.Second), RetryAfter: 8*time.Second + time.Microsecond},
			want: map[string]string{"X-RateLimit-Limit": "1", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000010", "Retry-After": "9"},
		},
		{
			name: "refused, whole seconds kept",
			r:    Result{Limit: 60, ResetAt: t0().Add(time.Minute), RetryAfter: time.Second},
			want: map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000060", "Retry-After": "1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			h.Set("Retry-After", "stale")
			tt.r.Headers(h)
			if len(h) != len(tt.want) {
				t.Errorf("headers %v, want %v", h, tt.want)
			}
			for k, v := range tt.want {
				if got := h.Values(k); len(got) != 1 || got[0] != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	ctx := context.Background()
	l := Limit{Rate: 600, Period: time.Minute}
	b.Run("one-key", func(b *testing.B) {
		m := NewMemory(nil)
		b.ReportAllocs()
		for b.Loop() {
			m.Allow(ctx, "org-1:read", l)
		}
	})
	b.Run("1024-keys", func(b *testing.B) {
		m := NewMemory(nil)
		keys := make([]string, 1024)
		for i := range keys {
			keys[i] = fmt.Sprintf("org-%d:read", i)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Allow(ctx, keys[i%len(keys)], l)
			i++
		}
	})
	b.Run("parallel-1024-keys", func(b *testing.B) {
		m := NewMemory(nil)
		keys := make([]string, 1024)
		for i := range keys {
			keys[i] = fmt.Sprintf("org-%d:read", i)
		}
		var seq atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := int(seq.Add(1)) * 7919
			for pb.Next() {
				m.Allow(ctx, keys[i%len(keys)], l)
				i++
			}
		})
	})
}

// TestRedisServerClock checks the shape of the decisions of Redis on its own clock.
func TestRedisServerClock(t *testing.T) {
	client := startRedis(t)
	r := NewRedis(client)
	ctx := context.Background()
	l := Limit{Rate: 10, Period: 10 * time.Second} // one per second
	start := time.Now()
	for i := 1; i <= l.Rate; i++ {
		res, err := r.Allow(ctx, "shape", l)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Allowed || res.Limit != l.Rate || res.Remaining != l.Rate-i || res.RetryAfter != 0 {
			t.Fatalf("request %d: %+v, want allowed with Remaining %d", i, res, l.Rate-i)
		}
		if d := time.Until(res.ResetAt); d <= time.Duration(i-1)*time.Second || d > time.Duration(i)*time.Second {
			t.Fatalf("request %d: ResetAt in %v, want in (%ds, %ds]", i, d, i-1, i)
		}
	}
	res, err := r.Allow(ctx, "shape", l)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if res.Allowed || res.Remaining != 0 || res.RetryAfter > time.Second || res.RetryAfter < time.Second-elapsed {
		t.Fatalf("request %d after %v: %+v, want refused with RetryAfter ≈ 1s", l.Rate+1, elapsed, res)
	}
	if d := time.Until(res.ResetAt); d <= l.Period-elapsed-time.Second || d > l.Period {
		t.Fatalf("refused: ResetAt in %v, want about %v", d, l.Period)
	}
	if ttl := client.PTTL(ctx, KeyPrefix+"shape").Val(); ttl <= 0 || ttl > l.Period {
		t.Fatalf("bucket key TTL %v, want in (0, %v]", ttl, l.Period)
	}
	if other, err := r.Allow(ctx, "shape-other", l); err != nil || !other.Allowed || other.Remaining != l.Rate-1 {
		t.Fatalf("another key: %+v, %v; want allowed with Remaining %d", other, err, l.Rate-1)
	}

	// After RetryAfter, one more is allowed.
	time.Sleep(res.RetryAfter)
	if res, err := r.Allow(ctx, "shape", l); err != nil || !res.Allowed || res.Remaining != 0 {
		t.Fatalf("after RetryAfter: %+v, %v; want allowed with Remaining 0", res, err)
	}
}

// TestRedisForgetsIdleKeys checks that a bucket's key expires when the bucket is full.
func TestRedisForgetsIdleKeys(t *testing.T) {
	client := startRedis(t)
	r := NewRedis(client)
	ctx := context.Background()
	l := Limit{Rate: 2, Period: 200 * time.Millisecond}
	for i := 0; i < 3; i++ {
		if _, err := r.Allow(ctx, "idle", l); err != nil {
			t.Fatal(err)
		}
	}
	if n := client.Exists(ctx, KeyPrefix+"idle").Val(); n != 1 {
		t.Fatalf("bucket key missing right after use")
	}
	time.Sleep(l.Period + 50*time.Millisecond)
	if n := client.Exists(ctx, KeyPrefix+"idle").Val(); n != 0 {
		t.Fatalf("bucket key still present a full period after its last use")
	}
	if res, err := r.Allow(ctx, "idle", l); err != nil || !res.Allowed || res.Remaining != 1 {
		t.Fatalf("after expiry: %+v, %v; want a full bucket", res, err)
	}
}

// TestRedisBroken checks that Allow reports an error when the server does not answer: here
// a listener that closes every connection at once.
func TestRedisBroken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	client := redis.NewClient(&redis.Options{Addr: l.Addr().String(), MaxRetries: -1, DialTimeout: time.Second})
	defer client.Close()
	if res, err := NewRedis(client).Allow(context.Background(), "k", PerMinute(60)); err == nil {
		t.Fatalf("Allow with a broken server = %+v, want an error", res)
	}
}
