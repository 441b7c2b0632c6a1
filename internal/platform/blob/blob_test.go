package blob

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// testMaxBytes caps the uploads of the filesystem backend's test upload handler.
const testMaxBytes = 1 << 10

// backend opens a fresh, empty store of one kind for a test.
type backend struct {
	name string
	open func(t *testing.T) *Store
}

// backends are the store kinds that the tests run against.
func backends() []backend {
	return []backend{
		{name: "filesystem", open: openTestDir},
		{name: "s3", open: openTestS3},
	}
}

// openTestDir opens a filesystem store in a temporary directory, signing upload URLs for an
// httptest server on 127.0.0.1 that serves its UploadHandler at /uploads/.
func openTestDir(t *testing.T) *Store {
	t.Helper()
	var upload http.Handler
	mux := http.NewServeMux()
	mux.Handle("/uploads/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { upload.ServeHTTP(w, r) }))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s, err := Open(context.Background(), "file://"+t.TempDir()+"/store", Options{
		SigningSecret: []byte("test signing secret"),
		UploadBaseURL: srv.URL + "/uploads/",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if upload, err = s.UploadHandler(testMaxBytes, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// openTestS3 opens a store on a new bucket of the test S3 server.
func openTestS3(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), testS3.newBucket(t), Options{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestFilesystemStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, "file://"+dir+"/store", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	want := []byte("1 Corinthians 13:4 — love is patient\n")
	if err := s.Put(ctx, "transcripts/org_a/tr_x/content", want, "text/plain; charset=utf-8"); err != nil {
		t.Fatal(err)
	}
	// A second store on the same directory sees the object: the data outlives the process.
	s2, err := OpenDir(dir + "/store")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got, err := s2.Get(ctx, "transcripts/org_a/tr_x/content"); err != nil || string(got) != string(want) {
		t.Fatalf("reopened Get = %q, %v", got, err)
	}
	// A plain directory path opens the same store.
	byPath, err := Open(ctx, dir+"/store", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer byPath.Close()
	if ok, err := byPath.Exists(ctx, "transcripts/org_a/tr_x/content"); !ok || err != nil {
		t.Fatalf("Exists through a directory path = %v, %v", ok, err)
	}
}

func TestStore(t *testing.T) {
	keys := []string{
		"transcripts/org_a/tr_x/content",
		"transcripts/org_a/tr_ü y/changes.json",
	}
	for _, b := range backends() {
		for _, key := range keys {
			t.Run(b.name+"/"+key, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := b.open(t)

				if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Get of a missing key: err = %v, want ErrNotFound", err)
				}
				if _, err := s.NewReader(ctx, key); !errors.Is(err, ErrNotFound) {
					t.Fatalf("NewReader of a missing key: err = %v, want ErrNotFound", err)
				}
				if _, err := s.Size(ctx, key); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Size of a missing key: err = %v, want ErrNotFound", err)
				}
				if ok, err := s.Exists(ctx, key); ok || err != nil {
					t.Fatalf("Exists of a missing key = %v, %v", ok, err)
				}

				want := []byte("1 Corinthians 13:4 — love is patient\n")
				if err := s.Put(ctx, key, want, "text/plain; charset=utf-8"); err != nil {
					t.Fatal(err)
				}
				if got, err := s.Get(ctx, key); err != nil || string(got) != string(want) {
					t.Fatalf("Get = %q, %v; want %q", got, err, want)
				}
				r, err := s.NewReader(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				streamed, err := io.ReadAll(r)
				r.Close()
				if err != nil || string(streamed) != string(want) {
					t.Fatalf("NewReader read %q, %v", streamed, err)
				}
				if ok, err := s.Exists(ctx, key); !ok || err != nil {
					t.Fatalf("Exists = %v, %v", ok, err)
				}
				if size, err := s.Size(ctx, key); err != nil || size != int64(len(want)) {
					t.Fatalf("Size = %d, %v; want %d", size, err, len(want))
				}

				// Put replaces the object.
				replaced := []byte(`{"changes":[]}`)
				if err := s.Put(ctx, key, replaced, "application/json"); err != nil {
					t.Fatal(err)
				}
				if got, err := s.Get(ctx, key); err != nil || string(got) != string(replaced) {
					t.Fatalf("Get after replacing = %q, %v", got, err)
				}
				if size, err := s.Size(ctx, key); err != nil || size != int64(len(replaced)) {
					t.Fatalf("Size after replacing = %d, %v", size, err)
				}

				if err := s.Delete(ctx, key); err != nil {
					t.Fatal(err)
				}
				if err := s.Delete(ctx, key); err != nil {
					t.Fatalf("deleting a missing key: %v", err)
				}
				if ok, err := s.Exists(ctx, key); ok || err != nil {
					t.Fatalf("Exists after Delete = %v, %v", ok, err)
				}
				if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Get after Delete: err = %v, want ErrNotFound", err)
				}
			})
		}
	}
}

func TestOpenS3CredentialsFromEnvironment(t *testing.T) {
	ctx := context.Background()
	url := testS3.newBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecretKey)
	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(ctx, "k", []byte("v"), "text/plain"); err != nil {
		t.Fatalf("Put with credentials from the environment: %v", err)
	}

	// Static credentials in Options win over the environment.
	bad, err := Open(ctx, url, Options{AccessKeyID: testAccessKey, SecretAccessKey: "not-the-secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.Get(ctx, "k"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("Get with a wrong secret: err = %v, want an authentication error", err)
	}
}

func TestOpenRejects(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		opts      Options
	}{
		{"unknown scheme", "gs://bucket", Options{}},
		{"s3 without bucket", "s3://?region=us-east-1", Options{}},
		{"s3 with a key prefix", "s3://bucket/prefix?region=us-east-1", Options{}},
		{"s3 with a relative endpoint", "s3://bucket?endpoint=127.0.0.1:9000", Options{}},
		{"s3 with a bad use_path_style", "s3://bucket?use_path_style=maybe", Options{}},
		{"s3 with an unknown parameter", "s3://bucket?colour=blue", Options{}},
		{"s3 with half the static credentials", "s3://bucket?region=us-east-1", Options{AccessKeyID: "id"}},
		{"relative upload base URL", "file://" + t.TempDir(), Options{SigningSecret: []byte("k"), UploadBaseURL: "/uploads/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s, err := Open(context.Background(), tc.url, tc.opts); err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded", tc.url)
			} else if !strings.HasPrefix(err.Error(), "blob: ") {
				t.Fatalf("Open(%q): error %q lacks the blob: prefix", tc.url, err)
			}
		})
	}
}

// TestTheFilesystemStoreWritesOneFilePerObject checks that an object on the filesystem is one
// file, without a sidecar of attributes nothing reads: each write of a paste creates as few
// files as it can.
func TestTheFilesystemStoreWritesOneFilePerObject(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"transcripts/org_a/tr_1/input", "transcripts/org_a/tr_1/content", "transcripts/org_a/tr_1/changes.json"}
	for _, k := range keys {
		if err := s.Put(t.Context(), k, []byte("text of "+k), "text/plain"); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	if err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(files) != len(keys) {
		t.Errorf("files in the store: %q, want one per object (%d)", files, len(keys))
	}
}
