package netpolicy

import (
	"net/netip"
	"testing"
)

func TestRefused(t *testing.T) {
	tests := []struct {
		ip      string
		refused bool
	}{
		// IPv4: unspecified, this network.
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"0.255.255.255", true},
		// Private.
		{"10.0.0.0", true},
		{"10.255.255.255", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.15.255.255", false},
		{"172.32.0.0", false},
		{"192.168.0.1", true},
		{"192.168.255.255", true},
		// CGNAT.
		{"100.64.0.0", true},
		{"100.127.255.255", true},
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		// Loopback.
		{"127.0.0.1", true},
		{"127.0.0.2", true},
		{"127.255.255.254", true},
		// Link-local, cloud metadata.
		{"169.254.0.1", true},
		{"169.254.169.254", true},
		{"169.254.170.2", true}, // AWS ECS task metadata
		// IETF protocol assignments, including NAT64 discovery 192.0.0.170.
		{"192.0.0.1", true},
		{"192.0.0.170", true},
		// Documentation.
		{"192.0.2.1", true},
		{"198.51.100.7", true},
		{"203.0.113.255", true},
		// 6to4 relay anycast.
		{"192.88.99.1", true},
		// Benchmarking.
		{"198.18.0.1", true},
		{"198.19.255.255", true},
		{"198.17.255.255", false},
		{"198.20.0.0", false},
		// Multicast, reserved, broadcast.
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		// Public IPv4.
		{"1.1.1.1", false},
		{"8.8.8.8", false},
		{"93.184.215.14", false},
		{"142.250.74.46", false},
		{"223.255.255.255", false},
		{"192.0.1.1", false},
		{"192.0.3.1", false},

		// IPv4-mapped IPv6 is unmapped.
		{"::ffff:127.0.0.1", true},
		{"::ffff:127.0.0.2", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:8.8.8.8", false},
		// IPv4-compatible (deprecated).
		{"::127.0.0.1", true},
		{"::8.8.8.8", true},

		// IPv6: unspecified, loopback.
		{"::", true},
		{"::1", true},
		// NAT64, including with public IPv4 addresses.
		{"64:ff9b::7f00:1", true},
		{"64:ff9b::a9fe:a9fe", true},
		{"64:ff9b::808:808", true},
		{"64:ff9b:1::1", true},
		{"64:ff9b:1:ffff::1", true},
		// Discard.
		{"100::1", true},
		// ULA, with the AWS metadata service.
		{"fc00::1", true},
		{"fd00::1", true},
		{"fd00:ec2::254", true},
		{"fdff:ffff::1", true},
		// Link-local, site-local.
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"febf::1", true},
		{"fec0::1", true},
		// Multicast.
		{"ff02::1", true},
		{"ff05::1:3", true},
		{"ff0e::1", true},
		// IETF protocol assignments, benchmarking, ORCHID.
		{"2001:2::1", true},
		{"2001:10::1", true},
		{"2001:20::1", true},
		{"2001:1ff::1", true},
		// Documentation.
		{"2001:db8::1", true},
		{"2001:db8:ffff::1", true},
		{"3fff::1", true},
		{"3fff:fff::1", true},
		// 6to4 embedding private, loopback and metadata IPv4 addresses.
		{"2002:7f00:1::1", true},
		{"2002:a00:1::1", true},
		{"2002:a9fe:a9fe::1", true},
		{"2002:c0a8:101::1", true},
		{"2002:808:808::1", false}, // 6to4 of 8.8.8.8
		// Teredo: server 65.54.227.120, client 192.0.2.45 (documentation).
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
		// Teredo with a private server, and with a loopback client (^127.0.0.1).
		{"2001:0:a00:1:8000:63bf:f7f7:f7f7", true},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", true},
		// Teredo with public server and client (8.8.8.8).
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", false},
		// Public IPv6.
		{"2606:4700:4700::1111", false},
		{"2001:4860:4860::8888", false},
		{"2a00:1450:4001:80b::200e", false},
		{"2400:cb00::1", false},
		{"3ffe::1", false},
		// Outside 2000::/3.
		{"4000::1", true},
		{"5f00::1", true},
		{"e000::1", true},
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			ip := netip.MustParseAddr(tt.ip)
			if got := Refused(ip, nil); got != tt.refused {
				t.Errorf("Refused(%s, nil) = %v, want %v", ip, got, tt.refused)
			}
		})
	}
	if !Refused(netip.Addr{}, nil) {
		t.Error("Refused(zero Addr) = false, want true")
	}
}

func TestRefusedAllow(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	tests := []struct {
		ip      string
		allow   []netip.Prefix
		refused bool
	}{
		{"127.0.0.1", allow, false},
		{"::ffff:127.0.0.1", allow, false},
		{"127.0.0.2", allow, true},
		{"::ffff:127.0.0.2", allow, true},
		{"::1", allow, true},
		{"0.0.0.0", allow, true},
		{"10.0.0.1", allow, true},
		{"64:ff9b::7f00:1", allow, true},
		{"2002:7f00:1::1", allow, true},
		{"8.8.8.8", allow, false},
		{"127.0.0.1", []netip.Prefix{netip.MustParsePrefix("::ffff:127.0.0.1/128")}, false},
		{"::1", []netip.Prefix{netip.MustParsePrefix("::1/128")}, false},
		{"fe80::1%eth0", []netip.Prefix{netip.MustParsePrefix("fe80::/10")}, false},
		{"10.1.2.3", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, false},
		{"10.1.2.3", []netip.Prefix{netip.MustParsePrefix("::/0")}, true}, // an IPv6 prefix does not allow IPv4
	}
	for _, tt := range tests {
		ip := netip.MustParseAddr(tt.ip)
		if got := Refused(ip, tt.allow); got != tt.refused {
			t.Errorf("Refused(%s, %v) = %v, want %v", ip, tt.allow, got, tt.refused)
		}
	}
}
