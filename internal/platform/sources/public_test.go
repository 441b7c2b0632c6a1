package sources

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestFetchErrorsNameOnlyTheHost fetches from hosts that do not exist, resolve to refused
// addresses, or fail on the network: a host that does not exist is the client's problem
// (unprocessable, at once), and no message meant for clients carries an address of the
// service (its resolver, its end of a connection) or of what a name resolved to.
func TestFetchErrorsNameOnlyTheHost(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedPort := closed.Listener.Addr().(*net.TCPAddr).Port
	closed.Close()
	dns := newFakeDNS(t, map[string][]netip.Addr{
		"internal.example": {netip.MustParseAddr("10.1.2.3")},
		"closed.example":   {netip.MustParseAddr("127.0.0.1")},
	})
	// A resolver whose server is gone: every lookup fails on the service's side.
	deadDNS, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := deadDNS.LocalAddr().String()
	deadDNS.Close()
	broken := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", deadAddr)
	}}
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	client := NewClient(ClientOptions{AllowCIDRs: allow, Timeout: 5 * time.Second, Resolver: dns.resolver()})

	for _, tc := range []struct {
		name, url   string
		client      *http.Client
		user        bool // a *UserError of type unprocessable; otherwise transient
		wantPublic  string
		internal    []string // what the public message must not carry
		causeDetail string   // what the cause (for logs) still carries
	}{
		{"host does not exist", "http://no-such-host.example/a.txt", client, true,
			"the host no-such-host.example does not exist", []string{dns.addr, "127.0.0.1"}, ""},
		{"host resolves to a private address", "http://internal.example/a.txt", client, true,
			"the host internal.example resolves to a private or reserved address", []string{"10.1.2.3"}, ""},
		{"host refuses the connection", fmt.Sprintf("http://closed.example:%d/a.txt", closedPort), client, false,
			"the host closed.example refused the connection", []string{"127.0.0.1"}, "127.0.0.1"},
		{"resolver unreachable", "http://somewhere.example/a.txt",
			NewClient(ClientOptions{AllowCIDRs: allow, Timeout: 5 * time.Second, Resolver: broken}), false,
			"the name of the host somewhere.example could not be resolved for now", []string{deadAddr, "127.0.0.1"}, deadAddr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Fetch(testContext(t), tc.client, tc.url, fiveMB)
			if err == nil {
				t.Fatal("Fetch succeeded")
			}
			var ue *UserError
			if got := errors.As(err, &ue); got != tc.user || (got && ue.Type != TypeUnprocessable) {
				t.Fatalf("error %v (%T): UserError %v, want %v", err, err, got, tc.user)
			}
			var fe *FetchError
			if !tc.user && !errors.As(err, &fe) {
				t.Fatalf("transient error %v is no *FetchError", err)
			}
			pub := PublicMessage(err)
			if !strings.HasPrefix(pub, tc.wantPublic) {
				t.Errorf("public message %q, want it to start with %q", pub, tc.wantPublic)
			}
			for _, s := range tc.internal {
				if strings.Contains(pub, s) {
					t.Errorf("public message %q carries %q", pub, s)
				}
			}
			if tc.causeDetail != "" && !strings.Contains(err.Error(), tc.causeDetail) {
				t.Errorf("the cause %q lost %q, which the operator's logs need", err, tc.causeDetail)
			}
		})
	}

	if got := PublicMessage(errors.New("open /var/lib/tcs/objects/x: permission denied")); strings.Contains(got, "/var/lib") {
		t.Errorf("PublicMessage of an unknown error = %q", got)
	}
}

func TestCheckHost(t *testing.T) {
	dns := newFakeDNS(t, map[string][]netip.Addr{"sermons.example": {netip.MustParseAddr("93.184.216.34")}})
	for _, tc := range []struct {
		url     string
		missing bool
	}{
		{"https://sermons.example/a.txt", false},
		{"https://no-such-host.example/a.txt", true},
		{"http://127.0.0.1:9/a.txt", false},
		{"http://[2001:4860::1]/a.txt", false},
	} {
		err := CheckHost(testContext(t), dns.resolver(), tc.url)
		var ue *UserError
		if got := errors.As(err, &ue) && ue.Type == TypeUnprocessable; got != tc.missing {
			t.Errorf("CheckHost(%s) = %v, want missing %v", tc.url, err, tc.missing)
		}
		if err != nil && (strings.Contains(err.Error(), dns.addr) || !strings.Contains(err.Error(), "no-such-host.example")) {
			t.Errorf("CheckHost(%s) = %q: it must name the host and only the host", tc.url, err)
		}
	}
}

// TestPublicRequestMessage shows the rule for requests to URLs of the members' own (webhook
// endpoints): the same words as for fetches, naming the host of the URL and no address.
func TestPublicRequestMessage(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedPort := closed.Listener.Addr().(*net.TCPAddr).Port
	closed.Close()
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	defer untrusted.Close()
	untrustedPort := untrusted.Listener.Addr().(*net.TCPAddr).Port
	dns := newFakeDNS(t, map[string][]netip.Addr{
		"internal.example":   {netip.MustParseAddr("10.1.2.3")},
		"closed.example":     {netip.MustParseAddr("127.0.0.1")},
		"selfsigned.example": {netip.MustParseAddr("127.0.0.1")},
	})
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	client := NewClient(ClientOptions{AllowCIDRs: allow, Timeout: 5 * time.Second, Resolver: dns.resolver()})
	for _, tc := range []struct {
		name, url, want string
	}{
		{"a name that resolves to a private address", "https://internal.example/hook",
			"the host internal.example resolves to a private or reserved address, which tcs does not connect to"},
		{"a refused connection", fmt.Sprintf("https://closed.example:%d/hook", closedPort), "the host closed.example refused the connection"},
		{"a certificate nobody vouches for", fmt.Sprintf("https://selfsigned.example:%d/hook", untrustedPort),
			"the TLS certificate of the host selfsigned.example is not valid"},
		{"a name that does not exist", "https://no-such-host.example/hook", "the host no-such-host.example does not exist (its name does not resolve)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, tc.url, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("the request succeeded")
			}
			if got := PublicRequestMessage(tc.url, err); got != tc.want {
				t.Errorf("PublicRequestMessage = %q, want %q (the error: %v)", got, tc.want, err)
			}
		})
	}
	if got := PublicRequestMessage("https://x.example/", nil); got != "" {
		t.Errorf("PublicRequestMessage(nil) = %q", got)
	}
}
