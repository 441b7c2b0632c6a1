package e2e

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tcs.dev/tcs/pkg/webhook"
)

// receiver is an HTTPS webhook receiver on loopback that verifies signatures over the raw body,
// fails the first attempt of every delivery with a 500 and records, in arrival order, the first
// attempts and what it accepted.
type receiver struct {
	mu       sync.Mutex
	secret   string
	attempts map[string]int
	first    []map[string]any
	accepted []map[string]any
	bad      []string
}

// events returns the event types of transcript id's deliveries in the order of their first
// attempts, which the spec serializes per resource, and in the order they were accepted, which
// it does not: a newer event may succeed before an older one's retry. bad is what failed
// verification.
func (rc *receiver) events(id string) (first, accepted, bad []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	of := func(payloads []map[string]any) []string {
		var events []string
		for _, p := range payloads {
			if p["id"] == id {
				events = append(events, p["event"].(string))
			}
		}
		return events
	}
	return of(rc.first), of(rc.accepted), slices.Clone(rc.bad)
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	secret := rc.secret
	rc.mu.Unlock()
	body, err := webhook.VerifyRequest(r, secret, 5*time.Minute)
	if err != nil {
		rc.mu.Lock()
		rc.bad = append(rc.bad, err.Error())
		rc.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var payload map[string]any
	if err := json.Unmarshal(body, &payload); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id := r.Header.Get(webhook.HeaderDelivery)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.attempts[id]++
	if rc.attempts[id] == 1 {
		rc.first = append(rc.first, payload)
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	if payload["delivery_id"] != id || payload["event"] != r.Header.Get(webhook.HeaderEvent) {
		rc.bad = append(rc.bad, "headers and body disagree")
	}
	rc.accepted = append(rc.accepted, payload)
}

// startReceiver starts a receiver as an HTTPS server on loopback; caFile is a PEM file of its
// certificate, for tcs dev's --outbound-ca-file.
func startReceiver(t *testing.T) (rc *receiver, srv *httptest.Server, caFile string) {
	t.Helper()
	rc = &receiver{attempts: map[string]int{}}
	srv = httptest.NewTLSServer(rc)
	t.Cleanup(srv.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc, srv, caFile
}

// subscribe creates, with tcs admin, an endpoint of dev's first organization to url for every
// event, and gives rc its signing secret.
func (rc *receiver) subscribe(t *testing.T, dev *devProcess, url string) {
	t.Helper()
	out, err := exec.Command(tcsBin, "admin", "webhook", "create", "--org", dev.env["TCS_ORG"], "--url", url,
		"--events", "all", "--kubeconfig", dev.env["KUBECONFIG"]).CombinedOutput()
	if err != nil {
		t.Fatalf("tcs admin webhook create: %v\n%s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 || !strings.HasPrefix(fields[0], "we_") || !strings.HasPrefix(fields[1], "whsec_") {
		t.Fatalf("create printed %q", out)
	}
	rc.mu.Lock()
	rc.secret = fields[1]
	rc.mu.Unlock()
}

func TestDevWebhooks(t *testing.T) {
	rc, srv, caFile := startReceiver(t)
	dev := startDev(t, filepath.Join(t.TempDir(), "state"), "--outbound-ca-file", caFile, "--webhook-retry-delays", "200ms,200ms,200ms")
	rc.subscribe(t, dev, srv.URL+"/hooks")

	created := call(t, http.MethodPost, dev.env["TCS_URL"]+"/api/v1/transcripts", dev.env["TCS_API_KEY"], `{"source_type":"paste","content":"read revelations 21:4"}`)
	if created.status != 201 {
		t.Fatalf("paste: %d %s", created.status, created.raw)
	}
	id := created.body["id"].(string)

	deadline := time.Now().Add(45 * time.Second)
	for {
		rc.mu.Lock()
		n := len(rc.accepted)
		rc.mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries accepted after 45 s (bad: %v)", n, rc.bad)
		}
		time.Sleep(100 * time.Millisecond)
	}
	first, accepted, bad := rc.events(id)
	if len(bad) > 0 {
		t.Fatalf("bad deliveries: %v", bad)
	}
	if strings.Join(first, ",") != "transcript.created,transcript.completed" {
		t.Fatalf("first attempts in order %v", first)
	}
	// Retries are not serialized: either may be accepted first.
	slices.Sort(accepted)
	if strings.Join(accepted, ",") != "transcript.completed,transcript.created" {
		t.Fatalf("events accepted %v", accepted)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, p := range rc.accepted {
		if p["id"] != id || p["object"] != "transcript" || p["status"] != "completed" || p["content"] != "read Revelation 21:4" {
			t.Fatalf("payload %v", p)
		}
		if !strings.HasPrefix(p["delivery_id"].(string), "evt_") {
			t.Fatalf("delivery_id %v", p["delivery_id"])
		}
	}
	for d, n := range rc.attempts {
		if n != 2 {
			t.Fatalf("delivery %s attempted %d times, want 2 (a 500, then a retry)", d, n)
		}
	}
}
