package apiserver

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// TestURLHostThatDoesNotExist creates url transcripts whose host does not resolve: the client
// hears it at once, as unprocessable naming the host and nothing of the service's resolver.
func TestURLHostThatDoesNotExist(t *testing.T) {
	dnsAddr, resolver := testenv.StartDNS(t, map[string]netip.Addr{"sermons.example": netip.MustParseAddr("93.184.216.34")})
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
