package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// KeyPrefix is the prefix of the Redis keys of a [Redis] limiter.
const KeyPrefix = "tcs:ratelimit:"

// gcraScript decides one request atomically, with the arithmetic of gcra.take.
//
// KEYS[1] holds the bucket's TAT in Unix microseconds. ARGV[1] is the emission interval
// and ARGV[2] the tolerance, in microseconds; ARGV[3] is the current time in Unix
// microseconds, or empty to use the server's clock. It returns {allowed (0 or 1), TAT
// after the decision, now, retry}. Lua numbers are doubles: Unix microseconds (about
// 2^51) are exact, and the TAT is written with %.0f since tostring keeps only 14 digits.
// The key expires when the bucket is full again, which is the same as no key.
const gcraScript = `
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local now
if ARGV[3] == "" then
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call("TIME")
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[3])
end
local tat = tonumber(redis.call("GET", KEYS[1]) or now) or now
if tat < now then tat = now end
local nexttat = tat + interval
local allowat = nexttat - tolerance
if now < allowat then
  return {0, tat, now, allowat - now}
end
redis.call("SET", KEYS[1], string.format("%.0f", nexttat), "PX", string.format("%.0f", math.ceil((nexttat - now) / 1000)))
return {1, nexttat, now, 0}
`

// Redis is a [Limiter] that keeps its buckets in a Redis server, so that every replica
// using the same server shares them. Each decision is one atomic script call, timed by the
// server's clock, so replicas need no synchronized clocks. Buckets are keys named
// [KeyPrefix] followed by the key, which expire when full; Redis 5 or later is required.
//
// Redis is safe for concurrent use.
type Redis struct {
	client *redis.Client
	script *redis.Script
	// now, when set, replaces the server's clock; tests use it to drive Redis and Memory
	// with the same clock.
	now func() time.Time
}

// NewRedis returns a Redis using client.
func NewRedis(client *redis.Client) *Redis {
	return &Redis{client: client, script: redis.NewScript(gcraScript)}
}

// Allow decides a request under key at the server's current time, and counts it when
// allowed. It returns an error when l is invalid (see [Memory.Allow]) or when the server
// cannot be reached; the caller decides whether to fail open or closed.
func (r *Redis) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	g, err := newGCRA(l)
	if err != nil {
		return Result{}, err
	}
	nowArg := ""
	if r.now != nil {
		nowArg = strconv.FormatInt(r.now().UnixMicro(), 10)
	}
	v, err := r.script.Run(ctx, r.client, []string{KeyPrefix + key}, g.interval, g.tolerance, nowArg).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(v) != 4 {
		return Result{}, fmt.Errorf("ratelimit: redis: script returned %d values, want 4", len(v))
	}
	return g.result(v[0] == 1, v[1], v[2], v[3]), nil
}
