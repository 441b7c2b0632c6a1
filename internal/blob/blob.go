// Package blob is the object store of tcs: transcript inputs, corrected content, change lists
// and webhook payloads live here, and Kubernetes resources hold their keys.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned for a key that holds no object.
var ErrNotFound = errors.New("blob: object not found")

// Store reads and writes objects by key.
type Store struct {
	bucket *blob.Bucket
}

// Open opens the store at url: a directory path or file:///dir for the filesystem backend.
func Open(ctx context.Context, url string) (*Store, error) {
	dir, ok := strings.CutPrefix(url, "file://")
	if !ok && strings.Contains(url, "://") {
		return nil, fmt.Errorf("blob: unsupported store URL %q (want a directory or file:///dir)", url)
	}
	if !ok {
		dir = url
	}
	return OpenDir(dir)
}

// OpenDir opens a filesystem store rooted at dir, creating dir when it is missing.
func OpenDir(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("blob: resolving %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("blob: creating %s: %w", abs, err)
	}
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{NoTempDir: true})
	if err != nil {
		return nil, fmt.Errorf("blob: opening %s: %w", abs, err)
	}
	return &Store{bucket: b}, nil
}

// Put writes data under key, replacing any object there.
func (s *Store) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := s.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("blob: writing %s: %w", key, err)
	}
	return nil
}

// Get reads the object under key; it returns ErrNotFound when there is none.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	data, err := s.bucket.ReadAll(ctx, key)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, fmt.Errorf("blob: reading %s: %w", key, ErrNotFound)
		}
		return nil, fmt.Errorf("blob: reading %s: %w", key, err)
	}
	return data, nil
}

// NewReader opens the object under key for streaming; it returns ErrNotFound when there is none.
func (s *Store) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, fmt.Errorf("blob: reading %s: %w", key, ErrNotFound)
		}
		return nil, fmt.Errorf("blob: reading %s: %w", key, err)
	}
	return r, nil
}

// Exists reports whether an object is stored under key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("blob: checking %s: %w", key, err)
	}
	return ok, nil
}

// Delete removes the object under key; a missing object is no error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("blob: deleting %s: %w", key, err)
	}
	return nil
}

// Close releases the store.
func (s *Store) Close() error {
	return s.bucket.Close()
}
