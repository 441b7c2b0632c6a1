package blob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"gocloud.dev/blob"
)

// UploadHandler (filesystem backend only) serves the PUTs of SignedPutURL: it verifies the
// HMAC and expiry (gocloud's fileblob.URLSigner KeyFromURL), and also the method and the
// Content-Type bound in the URL; it caps the body at maxBytes (413), writes the object, and
// answers 200 (or 201). Refusals answer 403 (bad/expired signature, wrong method, wrong
// Content-Type). Refusals go through fail, which writes the error response; nil means a small
// JSON body {"error":{"type":…,"message":…}} with the API's error types. Mount it at
// UploadBaseURL's path.
//
// The handler reads only the query of the request URL, so it may be mounted behind
// http.StripPrefix. An object is replaced only by a complete body: a refused or broken
// upload leaves the key as it was.
func (s *Store) UploadHandler(maxBytes int64, fail ErrorFunc) (http.Handler, error) {
	if s.s3 {
		return nil, fmt.Errorf("%w: the S3 backend takes uploads itself; UploadHandler serves the filesystem backend only", ErrNotSupported)
	}
	if s.signer == nil {
		return nil, errors.New("blob: this filesystem store cannot verify upload URLs (open it with a signing secret and an upload base URL)")
	}
	if maxBytes <= 0 {
		return nil, fmt.Errorf("blob: the upload size cap must be positive, not %d", maxBytes)
	}
	if fail == nil {
		fail = writeError
	}
	return &uploadHandler{store: s, maxBytes: maxBytes, fail: fail}, nil
}

// ErrorFunc writes the error response of a refused upload with HTTP status and message.
type ErrorFunc func(w http.ResponseWriter, r *http.Request, status int, message string)

// uploadHandler is the http.Handler that UploadHandler returns.
type uploadHandler struct {
	store    *Store
	maxBytes int64
	fail     ErrorFunc
}

// ServeHTTP checks the signed URL of r and writes its body under the key the URL names.
func (h *uploadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, err := h.store.signer.KeyFromURL(r.Context(), r.URL)
	if err != nil {
		h.fail(w, r, http.StatusForbidden, "the upload URL is invalid or expired")
		return
	}
	q := r.URL.Query()
	if q.Get("method") != http.MethodPut || r.Method != http.MethodPut {
		h.fail(w, r, http.StatusForbidden, "the upload URL accepts only the method it was signed for (PUT)")
		return
	}
	if want := q.Get("contentType"); want == "" || r.Header.Get("Content-Type") != want {
		h.fail(w, r, http.StatusForbidden, "the Content-Type differs from the one the upload URL was signed for")
		return
	}
	if r.ContentLength > h.maxBytes {
		h.fail(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", h.maxBytes))
		return
	}

	// Cancelling the writer's context before Close discards the partial object.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	bw, err := h.store.bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: q.Get("contentType")})
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, "the object could not be stored")
		return
	}
	body := http.MaxBytesReader(w, r.Body, h.maxBytes)
	if _, err := io.Copy(bw, body); err != nil {
		cancel()
		_ = bw.Close()
		if maxErr := (*http.MaxBytesError)(nil); errors.As(err, &maxErr) {
			h.fail(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", h.maxBytes))
			return
		}
		h.fail(w, r, http.StatusBadRequest, "the body could not be read")
		return
	}
	if err := bw.Close(); err != nil {
		h.fail(w, r, http.StatusInternalServerError, "the object could not be stored")
		return
	}
	w.WriteHeader(http.StatusOK)
}

// writeError answers with status and the JSON error body {"error":{"type":…,"message":…}},
// the type being the API's for status.
func writeError(w http.ResponseWriter, _ *http.Request, status int, message string) {
	typ := "invalid_request"
	switch {
	case status == http.StatusForbidden:
		typ = "forbidden"
	case status >= 500:
		typ = "server_error"
	}
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	body.Error.Type = typ
	body.Error.Message = message
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
