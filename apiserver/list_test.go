package apiserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func dataIDs(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	for _, d := range r.body["data"].([]any) {
		out = append(out, d.(map[string]any)["id"].(string))
	}
	return out
}

func TestListDeleteAndAIPass(t *testing.T) {
	h := newHarness(t)
	// Five pastes of A (newest last) and one of B; one url transcript of A stays pending.
	var created []string
	for i := range 5 {
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": fmt.Sprintf("sermon %d", i)})
		created = append(created, r.body["id"].(string))
		time.Sleep(1100 * time.Millisecond / 5) // distinct creation seconds are not needed: ties break by name
	}
	h.paste(t, h.keyB.Value, map[string]any{"source_type": "paste", "content": "other church"})
	pending := h.do(t, http.MethodPost, "/api/v1/transcripts", h.keyA.Value, "", []byte(`{"source_type":"url","url":"http://127.0.0.1:9/a.txt","source_format":"txt"}`))

	// The cache catches up with the writes.
	var all response
	deadline := time.Now().Add(10 * time.Second)
	for {
		all = h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100", h.keyA.Value, "", nil)
		if len(all.body["data"].([]any)) == 6 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := dataIDs(t, all)
	if all.status != 200 || all.body["object"] != "list" || all.body["url"] != "/api/v1/transcripts" || all.body["has_more"] != false || len(got) != 6 {
		t.Fatalf("list = %d %s", all.status, all.raw)
	}
	if first := all.body["data"].([]any)[0].(map[string]any); first["content"] != nil {
		t.Errorf("list items carry content")
	}
	// Newest first: the pending url transcript, then the pastes from the last.
	newest := append([]string{pending.body["id"].(string)}, reverse(created)...)
	if strings.Join(got, ",") != strings.Join(newest, ",") {
		t.Fatalf("order %v, want %v", got, newest)
	}

	for _, tc := range []struct {
		query   string
		want    []string
		hasMore bool
	}{
		{"?limit=2", newest[:2], true},
		{"?limit=2&starting_after=" + newest[1], newest[2:4], true},
		{"?limit=10&starting_after=" + newest[3], newest[4:], false},
		{"?limit=2&ending_before=" + newest[4], newest[2:4], true},
		{"?ending_before=" + newest[1], newest[:1], false},
		{"?status=pending", newest[:1], false},
		{"?status=completed&limit=3", newest[1:4], true},
		{"?source_type=url", newest[:1], false},
		{"?source_type=paste&limit=100", newest[1:], false},
		{"?created[gte]=" + fmt.Sprint(time.Now().Add(time.Hour).Unix()), nil, false},
		{"?created[lte]=" + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), nil, false},
		{"?created[gte]=" + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339) + "&limit=100", newest, false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := h.do(t, http.MethodGet, "/api/v1/transcripts"+tc.query, h.keyA.Value, "", nil)
			if got := dataIDs(t, r); strings.Join(got, ",") != strings.Join(tc.want, ",") || r.body["has_more"] != tc.hasMore {
				t.Fatalf("ids %v has_more %v; want %v %v", got, r.body["has_more"], tc.want, tc.hasMore)
			}
		})
	}
	for _, tc := range []struct{ query, param string }{
		{"?limit=0", "limit"}, {"?limit=101", "limit"}, {"?limit=x", "limit"},
		{"?status=done", "status"}, {"?source_type=fax", "source_type"},
		{"?created[gte]=yesterday", "created[gte]"},
		{"?starting_after=" + newest[0] + "&ending_before=" + newest[1], "ending_before"},
		{"?starting_after=tr_nothing", "starting_after"},
	} {
		wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts"+tc.query, h.keyA.Value, "", nil), 400, ErrInvalidRequest, tc.param)
	}

	// AI pass: queued on a pending or a completed transcript (no controller runs here, so it
	// stays queued), 409 while it is.
	wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts/"+newest[1]+"/ai_pass", h.keyB.Value, "", nil), 403, ErrForbidden, "id")
	for _, id := range newest[:2] {
		q := h.do(t, http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", h.keyA.Value, "", nil)
		jobs, _ := q.body["jobs"].([]any)
		if q.status != 202 || q.body["ai_pass_status"] != "queued" || len(jobs) == 0 || jobs[len(jobs)-1].(map[string]any)["type"] != "ai_pass" {
			t.Fatalf("ai_pass on %s: %d %s", id, q.status, q.raw)
		}
		wantError(t, h.do(t, http.MethodPost, "/api/v1/transcripts/"+id+"/ai_pass", h.keyA.Value, "", nil), 409, ErrConflict, "")
	}

	// Soft delete.
	wantError(t, h.do(t, http.MethodDelete, "/api/v1/transcripts/"+newest[1], h.keyB.Value, "", nil), 403, ErrForbidden, "id")
	d := h.do(t, http.MethodDelete, "/api/v1/transcripts/"+newest[1], h.keyA.Value, "", nil)
	if d.status != 200 || d.body["id"] != newest[1] || d.body["object"] != "transcript" || d.body["deleted"] != true {
		t.Fatalf("delete: %d %s", d.status, d.raw)
	}
	wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+newest[1], h.keyA.Value, "", nil), 404, ErrNotFound, "id")
	wantError(t, h.do(t, http.MethodGet, "/api/v1/transcripts/"+newest[1]+"/changes", h.keyA.Value, "", nil), 404, ErrNotFound, "id")
	wantError(t, h.do(t, http.MethodDelete, "/api/v1/transcripts/"+newest[1], h.keyA.Value, "", nil), 404, ErrNotFound, "id")
	wantError(t, h.do(t, http.MethodDelete, "/api/v1/transcripts/tr_nothing", h.keyA.Value, "", nil), 404, ErrNotFound, "id")
	deadline = time.Now().Add(10 * time.Second)
	for {
		l := dataIDs(t, h.do(t, http.MethodGet, "/api/v1/transcripts?limit=100", h.keyA.Value, "", nil))
		if !strings.Contains(strings.Join(l, ","), newest[1]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a deleted transcript stays in the list: %v", l)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// TestListShowsTheRequestsOwnWrites checks read-your-writes: the list is served from the
// informer cache, yet a transcript a request just created, and the state its answer showed, are
// in the list the next request reads.
func TestListShowsTheRequestsOwnWrites(t *testing.T) {
	h := newHarness(t)
	for i := range 30 {
		r := h.paste(t, h.keyA.Value, map[string]any{"source_type": "paste", "content": fmt.Sprintf("sermon %d on first corinthians 13", i)})
		id := r.body["id"].(string)
		if r.body["status"] != "completed" {
			t.Fatalf("paste %d answered status %v", i, r.body["status"])
		}
		l := h.do(t, http.MethodGet, "/api/v1/transcripts?status=completed&limit=1", h.keyA.Value, "", nil)
		if got := dataIDs(t, l); len(got) != 1 || got[0] != id {
			t.Fatalf("paste %d: the list right after it shows %v; want [%s]", i, got, id)
		}
	}
}
