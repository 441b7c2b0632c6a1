// Package client is a Go client of the tcs API v1: typed requests and responses for every
// route, the API's retry rules built in, an iterator over list pages, a helper that waits for
// a transcript, and the verification of the webhooks tcs sends.
//
// Retries follow the API's rules: a 429 rate_limited answer is retried after at least its
// Retry-After, a 500 server_error or 504 timeout answer and a failed connection are retried
// with exponential backoff, and no other 4xx answer is retried. Every POST carries an
// Idempotency-Key (generated unless [IdempotencyKey] gives one), the same on every attempt,
// so a retried create runs once.
//
// An error answer is returned as an [*Error] carrying the API's error type, message, param
// and request id:
//
//	t, err := c.GetTranscript(ctx, id)
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.Type == client.ErrNotFound {
//		…
//	}
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxAnswer bounds the body of an answer the client reads.
const maxAnswer = 64 << 20

// RetryPolicy says how often and how long to retry a request the API's rules allow to retry.
type RetryPolicy struct {
	// MaxAttempts bounds the attempts of one call, the first included; 1 disables retries.
	// Zero means 5.
	MaxAttempts int
	// InitialBackoff is the wait before the first retry; it doubles on each retry. Zero means
	// 500 milliseconds.
	InitialBackoff time.Duration
	// MaxBackoff caps the doubling wait (a longer Retry-After is still honoured). Zero means
	// 30 seconds.
	MaxBackoff time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.InitialBackoff <= 0 {
		p.InitialBackoff = 500 * time.Millisecond
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 30 * time.Second
	}
	return p
}

// backoff is the wait before retry n (0 for the first retry).
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.InitialBackoff
	for i := 0; i < n && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// Client calls the tcs API. It is safe for concurrent use.
type Client struct {
	base   *url.URL
	apiKey string
	http   *http.Client
	retry  RetryPolicy
	poll   RetryPolicy
	agent  string
	// sleep waits d or until ctx ends; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends the requests through hc instead of a client with a 90-second timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithRetryPolicy sets how requests are retried.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *Client) { c.retry = p.withDefaults() } }

// WithPollInterval sets how [Client.WaitForTranscript] spaces its polls: initial doubling up
// to max (the API recommends 1 and 30 seconds, the defaults), or longer when the API's
// Retry-After asks for it.
func WithPollInterval(initial, max time.Duration) Option {
	return func(c *Client) {
		c.poll = RetryPolicy{MaxAttempts: 1, InitialBackoff: initial, MaxBackoff: max}.withDefaults()
	}
}

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.agent = ua } }

// New returns a client of the API at baseURL (scheme and host, e.g. http://127.0.0.1:8080,
// without /api/v1) that authenticates with apiKey.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("tcs: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("tcs: base URL %q is not an http or https URL", baseURL)
	}
	c := &Client{
		base:   u,
		apiKey: apiKey,
		http:   &http.Client{Timeout: 90 * time.Second},
		retry:  RetryPolicy{}.withDefaults(),
		poll:   RetryPolicy{MaxAttempts: 1, InitialBackoff: time.Second, MaxBackoff: 30 * time.Second},
		agent:  "tcs-go-client/1",
		sleep:  sleep,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// CallOption configures one call.
type CallOption func(*callOptions)

type callOptions struct {
	idempotencyKey string
	wait           bool
	timeout        time.Duration
	ifMatch        string
}

// IdempotencyKey sends key as the Idempotency-Key of a POST instead of a generated one: a
// repeat of the key within 24 hours answers the first request's answer.
func IdempotencyKey(key string) CallOption { return func(o *callOptions) { o.idempotencyKey = key } }

// Wait makes a create synchronous (wait=true): the API answers once the transcript is
// completed or failed, or after timeout (5 to 60 seconds; zero means the API's 60) with a 504.
// The client retries a 504 like a 500 (with the same Idempotency-Key the request waits again
// on the same transcript), so a call can last several timeouts: bound it with ctx. The last
// 504 comes back as an [*Error] whose TranscriptID names the transcript, which goes on.
func Wait(timeout time.Duration) CallOption {
	return func(o *callOptions) { o.wait, o.timeout = true, timeout }
}

// request is one API call, replayable for retries.
type request struct {
	method string
	// url is absolute for an upload, else a path below the base URL.
	url    string
	query  url.Values
	body   []byte
	header http.Header
	// auth sends the API key; an upload URL carries its own signature and gets none.
	auth bool
}

// call sends an API request with JSON body in (nil for none) and decodes the answer into out
// (nil to discard it). It returns the answer's header.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, in, out any, opts []CallOption) (http.Header, error) {
	var co callOptions
	for _, o := range opts {
		o(&co)
	}
	r := request{method: method, url: path, query: query, header: http.Header{}, auth: true}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("tcs: encoding the request: %w", err)
		}
		r.body = b
		r.header.Set("Content-Type", "application/json")
	}
	if method == http.MethodPost {
		key := co.idempotencyKey
		if key == "" {
			key = newIdempotencyKey()
		}
		r.header.Set("Idempotency-Key", key)
	}
	if co.ifMatch != "" {
		r.header.Set("If-Match", `"`+co.ifMatch+`"`)
	}
	if co.wait {
		if r.query == nil {
			r.query = url.Values{}
		}
		r.query.Set("wait", "true")
		if co.timeout > 0 {
			r.query.Set("timeout", strconv.Itoa(int(co.timeout.Round(time.Second)/time.Second)))
		}
	}
	_, header, body, err := c.send(ctx, r)
	if err != nil {
		return header, err
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return header, fmt.Errorf("tcs: decoding the answer of %s %s: %w", method, path, err)
		}
	}
	return header, nil
}

// send sends r, retrying as the API's rules allow, and returns the status, header and body of
// a 2xx answer, or an error: an [*Error] for an error answer.
func (c *Client) send(ctx context.Context, r request) (int, http.Header, []byte, error) {
	for attempt := 0; ; attempt++ {
		status, header, body, err := c.once(ctx, r)
		if err == nil && status >= 200 && status < 300 {
			return status, header, body, nil
		}
		var apiErr *Error
		if err == nil {
			apiErr = newError(status, header, body)
			err = apiErr
		}
		if ctx.Err() != nil || attempt+1 >= c.retry.MaxAttempts || !retryable(apiErr) {
			return status, header, nil, err
		}
		wait := c.retry.backoff(attempt)
		if apiErr != nil && apiErr.RetryAfter > wait {
			wait = apiErr.RetryAfter
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return status, header, nil, err
		}
	}
}

// retryable reports whether the API's rules allow retrying an answer: 429, 500 and 504, or a
// failed connection (apiErr nil). The API does not replay a 500 or the 504 of a synchronous
// wait: retried with the same Idempotency-Key, the request resumes (a wait waits again on the
// same transcript).
func retryable(apiErr *Error) bool {
	if apiErr == nil {
		return true
	}
	switch apiErr.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// once sends r one time.
func (c *Client) once(ctx context.Context, r request) (int, http.Header, []byte, error) {
	target := r.url
	if r.auth {
		u := *c.base
		u.Path = strings.TrimSuffix(u.Path, "/") + r.url
		if len(r.query) > 0 {
			u.RawQuery = r.query.Encode()
		}
		target = u.String()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, body)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("tcs: %s %s: %w", r.method, r.url, err)
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", c.agent)
	if r.auth {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
		req.Header.Set("Accept", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("tcs: %s %s: %w", r.method, r.url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, resp.Header, nil, fmt.Errorf("tcs: %s %s: reading the answer: %w", r.method, r.url, err)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// retryAfter reads a Retry-After header given in seconds.
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// newIdempotencyKey returns a random key of 128 bits.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "tcs-go-" + hex.EncodeToString(b[:])
}

// IsType reports whether err is an [*Error] of type typ (one of the Err* constants).
func IsType(err error, typ string) bool {
	var e *Error
	return errors.As(err, &e) && e.Type == typ
}
