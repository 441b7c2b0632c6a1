package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"

	"tcs.dev/tcs/internal/domain/ids"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	principalKey
)

// RequestID returns the id (req_…) of the request that ctx belongs to.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// withRequestID gives every request an id and sends it as X-Request-Id on every response.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.New("req")
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

// statusRecorder remembers the status a handler answered with and, when body is not nil,
// keeps a copy of the response body.
type statusRecorder struct {
	http.ResponseWriter
	status int
	body   *bytes.Buffer
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	if s.body != nil {
		s.body.Write(b)
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// withLogging logs one line per request and turns a panic into a server_error.
func withLogging(log logr.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w}
			defer func() {
				if p := recover(); p != nil {
					if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
						panic(p)
					}
					log.Error(fmt.Errorf("panic: %v", p), "handler panicked", "requestID", RequestID(r.Context()), "path", r.URL.Path)
					if rec.status == 0 {
						// Not an error a handler returned (answerError answers those): the
						// panic is logged above and answered with the primitive.
						writeError(rec, r, &apiError{Status: http.StatusInternalServerError, Type: ErrServer, Message: "An unexpected error occurred."})
					}
				}
				log.V(1).Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
					"duration", time.Since(start).String(), "requestID", RequestID(r.Context()))
			}()
			next.ServeHTTP(rec, r)
		})
	}
}
