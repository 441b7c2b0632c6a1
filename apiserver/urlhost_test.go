package apiserver

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// nxDNS is a DNS server on loopback that knows one name (with address 93.184.216.34) and
// answers NXDOMAIN for every other.
func nxDNS(t *testing.T, known string) (addr string, resolver *net.Resolver) {
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
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
			rh := dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
			if name != known {
				rh.RCode = dnsmessage.RCodeNameError
			}
			b := dnsmessage.NewBuilder(nil, rh)
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if name == known && q.Type == dnsmessage.TypeA {
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}, dnsmessage.AResource{A: [4]byte{93, 184, 216, 34}})
			}
			if msg, err := b.Finish(); err == nil {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
	addr = pc.LocalAddr().String()
	return addr, &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

// TestURLHostThatDoesNotExist creates url transcripts whose host does not resolve: the client
// hears it at once, as unprocessable naming the host and nothing of the service's resolver.
func TestURLHostThatDoesNotExist(t *testing.T) {
	dnsAddr, resolver := nxDNS(t, "sermons.example")
	h := newHarnessWith(t, harnessOptions{resolver: resolver})
	before := h.transcriptCount(t)
	r := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json",
		[]byte(`{"source_type":"url","url":"https://no-such-host.example/sermon.txt","source_format":"txt"}`))
	wantError(t, r, http.StatusUnprocessableEntity, ErrUnprocessable, "url")
	msg := r.body["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, "no-such-host.example") || strings.Contains(msg, dnsAddr) || strings.Contains(msg, "127.0.0.1") {
		t.Fatalf("message %q: it must name the host and no address of the service", msg)
	}
	if n := h.transcriptCount(t); n != before {
		t.Fatalf("%d transcripts made for a host that does not exist", n-before)
	}
	// A host that resolves is accepted; its fetch job decides the rest.
	ok := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json",
		[]byte(`{"source_type":"url","url":"https://sermons.example/sermon.txt","source_format":"txt"}`))
	if ok.status != http.StatusAccepted {
		t.Fatalf("a host that resolves: %d %s", ok.status, ok.raw)
	}
}
