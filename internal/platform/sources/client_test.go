package sources

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// fakeDNS is a DNS server on loopback answering A and AAAA queries from a
// table. It answers NXDOMAIN for names not in the table.
type fakeDNS struct {
	addr    string
	records map[string][]netip.Addr // by lower-case name without the final dot
}

func newFakeDNS(t *testing.T, records map[string][]netip.Addr) *fakeDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	d := &fakeDNS{addr: pc.LocalAddr().String(), records: records}
	go d.serve(pc)
	return d
}

func (d *fakeDNS) serve(pc net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if resp, err := d.answer(buf[:n]); err == nil {
			pc.WriteTo(resp, from)
		}
	}
}

func (d *fakeDNS) answer(query []byte) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
	addrs, known := d.records[name]
	rcode := dnsmessage.RCodeSuccess
	if !known {
		rcode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{
		ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired,
		RecursionAvailable: true, RCode: rcode,
	})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
	for _, a := range addrs {
		switch {
		case q.Type == dnsmessage.TypeA && a.Is4():
			err = b.AResource(rh, dnsmessage.AResource{A: a.As4()})
		case q.Type == dnsmessage.TypeAAAA && a.Is6():
			err = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
		if err != nil {
			return nil, err
		}
	}
	return b.Finish()
}

// resolver returns a resolver that sends every query to d.
func (d *fakeDNS) resolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dialer net.Dialer
			return dialer.DialContext(ctx, "udp", d.addr)
		},
	}
}

// countingServer is an HTTP server on a given loopback address that counts
// the requests it gets.
type countingServer struct {
	srv  *httptest.Server
	hits atomic.Int64
	port string
}

func newCountingServer(t *testing.T, network, addr string, h http.Handler) *countingServer {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		return nil
	}
	s := &countingServer{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if h != nil {
			h.ServeHTTP(w, r)
			return
		}
		io.WriteString(w, "reached")
	}))
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	_, s.port, _ = net.SplitHostPort(l.Addr().String())
	return s
}

func TestClientLoopback(t *testing.T) {
	// The refused targets: servers on loopback addresses other than the
	// allowed 127.0.0.1.
	forbidden := newCountingServer(t, "tcp4", "127.0.0.2:0", nil)
	if forbidden == nil {
		t.Fatal("cannot listen on 127.0.0.2")
	}
	forbidden6 := newCountingServer(t, "tcp6", "[::1]:0", nil)
	p2 := forbidden.port

	// The allowed server on 127.0.0.1: /target counts as reached; /redirect
	// redirects to ?to=; /hops/N redirects N times before answering.
	var targetHits atomic.Int64
	allowed := newCountingServer(t, "tcp4", "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/target":
			targetHits.Add(1)
			io.WriteString(w, "reached")
		case r.URL.Path == "/redirect":
			w.Header().Set("Location", r.URL.Query().Get("to"))
			w.WriteHeader(http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/hops/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hops/"))
			if n == 0 {
				io.WriteString(w, "reached")
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	}))
	p1 := allowed.port
	a1 := "http://127.0.0.1:" + p1

	dns := newFakeDNS(t, map[string][]netip.Addr{
		"rebind.tcs.test":  {netip.MustParseAddr("127.0.0.2")},
		"evil.localhost":   {netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("::1")},
		"mapped.tcs.test":  {netip.MustParseAddr("::ffff:127.0.0.2")},
		"allowed.tcs.test": {netip.MustParseAddr("127.0.0.1")},
		"mixed.tcs.test":   {netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")},
		// What a resolver that reads numbers the way inet_aton does would
		// answer.
		"2130706434": {netip.MustParseAddr("127.0.0.2")},
		"0177.0.0.2": {netip.MustParseAddr("127.0.0.2")},
		"0x7f000002": {netip.MustParseAddr("127.0.0.2")},
		"127.1":      {netip.MustParseAddr("127.0.0.1")},
	})
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	dev := NewClient(ClientOptions{AllowCIDRs: allow, Timeout: 5 * time.Second, Resolver: dns.resolver()})
	prod := NewClient(ClientOptions{Timeout: 5 * time.Second, Resolver: dns.resolver()})

	tests := []struct {
		name   string
		client *http.Client
		url    string
		ok     bool
		skip   bool
	}{
		{name: "allowed 127.0.0.1", client: dev, url: a1 + "/target", ok: true},
		{name: "allowed name", client: dev, url: "http://allowed.tcs.test:" + p1 + "/target", ok: true},
		{name: "refused and allowed address: the allowed one is used", client: dev, url: "http://mixed.tcs.test:" + p1 + "/target", ok: true},
		{name: "three redirects", client: dev, url: a1 + "/hops/3", ok: true},

		{name: "127.0.0.2", client: dev, url: "http://127.0.0.2:" + p2 + "/"},
		{name: "[::1]", client: dev, url: "http://[::1]:" + portOf(forbidden6) + "/", skip: forbidden6 == nil},
		{name: "[::]", client: dev, url: "http://[::]:" + p1 + "/target"},
		{name: "0.0.0.0", client: dev, url: "http://0.0.0.0:" + p1 + "/target"},
		{name: "name resolving to 127.0.0.2", client: dev, url: "http://rebind.tcs.test:" + p2 + "/"},
		{name: "localhost name resolving to 127.0.0.2 and ::1", client: dev, url: "http://evil.localhost:" + p2 + "/"},
		{name: "name resolving to ::ffff:127.0.0.2", client: dev, url: "http://mapped.tcs.test:" + p2 + "/"},
		{name: "localhost without an allow list", client: prod, url: "http://localhost:" + p1 + "/target"},
		{name: "127.0.0.1 without an allow list", client: prod, url: a1 + "/target"},
		{name: "decimal", client: dev, url: "http://2130706434:" + p2 + "/"},
		{name: "octal", client: dev, url: "http://0177.0.0.2:" + p2 + "/"},
		{name: "hex", client: dev, url: "http://0x7f000002:" + p2 + "/"},
		{name: "short form", client: dev, url: "http://127.1:" + p1 + "/target"},
		{name: "decimal, no port", client: dev, url: "http://2130706434/"},
		{name: "octal, no port", client: dev, url: "http://0177.0.0.2/"},
		{name: "hex, no port", client: dev, url: "http://0x7f000002/"},
		{name: "IPv4-mapped IPv6", client: dev, url: "http://[::ffff:127.0.0.2]:" + p2 + "/"},
		{name: "IPv4-mapped IPv6, hex", client: dev, url: "http://[::ffff:7f00:2]:" + p2 + "/"},
		{name: "credentials", client: dev, url: "http://user:pass@127.0.0.1:" + p1 + "/target"},
		{name: "non-http scheme", client: dev, url: "ftp://127.0.0.1:" + p1 + "/target"},

		{name: "redirect to 127.0.0.2", client: dev, url: a1 + "/redirect?to=http://127.0.0.2:" + p2 + "/"},
		{name: "redirect to a name resolving to 127.0.0.2", client: dev, url: a1 + "/redirect?to=http://rebind.tcs.test:" + p2 + "/"},
		{name: "redirect to [::ffff:127.0.0.2]", client: dev, url: a1 + "/redirect?to=http://[::ffff:127.0.0.2]:" + p2 + "/"},
		{name: "redirect to 0.0.0.0", client: dev, url: a1 + "/redirect?to=http://0.0.0.0:" + p1 + "/target"},
		{name: "redirect to decimal", client: dev, url: a1 + "/redirect?to=http://2130706434:" + p2 + "/"},
		{name: "four redirects", client: dev, url: a1 + "/hops/4"},
		{name: "redirect to ftp", client: dev, url: a1 + "/redirect?to=ftp://127.0.0.1:" + p1 + "/target"},
		{name: "redirect to file", client: dev, url: a1 + "/redirect?to=file:///etc/passwd"},
		{name: "redirect to javascript", client: dev, url: a1 + "/redirect?to=javascript:alert(1)"},
		{name: "redirect to gopher", client: dev, url: a1 + "/redirect?to=gopher://127.0.0.1:" + p1 + "/target"},
		{name: "redirect with credentials", client: dev, url: a1 + "/redirect?to=http://user:pass@127.0.0.1:" + p1 + "/target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip {
				t.Skip("cannot listen on [::1]")
			}
			before := targetHits.Load()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tt.client.Do(req)
			if tt.ok {
				if err != nil {
					t.Fatalf("GET %s: %v", tt.url, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || string(body) != "reached" {
					t.Fatalf("GET %s = %s %q", tt.url, resp.Status, body)
				}
				return
			}
			if err == nil {
				resp.Body.Close()
				t.Fatalf("GET %s = %s, want it refused", tt.url, resp.Status)
			}
			t.Logf("error: %v", err)
			var ue *UserError
			if !errors.As(err, &ue) || ue.Type != TypeUnprocessable {
				t.Errorf("GET %s: error %v does not unwrap to a UserError unprocessable", tt.url, err)
			}
			if n := targetHits.Load() - before; n != 0 {
				t.Errorf("GET %s reached the target on 127.0.0.1 %d times", tt.url, n)
			}
		})
	}
	// The dialer alone, without the URL check in front of it, never reaches
	// 127.0.0.2 by the numeric spellings: Go's resolver does not look up
	// all-numeric names (2130706434, 0177.0.0.2: "no such host"); a name
	// it does look up (0x7f000002) resolves to 127.0.0.2 and is refused.
	base := dev.Transport.(*guardedTransport).base
	for _, host := range []string{"2130706434", "0177.0.0.2"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+host+":"+p2+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := base.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
			t.Errorf("dialer: GET %s succeeded, want it to fail", req.URL)
		}
	}
	for _, host := range []string{"0x7f000002", "rebind.tcs.test", "mapped.tcs.test", "evil.localhost"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+host+":"+p2+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := base.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
			t.Errorf("dialer: GET %s succeeded, want it refused", req.URL)
			continue
		}
		var ue *UserError
		if !errors.As(err, &ue) || ue.Type != TypeUnprocessable {
			t.Errorf("dialer: GET %s: error %v does not unwrap to a UserError unprocessable", req.URL, err)
		}
	}
	if n := forbidden.hits.Load(); n != 0 {
		t.Errorf("the server on 127.0.0.2 was reached %d times", n)
	}
	if forbidden6 != nil {
		if n := forbidden6.hits.Load(); n != 0 {
			t.Errorf("the server on [::1] was reached %d times", n)
		}
	}
}

func portOf(s *countingServer) string {
	if s == nil {
		return "1"
	}
	return s.port
}

func TestClientMaxRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hops/"))
		if n == 0 {
			io.WriteString(w, "reached")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusFound)
	}))
	defer srv.Close()
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	tests := []struct {
		max  int
		hops int
		ok   bool
	}{
		{0, 3, true}, // the default, 3
		{0, 4, false},
		{1, 1, true},
		{1, 2, false},
		{5, 5, true},
		{5, 6, false},
		{-1, 0, true},
		{-1, 1, false},
	}
	for _, tt := range tests {
		c := NewClient(ClientOptions{AllowCIDRs: allow, MaxRedirects: tt.max, Timeout: 5 * time.Second, Resolver: noDNS()})
		resp, err := c.Get(fmt.Sprintf("%s/hops/%d", srv.URL, tt.hops))
		if err == nil {
			resp.Body.Close()
		}
		if tt.ok != (err == nil) {
			t.Errorf("MaxRedirects %d, %d hops: error %v, want ok %v", tt.max, tt.hops, err, tt.ok)
		}
		var ue *UserError
		if err != nil && !errors.As(err, &ue) {
			t.Errorf("MaxRedirects %d, %d hops: error %v is no UserError", tt.max, tt.hops, err)
		}
	}
}

func TestClientTimeoutIsTransient(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := NewClient(ClientOptions{
		AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Timeout:    200 * time.Millisecond,
		Resolver:   noDNS(),
	})
	resp, err := c.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("GET succeeded, want a timeout")
	}
	var ue *UserError
	if errors.As(err, &ue) {
		t.Fatalf("timeout error %v is a UserError, want a transient error", err)
	}
}

func TestNewClientUsesNoProxy(t *testing.T) {
	c := NewClient(ClientOptions{})
	gt, ok := c.Transport.(*guardedTransport)
	if !ok {
		t.Fatalf("Transport is %T", c.Transport)
	}
	if gt.base.Proxy != nil {
		t.Error("Transport.Proxy is set")
	}
	if c.Timeout != DefaultTimeout {
		t.Errorf("Timeout = %v, want %v", c.Timeout, DefaultTimeout)
	}
}
