package sources

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"syscall"
	"time"

	"tcs.dev/tcs/internal/platform/netpolicy"
)

// Defaults of [ClientOptions].
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 3
)

// ClientOptions configures [NewClient].
type ClientOptions struct {
	// AllowCIDRs are ranges the client may connect to even though
	// netpolicy.Refused would refuse them. Empty in production; tests and `tcs dev` allow
	// 127.0.0.1/32.
	AllowCIDRs []netip.Prefix
	// Timeout is the time limit of a whole request, redirects and reading
	// the body included. Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxRedirects is the most redirects a request follows. Zero means
	// DefaultMaxRedirects; a negative value means none.
	MaxRedirects int
	// Resolver resolves host names. Nil means net.DefaultResolver. Tests use
	// it to make a name resolve to an address of their choice.
	Resolver *net.Resolver
	// RootCAs are the certificate authorities HTTPS servers are verified
	// against. Nil means the system pool. Tests use it to trust their own
	// servers.
	RootCAs *x509.CertPool
}

// NewClient returns the SSRF-safe HTTP client for all outbound traffic; what
// it may reach is decided by internal/platform/netpolicy.
//
// The address of every connection is checked when it is made, after name
// resolution (in net.Dialer.Control), so a name that resolves, or later
// re-resolves, to a refused address cannot pass; IPv4-mapped IPv6 addresses
// are unmapped first. The client uses no proxy. Every request, the first and
// each redirect, must have the scheme http or https, a host, and no
// credentials in the URL; a host that is an IP literal is checked up front,
// and one spelled as a number in a non-standard form (2130706433, 0x7f000001,
// 0177.0.0.1) is refused. At most opts.MaxRedirects redirects are followed.
//
// A refused request fails with an error that unwraps (errors.As) to a
// *UserError of type "unprocessable".
func NewClient(opts ClientOptions) *http.Client {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	maxRedirects := opts.MaxRedirects
	switch {
	case maxRedirects == 0:
		maxRedirects = DefaultMaxRedirects
	case maxRedirects < 0:
		maxRedirects = 0
	}
	allow := slices.Clone(opts.AllowCIDRs)

	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Resolver:  opts.Resolver,
		Control: func(network, address string, _ syscall.RawConn) error {
			return checkDial(network, address, allow)
		},
	}
	transport := &http.Transport{
		Proxy:             nil,
		DialContext:       dialer.DialContext,
		ForceAttemptHTTP2: true,
		MaxIdleConns:      100,
		// Webhook deliveries go to few hosts, many at once: without idle connections to reuse
		// (net/http keeps 2 a host by default) each would pay a new TLS handshake.
		MaxIdleConnsPerHost:    32,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 1 << 20,
	}
	if opts.RootCAs != nil {
		transport.TLSClientConfig = &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{
		Transport: &guardedTransport{base: transport, allow: allow},
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return unprocessable("the URL redirects more than %d times", maxRedirects)
			}
			if msg := checkURL(req.URL, allow); msg != "" {
				return unprocessable("the URL redirects to a URL tcs cannot fetch: %s", msg)
			}
			return nil
		},
	}
}

// guardedTransport checks every request's URL before handing it to base.
type guardedTransport struct {
	base  *http.Transport
	allow []netip.Prefix
}

// RoundTrip implements http.RoundTripper.
func (t *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if msg := checkURL(req.URL, t.allow); msg != "" {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, unprocessable("tcs cannot fetch this URL: %s", msg)
	}
	return t.base.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the underlying transport.
func (t *guardedTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// checkDial is the net.Dialer.Control check: address is the IP and port about
// to be connected to, after name resolution.
func checkDial(network, address string, allow []netip.Prefix) error {
	if reason := netpolicy.CheckDial(network, address, allow); reason != "" {
		return unprocessable("%s", reason)
	}
	return nil
}

// CheckURL validates a url source up front with [netpolicy.CheckURL]: the
// scheme must be http or https, the URL must have a host and no credentials
// (user:pass@), a host that is an IP literal must not be in a range
// [netpolicy.Refused] refuses, and a host must not be a number in a
// non-standard form (such as 2130706433). Otherwise it returns a *UserError of
// type "invalid_request".
//
// CheckURL does not resolve names; the client of [NewClient] checks the
// addresses it connects to.
func CheckURL(raw string, allow []netip.Prefix) error {
	if reason := netpolicy.CheckURL(raw, netpolicy.Fetch, allow); reason != "" {
		return invalidRequest("tcs cannot fetch this URL: %s", reason)
	}
	return nil
}

// checkURL returns why a request to u, the first or a redirect, must not be
// made, or "" if it may.
func checkURL(u *url.URL, allow []netip.Prefix) string {
	return netpolicy.Check(u, netpolicy.Fetch, allow)
}
