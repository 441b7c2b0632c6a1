package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// reply is one scripted answer of the test server.
type reply struct {
	status     int
	retryAfter string
	body       string
	hangUp     bool // close the connection without an answer
}

func errBody(typ string) string {
	return fmt.Sprintf(`{"error":{"type":%q,"message":"scripted %s","request_id":"req_scripted"}}`, typ, typ)
}

// scripted is a loopback server answering with replies in turn (the last one repeats) and
// recording each request's method and Idempotency-Key.
type scripted struct {
	mu      sync.Mutex
	replies []reply
	methods []string
	keys    []string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.keys)
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.methods = append(s.methods, r.Method)
	rep := s.replies[min(n, len(s.replies)-1)]
	s.mu.Unlock()
	if rep.hangUp {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
		return
	}
	w.Header().Set("X-Request-Id", "req_header")
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = w.Write([]byte(rep.body))
}

// testClient returns a client of srv whose waits are recorded instead of slept.
func testClient(t *testing.T, srv *httptest.Server, opts ...Option) (*Client, *[]time.Duration) {
	t.Helper()
	c, err := New(srv.URL, "sk_test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return c, &waits
}

const okMe = `{"object":"api_key","api_key_id":"key_1","organization_id":"org_1","label":"l"}`
const okTranscript = `{"id":"tr_1","object":"transcript","status":"completed","ai_pass_status":"idle"}`

func TestRetryRules(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name      string
		replies   []reply
		post      bool
		policy    RetryPolicy
		wantCalls int
		wantWaits []time.Duration
		wantErr   string // error type, "" for success
		wantCode  int
		// wantTranscript is the TranscriptID the error carries.
		wantTranscript string
	}{
		{name: "success at once", replies: []reply{{status: 200, body: okMe}}, wantCalls: 1},
		{name: "429 waits its Retry-After", replies: []reply{{status: 429, retryAfter: "3", body: errBody("rate_limited")}, {status: 200, body: okMe}},
			wantCalls: 2, wantWaits: []time.Duration{3 * time.Second}},
		{name: "429 without Retry-After backs off", replies: []reply{{status: 429, body: errBody("rate_limited")}, {status: 200, body: okMe}},
			wantCalls: 2, wantWaits: []time.Duration{500 * ms}},
		{name: "429 Retry-After shorter than the backoff waits the backoff",
			replies:   []reply{{status: 500, body: errBody("server_error")}, {status: 500, body: errBody("server_error")}, {status: 429, retryAfter: "1", body: errBody("rate_limited")}, {status: 200, body: okMe}},
			wantCalls: 4, wantWaits: []time.Duration{500 * ms, time.Second, 2 * time.Second}},
		{name: "500 backs off exponentially", replies: []reply{{status: 500, body: errBody("server_error")}, {status: 500, body: errBody("server_error")}, {status: 200, body: okMe}},
			wantCalls: 3, wantWaits: []time.Duration{500 * ms, time.Second}},
		{name: "504 of a gateway is retried", replies: []reply{{status: 504, body: "upstream timed out"}, {status: 200, body: okMe}},
			wantCalls: 2, wantWaits: []time.Duration{500 * ms}},
		{name: "a hang-up is retried", replies: []reply{{hangUp: true}, {status: 200, body: okMe}},
			wantCalls: 2, wantWaits: []time.Duration{500 * ms}},
		{name: "500 gives up after MaxAttempts", replies: []reply{{status: 500, body: errBody("server_error")}},
			wantCalls: 5, wantWaits: []time.Duration{500 * ms, time.Second, 2 * time.Second, 4 * time.Second}, wantErr: "server_error", wantCode: 500},
		{name: "backoff is capped, a longer Retry-After is not",
			policy:    RetryPolicy{MaxAttempts: 4, InitialBackoff: 10 * time.Second, MaxBackoff: 15 * time.Second},
			replies:   []reply{{status: 500, body: errBody("server_error")}, {status: 500, body: errBody("server_error")}, {status: 429, retryAfter: "60", body: errBody("rate_limited")}, {status: 200, body: okMe}},
			wantCalls: 4, wantWaits: []time.Duration{10 * time.Second, 15 * time.Second, 60 * time.Second}},
		{name: "MaxAttempts 1 disables retries", policy: RetryPolicy{MaxAttempts: 1}, replies: []reply{{status: 429, retryAfter: "1", body: errBody("rate_limited")}},
			wantCalls: 1, wantErr: "rate_limited", wantCode: 429},
		{name: "400 is not retried", replies: []reply{{status: 400, body: errBody("invalid_request")}}, wantCalls: 1, wantErr: "invalid_request", wantCode: 400},
		{name: "401 is not retried", replies: []reply{{status: 401, body: errBody("unauthorized")}}, wantCalls: 1, wantErr: "unauthorized", wantCode: 401},
		{name: "403 is not retried", replies: []reply{{status: 403, body: errBody("forbidden")}}, wantCalls: 1, wantErr: "forbidden", wantCode: 403},
		{name: "404 is not retried", replies: []reply{{status: 404, body: errBody("not_found")}}, wantCalls: 1, wantErr: "not_found", wantCode: 404},
		{name: "409 is not retried", replies: []reply{{status: 409, body: errBody("conflict")}}, wantCalls: 1, wantErr: "conflict", wantCode: 409},
		{name: "413 is not retried", replies: []reply{{status: 413, body: errBody("invalid_request")}}, wantCalls: 1, wantErr: "invalid_request", wantCode: 413},
		{name: "422 is not retried", replies: []reply{{status: 422, body: errBody("unprocessable")}}, wantCalls: 1, wantErr: "unprocessable", wantCode: 422},
		{name: "POST 500 is retried with the same key", post: true, replies: []reply{{status: 500, body: errBody("server_error")}, {status: 201, body: okTranscript}},
			wantCalls: 2, wantWaits: []time.Duration{500 * ms}},
		{name: "POST 504 ending a synchronous wait is retried with the same key", post: true,
			replies:   []reply{{status: 504, body: `{"id":"tr_1","error":{"type":"timeout","message":"m","request_id":"req_1"},"transcript":` + okTranscript + `}`}, {status: 200, body: okTranscript}},
			wantCalls: 2, wantWaits: []time.Duration{500 * ms}},
		{name: "the last 504 of a synchronous wait names the transcript", post: true, policy: RetryPolicy{MaxAttempts: 2},
			replies:   []reply{{status: 504, body: `{"id":"tr_1","error":{"type":"timeout","message":"m","request_id":"req_1"},"transcript":` + okTranscript + `}`}},
			wantCalls: 2, wantWaits: []time.Duration{500 * ms}, wantErr: "timeout", wantCode: 504, wantTranscript: "tr_1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{replies: tc.replies}
			srv := httptest.NewServer(s)
			defer srv.Close()
			var opts []Option
			if tc.policy != (RetryPolicy{}) {
				opts = append(opts, WithRetryPolicy(tc.policy))
			}
			c, waits := testClient(t, srv, opts...)
			var err error
			if tc.post {
				_, err = c.CreatePaste(context.Background(), PasteRequest{Content: "x"})
			} else {
				_, err = c.Me(context.Background())
			}
			if len(s.keys) != tc.wantCalls {
				t.Errorf("%d requests, want %d", len(s.keys), tc.wantCalls)
			}
			if !slices.Equal(*waits, tc.wantWaits) {
				t.Errorf("waits %v, want %v", *waits, tc.wantWaits)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
			} else {
				var apiErr *Error
				if !errors.As(err, &apiErr) {
					t.Fatalf("error %v (%T), want *Error", err, err)
				}
				if apiErr.Type != tc.wantErr || apiErr.StatusCode != tc.wantCode || apiErr.TranscriptID != tc.wantTranscript {
					t.Errorf("error %s %d %q, want %s %d %q", apiErr.Type, apiErr.StatusCode, apiErr.TranscriptID, tc.wantErr, tc.wantCode, tc.wantTranscript)
				}
			}
			for i, k := range s.keys {
				switch {
				case !tc.post && k != "":
					t.Errorf("GET request %d sent Idempotency-Key %q", i, k)
				case tc.post && (k == "" || k != s.keys[0]):
					t.Errorf("POST attempt %d sent Idempotency-Key %q, the first sent %q", i, k, s.keys[0])
				}
			}
		})
	}
}

// Each call has its own generated key; IdempotencyKey sets one.
func TestIdempotencyKeys(t *testing.T) {
	s := &scripted{replies: []reply{{status: 201, body: okTranscript}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, _ := testClient(t, srv)
	ctx := context.Background()
	for range 2 {
		if _, err := c.CreatePaste(ctx, PasteRequest{Content: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.TriggerAIPass(ctx, "tr_1", AIPassRequest{}, IdempotencyKey("mine-1")); err != nil {
		t.Fatal(err)
	}
	if s.keys[0] == s.keys[1] || len(s.keys[0]) < 20 {
		t.Errorf("generated keys %q and %q are not distinct random keys", s.keys[0], s.keys[1])
	}
	if s.keys[2] != "mine-1" {
		t.Errorf("key %q, want mine-1", s.keys[2])
	}
}

func TestErrorFields(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_abc")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"type":"invalid_request","message":"source_type must be one of …","param":"source_type","request_id":"req_abc"}}`))
	}))
	defer srv.Close()
	c, _ := testClient(t, srv)
	_, err := c.CreateURL(context.Background(), URLRequest{URL: "https://example.org/a.txt", SourceFormat: "txt"})
	want := &Error{StatusCode: 400, Type: ErrInvalidRequest, Message: "source_type must be one of …", Param: "source_type", RequestID: "req_abc"}
	var got *Error
	if !errors.As(err, &got) || *got != *want {
		t.Fatalf("error %#v, want %#v", err, want)
	}
	if !IsType(err, ErrInvalidRequest) || IsType(err, ErrNotFound) {
		t.Error("IsType disagrees with the error's type")
	}
	if s := err.Error(); s != "tcs: 400 invalid_request (param source_type): source_type must be one of … [req_abc]" {
		t.Errorf("Error() = %q", s)
	}
}

// A cancelled context ends the wait between attempts at once.
func TestRetryStopsWithContext(t *testing.T) {
	s := &scripted{replies: []reply{{status: 500, body: errBody("server_error")}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, err := New(srv.URL, "sk_test", WithRetryPolicy(RetryPolicy{InitialBackoff: time.Hour}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Me(ctx)
	if !IsType(err, ErrServer) || time.Since(start) > 30*time.Second || len(s.keys) != 1 {
		t.Fatalf("err %v after %v and %d requests; want the server_error after one request, at the deadline", err, time.Since(start), len(s.keys))
	}
}

// The iterator follows has_more with starting_after and stops when the caller breaks.
func TestPages(t *testing.T) {
	var afters []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after := r.URL.Query().Get("starting_after")
		afters = append(afters, after)
		start := 0
		if after != "" {
			start, _ = strconv.Atoi(after[len("tr_"):])
		}
		fmt.Fprintf(w, `{"object":"list","url":"/api/v1/transcripts","has_more":%t,"data":[{"id":"tr_%d"},{"id":"tr_%d"}]}`, start+2 < 6, start+1, start+2)
	}))
	defer srv.Close()
	c, _ := testClient(t, srv)
	var ids []string
	for tr, err := range c.Transcripts(context.Background(), TranscriptFilter{Status: StatusCompleted}, 2) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	if want := []string{"tr_1", "tr_2", "tr_3", "tr_4", "tr_5", "tr_6"}; !slices.Equal(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if want := []string{"", "tr_2", "tr_4"}; !slices.Equal(afters, want) {
		t.Errorf("starting_after %v, want %v", afters, want)
	}
	afters, ids = nil, nil
	for tr := range c.Transcripts(context.Background(), TranscriptFilter{}, 2) {
		ids = append(ids, tr.ID)
		if len(ids) == 3 {
			break
		}
	}
	if len(afters) != 2 || len(ids) != 3 {
		t.Errorf("breaking after 3 items fetched %d pages and saw %v", len(afters), ids)
	}
}

// WaitForTranscript polls with a doubling interval, longer when Retry-After asks for it.
func TestWaitForTranscriptPolls(t *testing.T) {
	s := &scripted{replies: []reply{
		{status: 200, retryAfter: "1", body: `{"id":"tr_1","status":"pending","ai_pass_status":"idle"}`},
		{status: 200, retryAfter: "5", body: `{"id":"tr_1","status":"pending","ai_pass_status":"idle"}`},
		{status: 200, body: `{"id":"tr_1","status":"completed","ai_pass_status":"queued"}`},
		{status: 200, body: `{"id":"tr_1","status":"completed","ai_pass_status":"running"}`},
		{status: 200, body: `{"id":"tr_1","status":"completed","ai_pass_status":"completed"}`},
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, waits := testClient(t, srv)
	tr, err := c.WaitForTranscript(context.Background(), "tr_1")
	if err != nil || tr.AIPassStatus != AIPassCompleted {
		t.Fatalf("got %+v, %v", tr, err)
	}
	if want := []time.Duration{time.Second, 5 * time.Second, 4 * time.Second, 8 * time.Second}; !slices.Equal(*waits, want) {
		t.Errorf("waits %v, want %v", *waits, want)
	}
}
