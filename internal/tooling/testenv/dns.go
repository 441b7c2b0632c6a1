package testenv

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// StartDNS starts a DNS server on loopback that answers A and AAAA queries for the names of
// records (lower case, without the final dot) and NXDOMAIN for every other name. It returns
// the server's address and a resolver that asks it; it stops when t ends.
func StartDNS(t testing.TB, records map[string]netip.Addr) (string, *net.Resolver) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if msg, err := dnsAnswer(buf[:n], records); err == nil {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return addr, &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func dnsAnswer(query []byte, records map[string]netip.Addr) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	a, known := records[strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")]
	rh := dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	res := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
	switch {
	case known && q.Type == dnsmessage.TypeA && a.Is4():
		err = b.AResource(res, dnsmessage.AResource{A: a.As4()})
	case known && q.Type == dnsmessage.TypeAAAA && a.Is6() && !a.Is4In6():
		err = b.AAAAResource(res, dnsmessage.AAAAResource{AAAA: a.As16()})
	}
	if err != nil {
		return nil, err
	}
	return b.Finish()
}
