package controllers

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/sources"
)

// flakyOrigin is a loopback server of a url source (/sermon.srt) and of YouTube (/watch and
// its caption track) whose first failures answers of each path are 503; it records when each
// request of a path arrived.
type flakyOrigin struct {
	*httptest.Server
	failures int

	mu       sync.Mutex
	arrivals map[string][]time.Time
}

func newFlakyOrigin(t *testing.T, failures int) *flakyOrigin {
	t.Helper()
	o := &flakyOrigin{failures: failures, arrivals: map[string][]time.Time{}}
	o.Server = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.Close)
	return o
}

func (o *flakyOrigin) serve(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.arrivals[r.URL.Path] = append(o.arrivals[r.URL.Path], time.Now())
	n := len(o.arrivals[r.URL.Path])
	o.mu.Unlock()
	if r.URL.Path != "/api/timedtext" && n <= o.failures {
		http.Error(w, "try again later", http.StatusServiceUnavailable)
		return
	}
	switch r.URL.Path {
	case "/sermon.srt":
		w.Header().Set("Content-Type", "application/x-subrip")
		fmt.Fprint(w, "1\n00:00:01,000 --> 00:00:03,000\nturn to revelations 21:4\n")
	case "/watch":
		id := r.URL.Query().Get("v")
		player, _ := json.Marshal(map[string]any{
			"playabilityStatus": map[string]any{"status": "OK"},
			"videoDetails":      map[string]any{"videoId": id, "title": "Sunday Service"},
			"captions": map[string]any{"playerCaptionsTracklistRenderer": map[string]any{"captionTracks": []any{
				map[string]any{"baseUrl": o.URL + "/api/timedtext?v=" + id + "&lang=en", "languageCode": "en", "vssId": ".en"},
			}}},
		})
		fmt.Fprintf(w, `<html><script>var ytInitialPlayerResponse = %s;</script></html>`, player)
	case "/api/timedtext":
		w.Header().Set("Content-Type", "text/vtt")
		fmt.Fprint(w, "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nturn to revelations 21:4\n")
	default:
		http.NotFound(w, r)
	}
}

// times returns when the requests of path arrived.
func (o *flakyOrigin) times(path string) []time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]time.Time(nil), o.arrivals[path]...)
}

// retryOrigin runs the transcript reconciler on a new namespace with outbound requests (url and
// YouTube) going to o, retry delays of delay and up to 5 attempts.
func retryOrigin(t *testing.T, ns string, store *blob.Store, o *flakyOrigin, delay time.Duration) (stop func()) {
	t.Helper()
	outbound := sources.NewClient(sources.ClientOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	return runManagerTuned(t, ns, store, outbound, nil, func(r *TranscriptReconciler) {
		r.Sources = &sources.Fetcher{YouTube: &sources.YouTube{BaseURL: o.URL, Client: outbound}, Client: outbound}
		r.MaxAttempts, r.RetryDelay = DefaultMaxAttempts, delay
	})
}

// TestReconcilerWaitsBetweenFetchAttempts fetches url and youtube sources from an origin that
// fails three times before it serves: the attempts are spaced by at least the retry schedule
// (not cut short by the reconcile the status write of a failed attempt brings), and the
// transcript completes after the failures.
func TestReconcilerWaitsBetweenFetchAttempts(t *testing.T) {
	const failures, delay = 3, 200 * time.Millisecond
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-ctrl")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	origin := newFlakyOrigin(t, failures)
	t.Cleanup(retryOrigin(t, ns, store, origin, delay))

	for _, tc := range []struct {
		name   string
		source tcsv1.SourceType
		url    string
		path   string // the path of the request that fails
		format string
	}{
		{"url", tcsv1.SourceURL, origin.URL + "/sermon.srt", "/sermon.srt", "srt"},
		{"youtube", tcsv1.SourceYouTube, "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "/watch", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(ns, "org_a", tc.source)
			tr.Spec.Source.URL, tr.Spec.Source.Format = tc.url, tc.format
			if err := c.Create(t.Context(), tr); err != nil {
				t.Fatal(err)
			}
			got := eventually(t, c, tr, "ended", func(t *tcsv1.Transcript) bool { return t.Status.Phase != tcsv1.PhasePending && t.Status.Phase != "" })
			if got.Status.Phase != tcsv1.PhaseCompleted {
				t.Fatalf("phase %s, error %+v, jobs %+v", got.Status.Phase, got.Status.Error, got.Status.Jobs)
			}
			fetch := got.Status.Jobs[0]
			if fetch.State != tcsv1.JobSucceeded || fetch.Attempts != failures || fetch.NextAttemptAt != nil {
				t.Errorf("fetch job %+v, want succeeded after %d failed attempts, no next attempt", fetch, failures)
			}
			arrived := origin.times(tc.path)
			if len(arrived) != failures+1 {
				t.Fatalf("%d requests, want %d", len(arrived), failures+1)
			}
			for i := 1; i < len(arrived); i++ {
				gap, want := arrived[i].Sub(arrived[i-1]), delay<<(i-1)
				if gap < want {
					t.Errorf("attempt %d came %s after attempt %d, want at least %s", i+1, gap, i, want)
				}
			}
		})
	}
}

// TestReconcilerHonoursARecordedRetryAfterRestart stops the reconciler after a failed fetch and
// starts a new one, whose own retry delay is short: the next attempt still waits for the time
// the first recorded in the job, which the API's job object does not show.
func TestReconcilerHonoursARecordedRetryAfterRestart(t *testing.T) {
	const delay = 2 * time.Second
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "tcs-ctrl")
	store, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	origin := newFlakyOrigin(t, 1)
	stop := retryOrigin(t, ns, store, origin, delay)
	tr := newTranscript(ns, "org_a", tcsv1.SourceURL)
	tr.Spec.Source.URL, tr.Spec.Source.Format = origin.URL+"/sermon.srt", "srt"
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	failed := eventually(t, c, tr, "first attempt failed", func(t *tcsv1.Transcript) bool {
		return len(t.Status.Jobs) > 0 && t.Status.Jobs[0].Attempts == 1
	})
	stop()
	next := failed.Status.Jobs[0].NextAttemptAt
	if next == nil {
		t.Fatalf("the failed attempt recorded no next attempt: job %+v", failed.Status.Jobs[0])
	}
	// The API's job object does not show it.
	view, err := json.Marshal(apiview.NewJob(failed, &failed.Status.Jobs[0]))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(view, &fields); err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(fields)); !slices.Equal(keys, []string{"created_at", "error", "finished_at", "id", "object", "progress", "started_at", "status", "transcript_id", "type"}) {
		t.Errorf("the API's job object has the fields %v", keys)
	}
	t.Cleanup(retryOrigin(t, ns, store, origin, time.Millisecond))

	got := eventually(t, c, tr, "completed", func(t *tcsv1.Transcript) bool { return t.Status.Phase == tcsv1.PhaseCompleted })
	arrived := origin.times("/sermon.srt")
	if len(arrived) != 2 || got.Status.Jobs[0].Attempts != 1 {
		t.Fatalf("%d requests, job %+v; want 2 requests, 1 failed attempt", len(arrived), got.Status.Jobs[0])
	}
	if arrived[1].Before(next.Time) || arrived[1].Sub(arrived[0]) < delay {
		t.Errorf("the second attempt came at %s, %s after the first; the next attempt was due at %s",
			arrived[1].Format(time.RFC3339Nano), arrived[1].Sub(arrived[0]), next.Time.Format(time.RFC3339Nano))
	}
}
