package aipass

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"tcs.dev/tcs/internal/text/correction"
)

const testKey = "sk-test-secret-key"

// fakeLLM is a Chat Completions endpoint on loopback whose answers a test scripts.
type fakeLLM struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []*chatRequest
	// inFlight counts the requests being handled; maxInFlight is its highest value.
	inFlight, maxInFlight atomic.Int32
}

// chatRequest is a request the fake endpoint received.
type chatRequest struct {
	Header   http.Header `json:"-"`
	Model    string      `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string         `json:"name"`
			Strict bool           `json:"strict"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// format is the response format the request asked for; "none" when it asked for none.
func (r *chatRequest) format() string {
	if r.ResponseFormat == nil {
		return "none"
	}
	return r.ResponseFormat.Type
}

// user returns the first user message.
func (r *chatRequest) user() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

var listedID = regexp.MustCompile(`"id": *"([^"]+)"`)

// ids returns the IDs of the changes the request lists.
func (r *chatRequest) ids() []string {
	var ids []string
	for _, m := range listedID.FindAllStringSubmatch(r.user(), -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// excerpt returns the excerpt the request shows.
func (r *chatRequest) excerpt() string {
	u := r.user()
	i, j := strings.Index(u, "<<<\n"), strings.LastIndex(u, "\n>>>")
	if i < 0 || j < i {
		return ""
	}
	return u[i+4 : j]
}

// handler answers the n-th request (from 1) of the fake endpoint.
type handler func(w http.ResponseWriter, r *http.Request, n int, req *chatRequest)

func newFakeLLM(t *testing.T, h handler) *fakeLLM {
	t.Helper()
	f := &fakeLLM{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := f.inFlight.Add(1)
		defer f.inFlight.Add(-1)
		for m := f.maxInFlight.Load(); cur > m && !f.maxInFlight.CompareAndSwap(m, cur); m = f.maxInFlight.Load() {
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(r.Body)
		req := &chatRequest{Header: r.Header.Clone()}
		if err == nil {
			err = json.Unmarshal(body, req)
		}
		if err != nil {
			t.Errorf("request body: %v", err)
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		n := len(f.reqs)
		f.mu.Unlock()
		h(w, r, n, req)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) url() string { return f.srv.URL + "/v1" }

func (f *fakeLLM) requests() []*chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

type tokens struct{ prompt, completion int64 }

func (u tokens) json() map[string]any {
	return map[string]any{"prompt_tokens": u.prompt, "completion_tokens": u.completion, "total_tokens": u.prompt + u.completion}
}

// writeCompletion answers with a plain chat completion.
func writeCompletion(w http.ResponseWriter, content, finish string, u tokens) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": u.json(),
	})
}

// writeStream answers with a streamed chat completion in three content pieces, then, when
// u is not nil, a usage chunk.
func writeStream(w http.ResponseWriter, content string, u *tokens) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
			"usage":   nil,
		}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	r := []rune(content)
	for i := range 3 {
		send(chunk(map[string]any{"content": string(r[i*len(r)/3 : (i+1)*len(r)/3])}, nil))
	}
	send(chunk(map[string]any{}, "stop"))
	if u != nil {
		send(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
			"choices": []any{}, "usage": u.json(),
		})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// verdicts returns an answer with a verdict on each of ids.
func verdicts(v Verdict, ids ...string) string {
	list := []any{}
	for _, id := range ids {
		list = append(list, map[string]any{"id": id, "verdict": v, "reason": "the context says so"})
	}
	b, _ := json.Marshal(map[string]any{"verdicts": list, "proposals": []any{}})
	return string(b)
}

// confirmAll answers every request by confirming the changes it lists.
func confirmAll(w http.ResponseWriter, _ *http.Request, _ int, req *chatRequest) {
	writeCompletion(w, verdicts(Confirmed, req.ids()...), "stop", tokens{10, 5})
}

// change returns the change of the first occurrence of original in text.
func change(t *testing.T, text, id, original, replacement string) correction.Change {
	t.Helper()
	i := strings.Index(text, original)
	if i < 0 {
		t.Fatalf("%q is not in the text", original)
	}
	return correction.Change{
		ID: id, Category: correction.CategoryBible, Original: original, Replacement: replacement,
		Start: i, End: i + len(original), Line: 1 + strings.Count(text[:i], "\n"),
		Rule: "book.misspelling", Confidence: 0.9, Status: correction.StatusAutoApplied,
	}
}

func newProvider(t *testing.T, cfg OpenAIConfig) *OpenAI {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	p, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return p
}

func staticKey(key string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return key, nil }
}

const sermon = "Turn with me to Genisis chapter one. Jesus grew up in Nazereth, a small town. " +
	"Paul wrote to the Phillipians from prison. Then mark my words, brothers and sisters."

func sermonRequest(t *testing.T) Request {
	return Request{Text: sermon, Changes: []correction.Change{
		change(t, sermon, "chg_0001", "Genisis", "Genesis"),
		change(t, sermon, "chg_0002", "Phillipians", "Philippians"),
		change(t, sermon, "chg_0003", "mark", "Mark"),
	}}
}

// sermonAnswer confirms chg_0001, rejects chg_0003, says nothing on chg_0002, judges an
// unknown change and proposes one correction that is in the text and one that is not.
const sermonAnswer = `{"verdicts":[
 {"id":"chg_0001","verdict":"confirmed","reason":"Genesis is a book of the Bible."},
 {"id":"chg_0003","verdict":"rejected","reason":"Here mark is an ordinary verb."},
 {"id":"chg_9999","verdict":"confirmed","reason":"No such change."}],
 "proposals":[
 {"original":"Nazereth","replacement":"Nazareth","reason":"Misspelled town of Jesus."},
 {"original":"Bethlehemm","replacement":"Bethlehem","reason":"Not in the text."}]}`

// checkSermonReview checks the review of sermonRequest answered with sermonAnswer.
func checkSermonReview(t *testing.T, rev *Review) {
	t.Helper()
	want := []Judgement{
		{ChangeID: "chg_0001", Verdict: Confirmed, Reason: "Genesis is a book of the Bible."},
		{ChangeID: "chg_0002", Verdict: Uncertain, Reason: "the model gave no verdict"},
		{ChangeID: "chg_0003", Verdict: Rejected, Reason: "Here mark is an ordinary verb."},
	}
	if !slices.Equal(rev.Judgements, want) {
		t.Errorf("judgements\n got %+v\nwant %+v", rev.Judgements, want)
	}
	at := strings.Index(sermon, "Nazereth")
	wantP := []Proposal{{Start: at, End: at + len("Nazereth"), Original: "Nazereth", Replacement: "Nazareth", Reason: "Misspelled town of Jesus."}}
	if !slices.Equal(rev.Proposals, wantP) {
		t.Errorf("proposals\n got %+v\nwant %+v", rev.Proposals, wantP)
	}
}

func TestNewOpenAI(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  OpenAIConfig
		want string // in the error; "" means no error
	}{
		{"valid", OpenAIConfig{BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini"}, ""},
		{"no base URL", OpenAIConfig{Model: "m"}, "base URL is not set"},
		{"relative base URL", OpenAIConfig{BaseURL: "/v1", Model: "m"}, "base URL"},
		{"other scheme", OpenAIConfig{BaseURL: "ftp://host/v1", Model: "m"}, "not an absolute http or https URL"},
		{"no host", OpenAIConfig{BaseURL: "http:///v1", Model: "m"}, "not an absolute http or https URL"},
		{"no model", OpenAIConfig{BaseURL: "http://localhost:11434/v1", Model: " "}, "model is not set"},
		{"bad output", OpenAIConfig{BaseURL: "http://h/v1", Model: "m", Output: "yaml"}, `output mode "yaml"`},
		{"negative concurrency", OpenAIConfig{BaseURL: "http://h/v1", Model: "m", Concurrency: -1}, "concurrency is negative"},
		{"negative timeout", OpenAIConfig{BaseURL: "http://h/v1", Model: "m", RequestTimeout: -time.Second}, "request timeout is negative"},
		{"negative chunk", OpenAIConfig{BaseURL: "http://h/v1", Model: "m", ChunkBytes: -1}, "chunk size is negative"},
		{"password in URL", OpenAIConfig{BaseURL: "ftp://user:hunter2@h/v1", Model: "m"}, "ftp://h/v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewOpenAI(tc.cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("NewOpenAI: %v", err)
				}
				if p.Name() != "openai" || p.Model() != tc.cfg.Model {
					t.Errorf("Name, Model = %q, %q", p.Name(), p.Model())
				}
				if p.cfg.Concurrency != DefaultConcurrency || p.cfg.RequestTimeout != DefaultRequestTimeout ||
					p.cfg.MaxRetries != DefaultMaxRetries || p.cfg.ChunkBytes != DefaultChunkBytes ||
					p.cfg.ContextBytes != DefaultContextBytes || p.cfg.Output != OutputAuto {
					t.Errorf("defaults not applied: %+v", p.cfg)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q shows the URL's password", err)
			}
		})
	}
}

func TestOpenAIReview(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			f := newFakeLLM(t, func(w http.ResponseWriter, _ *http.Request, _ int, req *chatRequest) {
				if req.Stream {
					writeStream(w, sermonAnswer, &tokens{120, 30})
				} else {
					writeCompletion(w, sermonAnswer, "stop", tokens{120, 30})
				}
			})
			p := newProvider(t, OpenAIConfig{BaseURL: f.url(), Model: "my-model", APIKey: staticKey(testKey), Stream: stream})
			rev, err := p.Review(t.Context(), sermonRequest(t))
			if err != nil {
				t.Fatalf("Review: %v", err)
			}
			checkSermonReview(t, rev)
			if want := (Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150, Requests: 1}); rev.Usage != want {
				t.Errorf("usage %+v, want %+v", rev.Usage, want)
			}

			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("Authorization %q", got)
			}
			if r.Model != "my-model" {
				t.Errorf("model %q", r.Model)
			}
			if r.Stream != stream {
				t.Errorf("stream %v", r.Stream)
			}
			if stream && (r.StreamOptions == nil || !r.StreamOptions.IncludeUsage) {
				t.Errorf("stream_options %+v, want include_usage", r.StreamOptions)
			}
			if r.format() != "json_schema" || r.ResponseFormat.JSONSchema == nil || !r.ResponseFormat.JSONSchema.Strict {
				t.Fatalf("response_format %+v, want a strict json_schema", r.ResponseFormat)
			}
			schema := r.ResponseFormat.JSONSchema.Schema
			if req, _ := schema["required"].([]any); !slices.Contains(req, any("verdicts")) || !slices.Contains(req, any("proposals")) {
				t.Errorf("schema %v does not require verdicts and proposals", schema)
			}
			if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
				t.Fatalf("messages %+v, want system and user", r.Messages)
			}
			if !strings.Contains(r.Messages[0].Content, "Bible") {
				t.Errorf("system prompt %q does not explain the job", r.Messages[0].Content)
			}
			if r.excerpt() != sermon {
				t.Errorf("excerpt %q, want the whole text", r.excerpt())
			}
			if ids := r.ids(); !slices.Equal(ids, []string{"chg_0001", "chg_0002", "chg_0003"}) {
				t.Errorf("listed changes %v", ids)
			}
			if u := r.user(); !strings.Contains(u, "Then [[mark]] my words") || !strings.Contains(u, `"replacement":"Philippians"`) {
				t.Errorf("user message does not place and describe the changes:\n%s", u)
			}
		})
	}
}

func TestOpenAIStreamWithoutUsage(t *testing.T) {
	f := newFakeLLM(t, func(w http.ResponseWriter, _ *http.Request, _ int, req *chatRequest) {
		writeStream(w, verdicts(Confirmed, req.ids()...), nil)
	})
	p := newProvider(t, OpenAIConfig{BaseURL: f.url(), Stream: true})
	rev, err := p.Review(t.Context(), sermonRequest(t))
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	if want := (Usage{Requests: 1}); rev.Usage != want {
		t.Errorf("usage %+v, want %+v", rev.Usage, want)
	}
	for _, j := range rev.Judgements {
		if j.Verdict != Confirmed {
			t.Errorf("judgement %+v, want confirmed", j)
		}
	}
}

func TestOpenAINoKey(t *testing.T) {
	// The SDK's client reads these; the provider must not.
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	f := newFakeLLM(t, confirmAll)
	for _, key := range []func(context.Context) (string, error){nil, staticKey("")} {
		p := newProvider(t, OpenAIConfig{BaseURL: f.url(), APIKey: key})
		if _, err := p.Review(t.Context(), sermonRequest(t)); err != nil {
			t.Fatalf("Review: %v", err)
		}
	}
	for _, r := range f.requests() {
		if got := r.Header.Get("Authorization"); got != "" {
			t.Errorf("Authorization %q, want none", got)
		}
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestOpenAIKeyError(t *testing.T) {
	f := newFakeLLM(t, confirmAll)
	p := newProvider(t, OpenAIConfig{BaseURL: f.url(), APIKey: func(context.Context) (string, error) {
		return "", errors.New(`secret "ai" not found`)
	}})
	_, err := p.Review(t.Context(), sermonRequest(t))
	if err == nil || !strings.Contains(err.Error(), "cannot read the API key") || !strings.Contains(err.Error(), `secret "ai" not found`) {
		t.Fatalf("error %v, want one about the API key", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

func TestOpenAIRetry(t *testing.T) {
	f := newFakeLLM(t, func(w http.ResponseWriter, r *http.Request, n int, req *chatRequest) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		confirmAll(w, r, n, req)
	})
	p := newProvider(t, OpenAIConfig{BaseURL: f.url(), APIKey: staticKey(testKey)})
	rev, err := p.Review(t.Context(), sermonRequest(t))
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if want := (Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, Requests: 1}); rev.Usage != want {
		t.Errorf("usage %+v, want %+v", rev.Usage, want)
	}
	if rev.Judgements[0].Verdict != Confirmed {
		t.Errorf("judgement %+v, want confirmed", rev.Judgements[0])
	}
}

func TestOpenAIHTTPErrors(t *testing.T) {
	errorBody := func(status int, retryAfter, body string) handler {
		return func(w http.ResponseWriter, _ *http.Request, _ int, _ *chatRequest) {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	for _, tc := range []struct {
		name      string
		h         handler
		cfg       OpenAIConfig
		want      []string // in the error
		public    string   // the error's public message
		wantCalls int
	}{{
		name:      "500 every time",
		h:         errorBody(500, "0", `{"error":{"message":"The GPU is on fire; key `+testKey+` is fine"}}`),
		cfg:       OpenAIConfig{MaxRetries: 2},
		want:      []string{"answered 500 Internal Server Error after 3 attempts", "The GPU is on fire", "[redacted]"},
		public:    "the AI provider answered 500 Internal Server Error after 3 attempts",
		wantCalls: 3,
	}, {
		name:      "503 with backoff",
		h:         errorBody(503, "", `upstream unavailable`),
		cfg:       OpenAIConfig{MaxRetries: 1},
		want:      []string{"answered 503 Service Unavailable after 2 attempts: upstream unavailable"},
		public:    "the AI provider answered 503 Service Unavailable after 2 attempts",
		wantCalls: 2,
	}, {
		name:      "401",
		h:         errorBody(401, "", `{"error":{"message":"Incorrect API key provided: `+testKey+`","code":"invalid_api_key"}}`),
		want:      []string{"rejected the API key (401)"},
		public:    "the AI provider rejected the API key (401)",
		wantCalls: 1,
	}, {
		name:      "404",
		h:         errorBody(404, "", `{"detail":"Not Found"}`),
		want:      []string{"answered 404 Not Found: Not Found", "/v1", `"test-model"`},
		public:    "the AI provider answered 404 Not Found",
		wantCalls: 1,
	}, {
		name:      "400 with a forced format",
		h:         errorBody(400, "", `{"object":"error","message":"response_format json_schema is not supported","code":400}`),
		cfg:       OpenAIConfig{Output: OutputJSONSchema},
		want:      []string{"answered 400 Bad Request: response_format json_schema is not supported"},
		wantCalls: 1,
	}, {
		name: "not a completion",
		h: func(w http.ResponseWriter, _ *http.Request, _ int, _ *chatRequest) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>login</html>")
		},
		want:      []string{"not a Chat Completions response: it answered with text/html (check the base URL)"},
		public:    "the AI provider's answer is not a Chat Completions response",
		wantCalls: 1,
	}, {
		name: "broken completion",
		h: func(w http.ResponseWriter, _ *http.Request, _ int, _ *chatRequest) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"x","choices":[{"message":`)
		},
		want:      []string{"the AI provider's answer is not a Chat Completions response: "},
		public:    "the AI provider's answer is not a Chat Completions response",
		wantCalls: 1,
	}, {
		name:      "no stream",
		h:         confirmAll,
		cfg:       OpenAIConfig{Stream: true},
		want:      []string{"answered without a stream: it answered with application/json (turn streaming off"},
		public:    "the AI provider answered without a stream",
		wantCalls: 1,
	}, {
		name: "no choices",
		h: func(w http.ResponseWriter, _ *http.Request, _ int, _ *chatRequest) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`)
		},
		want:      []string{"answered without a choice"},
		wantCalls: 1,
	}, {
		name: "cut off",
		h: func(w http.ResponseWriter, _ *http.Request, _ int, _ *chatRequest) {
			writeCompletion(w, `{"verdicts":[{"id":"chg_0001","verd`, "length", tokens{10, 4096})
		},
		want:      []string{"the model's answer was cut off at the token limit"},
		wantCalls: 1,
	}, {
		name: "error in the stream",
		h: func(w http.ResponseWriter, _ *http.Request, _ int, _ *chatRequest) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"error\":{\"message\":\"model crashed\"}}\n\n")
		},
		cfg:       OpenAIConfig{Stream: true},
		want:      []string{"reported an error in its answer", "model crashed"},
		public:    "the AI provider reported an error in its answer",
		wantCalls: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeLLM(t, tc.h)
			cfg := tc.cfg
			cfg.BaseURL, cfg.APIKey = f.url(), staticKey(testKey)
			if cfg.MaxRetries == 0 {
				cfg.MaxRetries = -1
			}
			p := newProvider(t, cfg)
			_, err := p.Review(t.Context(), sermonRequest(t))
			if err == nil {
				t.Fatal("Review succeeded")
			}
			t.Log(err)
			want := tc.want
			if tc.public != "" {
				want = append(want, "(provider "+f.url()+")")
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			// API clients see neither where the provider is nor what it said.
			public := PublicMessage(err)
			if tc.public != "" && public != tc.public {
				t.Errorf("public message %q, want %q", public, tc.public)
			}
			if u, _ := url.Parse(f.url()); strings.Contains(public, u.Host) {
				t.Errorf("public message %q names the provider's address", public)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q shows the API key", err)
			}
			if n := len(f.requests()); n != tc.wantCalls {
				t.Errorf("%d requests, want %d", n, tc.wantCalls)
			}
		})
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close()
	p := newProvider(t, OpenAIConfig{BaseURL: base, MaxRetries: -1})
	_, err := p.Review(t.Context(), sermonRequest(t))
	if err == nil || !strings.Contains(err.Error(), "the AI provider cannot be reached: ") || !strings.Contains(err.Error(), "(provider "+base+")") {
		t.Fatalf("error %v, want one saying %s cannot be reached", err, base)
	}
	if public := PublicMessage(err); public != "the AI provider cannot be reached" {
		t.Errorf("public message %q", public)
	}
}

func TestOpenAIFormatFallback(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rejected []string // formats the server rejects
		status   int
		want     []string // formats of the first review's requests
	}{
		{"no json_schema", []string{"json_schema"}, 400, []string{"json_schema", "json_object"}},
		{"no response_format", []string{"json_schema", "json_object"}, 400, []string{"json_schema", "json_object", "none"}},
		{"422", []string{"json_schema"}, 422, []string{"json_schema", "json_object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeLLM(t, func(w http.ResponseWriter, _ *http.Request, _ int, req *chatRequest) {
				if slices.Contains(tc.rejected, req.format()) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.status)
					fmt.Fprintf(w, `{"error":{"message":"response_format %s is unsupported"}}`, req.format())
					return
				}
				// Without a response format, the model wraps its JSON in prose and a fence.
				writeCompletion(w, "Here is my review:\n```json\n"+verdicts(Rejected, req.ids()...)+"\n```\nHope it helps.", "stop", tokens{10, 5})
			})
			p := newProvider(t, OpenAIConfig{BaseURL: f.url(), MaxRetries: -1})
			for review := range 2 {
				before := len(f.requests())
				rev, err := p.Review(t.Context(), sermonRequest(t))
				if err != nil {
					t.Fatalf("review %d: %v", review+1, err)
				}
				var got []string
				for _, r := range f.requests()[before:] {
					got = append(got, r.format())
				}
				want := tc.want
				if review > 0 {
					want = tc.want[len(tc.want)-1:] // straight to the format that worked
				}
				if !slices.Equal(got, want) {
					t.Errorf("review %d: formats %v, want %v", review+1, got, want)
				}
				for _, j := range rev.Judgements {
					if j.Verdict != Rejected {
						t.Errorf("review %d: judgement %+v, want rejected", review+1, j)
					}
				}
				if rev.Usage.Requests != 1 {
					t.Errorf("review %d: %d requests counted, want the successful one", review+1, rev.Usage.Requests)
				}
			}
		})
	}
}

func TestOpenAIMalformedAnswer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []string // by request; the last repeats
		want    string   // in the error; "" means success
	}{
		{"prose", []string{"I think they are all fine."}, "the model's answer is not valid review JSON: it holds no JSON object"},
		{"broken JSON", []string{`{"verdicts":[{"id":"chg_0001",}]}`}, "the model's answer is not valid review JSON: it is not JSON"},
		{"bad verdict", []string{`{"verdicts":[{"id":"chg_0001","verdict":"maybe","reason":"?"}],"proposals":[]}`}, `the verdict "maybe" on "chg_0001" is none of`},
		{"wrong shape", []string{`{"verdicts":"all good","proposals":[]}`}, `"verdicts" is a JSON string, which is the wrong type`},
		{"no verdicts", []string{`{"proposals":[]}`}, `it has no "verdicts" list`},
		{"empty", []string{""}, "it is empty"},
		{"fixed on the second try", []string{"Sure!", verdicts(Confirmed, "chg_0001", "chg_0002", "chg_0003")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeLLM(t, func(w http.ResponseWriter, _ *http.Request, n int, _ *chatRequest) {
				writeCompletion(w, tc.answers[min(n, len(tc.answers))-1], "stop", tokens{100, 20})
			})
			p := newProvider(t, OpenAIConfig{BaseURL: f.url()})
			rev, err := p.Review(t.Context(), sermonRequest(t))
			reqs := f.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2 (the question and once more)", len(reqs))
			}
			again := reqs[1].Messages
			if tc.answers[0] == "" {
				if len(again) != 3 || again[2].Role != "user" || !strings.Contains(again[2].Content, "it is empty") {
					t.Errorf("second request's messages %+v, want why the empty answer is not valid", again)
				}
			} else if len(again) != 4 || again[2].Role != "assistant" || again[2].Content != tc.answers[0] ||
				again[3].Role != "user" || !strings.Contains(again[3].Content, "not valid") {
				t.Errorf("second request's messages %+v, want the first answer and why it is not valid", again)
			}
			// Both calls are counted, whether the review succeeds or not.
			want := Usage{PromptTokens: 200, CompletionTokens: 40, TotalTokens: 240, Requests: 2}
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
				if got := UsageOf(err); got != want {
					t.Fatalf("usage of the failed review %+v, want %+v", got, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Review: %v", err)
			}
			if rev.Usage != want {
				t.Errorf("usage %+v, want %+v", rev.Usage, want)
			}
			for _, j := range rev.Judgements {
				if j.Verdict != Confirmed {
					t.Errorf("judgement %+v, want confirmed", j)
				}
			}
		})
	}
}

func TestOpenAITimeout(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			f := newFakeLLM(t, func(w http.ResponseWriter, r *http.Request, _ int, _ *chatRequest) {
				if stream {
					// Start the answer, then stall.
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprint(w, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"{\"verd"}}]}`+"\n\n")
					w.(http.Flusher).Flush()
				}
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			})
			p := newProvider(t, OpenAIConfig{BaseURL: f.url(), RequestTimeout: 200 * time.Millisecond, MaxRetries: 1, Stream: stream})
			start := time.Now()
			_, err := p.Review(t.Context(), sermonRequest(t))
			if err == nil || !strings.Contains(err.Error(), "the AI provider did not answer within 200ms (provider "+f.url()+")") {
				t.Fatalf("error %v, want a timeout", err)
			}
			if public := PublicMessage(err); public != "the AI provider did not answer within 200ms" {
				t.Errorf("public message %q", public)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Review took %s", d)
			}
		})
	}
}

func TestOpenAICancel(t *testing.T) {
	f := newFakeLLM(t, func(w http.ResponseWriter, r *http.Request, _ int, _ *chatRequest) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	p := newProvider(t, OpenAIConfig{BaseURL: f.url()})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Review(ctx, sermonRequest(t))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped before it finished") {
		t.Fatalf("error %v, want a cancellation", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Review took %s after the cancellation", d)
	}
}

// longSermon returns a text of n paragraphs, each with one misspelled book, and its changes.
func longSermon(t *testing.T, n int) Request {
	var b strings.Builder
	var changes []correction.Change
	for i := range n {
		fmt.Fprintf(&b, "Paragraph %d. We sang a hymn about grace — “amazing grace” — and prayed for the café on Main Street. ", i)
		b.WriteString("The children drew pictures of Noah’s ark and the whole congregation laughed with joy. ")
		at := b.Len() + len("Brother Tom read from ")
		fmt.Fprintf(&b, "Brother Tom read from Genisis in the evening service. ")
		b.WriteString("Afterwards there was coffee, cake and a long conversation about the weather.\n")
		changes = append(changes, correction.Change{
			ID: fmt.Sprintf("chg_%04d", i+1), Category: correction.CategoryBible, Original: "Genisis",
			Replacement: "Genesis", Start: at, End: at + len("Genisis"), Rule: "book.misspelling",
			Status: correction.StatusNeedsReview,
		})
	}
	req := Request{Text: b.String(), Changes: changes}
	for _, c := range changes {
		if req.Text[c.Start:c.End] != c.Original {
			t.Fatalf("bad test change %+v", c)
		}
	}
	return req
}

func TestOpenAIChunks(t *testing.T) {
	req := longSermon(t, 60)
	const chunkBytes, limit = 1500, 3
	f := newFakeLLM(t, func(w http.ResponseWriter, r *http.Request, n int, cr *chatRequest) {
		time.Sleep(20 * time.Millisecond)
		confirmAll(w, r, n, cr)
	})
	p := newProvider(t, OpenAIConfig{BaseURL: f.url(), Concurrency: limit, ChunkBytes: chunkBytes, ContextBytes: 60})
	rev, err := p.Review(t.Context(), req)
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	reqs := f.requests()
	if len(reqs) < 4 {
		t.Fatalf("%d requests for a %d-byte text, want several chunks", len(reqs), len(req.Text))
	}
	if m := f.maxInFlight.Load(); m > limit || m < 2 {
		t.Errorf("at most %d requests in flight, want 2..%d", m, limit)
	}
	seen := map[string]int{}
	for _, r := range reqs {
		ex := r.excerpt()
		if !utf8.ValidString(ex) {
			t.Errorf("excerpt is not valid UTF-8: %q", ex)
		}
		if n := len(strings.ReplaceAll(ex, passageSep, "")); n > chunkBytes {
			t.Errorf("excerpt of %d bytes, want at most %d", n, chunkBytes)
		}
		for _, id := range r.ids() {
			seen[id]++
		}
		if strings.Contains(ex, passageSep) && !strings.Contains(r.user(), `"passage":2`) {
			t.Errorf("changes of an excerpt in passages do not say their passage:\n%s", r.user())
		}
	}
	for _, c := range req.Changes {
		if seen[c.ID] != 1 {
			t.Errorf("%s listed in %d requests, want 1", c.ID, seen[c.ID])
		}
	}
	for _, j := range rev.Judgements {
		if j.Verdict != Confirmed {
			t.Errorf("judgement %+v, want confirmed", j)
		}
	}
	if rev.Usage.Requests != len(reqs) || rev.Usage.TotalTokens != int64(15*len(reqs)) {
		t.Errorf("usage %+v for %d requests", rev.Usage, len(reqs))
	}
}

func TestOpenAIChunkError(t *testing.T) {
	req := longSermon(t, 3)
	f := newFakeLLM(t, func(w http.ResponseWriter, r *http.Request, n int, cr *chatRequest) {
		if slices.Contains(cr.ids(), "chg_0002") {
			writeCompletion(w, "no idea", "stop", tokens{1, 1})
			return
		}
		confirmAll(w, r, n, cr)
	})
	p := newProvider(t, OpenAIConfig{BaseURL: f.url(), Concurrency: 1, ChunkBytes: 200, ContextBytes: 50})
	_, err := p.Review(t.Context(), req)
	if want := "the model's answer to chunk 2 of 3 is not valid review JSON: it holds no JSON object"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func TestOpenAIEmptyText(t *testing.T) {
	f := newFakeLLM(t, confirmAll)
	p := newProvider(t, OpenAIConfig{BaseURL: f.url()})
	rev, err := p.Review(t.Context(), Request{})
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	if len(rev.Judgements) != 0 || len(rev.Proposals) != 0 || rev.Usage != (Usage{}) {
		t.Errorf("review %+v, want an empty one", rev)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

func TestOpenAIProposalsOnly(t *testing.T) {
	text := "We read Genesis and then Exodos, and Exodos again."
	f := newFakeLLM(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ *chatRequest) {
		writeCompletion(w, `{"verdicts":[],"proposals":[
			{"original":"Exodos","replacement":"Exodus","reason":"a book"},
			{"original":"Exodos","replacement":"Exodus","reason":"the same book again"},
			{"original":"Genesis","replacement":"Genesis","reason":"no change"}]}`, "stop", tokens{10, 5})
	})
	p := newProvider(t, OpenAIConfig{BaseURL: f.url()})
	rev, err := p.Review(t.Context(), Request{Text: text})
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	reqs := f.requests()
	if len(reqs) != 1 || reqs[0].excerpt() != text || !strings.Contains(reqs[0].user(), "No changes to judge") {
		t.Fatalf("requests %+v, want one showing the whole text without changes", reqs)
	}
	first := strings.Index(text, "Exodos")
	second := strings.LastIndex(text, "Exodos")
	want := []Proposal{
		{Start: first, End: first + 6, Original: "Exodos", Replacement: "Exodus", Reason: "a book"},
		{Start: second, End: second + 6, Original: "Exodos", Replacement: "Exodus", Reason: "the same book again"},
	}
	if !slices.Equal(rev.Proposals, want) {
		t.Errorf("proposals\n got %+v\nwant %+v", rev.Proposals, want)
	}
}
