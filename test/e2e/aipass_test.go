package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// lastJob returns the last entry of a transcript's jobs.
func lastJob(t *testing.T, a answer) map[string]any {
	t.Helper()
	jobs, _ := a.body["jobs"].([]any)
	if len(jobs) == 0 {
		t.Fatalf("no jobs: %s", a.raw)
	}
	return jobs[len(jobs)-1].(map[string]any)
}

// TestDevAIPass runs the AI pass through the API of the real binary with its default, offline
// rules provider: queued at create and later, 409 while queued, verdicts in the change list,
// apply, and the ai_pass.* events delivered to a signed-webhook receiver.
func TestDevAIPass(t *testing.T) {
	rc, hooks, caFile := startReceiver(t)
	release := make(chan struct{})
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Turn to first corinthians 13:4 tonight.\nThey walked from jerusalem to capernum.\n")
	}))
	t.Cleanup(files.Close)
	dev := startDev(t, filepath.Join(t.TempDir(), "state"), "--outbound-ca-file", caFile, "--webhook-retry-delays", "100ms,100ms,100ms")
	base, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	rc.subscribe(t, dev, hooks.URL+"/hooks")

	// A url transcript asking for the AI pass: queued from the start, while the fetch waits.
	a := call(t, http.MethodPost, base+"/api/v1/transcripts", key,
		`{"source_type":"url","url":"`+files.URL+`/notes.txt","source_format":"txt","options":{"ai_pass":{"enabled":true}}}`)
	if a.status != 202 || a.body["status"] != "pending" || a.body["ai_pass_status"] != "queued" || lastJob(t, a)["type"] != "ai_pass" {
		t.Fatalf("create: %d %s", a.status, a.raw)
	}
	id := a.body["id"].(string)
	firstJob := lastJob(t, a)["id"].(string)
	url := base + "/api/v1/transcripts/" + id
	conflict := call(t, http.MethodPost, url+"/ai_pass", key, "")
	if conflict.status != 409 || errType(conflict) != "conflict" {
		t.Fatalf("a second pass while one is queued: %d %s", conflict.status, conflict.raw)
	}
	close(release)

	done := poll(t, url, key)
	pass, _ := done.body["ai_pass"].(map[string]any)
	summary, _ := done.body["changes_summary"].(map[string]any)
	if done.body["status"] != "completed" || done.body["ai_pass_status"] != "completed" || pass["provider"] != "rules" ||
		pass["job_id"] != firstJob || pass["error"] != nil || summary == nil {
		t.Fatalf("after the pass: %s", done.raw)
	}
	content := done.body["content"].(string)
	if content != "Turn to 1 Corinthians 13:4 tonight.\nThey walked from Jerusalem to Capernaum.\n" {
		t.Fatalf("without apply the content is the deterministic pass's; got %q", content)
	}
	changes := call(t, http.MethodGet, url+"/changes?limit=100", key, "")
	flagged := 0
	for _, c := range changes.body["data"].([]any) {
		ch := c.(map[string]any)
		switch ch["ai_verdict"] {
		case "rejected", "uncertain":
			flagged++
		case "confirmed":
		default:
			t.Fatalf("change without a verdict: %v", ch)
		}
		if ch["ai_reason"] == "" || ch["applied"] != (ch["status"] == "auto_applied") {
			t.Fatalf("change %v", ch)
		}
	}
	if summary["ai_flagged"] != float64(flagged) {
		t.Fatalf("ai_flagged %v, the change list flags %d", summary["ai_flagged"], flagged)
	}
	job := call(t, http.MethodGet, base+"/api/v1/jobs/"+firstJob, key, "")
	if job.body["type"] != "ai_pass" || job.body["status"] != "succeeded" || job.body["transcript_id"] != id {
		t.Fatalf("AI job: %s", job.raw)
	}

	// A second pass, asked for later, applying its verdicts.
	again := call(t, http.MethodPost, url+"/ai_pass", key, `{"apply":true}`)
	if again.status != 202 || again.body["ai_pass_status"] != "queued" || lastJob(t, again)["id"] == firstJob {
		t.Fatalf("trigger: %d %s", again.status, again.raw)
	}
	done = poll(t, url, key)
	pass, _ = done.body["ai_pass"].(map[string]any)
	if done.body["ai_pass_status"] != "completed" || pass["apply"] != true {
		t.Fatalf("after the second pass: %s", done.raw)
	}
	// The rules provider would answer the same again: an identical pass is a conflict.
	if same := call(t, http.MethodPost, url+"/ai_pass", key, `{"apply":true}`); same.status != 409 || errType(same) != "conflict" {
		t.Fatalf("an identical pass: %d %s", same.status, same.raw)
	}
	bad := call(t, http.MethodPost, url+"/ai_pass", key, `{"apply":"yes"}`)
	if bad.status != 400 || bad.body["error"].(map[string]any)["param"] != "apply" {
		t.Fatalf("bad apply: %d %s", bad.status, bad.raw)
	}

	// A paste waiting for its AI pass answers when the pass ended.
	w := call(t, http.MethodPost, base+"/api/v1/transcripts?wait=true&timeout=30", key,
		`{"source_type":"paste","content":"read revelations 21:4","options":{"ai_pass":{"enabled":true}}}`)
	if w.status != 201 || w.body["ai_pass_status"] != "completed" || w.body["content"] != "read Revelation 21:4" {
		t.Fatalf("paste with wait: %d %s", w.status, w.raw)
	}
	// A paste asking for the pass, then a trigger right away: queued, running or already
	// done with the same settings, the second pass is a conflict.
	p := call(t, http.MethodPost, base+"/api/v1/transcripts", key, `{"source_type":"paste","content":"read revelations 21:4","options":{"ai_pass":{"enabled":true}}}`)
	if twice := call(t, http.MethodPost, base+"/api/v1/transcripts/"+p.body["id"].(string)+"/ai_pass", key, ""); twice.status != 409 {
		t.Fatalf("a trigger right after the paste: %d %s", twice.status, twice.raw)
	}

	// The url transcript's deliveries were first attempted in the order of their events, and
	// each was accepted once (retries may overtake one another).
	want := []string{"transcript.created", "transcript.completed", "ai_pass.started", "ai_pass.completed", "ai_pass.started", "ai_pass.completed"}
	sorted := slices.Sorted(slices.Values(want))
	deadline := time.Now().Add(45 * time.Second)
	for {
		first, accepted, bad := rc.events(id)
		if len(bad) > 0 {
			t.Fatalf("bad deliveries: %v", bad)
		}
		slices.Sort(accepted)
		if slices.Equal(first, want) && slices.Equal(accepted, sorted) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("first attempts %v, accepted %v; want %v once each", first, accepted, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	ids := map[string]bool{}
	for _, p := range rc.accepted {
		if p["id"] == id {
			ids[p["delivery_id"].(string)] = true
		}
	}
	if len(ids) != len(want) {
		t.Fatalf("%d distinct delivery ids for %d events", len(ids), len(want))
	}
}

// TestDevAIPassWithAnOpenAICompatibleServer points the real binary at a local Chat Completions
// server, with the API key in a Secret that is read when the pass runs.
func TestDevAIPassWithAnOpenAICompatibleServer(t *testing.T) {
	var mu sync.Mutex
	var seen []string // what each request carried: model, response format, authorization
	ids := regexp.MustCompile(`chg_[0-9]{4,}`)
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model          string `json:"model"`
			ResponseFormat struct {
				Type string `json:"type"`
			} `json:"response_format"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen = append(seen, req.Model+" "+req.ResponseFormat.Type+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		var verdicts []map[string]string
		for _, m := range req.Messages {
			for _, id := range ids.FindAllString(m.Content, -1) {
				verdicts = append(verdicts, map[string]string{"id": id, "verdict": "confirmed", "reason": "a verse reference follows"})
			}
		}
		answer, _ := json.Marshal(map[string]any{"verdicts": verdicts, "proposals": []any{}})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-e2e", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(answer)}}},
			"usage":   map[string]any{"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
		})
	}))
	t.Cleanup(chat.Close)
	dev := startDev(t, filepath.Join(t.TempDir(), "state"), "--ai-base-url", chat.URL+"/v1", "--ai-model", "sermon-checker", "--ai-api-key-secret", "tcs-ai")
	assets, err := controlplane.FindAssets(testenv.Root())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(filepath.Join(assets, "kubectl"), "--kubeconfig", dev.env["KUBECONFIG"], "-n", "tcs-system",
		"create", "secret", "generic", "tcs-ai", "--from-literal=api-key=sk-test-e2e").CombinedOutput(); err != nil {
		t.Fatalf("kubectl create secret: %v\n%s", err, out)
	}
	base, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	a := call(t, http.MethodPost, base+"/api/v1/transcripts?wait=true&timeout=30", key,
		`{"source_type":"paste","content":"turn to first corinthians 13:4 and revelations 21:4","options":{"ai_pass":{"enabled":true}}}`)
	pass, _ := a.body["ai_pass"].(map[string]any)
	usage, _ := pass["usage"].(map[string]any)
	if a.status != 201 || a.body["ai_pass_status"] != "completed" || pass["provider"] != "openai" || pass["model"] != "sermon-checker" ||
		pass["confirmed"] != 2.0 || usage["total_tokens"] != 49.0 || usage["requests"] != 1.0 {
		t.Fatalf("paste with the AI pass: %d %s", a.status, a.raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "sermon-checker json_schema Bearer sk-test-e2e" {
		t.Fatalf("the chat server saw %q", seen)
	}
}
