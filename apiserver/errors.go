package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"

	"tcs.dev/tcs/internal/domain/apiview"
)

// Error types of the API (the spec's error table).
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

// apiError is an error the API answers with: its HTTP status and the spec's error object.
type apiError struct {
	Status  int    `json:"-"`
	Type    string `json:"type"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
}

func (e *apiError) Error() string { return e.Type + ": " + e.Message }

// maxEcho is the most bytes of a request's own input that an error message repeats.
const maxEcho = apiview.MaxEcho

// clip returns s cut to at most apiview.MaxEcho bytes, on a rune boundary, with "…" appended when cut.
func clip(s string) string { return apiview.Clip(s) }

// quote returns s, clipped, as a quoted Go string: the way error messages repeat input.
func quote(s string) string { return apiview.Quote(s) }

func invalid(param, message string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: ErrInvalidRequest, Message: message, Param: param}
}

type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	Param     string `json:"param,omitempty"`
	RequestID string `json:"request_id"`
}

// handlerFunc is a handler of the API: it answers a request itself, or returns the error to
// answer with, which s.handle writes.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts h to net/http: the error h returns is answered by answerError.
func (s *Server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.answerError(w, r, err)
		}
	}
}

// serverErrorMessage is the message of every server error: what went wrong is logged, never
// shown.
const serverErrorMessage = "An unexpected error occurred. Retry later; quote the request id when you report it."

// answerError is the one place that decides how a request's error is answered: an *apiError
// below 500 is the client's (a 4xx, as it says); anything else is logged with the request id,
// and answered as a server_error: an *apiError of 5xx as it says, any other error with
// serverErrorMessage, which shows nothing of it.
func (s *Server) answerError(w http.ResponseWriter, r *http.Request, err error) {
	var aerr *apiError
	if !errors.As(err, &aerr) || aerr.Status >= 500 {
		s.log.Error(err, "request failed", "requestID", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path)
	}
	if aerr == nil {
		aerr = &apiError{Status: http.StatusInternalServerError, Type: ErrServer, Message: serverErrorMessage}
	}
	writeError(w, r, aerr)
}

// writeError writes the spec's error object of e: the primitive under answerError.
func writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	writeJSON(w, e.Status, errorBody{Error: errorObject{
		Type:      e.Type,
		Message:   e.Message,
		Param:     e.Param,
		RequestID: RequestID(r.Context()),
	}})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
