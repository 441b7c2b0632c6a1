package ratelimit

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// startRedis starts a redis-server of its own (see testenv.StartRedis) and returns a client
// of it; both are stopped when t ends.
func startRedis(t *testing.T) *redis.Client {
	t.Helper()
	client := redis.NewClient(&redis.Options{Addr: testenv.StartRedis(t), MaxRetries: -1})
	t.Cleanup(func() { client.Close() })
	return client
}
