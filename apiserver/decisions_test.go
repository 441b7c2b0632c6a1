package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// reviewText has one automatic change and two suggestions: chg_0001 "first corinthians"
// (auto_applied), chg_0002 "Revelations" read as an English word and chg_0003 "capernum"
// (needs_review).
const reviewText = "Turn to first corinthians 13:4.\nThe Revelations of the prophets were many.\nThey sailed past capernum.\n"

// decide posts a batch of decisions on transcript id with key, and extra headers.
func (h *harness) decide(t *testing.T, key, id string, body any, extra ...string) response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return h.request(t, http.MethodPost, "/api/v1/transcripts/"+id+"/decisions", "Bearer "+key, "application/json", b, extra...)
}

// changesOf returns the change list of transcript id, by change id.
func (h *harness) changesOf(t *testing.T, key, id, query string) (map[string]map[string]any, []string) {
	t.Helper()
	r := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id+"/changes?limit=100"+query, key, "", nil)
	if r.status != 200 {
		t.Fatalf("changes of %s: %d %s", id, r.status, r.raw)
	}
	out := map[string]map[string]any{}
	var order []string
	for _, c := range r.body["data"].([]any) {
		m := c.(map[string]any)
		out[m["id"].(string)] = m
		order = append(order, m["id"].(string))
	}
	return out, order
}

// pasteFor creates a paste of content for key and returns its id.
func (h *harness) pasteFor(t *testing.T, key, content string, extra map[string]any) string {
	t.Helper()
	body := map[string]any{"source_type": "paste", "content": content}
	for k, v := range extra {
		body[k] = v
	}
	r := h.paste(t, key, body)
	if r.status != 201 {
		t.Fatalf("paste: %d %s", r.status, r.raw)
	}
	return r.body["id"].(string)
}

// TestDecisionActionsEndToEnd checks every action through the API: the content recomputed
// from the input and the decisions, the review object and ETag, the change list's decisions
// and its decided filter, and the transcript list's needs_review filter.
func TestDecisionActionsEndToEnd(t *testing.T) {
	h := newHarness(t)
	id := h.pasteFor(t, h.keyA.Value, reviewText, nil)
	clean := h.pasteFor(t, h.keyA.Value, "Nothing to correct here.\n", nil)

	r := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
	review, _ := r.body["review"].(map[string]any)
	if r.header.Get("ETag") != `"r0"` || review == nil || review["version"] != 0.0 || review["undecided"] != 2.0 || review["decided"] != 0.0 ||
		review["last_decided_by"] != nil || review["last_decided_at"] != nil {
		t.Fatalf("before any decision: ETag %s review %v", r.header.Get("ETag"), r.body["review"])
	}
	changes, _ := h.changesOf(t, h.keyA.Value, id, "")
	if changes["chg_0003"]["replacement"] != "Capernaum" || changes["chg_0002"]["status"] != "needs_review" || changes["chg_0001"]["applied"] != true {
		t.Fatalf("the change list is not the one this test is written for: %v", changes)
	}
	if changes["chg_0001"]["decision"] != nil {
		t.Fatalf("a decision before any: %v", changes["chg_0001"])
	}
	waitList(t, h, 2)
	listed := func(query string) string {
		t.Helper()
		r := h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100"+query, h.keyA.Value, "", nil)
		if r.status != 200 {
			t.Fatalf("list %s: %d %s", query, r.status, r.raw)
		}
		return strings.Join(dataIDs(t, r), ",")
	}
	if got := listed("&needs_review=true"); got != id {
		t.Fatalf("needs_review=true before the decisions: %s, want %s", got, id)
	}
	if got := listed("&needs_review=false"); got != clean {
		t.Fatalf("needs_review=false before the decisions: %s, want %s", got, clean)
	}

	start := strings.Index(reviewText, "prophets")
	r = h.decide(t, h.keyA.Value, id, map[string]any{"review_version": 0, "decisions": []map[string]any{
		{"change_id": "chg_0001", "action": "reject"},
		{"change_id": "chg_0002", "action": "replace", "replacement": "Revelation"},
		{"change_id": "chg_0003", "action": "accept"},
		{"action": "add", "start": start, "end": start + len("prophets"), "replacement": "Prophets", "category": "custom"},
	}})
	if r.status != 200 {
		t.Fatalf("decisions: %d %s", r.status, r.raw)
	}
	want := "Turn to first corinthians 13:4.\nThe Revelation of the Prophets were many.\nThey sailed past Capernaum.\n"
	if r.body["content"] != want {
		t.Fatalf("content after the decisions:\n%q\nwant\n%q", r.body["content"], want)
	}
	review = r.body["review"].(map[string]any)
	if r.header.Get("ETag") != `"r1"` || review["version"] != 1.0 || review["undecided"] != 0.0 || review["decided"] != 4.0 ||
		review["last_decided_by"] != h.keyA.ID || review["last_decided_at"] == nil {
		t.Fatalf("after the decisions: ETag %s review %v", r.header.Get("ETag"), review)
	}
	if sum := r.body["changes_summary"].(map[string]any); sum["total"] != 4.0 || sum["auto_applied"] != 3.0 || sum["needs_review"] != 0.0 {
		t.Errorf("changes_summary after the decisions: %v", sum)
	}
	// GET shows the same: the content clients download is the reviewed one.
	got := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
	if got.body["content"] != want || got.header.Get("ETag") != `"r1"` {
		t.Fatalf("GET after the decisions: %s %s", got.header.Get("ETag"), got.raw)
	}

	changes, order := h.changesOf(t, h.keyA.Value, id, "")
	if strings.Join(order, ",") != "chg_0001,chg_0002,chg_u0001,chg_0003" {
		t.Errorf("change list order: %v", order)
	}
	for _, tc := range []struct {
		id, action, replacement string
		applied                 bool
	}{
		{"chg_0001", "reject", "", false},
		{"chg_0002", "replace", "Revelation", true},
		{"chg_0003", "accept", "", true},
		{"chg_u0001", "add", "Prophets", true},
	} {
		c := changes[tc.id]
		d, _ := c["decision"].(map[string]any)
		if d == nil || d["action"] != tc.action || c["applied"] != tc.applied || d["by"] != h.keyA.ID || d["at"] != review["last_decided_at"] {
			t.Errorf("%s: %v", tc.id, c)
			continue
		}
		if rep, _ := d["replacement"].(string); rep != tc.replacement {
			t.Errorf("%s: decision replacement %q, want %q", tc.id, rep, tc.replacement)
		}
	}
	if added := changes["chg_u0001"]; added["original"] != "prophets" || added["rule"] != "review.added" || added["category"] != "custom" {
		t.Errorf("the added change: %v", added)
	}
	if _, order := h.changesOf(t, h.keyA.Value, id, "&decided=false"); len(order) != 0 {
		t.Errorf("decided=false after deciding on all: %v", order)
	}
	if _, order := h.changesOf(t, h.keyA.Value, id, "&decided=true&applied=false"); strings.Join(order, ",") != "chg_0001" {
		t.Errorf("decided=true&applied=false: %v", order)
	}
	wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+id+"/changes?decided=maybe", h.keyA.Value, "", nil), 400, ErrInvalidRequest, "decided")
	if got := listed("&needs_review=true"); got != "" {
		t.Errorf("needs_review=true after the decisions: %s", got)
	}
	if got := listed("&needs_review=false"); got != clean+","+id {
		t.Errorf("needs_review=false after the decisions: %s, want %s", got, clean+","+id)
	}
	wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts?needs_review=1", h.keyA.Value, "", nil), 400, ErrInvalidRequest, "needs_review")

	// The same decisions again (no version): a new version, the same content, and the
	// latest decision of a change wins.
	r = h.decide(t, h.keyA.Value, id, map[string]any{"decisions": []map[string]any{{"change_id": "chg_0001", "action": "reject"}}}, "If-Match", `"r1"`)
	if r.status != 200 || r.body["content"] != want || r.header.Get("ETag") != `"r2"` {
		t.Fatalf("the same decision again: %d %s %s", r.status, r.header.Get("ETag"), r.raw)
	}
	r = h.decide(t, h.keyA.Value, id, map[string]any{"decisions": []map[string]any{{"change_id": "chg_0001", "action": "accept"}}})
	if want := strings.Replace(want, "first corinthians", "1 Corinthians", 1); r.status != 200 || r.body["content"] != want {
		t.Fatalf("accepting the rejected change: %d %s", r.status, r.raw)
	}
}

// TestDecisionErrors checks the refusals of decisions: precise params, versions, state and
// organization.
func TestDecisionErrors(t *testing.T) {
	h := newHarness(t)
	id := h.pasteFor(t, h.keyA.Value, reviewText, nil)
	path := "/api/v1/transcripts/" + id + "/decisions"
	for _, tc := range []struct {
		name, body, param string
	}{
		{"no body", ``, ""},
		{"no decisions", `{}`, "decisions"},
		{"empty decisions", `{"decisions":[]}`, "decisions"},
		{"decisions not an array", `{"decisions":{}}`, "decisions"},
		{"unknown member", `{"decisions":[{"action":"accept","change_id":"chg_0002"}],"version":1}`, "version"},
		{"unknown decision member", `{"decisions":[{"action":"accept","change_id":"chg_0002","why":"x"}]}`, "decisions[0].why"},
		{"decision not an object", `{"decisions":["accept"]}`, "decisions[0]"},
		{"unknown change", `{"decisions":[{"action":"accept","change_id":"chg_0002"},{"action":"reject","change_id":"chg_0001"},{"action":"accept","change_id":"chg_0099"}]}`, "decisions[2].change_id"},
		{"unknown action", `{"decisions":[{"action":"approve","change_id":"chg_0002"}]}`, "decisions[0].action"},
		{"no action", `{"decisions":[{"change_id":"chg_0002"}]}`, "decisions[0].action"},
		{"replace without replacement", `{"decisions":[{"action":"replace","change_id":"chg_0002"}]}`, "decisions[0].replacement"},
		{"accept with replacement", `{"decisions":[{"action":"accept","change_id":"chg_0002","replacement":"x"}]}`, "decisions[0].replacement"},
		{"add without span", `{"decisions":[{"action":"add","replacement":"x"}]}`, "decisions[0].start"},
		{"add across a line", `{"decisions":[{"action":"add","start":20,"end":40,"replacement":"x"}]}`, "decisions[0].start"},
		{"add over an applied change", `{"decisions":[{"action":"add","start":8,"end":13,"replacement":"x"}]}`, "decisions[0].start"},
		{"negative start", `{"decisions":[{"action":"add","start":-1,"end":3,"replacement":"x"}]}`, "decisions[0].start"},
		{"string change id", `{"decisions":[{"action":"accept","change_id":2}]}`, "decisions[0].change_id"},
		{"bad category", `{"decisions":[{"action":"add","start":0,"end":4,"replacement":"x","category":"Big Words"}]}`, "decisions[0].category"},
		{"bad version", `{"decisions":[{"action":"accept","change_id":"chg_0002"}],"review_version":"r0"}`, "review_version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, h.do(t, http.MethodPost, path, h.keyA.Value, "application/json", []byte(tc.body)), 400, ErrInvalidRequest, tc.param)
		})
	}
	one := map[string]any{"decisions": []map[string]any{{"change_id": "chg_0003", "action": "accept"}}}
	t.Run("a bad If-Match is refused", func(t *testing.T) {
		for _, tag := range []string{`r0`, `"0"`, `"r"`, `"r-1"`, `"r+1"`} {
			wantError(t, h.decide(t, h.keyA.Value, id, one, "If-Match", tag), 400, ErrInvalidRequest, "If-Match")
		}
		body := map[string]any{"decisions": one["decisions"], "review_version": 1}
		wantError(t, h.decide(t, h.keyA.Value, id, body, "If-Match", `"r0"`), 400, ErrInvalidRequest, "review_version")
	})
	t.Run("a version ahead or behind is a conflict", func(t *testing.T) {
		r := h.decide(t, h.keyA.Value, id, one, "If-Match", `"r3"`)
		wantError(t, r, 409, ErrConflict, "review_version")
		if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "Fetch the transcript") {
			t.Errorf("the conflict does not say what to do: %s", msg)
		}
		if r := h.decide(t, h.keyA.Value, id, one, "If-Match", `W/"r0"`); r.status != 200 {
			t.Fatalf("decisions with If-Match r0: %d %s", r.status, r.raw)
		}
		wantError(t, h.decide(t, h.keyA.Value, id, map[string]any{"decisions": one["decisions"], "review_version": 0}), 409, ErrConflict, "review_version")
	})
	t.Run("another organization's transcript is forbidden", func(t *testing.T) {
		wantError(t, h.decide(t, h.keyB.Value, id, one), 403, ErrForbidden, "id")
		wantError(t, h.decide(t, h.keyA.Value, "tr_doesnotexist", one), 404, ErrNotFound, "id")
	})
	t.Run("a transcript not completed is a conflict", func(t *testing.T) {
		r := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "application/json", []byte(`{"source_type":"url","url":"http://127.0.0.1:1/sermon.txt","source_format":"txt"}`))
		if r.status != 202 {
			t.Fatalf("url transcript: %d %s", r.status, r.raw)
		}
		wantError(t, h.decide(t, h.keyA.Value, r.body["id"].(string), one), 409, ErrConflict, "")
	})
	t.Run("a transcript with an AI pass queued is a conflict", func(t *testing.T) {
		other := h.pasteFor(t, h.keyA.Value, reviewText, nil)
		if r := h.do(t, http.MethodPost, "/api/v1/transcripts/"+other+"/ai_pass", h.keyA.Value, "", nil); r.status != 202 {
			t.Fatalf("ai pass: %d %s", r.status, r.raw)
		}
		wantError(t, h.decide(t, h.keyA.Value, other, one), 409, ErrConflict, "")
	})
}

// TestConcurrentReviewers checks that of two reviewers deciding on the same version at once
// one wins and the other gets a 409, and that after fetching again the loser's decisions join
// the winner's: nothing is lost. Without a version, both batches are recorded.
func TestConcurrentReviewers(t *testing.T) {
	h := newHarness(t)
	for _, withVersion := range []bool{true, false} {
		t.Run(fmt.Sprintf("with version %t", withVersion), func(t *testing.T) {
			id := h.pasteFor(t, h.keyA.Value, reviewText, nil)
			batches := []map[string]any{
				{"decisions": []map[string]any{{"change_id": "chg_0003", "action": "accept"}}},
				{"decisions": []map[string]any{{"change_id": "chg_0002", "action": "replace", "replacement": "Revelation"}}},
			}
			if withVersion {
				for _, b := range batches {
					b["review_version"] = 0
				}
			}
			answers := make([]response, len(batches))
			var wg sync.WaitGroup
			for i := range batches {
				wg.Go(func() { answers[i] = h.decide(t, h.keyA.Value, id, batches[i]) })
			}
			wg.Wait()
			var won, lost []int
			for i, a := range answers {
				switch a.status {
				case 200:
					won = append(won, i)
				case 409:
					wantError(t, a, 409, ErrConflict, "review_version")
					lost = append(lost, i)
				default:
					t.Fatalf("reviewer %d: %d %s", i, a.status, a.raw)
				}
			}
			if withVersion && (len(won) != 1 || len(lost) != 1) {
				t.Fatalf("with a version: won %v lost %v; want one each", won, lost)
			}
			if !withVersion && len(won) != 2 {
				t.Fatalf("without a version: won %v; want both", won)
			}
			for _, i := range lost {
				// The loser fetches the transcript and decides again on its version.
				r := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
				delete(batches[i], "review_version")
				if retry := h.decide(t, h.keyA.Value, id, batches[i], "If-Match", r.header.Get("ETag")); retry.status != 200 {
					t.Fatalf("the loser deciding again: %d %s", retry.status, retry.raw)
				}
			}
			r := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
			want := "Turn to 1 Corinthians 13:4.\nThe Revelation of the prophets were many.\nThey sailed past Capernaum.\n"
			if r.body["content"] != want {
				t.Fatalf("content after both reviewers:\n%q\nwant\n%q", r.body["content"], want)
			}
			review := r.body["review"].(map[string]any)
			if review["decided"] != 2.0 || review["undecided"] != 0.0 {
				t.Errorf("review after both reviewers: %v", review)
			}
		})
	}
}

// TestDecisionIdempotency checks that a batch sent again with the same Idempotency-Key replays
// the first answer, recording nothing new.
func TestDecisionIdempotency(t *testing.T) {
	h := newHarness(t)
	id := h.pasteFor(t, h.keyA.Value, reviewText, nil)
	body := map[string]any{"decisions": []map[string]any{{"change_id": "chg_0003", "action": "accept"}}}
	first := h.decide(t, h.keyA.Value, id, body, "Idempotency-Key", "review-1")
	again := h.decide(t, h.keyA.Value, id, body, "Idempotency-Key", "review-1")
	if first.status != 200 || again.status != 200 || string(first.raw) != string(again.raw) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s\n%d %s %v", first.status, first.raw, again.status, again.raw, again.header)
	}
	tr := &tcsv1.Transcript{}
	if err := h.client.Get(context.Background(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		t.Fatal(err)
	}
	if tr.Status.Review == nil || tr.Status.Review.Version != 1 {
		t.Fatalf("the replay recorded again: %+v", tr.Status.Review)
	}
}

// TestDecisionsOnSRTAreByteExact checks the content of a caption file after decisions: the
// cues' numbers and timings untouched, only the decided words changed.
func TestDecisionsOnSRTAreByteExact(t *testing.T) {
	h := newHarness(t)
	srt := "1\r\n00:00:01,000 --> 00:00:04,000\r\nTurn to first corinthians 13:4.\r\n\r\n" +
		"2\r\n00:00:04,500 --> 00:00:08,250\r\nThey sailed past capernum\r\nto the <i>prophets</i>.\r\n"
	id := h.pasteFor(t, h.keyA.Value, srt, map[string]any{"source_format": "srt"})
	changes, _ := h.changesOf(t, h.keyA.Value, id, "")
	if len(changes) != 2 || changes["chg_0001"]["applied"] != true || changes["chg_0002"]["replacement"] != "Capernaum" {
		t.Fatalf("the change list is not the one this test is written for: %v", changes)
	}
	start := strings.Index(srt, "prophets")
	r := h.decide(t, h.keyA.Value, id, map[string]any{"decisions": []map[string]any{
		{"change_id": "chg_0001", "action": "replace", "replacement": "First Corinthians"},
		{"change_id": "chg_0002", "action": "accept"},
		{"action": "add", "start": start, "end": start + len("prophets"), "replacement": "Prophets"},
	}})
	want := "1\r\n00:00:01,000 --> 00:00:04,000\r\nTurn to First Corinthians 13:4.\r\n\r\n" +
		"2\r\n00:00:04,500 --> 00:00:08,250\r\nThey sailed past Capernaum\r\nto the <i>Prophets</i>.\r\n"
	if r.status != 200 || r.body["content"] != want {
		t.Fatalf("SRT after decisions: %d\n%q\nwant\n%q", r.status, r.body["content"], want)
	}
	// A span across the cue's line break is refused with its param.
	cross := strings.Index(srt, "capernum")
	wantError(t, h.decide(t, h.keyA.Value, id, map[string]any{"decisions": []map[string]any{
		{"action": "add", "start": cross, "end": cross + len("capernum\r\nto"), "replacement": "x"},
	}}), 400, ErrInvalidRequest, "decisions[0].start")
}

// TestDecisionsOnArchivedTranscripts checks that decisions on an archived transcript bring it
// back, take effect, and stay once it is archived again; and that the list's needs_review
// filter reads archived transcripts too.
func TestDecisionsOnArchivedTranscripts(t *testing.T) {
	rs := openResults(t, "")
	h := newHarnessWith(t, harnessOptions{results: rs})
	id := h.pasteFor(t, h.keyA.Value, reviewText, nil)
	clean := h.pasteFor(t, h.keyA.Value, "Nothing to correct here.\n", nil)
	h.runArchiver(t, rs, id, clean)
	listed := func(query string) string {
		t.Helper()
		return strings.Join(dataIDs(t, h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100"+query, h.keyA.Value, "", nil)), ",")
	}
	if got := listed("&needs_review=true"); got != id {
		t.Fatalf("needs_review=true of archived transcripts: %s, want %s", got, id)
	}
	if got := listed("&needs_review=false"); got != clean {
		t.Fatalf("needs_review=false of archived transcripts: %s, want %s", got, clean)
	}
	r := h.decide(t, h.keyA.Value, id, map[string]any{"review_version": 0, "decisions": []map[string]any{
		{"change_id": "chg_0002", "action": "reject"},
		{"change_id": "chg_0003", "action": "accept"},
	}})
	want := "Turn to 1 Corinthians 13:4.\nThe Revelations of the prophets were many.\nThey sailed past Capernaum.\n"
	if r.status != 200 || r.body["content"] != want {
		t.Fatalf("decisions on an archived transcript: %d %s", r.status, r.raw)
	}
	tr := &tcsv1.Transcript{}
	if err := h.client.Get(context.Background(), types.NamespacedName{Namespace: h.namespace, Name: tcsv1.TranscriptName(id)}, tr); err != nil {
		t.Fatalf("not brought back into the cluster: %v", err)
	}
	h.runArchiver(t, rs, id)
	got := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
	if got.status != 200 || got.body["content"] != want || got.header.Get("ETag") != `"r1"` {
		t.Fatalf("GET after archiving again: %d %s %s", got.status, got.header.Get("ETag"), got.raw)
	}
	changes, _ := h.changesOf(t, h.keyA.Value, id, "&decided=true")
	if len(changes) != 2 {
		t.Fatalf("decided changes after archiving again: %v", changes)
	}
	if got := listed("&needs_review=true"); got != "" {
		t.Fatalf("needs_review=true after the decisions: %s", got)
	}
	if got := listed("&needs_review=false"); got != clean+","+id && got != id+","+clean {
		t.Fatalf("needs_review=false after the decisions: %s", got)
	}
}

// TestDecisionsSurviveKill kills the API server process (SIGKILL) after a decisions request
// stored the objects of its review version and before the status named them: the old version
// stays in force (content, ETag, change list), and the request retried with the same
// Idempotency-Key on another server records the decisions once.
func TestDecisionsSurviveKill(t *testing.T) {
	h := newHarness(t)
	id := h.pasteFor(t, h.keyA.Value, reviewText, nil)
	before := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
	beforeChanges := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id+"/changes?limit=100", h.keyA.Value, "", nil)
	body := `{"decisions":[{"change_id":"chg_0003","action":"accept"}],"review_version":0}`
	if got := h.killAtStep(t, "stored", "/api/v1/transcripts/"+id+"/decisions", "decide-kill", body); got != id {
		t.Fatalf("the child stopped on %s, want %s", got, id)
	}
	// The killed run's objects are stored, yet nothing names them.
	stored, err := filepath.Glob(filepath.Join(h.storeDir, "transcripts", h.keyA.OrganizationID, id, "review", "000001-*"))
	if err != nil || len(stored) != 1 {
		t.Fatalf("objects of the killed run: %v, %v", stored, err)
	}
	after := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id, h.keyA.Value, "", nil)
	if string(after.raw) != string(before.raw) || after.header.Get("ETag") != `"r0"` {
		t.Fatalf("after the kill:\n%s %s\nwant\n%s", after.header.Get("ETag"), after.raw, before.raw)
	}
	if got := h.do(t, http.MethodGet, "/api/v1/transcripts/"+id+"/changes?limit=100", h.keyA.Value, "", nil); string(got.raw) != string(beforeChanges.raw) {
		t.Fatalf("changes after the kill:\n%s\nwant\n%s", got.raw, beforeChanges.raw)
	}
	retry := h.post(t, "/api/v1/transcripts/"+id+"/decisions", h.keyA.Value, "decide-kill", body)
	want := "Turn to 1 Corinthians 13:4.\nThe Revelations of the prophets were many.\nThey sailed past Capernaum.\n"
	if retry.status != 200 || retry.body["content"] != want || retry.header.Get("ETag") != `"r1"` {
		t.Fatalf("the retry: %d %s %s", retry.status, retry.header.Get("ETag"), retry.raw)
	}
	again := h.post(t, "/api/v1/transcripts/"+id+"/decisions", h.keyA.Value, "decide-kill", body)
	if again.status != 200 || string(again.raw) != string(retry.raw) || again.header.Get(HeaderIdempotentReplayed) != "true" {
		t.Fatalf("the replay: %d %s", again.status, again.raw)
	}
}
