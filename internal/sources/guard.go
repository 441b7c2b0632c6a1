package sources

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Defaults of [ClientOptions].
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 3
)

// ClientOptions configures [NewClient].
type ClientOptions struct {
	// AllowCIDRs are ranges the client may connect to even though Refused
	// would refuse them. Empty in production; tests and `tcs dev` allow
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

// NewClient returns the SSRF-safe HTTP client for all outbound traffic.
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
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
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
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return unprocessable("the network %q is not allowed", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return unprocessable("the address %q is not an IP address", address)
	}
	if Refused(ap.Addr(), allow) {
		return unprocessable("the address %s is private/reserved", ap.Addr().Unmap().WithZone(""))
	}
	return nil
}

// CheckURL validates a url source up front: the scheme must be http or
// https, the URL must have a host and no credentials (user:pass@), a host
// that is an IP literal must not be in a range [Refused] refuses, and a host
// must not be a number in a non-standard form (such as 2130706433). Otherwise
// it returns a *UserError of type "invalid_request".
//
// CheckURL does not resolve names; the client of [NewClient] checks the
// addresses it connects to.
func CheckURL(raw string, allow []netip.Prefix) error {
	if strings.TrimSpace(raw) == "" {
		return invalidRequest("the URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalidRequest("the URL is not valid")
	}
	if msg := checkURL(u, allow); msg != "" {
		return invalidRequest("tcs cannot fetch this URL: %s", msg)
	}
	return nil
}

// checkURL returns why u must not be fetched, or "" if it may.
func checkURL(u *url.URL, allow []netip.Prefix) string {
	if u == nil {
		return "no URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "only http and https URLs are supported"
	}
	if u.User != nil {
		return "URLs with credentials (user:password@) are not supported"
	}
	host := u.Hostname()
	if host == "" {
		return "the URL has no host"
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if Refused(ip, allow) {
			return "the address " + ip.Unmap().WithZone("").String() + " is private/reserved"
		}
		return ""
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if endsInNumber(name) {
		return "the host " + host + " looks like an IP address in a non-standard form"
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if Refused(netip.AddrFrom4([4]byte{127, 0, 0, 1}), allow) && Refused(netip.IPv6Loopback(), allow) {
			return "the host " + host + " is private/reserved"
		}
	}
	return ""
}

// endsInNumber reports whether a host name's last label is a number (decimal,
// or hexadecimal with 0x), which makes browsers and many resolvers read the
// name as an IPv4 address (the WHATWG URL standard's "ends in a number").
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		return strings.Trim(last[2:], "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// Refused reports whether ip is in a range outbound traffic never goes to,
// unless a prefix in allow contains it. An IPv4-mapped IPv6 address is
// unmapped and a zone dropped before the check.
//
// Refused are, for IPv4: 0.0.0.0/8 (this network, unspecified), 10.0.0.0/8,
// 100.64.0.0/10 (CGNAT), 127.0.0.0/8 (loopback), 169.254.0.0/16 (link-local,
// cloud metadata), 172.16.0.0/12, 192.0.0.0/24 (IETF protocol assignments),
// 192.0.2.0/24, 198.51.100.0/24 and 203.0.113.0/24 (documentation),
// 192.88.99.0/24 (6to4 relay), 192.168.0.0/16, 198.18.0.0/15 (benchmarking),
// 224.0.0.0/4 (multicast) and 240.0.0.0/4 (reserved, broadcast).
//
// For IPv6 only global unicast (2000::/3) may be reached, which refuses ::,
// ::1, IPv4-compatible addresses, 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64),
// 100::/64 (discard), fc00::/7 (ULA, with fd00:ec2::254, the AWS metadata
// service), fe80::/10 (link-local), fec0::/10 and ff00::/8 (multicast). Within
// 2000::/3 it refuses 2001::/23 (IETF protocol assignments, benchmarking,
// ORCHID), 2001:db8::/32 and 3fff::/20 (documentation), a Teredo address
// (2001::/32) whose server or client IPv4 address is refused, and a 6to4
// address (2002::/16) whose embedded IPv4 address is refused.
func Refused(ip netip.Addr, allow []netip.Prefix) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.Unmap().WithZone("")
	for _, p := range allow {
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if p.Contains(ip) {
			return false
		}
	}
	if ip.Is4() {
		return refusedV4(ip.As4())
	}
	return refusedV6(ip.As16())
}

func refusedV4(b [4]byte) bool {
	switch {
	case b[0] == 0, // this network, unspecified
		b[0] == 10,                               // private
		b[0] == 100 && b[1]&0xc0 == 64,           // CGNAT 100.64.0.0/10
		b[0] == 127,                              // loopback
		b[0] == 169 && b[1] == 254,               // link-local, cloud metadata
		b[0] == 172 && b[1]&0xf0 == 16,           // private 172.16.0.0/12
		b[0] == 192 && b[1] == 0 && b[2] == 0,    // IETF protocol assignments
		b[0] == 192 && b[1] == 0 && b[2] == 2,    // TEST-NET-1
		b[0] == 192 && b[1] == 88 && b[2] == 99,  // 6to4 relay anycast
		b[0] == 192 && b[1] == 168,               // private
		b[0] == 198 && b[1]&0xfe == 18,           // benchmarking 198.18.0.0/15
		b[0] == 198 && b[1] == 51 && b[2] == 100, // TEST-NET-2
		b[0] == 203 && b[1] == 0 && b[2] == 113,  // TEST-NET-3
		b[0] >= 224:                              // multicast, reserved, broadcast
		return true
	}
	return false
}

func refusedV6(b [16]byte) bool {
	switch {
	case b[0]&0xe0 != 0x20: // not global unicast 2000::/3
		return true
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0: // Teredo 2001::/32
		server := [4]byte{b[4], b[5], b[6], b[7]}
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		return refusedV4(server) || refusedV4(client)
	case b[0] == 0x20 && b[1] == 0x01 && b[2]&0xfe == 0: // 2001::/23
		return true
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8: // documentation
		return true
	case b[0] == 0x20 && b[1] == 0x02: // 6to4 2002::/16
		return refusedV4([4]byte{b[2], b[3], b[4], b[5]})
	case b[0] == 0x3f && b[1] == 0xff && b[2]&0xf0 == 0: // documentation 3fff::/20
		return true
	}
	return false
}
