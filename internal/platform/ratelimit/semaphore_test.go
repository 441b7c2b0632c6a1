package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRedisSemaphoreAcrossReplicas shares one count between two semaphores (two replicas)
// on one real redis-server, and shows that the slots of a replica that died free themselves
// while those of a live one last past their TTL.
func TestRedisSemaphoreAcrossReplicas(t *testing.T) {
	first := startRedis(t)
	second := redis.NewClient(&redis.Options{Addr: first.Options().Addr, MaxRetries: -1})
	defer second.Close()
	const ttl = 600 * time.Millisecond
	a, b := NewRedisSemaphore(first), NewRedisSemaphore(second)
	a.LeaseTTL, b.LeaseTTL = ttl, ttl
	ctx := context.Background()
	acquire := func(s *RedisSemaphore, key string, limit int, want bool) func() {
		t.Helper()
		release, ok, err := s.Acquire(ctx, key, limit)
		if err != nil || ok != want {
			t.Fatalf("Acquire(%s, %d) = %v, %v; want %v", key, limit, ok, err, want)
		}
		return release
	}

	// Three slots: two taken on one replica and one on the other fill them.
	r1 := acquire(a, "org_a:sync", 3, true)
	r2 := acquire(a, "org_a:sync", 3, true)
	r3 := acquire(b, "org_a:sync", 3, true)
	acquire(b, "org_a:sync", 3, false)
	acquire(a, "org_a:sync", 3, false)
	// Another key has slots of its own.
	acquire(b, "org_b:sync", 3, true)()

	// Held slots are renewed: well past the TTL they still count.
	time.Sleep(3 * ttl)
	acquire(b, "org_a:sync", 3, false)

	// A release frees its slot at once, for either replica; releasing twice is harmless.
	r3()
	r3()
	r4 := acquire(a, "org_a:sync", 3, true)
	acquire(b, "org_a:sync", 3, false)

	// A replica that dies cannot release or renew: its client is gone. Its two slots free
	// themselves within the TTL.
	dead := redis.NewClient(&redis.Options{Addr: first.Options().Addr, MaxRetries: -1})
	c := NewRedisSemaphore(dead)
	c.LeaseTTL = ttl
	r1()
	r2()
	acquire(c, "org_a:sync", 3, true)
	acquire(c, "org_a:sync", 3, true)
	acquire(b, "org_a:sync", 3, false)
	dead.Close()
	deadline := time.Now().Add(5 * ttl)
	for {
		release, ok, err := b.Acquire(ctx, "org_a:sync", 3)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			release()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slots of the dead replica were never freed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r4()
}

// TestRedisSemaphoreUnreachable reports an error, not a decision, when Redis is down, so that
// the caller can fall back.
func TestRedisSemaphoreUnreachable(t *testing.T) {
	client := startRedis(t)
	addr := client.Options().Addr
	down := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer down.Close()
	s := NewRedisSemaphore(down)
	if err := client.Shutdown(context.Background()).Err(); err != nil && err.Error() != "redis: client is closed" {
		// SHUTDOWN closes the connection: an error here is the normal answer.
		t.Logf("shutdown: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if _, ok, err := s.Acquire(context.Background(), "org_a:sync", 3); err == nil || ok {
		t.Fatalf("Acquire with Redis down = %v, %v; want an error", ok, err)
	}
}
