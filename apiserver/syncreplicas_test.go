package apiserver

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tcs.dev/tcs/internal/platform/ratelimit"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// TestSyncLimitAcrossReplicas runs three API servers of one service: two share a real
// redis-server, the third's Redis is unreachable. The limit of synchronous requests of an
// organization (3 here) holds across the two that share Redis; the third falls back to
// counting its own.
func TestSyncLimitAcrossReplicas(t *testing.T) {
	addr := testenv.StartRedis(t)
	semaphore := func(addr string) ratelimit.Semaphore {
		rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { rc.Close() })
		return ratelimit.NewRedisSemaphore(rc)
	}
	shared := semaphore(addr)
	h := newHarnessWith(t, harnessOptions{syncSemaphore: shared})
	replica := func(sem ratelimit.Semaphore) *harness {
		r := *h
		r.url, _ = h.startReplica(t, harnessOptions{syncSemaphore: sem})
		return &r
	}
	h2 := replica(semaphore(addr))
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneAddr := gone.Addr().String()
	gone.Close()
	h3 := replica(semaphore(goneAddr))

	body := []byte(`{"source_type":"url","url":"http://127.0.0.1:9/a.txt","source_format":"txt"}`)
	const wait = "/api/v1/transcripts?wait=true&timeout=5"
	var wg sync.WaitGroup
	var mu sync.Mutex
	var held []response
	for _, r := range []*harness{h, h, h2, h3, h3, h3} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := r.do(t, http.MethodPost, wait, h.keyA.Value, "application/json", body)
			mu.Lock()
			held = append(held, res)
			mu.Unlock()
		}()
	}
	time.Sleep(1500 * time.Millisecond) // the six hold their slots now
	// Another organization has slots of its own.
	other := make(chan response, 1)
	go func() {
		other <- h2.do(t, http.MethodPost, wait, h.keyB.Value, "application/json", body)
	}()
	for name, r := range map[string]*harness{"first replica": h, "second replica": h2, "replica without Redis": h3} {
		over := r.do(t, http.MethodPost, wait, h.keyA.Value, "application/json", body)
		if over.status != http.StatusTooManyRequests {
			t.Errorf("%s: the 4th synchronous request answered %d %s, want 429", name, over.status, over.raw)
		}
	}
	wg.Wait()
	if r := <-other; r.status != http.StatusGatewayTimeout {
		t.Errorf("another organization: %d %s", r.status, r.raw)
	}
	for _, r := range held {
		wantError(t, r, http.StatusGatewayTimeout, ErrTimeout, "")
	}
	// The requests gave their slots back.
	release, ok, err := shared.Acquire(context.Background(), h.keyA.OrganizationID+":sync", 3)
	if err != nil || !ok {
		t.Fatalf("after the requests ended: %v, %v", ok, err)
	}
	release()
}
