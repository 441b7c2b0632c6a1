package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The error types of the API.
const (
	ErrInvalidRequest = "invalid_request"
	ErrUnauthorized   = "unauthorized"
	ErrForbidden      = "forbidden"
	ErrNotFound       = "not_found"
	ErrConflict       = "conflict"
	ErrUnprocessable  = "unprocessable"
	ErrRateLimited    = "rate_limited"
	ErrServer         = "server_error"
	ErrTimeout        = "timeout"
)

// Error is an error answer of the API. Test for it with errors.As.
type Error struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Type is the machine-readable error type (the Err* constants); empty when the answer was
	// not the API's error object (a proxy's page, say).
	Type string
	// Message is the human-readable explanation.
	Message string
	// Param names the offending parameter of a validation failure.
	Param string
	// RequestID identifies the request (req_…); quote it when you report a problem.
	RequestID string
	// RetryAfter is the wait the Retry-After header asked for, or zero.
	RetryAfter time.Duration
	// TranscriptID and Transcript are set when a synchronous wait ran out of time (504
	// timeout): the transcript exists and its job goes on; poll it with
	// [Client.WaitForTranscript].
	TranscriptID string
	Transcript   *Transcript
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tcs: %d", e.StatusCode)
	if e.Type != "" {
		fmt.Fprintf(&b, " %s", e.Type)
	}
	if e.Param != "" {
		fmt.Fprintf(&b, " (param %s)", e.Param)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [%s]", e.RequestID)
	}
	return b.String()
}

// errorAnswer is the body of an error answer; a 504 of a synchronous wait adds the transcript.
type errorAnswer struct {
	Error *struct {
		Type      string `json:"type"`
		Message   string `json:"message"`
		Param     string `json:"param"`
		RequestID string `json:"request_id"`
	} `json:"error"`
	ID         string      `json:"id"`
	Transcript *Transcript `json:"transcript"`
}

// newError builds the Error of a non-2xx answer.
func newError(status int, header http.Header, body []byte) *Error {
	e := &Error{StatusCode: status, RequestID: header.Get("X-Request-Id"), RetryAfter: retryAfter(header)}
	var a errorAnswer
	if err := json.Unmarshal(body, &a); err == nil && a.Error != nil {
		e.Type, e.Message, e.Param = a.Error.Type, a.Error.Message, a.Error.Param
		if a.Error.RequestID != "" {
			e.RequestID = a.Error.RequestID
		}
		e.TranscriptID, e.Transcript = a.ID, a.Transcript
		return e
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	e.Message = msg
	return e
}
