package dashboard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/redis/go-redis/v9"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/ratelimit"
	"tcs.dev/tcs/internal/tooling/testenv"
)

func TestClientAddress(t *testing.T) {
	ingress := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, tc := range []struct {
		name, remote, forwarded string
		trusted                 []netip.Prefix
		want                    string
	}{
		{"the peer, without trusted proxies", "192.0.2.7:51234", "203.0.113.9", nil, "192.0.2.7"},
		{"a mapped IPv4 peer", "[::ffff:192.0.2.7]:51234", "", nil, "192.0.2.7"},
		{"an IPv6 peer by its /64", "[2001:db8:1:2:aaaa::1]:443", "", nil, "2001:db8:1:2::/64"},
		{"another IPv6 peer of the same /64", "[2001:db8:1:2:bbbb::9]:443", "", nil, "2001:db8:1:2::/64"},
		{"an unparseable peer", "not an address", "", nil, "not an address"},
		{"X-Forwarded-For of a peer that is not trusted is ignored", "192.0.2.7:1", "203.0.113.9", ingress, "192.0.2.7"},
		{"the client a trusted proxy saw", "10.1.2.3:1", "203.0.113.9", ingress, "203.0.113.9"},
		{"what a client wrote left of the proxy's entry is ignored", "10.1.2.3:1", "198.51.100.1, 203.0.113.9", ingress, "203.0.113.9"},
		{"a chain of trusted proxies is walked", "10.1.2.3:1", "203.0.113.9, 10.9.9.9", ingress, "203.0.113.9"},
		{"an IPv6 client behind a proxy by its /64", "[fd00::1]:1", "2001:db8:5:6::7", ingress, "2001:db8:5:6::/64"},
		{"garbage from the proxy leaves the last good hop", "10.1.2.3:1", "garbage", ingress, "10.1.2.3"},
		{"no header leaves the proxy", "10.1.2.3:1", "", ingress, "10.1.2.3"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/dashboard/signin", nil)
		r.RemoteAddr = tc.remote
		if tc.forwarded != "" {
			r.Header.Set("X-Forwarded-For", tc.forwarded)
		}
		if got := clientAddress(r, tc.trusted); got != tc.want {
			t.Errorf("%s: clientAddress(%q, XFF %q) = %q, want %q", tc.name, tc.remote, tc.forwarded, got, tc.want)
		}
	}
}

// signInEnv is a control plane with one namespace, for Accounts.
type signInEnv struct {
	c  client.Client
	ns string
}

func startSignInEnv(t *testing.T) *signInEnv {
	t.Helper()
	e, err := testenv.Start()
	if err != nil {
		t.Fatalf("these tests need the local control plane: %v", err)
	}
	t.Cleanup(func() { _ = e.Stop() })
	return &signInEnv{c: e.Client(t, client.Options{Scheme: scheme.New()}), ns: e.Namespace(t, "dashboard-signin")}
}

func (e *signInEnv) dashboard(t *testing.T, ao accounts.Options, o Options) *Dashboard {
	t.Helper()
	ao.Client, ao.Namespace = e.c, e.ns
	acc, err := accounts.New(ao)
	if err != nil {
		t.Fatal(err)
	}
	o.Client, o.Namespace, o.Accounts, o.PublicURL = e.c, e.ns, acc, "http://127.0.0.1:8080"
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// signInFrom posts the sign-in form to h from remote and returns the status and the
// Retry-After header of the answer.
func signInFrom(h http.Handler, remote, email string) (int, string) {
	form := url.Values{"email": {email}, "password": {"a wrong password"}}
	r := httptest.NewRequest(http.MethodPost, "/dashboard/signin", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.RemoteAddr = remote
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Code, rec.Header().Get("Retry-After")
}

func TestSignInLimits(t *testing.T) {
	env := startSignInEnv(t)
	const addrA, addrB, addrC, addrD = "192.0.2.1:1000", "192.0.2.2:1000", "192.0.2.3:1000", "192.0.2.4:1000"
	redisAddr := testenv.StartRedis(t)

	for _, tc := range []struct {
		name string
		// dashboards share limiter; nil means each its own in memory.
		limiter    func(t *testing.T) ratelimit.Limiter
		perAddress int
		global     int
		// attempts are the client addresses and which dashboard (0 or 1) they reach, in order;
		// want is the status of each.
		attempts []string
		replica  []int
		want     []int
	}{
		{
			name:       "an address past its limit is answered 429, while another still gets an answer",
			perAddress: 2, global: 100,
			attempts: []string{addrA, addrA, addrA, addrB},
			want:     []int{401, 401, 429, 401},
		},
		{
			name:       "the global limit refuses every address once spent",
			perAddress: 100, global: 2,
			attempts: []string{addrA, addrB, addrC},
			want:     []int{401, 401, 429},
		},
		{
			name:       "the attempts refused to one address do not spend the global limit",
			perAddress: 1, global: 3,
			attempts: []string{addrA, addrA, addrA, addrA, addrB, addrC, addrD},
			want:     []int{401, 429, 429, 429, 401, 401, 429},
		},
		{
			name: "replicas share the limits through Redis",
			limiter: func(t *testing.T) ratelimit.Limiter {
				rc := redis.NewClient(&redis.Options{Addr: redisAddr})
				t.Cleanup(func() { rc.Close() })
				if err := rc.FlushAll(context.Background()).Err(); err != nil {
					t.Fatal(err)
				}
				return ratelimit.NewRedis(rc)
			},
			perAddress: 2, global: 100,
			attempts: []string{addrA, addrA, addrA, addrA},
			replica:  []int{0, 1, 0, 1},
			want:     []int{401, 401, 429, 429},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var shared ratelimit.Limiter
			if tc.limiter != nil {
				shared = tc.limiter(t)
			}
			var hs [2]http.Handler
			for i := range hs {
				hs[i] = router(env.dashboard(t, accounts.Options{}, Options{Limiter: shared,
					SignInPerAddress: ratelimit.PerMinute(tc.perAddress), SignInGlobal: ratelimit.PerMinute(tc.global)}))
			}
			for i, remote := range tc.attempts {
				h := hs[0]
				if tc.replica != nil {
					h = hs[tc.replica[i]]
				}
				status, retryAfter := signInFrom(h, remote, "someone@example.org")
				if status != tc.want[i] {
					t.Fatalf("attempt %d from %s: status %d, want %d", i+1, remote, status, tc.want[i])
				}
				if status == http.StatusTooManyRequests && retryAfter == "" {
					t.Fatalf("attempt %d: 429 without Retry-After", i+1)
				}
			}
		})
	}

	t.Run("every form of someone not signed in spends the limit of the address", func(t *testing.T) {
		for _, path := range []string{"/dashboard/forgot", "/dashboard/invitation/open", "/dashboard/invitation", "/dashboard/reset/open", "/dashboard/reset"} {
			h := router(env.dashboard(t, accounts.Options{}, Options{
				SignInPerAddress: ratelimit.PerMinute(2), SignInGlobal: ratelimit.PerMinute(100)}))
			var got []int
			for _, remote := range []string{addrA, addrA, addrA, addrB} {
				form := url.Values{"email": {"someone@example.org"}, "token": {strings.Repeat("x", 40)},
					"password": {"a long enough password"}, "confirm": {"a long enough password"}}
				r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				r.Header.Set("Sec-Fetch-Site", "same-origin")
				r.RemoteAddr = remote
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				if rec.Code == http.StatusTooManyRequests && rec.Header().Get("Retry-After") == "" {
					t.Fatalf("%s: 429 without Retry-After", path)
				}
				got = append(got, rec.Code)
			}
			if got[0] == http.StatusTooManyRequests || got[1] == http.StatusTooManyRequests || got[2] != http.StatusTooManyRequests || got[3] == http.StatusTooManyRequests {
				t.Fatalf("%s from A, A, A, B: %v; want the third refused and the others answered", path, got)
			}
		}
	})

	t.Run("sign-ins beyond the password checks the process runs and queues are answered 429 at once", func(t *testing.T) {
		h := router(env.dashboard(t, accounts.Options{HashConcurrency: 1, HashQueue: 2}, Options{
			SignInPerAddress: ratelimit.PerMinute(1000), SignInGlobal: ratelimit.PerMinute(1000)}))
		const n = 24
		statuses := make([]int, n)
		var slowest429 time.Duration
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				status, ra := signInFrom(h, addrA, "someone@example.org")
				statuses[i] = status
				if status == http.StatusTooManyRequests {
					mu.Lock()
					slowest429 = max(slowest429, time.Since(t0))
					mu.Unlock()
					if ra != "1" {
						t.Errorf("a busy answer has Retry-After %q, want 1", ra)
					}
				}
			})
		}
		close(start)
		wg.Wait()
		busy := 0
		for _, s := range statuses {
			switch s {
			case http.StatusTooManyRequests:
				busy++
			case http.StatusUnauthorized:
			default:
				t.Fatalf("status %d", s)
			}
		}
		t.Logf("%d parallel sign-ins, 1 check at a time and 2 waiting: %d answered 429, the slowest of them in %v", n, busy, slowest429)
		if busy == 0 {
			t.Fatal("no sign-in was answered 429")
		}
	})

	t.Run("a sign-in whose client left is not logged as a server error", func(t *testing.T) {
		var logged []string
		var mu sync.Mutex
		log := funcr.New(func(prefix, args string) {
			mu.Lock()
			logged = append(logged, args)
			mu.Unlock()
		}, funcr.Options{})
		h := router(env.dashboard(t, accounts.Options{}, Options{Log: log}))
		form := url.Values{"email": {"someone@example.org"}, "password": {"a wrong password"}}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/dashboard/signin", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		r.RemoteAddr = addrA
		h.ServeHTTP(httptest.NewRecorder(), r)
		mu.Lock()
		defer mu.Unlock()
		if len(logged) > 0 {
			t.Fatalf("logged %q", logged)
		}
	})
}
