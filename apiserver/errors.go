package apiserver

import (
	"encoding/json"
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
	// cause is the internal error behind a server_error; it is logged, never shown.
	cause error
}

func (e *apiError) Error() string {
	if e.cause != nil {
		return e.Type + ": " + e.cause.Error()
	}
	return e.Type + ": " + e.Message
}

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

// writeError answers with the spec's error object.
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

func serverError(err error) *apiError {
	return &apiError{Status: http.StatusInternalServerError, Type: ErrServer, Message: "An unexpected error occurred. Retry later; quote the request id when you report it.", cause: err}
}
