package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// FuzzClientAddress checks that whatever a client writes in X-Forwarded-For, the address its
// attempts are counted under is an address (or the peer's own string), and that only a trusted
// proxy's header is read at all.
func FuzzClientAddress(f *testing.F) {
	f.Add("10.1.2.3:1", "203.0.113.9")
	f.Add("10.1.2.3:1", "198.51.100.1, 203.0.113.9, 10.9.9.9")
	f.Add("[fd00::1]:1", "2001:db8::1,garbage,,")
	f.Add("192.0.2.7:5", "10.0.0.1")
	f.Add("not an address", strings.Repeat("10.0.0.1,", 40))
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	f.Fuzz(func(t *testing.T, remote, forwarded string) {
		r := httptest.NewRequest(http.MethodPost, "/dashboard/signin", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", forwarded)
		untrusted := clientAddress(r, nil)
		got := clientAddress(r, trusted)
		peer, err := netip.ParseAddrPort(remote)
		if err != nil {
			if got != remote || untrusted != remote {
				t.Fatalf("unparseable peer %q counted as %q / %q", remote, got, untrusted)
			}
			return
		}
		if _, err := netip.ParseAddr(untrusted); err != nil {
			if _, err := netip.ParsePrefix(untrusted); err != nil {
				t.Fatalf("peer %q counted as %q, neither an address nor a prefix", remote, untrusted)
			}
		}
		if _, err := netip.ParseAddr(got); err != nil {
			if _, err := netip.ParsePrefix(got); err != nil {
				t.Fatalf("peer %q with X-Forwarded-For %q counted as %q, neither an address nor a prefix", remote, forwarded, got)
			}
		}
		if !isTrusted(peer.Addr().Unmap(), trusted) && got != untrusted {
			t.Fatalf("an untrusted peer %q had its X-Forwarded-For %q read: %q", remote, forwarded, got)
		}
	})
}
