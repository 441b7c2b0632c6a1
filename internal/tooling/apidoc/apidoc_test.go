package apidoc

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const (
		base  = "http://127.0.0.1:8080"
		rid   = "req_0123456789abcdefghij"
		trID  = "tr_0mkq3x1a2b3c4d5e6f7g8"
		jobID = "job_0mkq3x1a2b3c4d5e6f7g801"
	)
	hdr := func(kv ...string) http.Header {
		h := http.Header{"X-Request-Id": {rid}, "Content-Type": {"application/json; charset=utf-8"}}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				h.Del(kv[i])
				continue
			}
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	limited := []string{"X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "59", "X-RateLimit-Reset", "1790000000"}
	with := func(a []string, kv ...string) []string { return append(append([]string{}, a...), kv...) }
	errBody := func(typ, param string) string {
		p := ""
		if param != "" {
			p = `,"param":"` + param + `"`
		}
		return `{"error":{"type":"` + typ + `","message":"m"` + p + `,"request_id":"` + rid + `"}}` + "\n"
	}
	completed := `{"id":"` + trID + `","object":"transcript","status":"completed","ai_pass_status":"idle",
		"title":"Open Revelation 3:20","source_type":"paste","source_format":"txt","content":"Open Revelation 3:20",
		"changes_summary":{"total":1,"auto_applied":1,"needs_review":0,"ai_flagged":0,"by_category":{"bible":1}},
		"jobs":[{"id":"` + jobID + `","type":"correction"}],
		"options":{"ai_pass":{"enabled":false,"apply":false},"normalize_references":false,"metadata":{}},
		"created_at":"2026-11-21T23:24:46Z","completed_at":"2026-11-21T23:24:46Z"}`
	pending := `{"id":"` + trID + `","object":"transcript","status":"pending","ai_pass_status":"idle","title":"",
		"source_type":"youtube","source_format":"vtt","source_url":"https://youtu.be/Cn4sEntP1aY",
		"jobs":[{"id":"` + jobID + `","type":"youtube_fetch"}],
		"options":{"ai_pass":{"enabled":false,"apply":false},"normalize_references":false,"language":"en","metadata":{}},
		"created_at":"2026-11-21T23:24:46Z","completed_at":null}`
	listItem := strings.Replace(completed, `"content":"Open Revelation 3:20",`, "", 1)
	job := `{"id":"` + jobID + `","object":"job","type":"youtube_fetch","status":"failed","progress":100,
		"transcript_id":"` + trID + `","error":{"type":"unprocessable","message":"no captions"},
		"created_at":"2026-11-21T23:24:46Z","started_at":"2026-11-21T23:24:47Z","finished_at":"2026-11-21T23:24:48Z"}`
	grant := `{"object":"upload","transcript_id":"` + trID + `","upload_url":"` + base + `/uploads/?obj=x&signature=y",
		"upload_method":"PUT","upload_headers":{"Content-Type":"application/x-subrip"},
		"expires_at":"2026-11-21T23:39:46Z","max_bytes":5000000}`
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "apiserver", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	api, err := Load(doc)
	if err != nil {
		t.Fatal(err)
	}

	type tc struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
	}
	good := []tc{
		{"healthz", "GET", "/healthz", 200, hdr(), `{"status":"ok"}`},
		{"healthz head", "HEAD", "/healthz", 200, hdr(), ""},
		{"openapi", "GET", "/api/v1/openapi.json", 200, hdr("Content-Type", "application/json"), string(doc)},
		{"me", "GET", "/api/v1/me", 200, hdr(), `{"object":"api_key","api_key_id":"key_abc","organization_id":"org_abc","label":"ci"}`},
		{"401", "GET", "/api/v1/me", 401, hdr("WWW-Authenticate", `Bearer realm="tcs"`), errBody("unauthorized", "")},
		{"paste 201", "POST", "/api/v1/transcripts", 201, hdr(limited...), completed},
		{"paste replayed", "POST", "/api/v1/transcripts", 201, hdr(with(limited, "Idempotent-Replayed", "true", "X-Request-Id", "req_other")...), completed},
		{"youtube 202", "POST", "/api/v1/transcripts", 202, hdr(limited...), pending},
		{"wait 504", "POST", "/api/v1/transcripts?wait=true&timeout=5", 504, hdr(limited...),
			`{"id":"` + trID + `","error":{"type":"timeout","message":"m","request_id":"` + rid + `"},"transcript":` + pending + `}`},
		{"400 param", "POST", "/api/v1/transcripts", 400, hdr(limited...), errBody("invalid_request", "source_type")},
		{"415", "POST", "/api/v1/transcripts/uploads", 415, hdr(limited...), errBody("invalid_request", "")},
		{"429", "GET", "/api/v1/transcripts", 429, hdr(with(limited, "Retry-After", "7", "X-RateLimit-Remaining", "0")...), errBody("rate_limited", "")},
		{"get pending", "GET", "/api/v1/transcripts/" + trID, 200, hdr(with(limited, "Retry-After", "1")...), pending},
		{"list", "GET", "/api/v1/transcripts?limit=2&created[gte]=1700000000", 200, hdr(limited...),
			`{"object":"list","data":[` + listItem + `],"has_more":false,"url":"/api/v1/transcripts"}`},
		{"changes", "GET", "/api/v1/transcripts/" + trID + "/changes", 200, hdr(limited...),
			`{"object":"list","url":"/api/v1/transcripts/` + trID + `/changes","has_more":false,"data":[{"object":"change","id":"chg_0001",
			"category":"bible","original":"Revelations","replacement":"Revelation","start":5,"end":16,"line":1,"rule":"book.misspelling",
			"confidence":0.9,"status":"auto_applied","applied":true,"ai_verdict":"confirmed","ai_reason":"followed by the reference 22:20","decision":null}]}`},
		{"job", "GET", "/api/v1/jobs/" + jobID, 200, hdr(limited...), job},
		{"403", "GET", "/api/v1/jobs/" + jobID, 403, hdr(limited...), errBody("forbidden", "id")},
		{"delete", "DELETE", "/api/v1/transcripts/" + trID, 200, hdr(limited...), `{"id":"` + trID + `","object":"transcript","deleted":true}`},
		{"ai_pass 409", "POST", "/api/v1/transcripts/" + trID + "/ai_pass", 409, hdr(limited...), errBody("conflict", "")},
		{"grant", "POST", "/api/v1/transcripts/uploads", 201, hdr(limited...), grant},
		{"upload put", "PUT", "/uploads/?obj=x&expiry=1&method=PUT&contentType=text%2Fplain&signature=y", 200, http.Header{"X-Request-Id": {rid}}, ""},
		{"upload 403", "PUT", "/uploads/?obj=x", 403, hdr(), errBody("forbidden", "")},
		{"unknown route", "GET", "/api/v1/nothing", 404, hdr(), errBody("not_found", "")},
		{"wrong method", "PATCH", "/api/v1/transcripts/" + trID, 405, hdr(), errBody("invalid_request", "")},
	}
	for _, c := range good {
		if err := api.Check(c.method, base+c.path, c.status, c.header, []byte(c.body)); err != nil {
			t.Errorf("%s: valid response refused: %v", c.name, err)
		}
	}

	bad := []tc{
		{"undocumented status", "DELETE", "/api/v1/transcripts/" + trID, 202, hdr(limited...), `{"id":"` + trID + `","object":"transcript","deleted":true}`},
		{"no X-Request-Id", "GET", "/healthz", 200, hdr("X-Request-Id", ""), `{"status":"ok"}`},
		{"unknown member", "POST", "/api/v1/transcripts", 202, hdr(limited...), strings.Replace(pending, `"title":""`, `"title":"","extra":1`, 1)},
		{"missing completed_at", "POST", "/api/v1/transcripts", 202, hdr(limited...), strings.Replace(pending, `,"completed_at":null`, "", 1)},
		{"bad timestamp", "GET", "/api/v1/jobs/" + jobID, 200, hdr(limited...), strings.Replace(job, `"2026-11-21T23:24:46Z"`, `"yesterday"`, 1)},
		{"bad status value", "GET", "/api/v1/transcripts/" + trID, 200, hdr(limited...), strings.Replace(pending, `"status":"pending"`, `"status":"done"`, 1)},
		{"paste without content", "POST", "/api/v1/transcripts", 201, hdr(limited...), listItem},
		{"list item with content", "GET", "/api/v1/transcripts", 200, hdr(limited...),
			`{"object":"list","data":[` + completed + `],"has_more":false,"url":"/api/v1/transcripts"}`},
		{"error type of another status", "GET", "/api/v1/transcripts/" + trID, 404, hdr(limited...), errBody("forbidden", "id")},
		{"request_id mismatch", "GET", "/api/v1/transcripts/" + trID, 404, hdr(with(limited, "X-Request-Id", "req_other")...), errBody("not_found", "id")},
		{"429 without Retry-After", "GET", "/api/v1/transcripts", 429, hdr(limited...), errBody("rate_limited", "")},
		{"401 without WWW-Authenticate", "GET", "/api/v1/me", 401, hdr(), errBody("unauthorized", "")},
		{"bad rate-limit header", "GET", "/api/v1/transcripts/" + trID, 200, hdr(with(limited, "X-RateLimit-Remaining", "many")...), pending},
		{"text body", "GET", "/healthz", 200, hdr("Content-Type", "text/plain"), "ok"},
		{"body on an empty upload answer", "PUT", "/uploads/?obj=x", 200, http.Header{"X-Request-Id": {rid}}, `{"ok":true}`},
		{"unknown route answering 200", "GET", "/api/v1/nothing", 200, hdr(), `{}`},
		{"405 without the error object", "PATCH", "/api/v1/me", 405, hdr(), `{"message":"no"}`},
		{"504 without id", "POST", "/api/v1/transcripts?wait=true", 504, hdr(limited...),
			`{"error":{"type":"timeout","message":"m","request_id":"` + rid + `"},"transcript":` + pending + `}`},
	}
	for _, c := range bad {
		err := api.Check(c.method, base+c.path, c.status, c.header, []byte(c.body))
		if err == nil {
			t.Errorf("%s: invalid response accepted", c.name)
			continue
		}
		t.Logf("%s: refused: %.300s", c.name, err)
	}
}

func TestCheckAgreement(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "apiserver", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	api, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	const (
		base = "http://127.0.0.1:8080"
		trID = "tr_0mkq3x1a2b3c4d5e6f7g8"
	)
	json := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name, method, path string
		header             http.Header
		body               string
		// allowed says whether the document allows the request.
		allowed bool
	}{
		{"a paste", "POST", "/api/v1/transcripts", json, `{"source_type":"paste","content":"x","options":{"ai_pass":{"enabled":true}}}`, true},
		{"a paste sent as curl -d sends it", "POST", "/api/v1/transcripts", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, `{"source_type":"paste","content":"x"}`, true},
		{"a paste without a Content-Type", "POST", "/api/v1/transcripts", nil, `{"source_type":"paste","content":"x"}`, true},
		{"a wait", "POST", "/api/v1/transcripts?wait=true&timeout=5", json, `{"source_type":"youtube","url":"https://youtu.be/Cn4sEntP1aY"}`, true},
		{"a list", "GET", "/api/v1/transcripts?limit=2&status=completed", nil, "", true},
		{"an AI pass without a body", "POST", "/api/v1/transcripts/" + trID + "/ai_pass", nil, "", true},
		{"an upload", "PUT", "/uploads/?obj=x&expiry=1&method=PUT&contentType=text%2Fplain&signature=y", http.Header{"Content-Type": {"text/plain"}}, "Revelation", true},
		{"a route the document does not have", "GET", "/api/v1/nothing", nil, "", true},
		{"an unknown member", "POST", "/api/v1/transcripts", json, `{"source_type":"paste","content":"x","extra":1}`, false},
		{"an unknown source type", "POST", "/api/v1/transcripts", json, `{"source_type":"ftp","url":"ftp://example.org/a"}`, false},
		{"a boolean of another type", "POST", "/api/v1/transcripts/" + trID + "/ai_pass", json, `{"apply":"yes"}`, false},
		{"a text body", "POST", "/api/v1/transcripts", http.Header{"Content-Type": {"text/plain"}}, `{"source_type":"paste","content":"x"}`, false},
		{"a limit out of range", "GET", "/api/v1/transcripts?limit=0", nil, "", false},
		{"a wait that is not a boolean", "POST", "/api/v1/transcripts?wait=maybe", json, `{"source_type":"paste","content":"x"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := api.CheckRequest(c.method, base+c.path, c.header, []byte(c.body))
			if (err == nil) != c.allowed {
				t.Fatalf("CheckRequest = %v, want allowed %t", err, c.allowed)
			}
			for _, status := range []int{200, 201, 202, 400, 404, 415, 500, 504} {
				err := api.CheckAgreement(c.method, base+c.path, c.header, []byte(c.body), status)
				if disagree := !c.allowed && (status < 400 || status >= 500); (err != nil) != disagree {
					t.Errorf("CheckAgreement with %d = %v, want a disagreement %t", status, err, disagree)
				}
			}
		})
	}
}
