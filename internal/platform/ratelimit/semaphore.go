package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/redis/go-redis/v9"
)

// A Semaphore bounds how many holders a key has at once, such as the synchronous requests
// of an organization.
type Semaphore interface {
	// Acquire takes one of limit slots of key and returns the func that gives it back; ok is
	// false when all are taken. An error says the semaphore cannot decide (its store is
	// down); the caller decides whether to fail open or closed.
	Acquire(ctx context.Context, key string, limit int) (release func(), ok bool, err error)
}

var _ Semaphore = (*RedisSemaphore)(nil)

// SemaphorePrefix is the prefix of the Redis keys of a [RedisSemaphore].
const SemaphorePrefix = "tcs:semaphore:"

// DefaultLeaseTTL is how long a slot of a [RedisSemaphore] outlives the last renewal of its
// lease: a replica that dies holding slots frees them within that time.
const DefaultLeaseTTL = 15 * time.Second

// semAcquireScript takes a slot: KEYS[1] is a sorted set of leases scored by their expiry in
// Unix milliseconds of the server's clock. It drops expired leases, then adds lease ARGV[3]
// for ARGV[2] ms when fewer than ARGV[1] remain. It returns 1 when taken, 0 when full.
const semAcquireScript = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now)
if redis.call("ZCARD", KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call("ZADD", KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call("PEXPIRE", KEYS[1], ARGV[2])
return 1
`

// semRenewScript extends lease ARGV[2] of KEYS[1] by ARGV[1] ms from now; it returns 0 when
// the lease is gone (it expired and was dropped).
const semRenewScript = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local score = redis.call("ZSCORE", KEYS[1], ARGV[2])
if not score or tonumber(score) < now then
  return 0
end
redis.call("ZADD", KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
if redis.call("PTTL", KEYS[1]) < tonumber(ARGV[1]) then
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
end
return 1
`

// RedisSemaphore is a [Semaphore] whose slots are leases in a Redis server, so that every
// replica using the same server shares one count. A lease expires LeaseTTL after it was last
// renewed; the holder renews it every LeaseTTL/3 until it releases it. So the slots of a
// replica that dies (kill -9, a lost node) free themselves within LeaseTTL, and no clock but
// the Redis server's is used.
//
// RedisSemaphore is safe for concurrent use.
type RedisSemaphore struct {
	client  *redis.Client
	acquire *redis.Script
	renew   *redis.Script
	// LeaseTTL is how long a lease lasts without renewal; zero means DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Log receives failures to renew or release a lease.
	Log logr.Logger
}

// NewRedisSemaphore returns a RedisSemaphore using client.
func NewRedisSemaphore(client *redis.Client) *RedisSemaphore {
	return &RedisSemaphore{client: client, acquire: redis.NewScript(semAcquireScript), renew: redis.NewScript(semRenewScript), Log: logr.Discard()}
}

func (s *RedisSemaphore) ttl() time.Duration {
	if s.LeaseTTL > 0 {
		return s.LeaseTTL
	}
	return DefaultLeaseTTL
}

// Acquire takes one of limit slots of key across every replica sharing the Redis server; the
// lease is renewed in the background until release is called.
func (s *RedisSemaphore) Acquire(ctx context.Context, key string, limit int) (func(), bool, error) {
	if limit <= 0 {
		return nil, false, nil
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	lease := hex.EncodeToString(b[:])
	setKey := SemaphorePrefix + key
	ttl := s.ttl()
	n, err := s.acquire.Run(ctx, s.client, []string{setKey}, limit, ttl.Milliseconds(), lease).Int64()
	if err != nil {
		return nil, false, fmt.Errorf("ratelimit: redis semaphore: %w", err)
	}
	if n != 1 {
		return nil, false, nil
	}
	renewCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		for {
			select {
			case <-renewCtx.Done():
				return
			case <-tick.C:
			}
			ok, err := s.renew.Run(renewCtx, s.client, []string{setKey}, ttl.Milliseconds(), lease).Int64()
			switch {
			case err != nil && renewCtx.Err() == nil:
				s.Log.Error(err, "renewing a semaphore lease", "key", key)
			case err == nil && ok == 0:
				s.Log.Info("a semaphore lease expired before its release; its slot was counted free", "key", key)
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer rcancel()
			if err := s.client.ZRem(rctx, setKey, lease).Err(); err != nil {
				// The lease expires by itself within LeaseTTL.
				s.Log.Error(err, "releasing a semaphore lease", "key", key)
			}
		})
	}, true, nil
}
