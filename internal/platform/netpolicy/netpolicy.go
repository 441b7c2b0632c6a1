// Package netpolicy decides where tcs may send requests to URLs its users choose: url
// sources, the redirects they follow, YouTube caption tracks and webhook endpoints. It is the
// one check behind the API's and the dashboard's validation, the outbound client's check of
// every request and every connection (internal/platform/sources.NewClient), and the webhook delivery
// controller's check before each send.
//
// The rules are the same for every use, but for the scheme and the length: a url source may
// be http or https, as the API spec allows; a webhook endpoint must be https (plain http only
// to an IP literal that only the allow-list permits, a local receiver of tests and `tcs dev`)
// and at most [MaxWebhookURLLength] long, as it is stored and shown.
package netpolicy

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Use is what an outbound URL is for.
type Use int

const (
	// Fetch is a url source, a redirect followed while fetching one, or a caption track:
	// http or https.
	Fetch Use = iota
	// Webhook is a webhook endpoint: https, or plain http to an IP literal that allow permits
	// although it is not public; at most MaxWebhookURLLength long.
	Webhook
)

// MaxWebhookURLLength is the longest webhook endpoint URL.
const MaxWebhookURLLength = 2048

// CheckURL returns why raw must not be reached for use, or "" if it may. allow lists ranges
// that may be reached although [Refused] refuses them.
//
// A URL must parse, have the scheme of its use, a host and no credentials (user:pass@). A
// host that is an IP literal must not be refused; a host name must not be a number in a
// non-standard form (2130706433, 0x7f000001, 0177.0.0.1), which many resolvers read as an
// IPv4 address, nor localhost or a name under .localhost unless allow permits loopback.
// CheckURL resolves no name: the addresses a name resolves to are checked when connecting,
// by [CheckDial], so that a name that re-resolves elsewhere (DNS rebinding) cannot pass.
//
// The reason names at most the host of raw, never an address tcs resolved.
func CheckURL(raw string, use Use, allow []netip.Prefix) string {
	if strings.TrimSpace(raw) == "" {
		return "the URL is empty"
	}
	if use == Webhook && len(raw) > MaxWebhookURLLength {
		return "the URL is longer than " + strconv.Itoa(MaxWebhookURLLength) + " characters"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "the URL is not valid"
	}
	return Check(u, use, allow)
}

// Check is [CheckURL] of a parsed URL, without its length limit: it checks the URL of every
// request the outbound client makes.
func Check(u *url.URL, use Use, allow []netip.Prefix) string {
	if u == nil {
		return "no URL"
	}
	switch {
	case u.Scheme == "https", u.Scheme == "http" && use == Fetch:
	case u.Scheme == "http": // a webhook, checked once the host is known
	case use == Webhook:
		return "the scheme must be https"
	default:
		return "only http and https URLs are supported"
	}
	if u.User != nil {
		return "URLs with credentials (user:password@) are not supported"
	}
	host := u.Hostname()
	if host == "" {
		return "the URL has no host"
	}
	ip, err := netip.ParseAddr(host)
	isIP := err == nil
	if u.Scheme == "http" && use == Webhook && (!isIP || Refused(ip, allow) || !Refused(ip, nil)) {
		return "http is allowed only for an address of the outbound allow-list (such as a loopback IP for local testing); use https"
	}
	if isIP {
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

// CheckDial returns why the connection about to be made to address (an IP and a port, after
// name resolution) over network must not be, or "" if it may: only TCP to an address that
// [Refused] does not refuse. It is the outbound client's net.Dialer.Control check.
func CheckDial(network, address string, allow []netip.Prefix) string {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return "the network " + strconv.Quote(network) + " is not allowed"
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return "the address " + strconv.Quote(address) + " is not an IP address"
	}
	if Refused(ap.Addr(), allow) {
		return "the address " + ap.Addr().Unmap().WithZone("").String() + " is private/reserved"
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
