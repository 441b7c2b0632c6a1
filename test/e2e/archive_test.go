package e2e

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDevArchivesFinishedTranscripts runs `tcs dev --archive-after=1s`: a finished transcript
// leaves the cluster for the results store in the state dir, the API still shows it (also after
// a restart), and `tcs admin transcript get` finds it there.
func TestDevArchivesFinishedTranscripts(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	dev := startDev(t, stateDir, "--archive-after=1s")
	url, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	if dsn := dev.env["TCS_RESULTS_DSN"]; dsn != filepath.Join(stateDir, "results.db") {
		t.Fatalf("TCS_RESULTS_DSN = %q, want the state dir's results.db", dsn)
	}
	created := call(t, http.MethodPost, url+"/api/v1/transcripts", key, `{"source_type":"paste","content":"turn to first corinthians 13 4"}`)
	if created.status != 201 {
		t.Fatalf("paste: %d %s", created.status, created.raw)
	}
	id := created.body["id"].(string)

	admin := func() (map[string]any, error) {
		cmd := exec.Command(tcsBin, "admin", "transcript", "get", id, "--kubeconfig", dev.env["KUBECONFIG"], "--results-dsn", dev.env["TCS_RESULTS_DSN"])
		out, err := cmd.Output()
		if err != nil {
			return nil, err
		}
		var v map[string]any
		return v, json.Unmarshal(out, &v)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := admin()
		if err == nil && v["location"] == "results_store" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not archived within a minute: %v %v\n%s", v, err, dev.stderr)
		}
		time.Sleep(500 * time.Millisecond)
	}
	check := func() {
		t.Helper()
		got := call(t, http.MethodGet, url+"/api/v1/transcripts/"+id, key, "")
		if got.status != 200 || got.body["content"] != created.body["content"] || got.body["created_at"] != created.body["created_at"] {
			t.Fatalf("GET of the archived transcript: %d %s\nwant as created: %s", got.status, got.raw, created.raw)
		}
		list := call(t, http.MethodGet, url+"/api/v1/transcripts", key, "")
		if !strings.Contains(list.raw, `"id":"`+id+`"`) {
			t.Fatalf("the archived transcript is not listed: %s", list.raw)
		}
	}
	check()
	dev.stop(t)
	dev = startDev(t, stateDir, "--archive-after=1s")
	url, key = dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	check()
}
