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
// Content-Type) with a small JSON error body {"error":{"type":"forbidden","message":"…"}}.
// Mount it at UploadBaseURL's path.
//
// The handler reads only the query of the request URL, so it may be mounted behind
// http.StripPrefix. An object is replaced only by a complete body: a refused or broken
// upload leaves the key as it was.
func (s *Store) UploadHandler(maxBytes int64) (http.Handler, error) {
	if s.s3 {
		return nil, fmt.Errorf("%w: the S3 backend takes uploads itself; UploadHandler serves the filesystem backend only", ErrNotSupported)
	}
	if s.signer == nil {
		return nil, errors.New("blob: this filesystem store cannot verify upload URLs (open it with a signing secret and an upload base URL)")
	}
	if maxBytes <= 0 {
		return nil, fmt.Errorf("blob: the upload size cap must be positive, not %d", maxBytes)
	}
	return &uploadHandler{store: s, maxBytes: maxBytes}, nil
}

// uploadHandler is the http.Handler that UploadHandler returns.
type uploadHandler struct {
	store    *Store
	maxBytes int64
}

// ServeHTTP checks the signed URL of r and writes its body under the key the URL names.
func (h *uploadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, err := h.store.signer.KeyFromURL(r.Context(), r.URL)
	if err != nil {
		writeError(w, http.StatusForbidden, "forbidden", "the upload URL is invalid or expired")
		return
	}
	q := r.URL.Query()
	if q.Get("method") != http.MethodPut || r.Method != http.MethodPut {
		writeError(w, http.StatusForbidden, "forbidden", "the upload URL accepts only the method it was signed for (PUT)")
		return
	}
	if want := q.Get("contentType"); want == "" || r.Header.Get("Content-Type") != want {
		writeError(w, http.StatusForbidden, "forbidden", "the Content-Type differs from the one the upload URL was signed for")
		return
	}
	if r.ContentLength > h.maxBytes {
		writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large",
			fmt.Sprintf("the body is larger than %d bytes", h.maxBytes))
		return
	}

	// Cancelling the writer's context before Close discards the partial object.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	bw, err := h.store.bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: q.Get("contentType")})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "the object could not be stored")
		return
	}
	body := http.MaxBytesReader(w, r.Body, h.maxBytes)
	if _, err := io.Copy(bw, body); err != nil {
		cancel()
		_ = bw.Close()
		if maxErr := (*http.MaxBytesError)(nil); errors.As(err, &maxErr) {
			writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large",
				fmt.Sprintf("the body is larger than %d bytes", h.maxBytes))
			return
		}
		writeError(w, http.StatusBadRequest, "bad_request", "the body could not be read")
		return
	}
	if err := bw.Close(); err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "the object could not be stored")
		return
	}
	w.WriteHeader(http.StatusOK)
}

// writeError answers with status and the JSON error body {"error":{"type":…,"message":…}}.
func writeError(w http.ResponseWriter, status int, typ, message string) {
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
