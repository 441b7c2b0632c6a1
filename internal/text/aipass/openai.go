package aipass

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"golang.org/x/sync/errgroup"
)

// OutputMode is how the OpenAI provider asks the model for its JSON answer.
type OutputMode string

// The output modes.
const (
	// OutputAuto asks for OutputJSONSchema and falls back to OutputJSONObject, then to
	// OutputText, when the server rejects the response format; the provider keeps the first
	// mode that works.
	OutputAuto OutputMode = "auto"
	// OutputJSONSchema sends the answer's JSON schema as a strict response_format.
	OutputJSONSchema OutputMode = "json_schema"
	// OutputJSONObject sends response_format json_object.
	OutputJSONObject OutputMode = "json_object"
	// OutputText sends no response_format; only the prompt asks for JSON.
	OutputText OutputMode = "text"
)

// The defaults of OpenAIConfig.
const (
	DefaultConcurrency    = 4
	DefaultRequestTimeout = 2 * time.Minute
	DefaultMaxRetries     = 3
	DefaultChunkBytes     = 6000
	DefaultContextBytes   = 400
)

// OpenAIConfig configures an OpenAI provider. Zero values mean the defaults.
type OpenAIConfig struct {
	// BaseURL is the endpoint's absolute http or https URL, without the
	// "/chat/completions" path: "https://api.openai.com/v1", "http://ollama:11434/v1".
	BaseURL string
	// Model is the model to ask.
	Model string
	// APIKey returns the API key; it is called once per review. A nil func or an empty key
	// sends no key. The OPENAI_* environment variables are never read.
	APIKey func(ctx context.Context) (string, error)
	// RootCAs are the certificate authorities HTTPS to the endpoint trusts; nil means the
	// system's.
	RootCAs *x509.CertPool
	// Concurrency is the most requests one review has in flight; default 4.
	Concurrency int
	// RequestTimeout bounds each attempt of a request, the whole streamed answer included;
	// default 2m.
	RequestTimeout time.Duration
	// MaxRetries is how often a request is retried after a connection error, a 408, 409,
	// 429 or 5xx answer, with exponential backoff that honours Retry-After; 0 means the
	// default 3 and a negative value no retries. An attempt that times out is not retried.
	MaxRetries int
	// Stream asks for a streamed answer, with its token usage in the last chunk.
	Stream bool
	// Output is how the model is asked for JSON; default OutputAuto.
	Output OutputMode
	// ChunkBytes is the most text one request shows the model; default 6000. A longer
	// document is reviewed in excerpts around its changes.
	ChunkBytes int
	// ContextBytes is how much text around a change an excerpt shows on either side, before
	// it is widened to a sentence or word boundary; default 400.
	ContextBytes int
}

// OpenAI is the provider that asks an OpenAI-compatible Chat Completions endpoint (OpenAI,
// vLLM, Ollama, the llama.cpp server, ...) to review the changes.
type OpenAI struct {
	cfg   OpenAIConfig
	where string // the base URL without credentials, for messages
	chat  openai.ChatCompletionService
	// format is the response format in use. In OutputAuto it only moves towards
	// formatText, when a server rejected a format and a later one worked.
	format atomic.Int32
}

// format is a response format, from the most to the least structured.
type format int32

const (
	formatJSONSchema format = iota
	formatJSONObject
	formatText
)

// NewOpenAI returns an OpenAI provider for cfg, or an error naming the setting that is wrong.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	cfg.BaseURL = strings.TrimSpace(cfg.BaseURL)
	cfg.Model = strings.TrimSpace(cfg.Model)
	if cfg.BaseURL == "" {
		return nil, errors.New("openai provider: the base URL is not set")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, errors.New("openai provider: the base URL is not a URL")
	}
	where := redactURL(u)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai provider: the base URL %q is not an absolute http or https URL", where)
	}
	if cfg.Model == "" {
		return nil, errors.New("openai provider: the model is not set")
	}
	var f format
	switch cfg.Output {
	case "", OutputAuto:
		cfg.Output, f = OutputAuto, formatJSONSchema
	case OutputJSONSchema:
		f = formatJSONSchema
	case OutputJSONObject:
		f = formatJSONObject
	case OutputText:
		f = formatText
	default:
		return nil, fmt.Errorf("openai provider: the output mode %q is none of auto, json_schema, json_object and text", cfg.Output)
	}
	for _, s := range []struct {
		name  string
		value int64
	}{
		{"concurrency", int64(cfg.Concurrency)},
		{"request timeout", int64(cfg.RequestTimeout)},
		{"chunk size", int64(cfg.ChunkBytes)},
		{"context size", int64(cfg.ContextBytes)},
	} {
		if s.value < 0 {
			return nil, fmt.Errorf("openai provider: the %s is negative", s.name)
		}
	}
	cfg.Concurrency = cmp.Or(cfg.Concurrency, DefaultConcurrency)
	cfg.RequestTimeout = cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout)
	cfg.ChunkBytes = cmp.Or(cfg.ChunkBytes, DefaultChunkBytes)
	cfg.ContextBytes = cmp.Or(cfg.ContextBytes, DefaultContextBytes)
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}

	p := &OpenAI{cfg: cfg, where: where}
	p.format.Store(int32(f))
	// The service is built without openai.NewClient, which would read OPENAI_API_KEY,
	// OPENAI_BASE_URL and other variables from the environment.
	p.chat = openai.NewChatCompletionService(
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(newHTTPClient(cfg.Concurrency, cfg.RootCAs)),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithRequestTimeout(cfg.RequestTimeout),
		// The wait before a retry counts against the attempt's timeout: a server that asks
		// for a longer one gets its error reported instead.
		option.WithMaxRetryDelay(min(max(cfg.RequestTimeout/2, time.Millisecond), time.Minute)),
	)
	return p, nil
}

// newHTTPClient returns a client for concurrency parallel requests to one host, trusting
// roots (the system's when nil).
func newHTTPClient(concurrency int, roots *x509.CertPool) *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = max(concurrency, t.MaxIdleConnsPerHost)
	if roots != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: t}
}

// redactURL returns u without user information, query and fragment.
func redactURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return strings.TrimSuffix(v.String(), "/")
}

// Name returns "openai".
func (p *OpenAI) Name() string { return "openai" }

// Model returns the configured model.
func (p *OpenAI) Model() string { return p.cfg.Model }

// noVerdict is the reason of a change the model gave no verdict for.
const noVerdict = "the model gave no verdict"

// Review asks the model to judge every change of req, in excerpts of the text that are
// reviewed concurrently, and to propose the corrections the changes missed.
func (p *OpenAI) Review(ctx context.Context, req Request) (*Review, error) {
	var key string
	if p.cfg.APIKey != nil {
		k, err := p.cfg.APIKey(ctx)
		if err != nil {
			return nil, &providerError{public: "the AI provider's API key cannot be read",
				detail: fmt.Sprintf("cannot read the API key for the AI provider at %s: %v", p.where, err), err: err}
		}
		key = strings.TrimSpace(k)
	}
	excerpts := splitText(req.Text, req.Changes, p.cfg.ChunkBytes, p.cfg.ContextBytes)
	results := make([]excerptResult, len(excerpts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.cfg.Concurrency)
	var done atomic.Int32
	for i := range excerpts {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			var err error
			results[i], err = p.reviewExcerpt(gctx, key, req, &excerpts[i], i, len(excerpts))
			if err == nil && req.Progress != nil {
				req.Progress(int(done.Add(1)), len(excerpts))
			}
			return err
		})
	}
	err := g.Wait()
	var usage Usage
	for _, r := range results {
		usage.Add(r.usage)
	}
	if ctx.Err() != nil {
		return nil, spent(stopped(ctx), usage)
	}
	if err != nil {
		return nil, spent(err, usage)
	}

	verdicts := make(map[string]Judgement, len(req.Changes))
	var proposals []Proposal
	for _, r := range results {
		for id, j := range r.verdicts {
			verdicts[id] = j
		}
		proposals = append(proposals, r.proposals...)
	}
	rev := Finish(req, verdicts, proposals, noVerdict)
	rev.Usage = usage
	return rev, nil
}

// stopped is the error of a review whose context ended.
func stopped(ctx context.Context) error {
	return fmt.Errorf("the AI review stopped before it finished: %w", context.Cause(ctx))
}

// excerptResult is what the model said about one excerpt.
type excerptResult struct {
	verdicts  map[string]Judgement
	proposals []Proposal
	usage     Usage
}

// reviewExcerpt asks the model about excerpt i of n, and once more if its answer is not valid.
func (p *OpenAI) reviewExcerpt(ctx context.Context, key string, req Request, e *excerpt, i, n int) (excerptResult, error) {
	var res excerptResult
	subject := "the model's answer"
	if n > 1 {
		subject = fmt.Sprintf("the model's answer to chunk %d of %d", i+1, n)
	}
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage(systemPrompt(req.Language)),
		openai.UserMessage(userPrompt(req, e)),
	}
	var invalid error
	for range 2 {
		a, err := p.complete(ctx, key, msgs)
		if err != nil {
			return res, err
		}
		res.usage.Add(a.usage)
		switch {
		case a.refusal != "":
			return res, fmt.Errorf("%s is a refusal: %s", subject, ShortReason(a.refusal))
		case a.finish == "length":
			return res, fmt.Errorf("%s was cut off at the token limit", subject)
		case a.finish == "content_filter":
			return res, fmt.Errorf("%s was withheld by the provider's content filter", subject)
		}
		ans, err := parseAnswer(a.content, len(e.changes) > 0)
		if err == nil {
			res.verdicts, res.proposals = ans.place(req, e)
			return res, nil
		}
		invalid = err
		if strings.TrimSpace(a.content) != "" {
			// Some servers refuse an assistant message without content.
			msgs = append(msgs, openai.AssistantMessage(a.content))
		}
		msgs = append(msgs, openai.UserMessage("Your answer is not valid: "+err.Error()+
			". Answer again with only the JSON object the instructions describe."))
	}
	return res, fmt.Errorf("%s is not valid review JSON: %w", subject, invalid)
}

// answer is the model's answer to one request.
type answer struct {
	content, refusal, finish string
	usage                    Usage
}

// complete sends msgs in the response format in use and, in OutputAuto, in the less
// structured ones while the server rejects the format.
func (p *OpenAI) complete(ctx context.Context, key string, msgs []openai.ChatCompletionMessageParamUnion) (answer, error) {
	f := format(p.format.Load())
	for {
		a, err := p.call(ctx, key, msgs, f)
		var pe *providerError
		if err != nil && p.cfg.Output == OutputAuto && f < formatText && errors.As(err, &pe) && pe.formatRejected() {
			f++
			continue
		}
		if err == nil {
			for cur := p.format.Load(); int32(f) > cur && !p.format.CompareAndSwap(cur, int32(f)); cur = p.format.Load() {
			}
		}
		return a, err
	}
}

// call sends one Chat Completions request, with the SDK's retries.
func (p *OpenAI) call(ctx context.Context, key string, msgs []openai.ChatCompletionMessageParamUnion, f format) (answer, error) {
	params := openai.ChatCompletionNewParams{Model: p.cfg.Model, Messages: msgs}
	switch f {
	case formatJSONSchema:
		params.ResponseFormat.OfJSONSchema = &openai.ResponseFormatJSONSchemaParam{
			JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:        "review",
				Description: openai.String("Verdicts on the listed changes and proposed corrections."),
				Strict:      openai.Bool(true),
				Schema:      answerSchema(),
			},
		}
	case formatJSONObject:
		params.ResponseFormat.OfJSONObject = &openai.ResponseFormatJSONObjectParam{}
	}
	tr := new(trace)
	opts := []option.RequestOption{option.WithMiddleware(tr.middleware)}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if p.cfg.Stream {
		params.StreamOptions.IncludeUsage = openai.Bool(true)
		return p.stream(ctx, params, tr, key, opts)
	}
	resp, err := p.chat.New(ctx, params, opts...)
	if err != nil {
		return answer{}, p.callErr(ctx, err, tr, key)
	}
	if len(resp.Choices) == 0 {
		return answer{}, p.fail("the AI provider answered without a choice", "")
	}
	c := resp.Choices[0]
	return answer{
		content: c.Message.Content,
		refusal: c.Message.Refusal,
		finish:  c.FinishReason,
		usage:   usageOf(resp.Usage),
	}, nil
}

// stream sends one streamed Chat Completions request and gathers the answer.
func (p *OpenAI) stream(ctx context.Context, params openai.ChatCompletionNewParams, tr *trace, key string, opts []option.RequestOption) (answer, error) {
	s := p.chat.NewStreaming(ctx, params, opts...)
	defer s.Close()
	var (
		a                answer
		content, refusal strings.Builder
		events, choices  int
	)
	for s.Next() {
		events++
		ch := s.Current()
		if ch.JSON.Usage.Valid() {
			a.usage = usageOf(ch.Usage)
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			choices++
			content.WriteString(c.Delta.Content)
			refusal.WriteString(c.Delta.Refusal)
			if c.FinishReason != "" {
				a.finish = c.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		var se *ssestream.StreamError
		switch {
		case tr.status != http.StatusOK || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
			return answer{}, p.callErr(ctx, err, tr, key)
		case errors.As(err, &se):
			return answer{}, p.fail("the AI provider reported an error in its answer", ShortReason(redact(streamErrorMessage(se), key)))
		default:
			return answer{}, p.fail("the AI provider's answer broke off", redact(err.Error(), key))
		}
	}
	switch {
	case events == 0 && !isMediaType(tr.contentType, "text/event-stream"):
		return answer{}, p.fail("the AI provider answered without a stream",
			"it answered with "+cmp.Or(tr.contentType, "no content type")+" (turn streaming off for this server)")
	case events == 0:
		return answer{}, p.fail("the AI provider answered with an empty stream", "")
	case choices == 0:
		return answer{}, p.fail("the AI provider answered without a choice", "")
	}
	a.content, a.refusal = content.String(), refusal.String()
	if a.usage.Requests == 0 {
		a.usage.Requests = 1
	}
	return a, nil
}

func usageOf(u openai.CompletionUsage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		TotalTokens:      u.TotalTokens,
		Requests:         1,
	}
}

// trace records the HTTP attempts of one request.
type trace struct {
	attempts    int
	status      int    // of the last attempt's response; 0 when it got none
	contentType string // of the last attempt's response
	message     string // the error message in the last response's body, if any
}

// middleware counts the attempts and keeps the status and error message of the last one.
func (t *trace) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	t.attempts++
	t.status, t.contentType, t.message = 0, "", ""
	res, err := next(req)
	if err != nil || res == nil {
		return res, err
	}
	t.status, t.contentType = res.StatusCode, res.Header.Get("Content-Type")
	if res.StatusCode >= 400 && res.Body != nil {
		body, rerr := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		if rerr == nil {
			t.message = errorMessage(body)
		}
	}
	return res, nil
}

// errorMessage returns the message in an error response's body: the OpenAI error object's,
// another common shape's, or the body as text.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return s
		case len(v.Detail) > 0:
			return string(v.Detail)
		}
	}
	if !utf8.Valid(body) {
		return ""
	}
	return string(body)
}

// providerError is a failure of the provider. Its Error says where the provider is and what
// went wrong there, for the operator's log and the transcript's condition; PublicMessage says
// what went wrong without naming any part of the operator's setup, for API clients.
type providerError struct {
	public string
	detail string
	status int   // the HTTP status of the answer; 0 when there was none
	err    error // the cause, if it holds nothing secret
}

func (e *providerError) Error() string         { return e.detail }
func (e *providerError) PublicMessage() string { return e.public }
func (e *providerError) Unwrap() error         { return e.err }

// formatRejected reports whether the server may have rejected the response format.
func (e *providerError) formatRejected() bool {
	return e.status == http.StatusBadRequest || e.status == http.StatusUnprocessableEntity
}

// fail returns the providerError whose public message is public; its detail adds what the
// provider said, unless that is empty, and where the provider is.
func (p *OpenAI) fail(public, said string) *providerError {
	detail := public
	if said != "" {
		detail += ": " + said
	}
	return &providerError{public: public, detail: detail + " (provider " + p.where + ")"}
}

// callErr turns the SDK's error for a request into a providerError.
func (p *OpenAI) callErr(ctx context.Context, err error, tr *trace, key string) error {
	after := ""
	if tr.attempts > 1 {
		after = fmt.Sprintf(" after %d attempts", tr.attempts)
	}
	var e *providerError
	switch {
	case ctx.Err() != nil:
		return stopped(ctx)
	case errors.Is(err, context.DeadlineExceeded):
		e = p.fail(fmt.Sprintf("the AI provider did not answer within %s", p.cfg.RequestTimeout), "")
		e.err = err
	case tr.status >= 400:
		// The SDK's error holds the request, and with it the API key: it is not wrapped.
		said := ShortReason(redact(tr.message, key))
		switch tr.status {
		case http.StatusUnauthorized:
			e = p.fail("the AI provider rejected the API key (401)", said)
			if key == "" {
				e = p.fail("the AI provider wants an API key (401), and none is configured", said)
			}
		case http.StatusForbidden:
			e = p.fail("the AI provider refused access (403)", said)
		case http.StatusNotFound:
			e = p.fail("the AI provider answered 404 Not Found", said)
			e.detail += fmt.Sprintf("; check the base URL, which usually ends in /v1, and the model %q", p.cfg.Model)
		default:
			e = p.fail(fmt.Sprintf("the AI provider answered %d %s%s", tr.status, http.StatusText(tr.status), after), said)
		}
		e.status = tr.status
	case tr.status == 0:
		e = p.fail("the AI provider cannot be reached"+after, redact(err.Error(), key))
		e.err = err
	case !p.cfg.Stream && !isMediaType(tr.contentType, "application/json"):
		e = p.fail("the AI provider's answer is not a Chat Completions response",
			"it answered with "+cmp.Or(tr.contentType, "no content type")+" (check the base URL)")
	default:
		e = p.fail("the AI provider's answer is not a Chat Completions response", redact(err.Error(), key))
		e.err = err
	}
	return e
}

// isMediaType reports whether the Content-Type header value contentType is of mediaType.
func isMediaType(contentType, mediaType string) bool {
	t, _, _ := mime.ParseMediaType(contentType)
	return t == mediaType
}

// streamErrorMessage returns the message of the error object a stream carried.
func streamErrorMessage(se *ssestream.StreamError) string {
	// The SDK's message is a fixed prefix and the error object's JSON.
	_, raw, ok := strings.Cut(se.Message, ": ")
	if !ok {
		return se.Message
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return raw
}

// redact returns s with every occurrence of key replaced.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// answerSchema returns the JSON schema of the model's answer, in the subset strict structured
// outputs accept.
func answerSchema() map[string]any {
	str := map[string]any{"type": "string"}
	object := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	return object(map[string]any{
		"verdicts": map[string]any{"type": "array", "items": object(map[string]any{
			"id":      str,
			"verdict": map[string]any{"type": "string", "enum": []string{string(Confirmed), string(Rejected), string(Uncertain)}},
			"reason":  str,
		}, "id", "verdict", "reason")},
		"proposals": map[string]any{"type": "array", "items": object(map[string]any{
			"original":    str,
			"replacement": str,
			"reason":      str,
		}, "original", "replacement", "reason")},
	}, "verdicts", "proposals")
}

// systemPrompt returns the instructions of every request.
func systemPrompt(language string) string {
	var b strings.Builder
	b.WriteString(`You check automatic corrections in a sermon transcript. A program corrected the names of books of the Bible and of biblical places that were misspelled or misheard by speech recognition.

The user shows you an excerpt of the transcript exactly as it was written, before any correction, and lists changes in it. For each change decide, from its context:
- "confirmed": the replacement is right here;
- "rejected": the replacement is wrong here, for example because the word is a person's name, an ordinary word or another place;
- "uncertain": the context does not decide.
Give a reason of at most 15 words for every verdict. Status "auto_applied" means the change was already made in the corrected transcript; "needs_review" means it was only suggested.

You may also propose corrections the program missed, but only of misspelled or misheard names of books of the Bible or of biblical places, and only where no listed change is. Quote "original" exactly as it appears in the excerpt. Do not propose anything else: no grammar, punctuation, spelling or style changes. When in doubt, propose nothing.

Answer with one JSON object and nothing else, of this shape:
{"verdicts":[{"id":"<change id>","verdict":"confirmed|rejected|uncertain","reason":"<at most 15 words>"}],"proposals":[{"original":"<exact text from the excerpt>","replacement":"<corrected text>","reason":"<at most 15 words>"}]}
Give exactly one verdict for every listed change. Use an empty list when there is nothing to propose.`)
	if language != "" && !strings.EqualFold(language, "en") && !strings.HasPrefix(strings.ToLower(language), "en-") {
		fmt.Fprintf(&b, "\n\nThe transcript's language is %q (a BCP 47 tag).", language)
	}
	return b.String()
}

// userPrompt returns the request for excerpt e of req.
func userPrompt(req Request, e *excerpt) string {
	type listed struct {
		ID          string `json:"id"`
		Original    string `json:"original"`
		Replacement string `json:"replacement"`
		Category    string `json:"category"`
		Rule        string `json:"rule,omitempty"`
		Status      string `json:"status"`
		Passage     int    `json:"passage,omitempty"`
		At          string `json:"at"`
	}
	var b strings.Builder
	if len(e.passages) > 1 {
		b.WriteString("Excerpt of the transcript, in passages separated by a line \"[…]\" and numbered from 1:\n")
	} else {
		b.WriteString("Excerpt of the transcript:\n")
	}
	b.WriteString("<<<\n")
	b.WriteString(e.render(req.Text))
	b.WriteString("\n>>>\n\n")
	if len(e.changes) == 0 {
		b.WriteString("No changes to judge in this excerpt: give an empty verdicts list.\n")
		return b.String()
	}
	b.WriteString("Changes to judge (\"at\" shows each in its place, the original text in [[double brackets]]):\n[\n")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for k, i := range e.changes {
		c := req.Changes[i]
		l := listed{
			ID: c.ID, Original: c.Original, Replacement: c.Replacement, Category: c.Category,
			Rule: c.Rule, Status: string(c.Status),
		}
		if n := e.passageOf(c.Start, c.End); n >= 0 {
			l.At = snippet(req.Text, e.passages[n], c.Start, c.End, 40)
			if len(e.passages) > 1 {
				l.Passage = n + 1
			}
		}
		if k > 0 {
			b.WriteString(",\n")
		}
		buf.Reset()
		_ = enc.Encode(l) // strings and numbers: it cannot fail
		b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	b.WriteString("\n]\n")
	return b.String()
}

// reviewAnswer is the model's answer about one excerpt.
type reviewAnswer struct {
	verdicts  []Judgement
	proposals []Proposal // without offsets
}

// parseAnswer reads the model's answer: the outermost JSON object of content, after any
// reasoning in <think> tags. wantVerdicts says whether the answer must hold a verdicts list.
func parseAnswer(content string, wantVerdicts bool) (reviewAnswer, error) {
	s := strings.TrimSpace(content)
	if strings.HasPrefix(s, "<think>") {
		if i := strings.Index(s, "</think>"); i >= 0 {
			s = s[i+len("</think>"):]
		}
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		if strings.TrimSpace(s) == "" {
			return reviewAnswer{}, errors.New("it is empty")
		}
		return reviewAnswer{}, errors.New("it holds no JSON object")
	}
	var raw struct {
		Verdicts *[]struct {
			ID       string `json:"id"`
			ChangeID string `json:"change_id"`
			Verdict  string `json:"verdict"`
			Reason   string `json:"reason"`
		} `json:"verdicts"`
		Proposals []struct {
			Original    string `json:"original"`
			Replacement string `json:"replacement"`
			Reason      string `json:"reason"`
		} `json:"proposals"`
	}
	if err := json.Unmarshal([]byte(s[i:j+1]), &raw); err != nil {
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
			return reviewAnswer{}, fmt.Errorf("%q is a JSON %s, which is the wrong type", te.Field, te.Value)
		}
		return reviewAnswer{}, fmt.Errorf("it is not JSON: %w", err)
	}
	if raw.Verdicts == nil && wantVerdicts {
		return reviewAnswer{}, errors.New(`it has no "verdicts" list`)
	}
	var ans reviewAnswer
	if raw.Verdicts != nil {
		for _, v := range *raw.Verdicts {
			id := cmp.Or(strings.TrimSpace(v.ID), strings.TrimSpace(v.ChangeID))
			verdict := Verdict(strings.ToLower(strings.TrimSpace(v.Verdict)))
			if !verdict.Valid() {
				return reviewAnswer{}, fmt.Errorf("the verdict %q on %q is none of confirmed, rejected and uncertain", v.Verdict, id)
			}
			ans.verdicts = append(ans.verdicts, Judgement{ChangeID: id, Verdict: verdict, Reason: v.Reason})
		}
	}
	for _, pr := range raw.Proposals {
		ans.proposals = append(ans.proposals, Proposal{
			Original:    strings.TrimSpace(pr.Original),
			Replacement: strings.TrimSpace(pr.Replacement),
			Reason:      pr.Reason,
		})
	}
	return ans, nil
}

// place returns the answer's verdicts on the changes of e by change ID, ignoring other IDs,
// and its proposals that it can find in e's text, with their offsets into req.Text.
func (ans reviewAnswer) place(req Request, e *excerpt) (map[string]Judgement, []Proposal) {
	verdicts := make(map[string]Judgement, len(e.changes))
	mine := make(map[string]bool, len(e.changes))
	for _, i := range e.changes {
		mine[req.Changes[i].ID] = true
	}
	for _, j := range ans.verdicts {
		if mine[j.ChangeID] {
			verdicts[j.ChangeID] = j
		}
	}
	var proposals []Proposal
	var taken []span
	for _, pr := range ans.proposals {
		s, ok := locate(req.Text, e, pr.Original, req.Changes, taken)
		if !ok {
			continue
		}
		taken = append(taken, s)
		pr.Start, pr.End = s.start, s.end
		proposals = append(proposals, pr)
	}
	return verdicts, proposals
}
