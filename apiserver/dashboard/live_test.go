package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/limits"
)

// liveServer serves d's live stream on loopback; the session is the X-Session header.
func liveServer(t *testing.T, d *Dashboard) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &view{Session: &accounts.Session{Token: r.Header.Get("X-Session"), Email: "ann@example.org"},
			Org: &accounts.Membership{OrganizationID: "org_a", Role: accounts.RoleMember}}
		d.liveEvents(w, r, v)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// liveAnswer is the answer of a live stream, whose body the test's cleanup closes.
type liveAnswer struct {
	StatusCode int
	Header     http.Header
	Body       io.Reader
}

func openLive(t *testing.T, ctx context.Context, url, session string) liveAnswer {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("X-Session", session)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return liveAnswer{StatusCode: res.StatusCode, Header: res.Header, Body: res.Body}
}

func waitOpen(t *testing.T, d *Dashboard, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); d.live.open() != want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d live streams open, want %d", d.live.open(), want)
		}
	}
}

func TestLiveStreamsPerSessionAreLimited(t *testing.T) {
	d, err := New(Options{PublicURL: "https://tcs.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	d.liveRole = func(context.Context, string, string) (string, error) { return accounts.RoleMember, nil }
	srv := liveServer(t, d)
	ctx := t.Context()
	for i := range limits.MaxLiveStreamsPerSession {
		if res := openLive(t, ctx, srv.URL, "s1"); res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, res.StatusCode)
		}
	}
	res := openLive(t, ctx, srv.URL, "s1")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("stream %d of one session: %d, want 429 with Retry-After", limits.MaxLiveStreamsPerSession+1, res.StatusCode)
	}
	if res := openLive(t, ctx, srv.URL, "s2"); res.StatusCode != http.StatusOK {
		t.Fatalf("another session's stream: %d", res.StatusCode)
	}
	t.Logf("%d streams open; the next of the same session was refused", d.live.open())
}

// A stream ends once its member is removed from the organization: at the organization's
// change event, and at the periodic check when no event comes.
func TestLiveStreamEndsWhenItsMemberIsRemoved(t *testing.T) {
	for _, tc := range []struct {
		name   string
		signal bool
	}{{"at the organization's change", true}, {"at the periodic check", false}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(Options{PublicURL: "https://tcs.example.org"})
			if err != nil {
				t.Fatal(err)
			}
			var removed atomic.Bool
			d.liveRole = func(context.Context, string, string) (string, error) {
				if removed.Load() {
					return "", accounts.ErrNotFound
				}
				return accounts.RoleMember, nil
			}
			d.liveRecheck = time.Hour
			if !tc.signal {
				d.liveRecheck = 100 * time.Millisecond
			}
			srv := liveServer(t, d)
			res := openLive(t, t.Context(), srv.URL, "s1")
			waitOpen(t, d, 1)
			removed.Store(true)
			start := time.Now()
			if tc.signal {
				d.live.organizationChanged(&tcsv1.Organization{Spec: tcsv1.OrganizationSpec{ID: "org_a"}})
			}
			done := make(chan struct{})
			go func() {
				sc := bufio.NewScanner(res.Body)
				for sc.Scan() {
				}
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the stream of a removed member is still open")
			}
			waitOpen(t, d, 0)
			t.Logf("the stream ended %v after the removal", time.Since(start).Round(time.Millisecond))
		})
	}
}

// A reader that stops reading does not hold its stream: the write of an event times out.
func TestLiveStreamEndsWhenItsReaderStopsReading(t *testing.T) {
	d, err := New(Options{PublicURL: "https://tcs.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	d.liveRole = func(context.Context, string, string) (string, error) { return accounts.RoleMember, nil }
	d.liveWriteTimeout = 200 * time.Millisecond
	srv := liveServer(t, d)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: x\r\nX-Session: s1\r\n\r\n")
	waitOpen(t, d, 1)
	// Large events, never read, fill the socket buffers.
	tr := &tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: "tr_a", Organization: "org_a"}, Status: tcsv1.TranscriptStatus{Phase: tcsv1.PhasePending}}
	for i := range 3000 {
		tr.Status.Jobs = append(tr.Status.Jobs, tcsv1.Job{ID: tcsv1.JobID("tr_a", i+1), Type: tcsv1.JobCorrection, State: tcsv1.JobQueued, CreatedAt: metav1.Now(), Error: strings.Repeat("x", 100)})
	}
	start := time.Now()
	for deadline := time.Now().Add(20 * time.Second); d.live.open() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stream of a reader that stopped reading is still open after 20 s")
		}
		d.live.publish(tr)
	}
	t.Logf("the stream ended %v after its reader stopped reading", time.Since(start).Round(time.Millisecond))
}

func TestARemovedMembersStreamsGetNothingPublishedAfterTheRemoval(t *testing.T) {
	h := newHub(streamLimits{perSession: 4, perOrg: 100, total: 1000})
	removed, stopRemoved, err := h.subscribe("org_a", "session-1", "Dan@example.org")
	if err != nil {
		t.Fatal(err)
	}
	defer stopRemoved()
	other, stopOther, err := h.subscribe("org_a", "session-2", "ann@example.org")
	if err != nil {
		t.Fatal(err)
	}
	defer stopOther()
	elsewhere, stopElsewhere, err := h.subscribe("org_b", "session-3", "dan@example.org")
	if err != nil {
		t.Fatal(err)
	}
	defer stopElsewhere()

	h.endMember("org_a", "dan@example.org")
	h.publish(&tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: "tr_a", Organization: "org_a"}, Status: tcsv1.TranscriptStatus{Phase: tcsv1.PhaseCompleted}})
	h.publish(&tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: "tr_b", Organization: "org_b"}, Status: tcsv1.TranscriptStatus{Phase: tcsv1.PhaseCompleted}})

	select {
	case <-removed.ended:
	default:
		t.Fatal("the removed member's stream is not ended")
	}
	if len(removed.pending) != 0 {
		t.Fatalf("the removed member's stream got %d events published after the removal", len(removed.pending))
	}
	if len(other.pending) != 1 || len(elsewhere.pending) != 1 {
		t.Fatalf("another member's stream got %d events, the removed member's stream of another organization %d; want 1 each", len(other.pending), len(elsewhere.pending))
	}
	select {
	case <-other.ended:
		t.Fatal("another member's stream was ended")
	case <-elsewhere.ended:
		t.Fatal("the member's stream of another organization was ended")
	default:
	}
}

// TestASlowStreamSkipsIntermediateStatesButNeverTheLast checks that a stream whose reader falls
// behind a burst of changes (more than it could hold of them) still gets the last state of
// every transcript, once each, in the order they first changed.
func TestASlowStreamSkipsIntermediateStatesButNeverTheLast(t *testing.T) {
	h := newHub(streamLimits{perSession: 4, perOrg: 100, total: 1000})
	sub, stop, err := h.subscribe("org_a", "session", "staff@example.org")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	const n = 300
	for _, phase := range []tcsv1.Phase{tcsv1.PhasePending, tcsv1.PhasePending, tcsv1.PhaseCompleted} {
		for i := range n {
			h.publish(&tcsv1.Transcript{Spec: tcsv1.TranscriptSpec{ID: fmt.Sprintf("tr_%03d", i), Organization: "org_a"},
				Status: tcsv1.TranscriptStatus{Phase: phase}})
		}
	}
	got := h.take(sub)
	if len(got) != n {
		t.Fatalf("%d states to send, want the last of each of the %d transcripts", len(got), n)
	}
	for i, p := range got {
		if want := fmt.Sprintf("tr_%03d", i); p.ID != want || p.Status != tcsv1.PhaseCompleted {
			t.Fatalf("state %d: %s %s, want %s completed", i, p.ID, p.Status, want)
		}
	}
	if again := h.take(sub); len(again) != 0 {
		t.Fatalf("%d states sent twice", len(again))
	}
}
