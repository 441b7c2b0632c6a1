package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServerBinary returns the redis-server of TCS_REDIS_SERVER or PATH; it fails t, never
// skips, when there is none.
func redisServerBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("TCS_REDIS_SERVER"); bin != "" {
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			t.Fatalf("TCS_REDIS_SERVER=%q is not an executable redis-server (%v); run `make redis` or hack/redis.sh to install one", bin, err)
		}
		return bin
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is needed by the Redis tests and is not on PATH and TCS_REDIS_SERVER is unset: " +
			"run `make redis` (hack/redis.sh installs Debian's redis-server) or set TCS_REDIS_SERVER to its path")
	}
	return bin
}

// StartRedis starts a redis-server of its own on a free loopback port, without persistence,
// and returns its address; it is stopped when t ends. It fails t, never skips, when there is
// no redis-server (TCS_REDIS_SERVER or PATH).
func StartRedis(t testing.TB) string {
	t.Helper()
	bin := redisServerBinary(t)
	dir := t.TempDir()
	var lastErr string
	for attempt := 0; attempt < 5; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free loopback port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()

		var out SyncBuffer
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stop := func() {
			_ = cmd.Process.Kill()
			<-exited
		}

		client := redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), MaxRetries: -1})
		deadline := time.Now().Add(10 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := client.Ping(ctx).Err()
			cancel()
			if err == nil {
				client.Close()
				t.Cleanup(stop)
				return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			}
			select {
			case <-exited:
				lastErr = "redis-server exited: " + out.String()
			default:
				if time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				lastErr = "redis-server did not answer PING within 10s: " + err.Error() + "\n" + out.String()
				stop()
			}
			client.Close()
			break
		}
	}
	t.Fatalf("starting redis-server %s failed 5 times; last: %s", bin, lastErr)
	return ""
}
