package controllers

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// TestReconcilerURLHostErrors fetches url sources through a resolver of the test's: a host that
// does not exist fails the transcript as unprocessable at once (no retries), naming the host;
// a host that refuses connections is retried, then fails as server_error. Neither error, as API
// clients and webhook receivers read it, carries an address of the service.
func TestReconcilerURLHostErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedPort := closed.Listener.Addr().(*net.TCPAddr).Port
	closed.Close()
	dnsAddr, resolver := testenv.StartDNS(t, map[string]netip.Addr{"closed.example": netip.MustParseAddr("127.0.0.1")})
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-ctrl")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outbound := sources.NewClient(sources.ClientOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Resolver: resolver, Timeout: 5 * time.Second})
	t.Cleanup(runManagerWith(t, ns, store, outbound))

	for _, tc := range []struct {
		name, url, typ, want string
		attempts             int
	}{
		{"host does not exist", "http://no-such-host.example/sermon.txt", "unprocessable", "no-such-host.example does not exist", 0},
		{"host refuses", fmt.Sprintf("http://closed.example:%d/sermon.txt", closedPort), "server_error", "the host closed.example refused the connection", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(ns, "org_a", tcsv1.SourceURL)
			tr.Spec.Source.URL = tc.url
			tr.Spec.Source.Format = "txt"
			if err := c.Create(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
			got := eventually(t, c, tr, "failed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseFailed })
			e := got.Status.Error
			if e == nil || e.Type != tc.typ || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("error %+v, want %s saying %q", e, tc.typ, tc.want)
			}
			job := got.Status.Jobs[0]
			if job.Attempts != tc.attempts {
				t.Errorf("the fetch ran %d times in error, want %d", job.Attempts, tc.attempts)
			}
			for _, shown := range []string{e.Message, job.Error} {
				for _, internal := range []string{dnsAddr, "127.0.0.1", "dial tcp", "lookup "} {
					if strings.Contains(shown, internal) {
						t.Errorf("%q shows %q", shown, internal)
					}
				}
			}
		})
	}
}
