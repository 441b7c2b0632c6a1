package blob

import (
	"context"
	"errors"
	"io"
	"testing"
)

func TestFilesystemStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, "file://"+dir+"/store")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	if _, err := s.Get(ctx, "transcripts/org_a/tr_x/content"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: err = %v, want ErrNotFound", err)
	}
	want := []byte("1 Corinthians 13:4 — love is patient\n")
	if err := s.Put(ctx, "transcripts/org_a/tr_x/content", want, "text/plain; charset=utf-8"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "transcripts/org_a/tr_x/content")
	if err != nil || string(got) != string(want) {
		t.Fatalf("Get = %q, %v; want %q", got, err, want)
	}
	r, err := s.NewReader(ctx, "transcripts/org_a/tr_x/content")
	if err != nil {
		t.Fatal(err)
	}
	streamed, _ := io.ReadAll(r)
	r.Close()
	if string(streamed) != string(want) {
		t.Fatalf("NewReader read %q", streamed)
	}
	if ok, err := s.Exists(ctx, "transcripts/org_a/tr_x/content"); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
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

	if err := s.Delete(ctx, "transcripts/org_a/tr_x/content"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "transcripts/org_a/tr_x/content"); err != nil {
		t.Fatalf("deleting a missing key: %v", err)
	}
	if ok, _ := s.Exists(ctx, "transcripts/org_a/tr_x/content"); ok {
		t.Fatal("object still exists after Delete")
	}
}

func TestOpenRejectsUnknownScheme(t *testing.T) {
	if _, err := Open(context.Background(), "gs://bucket"); err == nil {
		t.Fatal("Open accepted an unsupported scheme")
	}
}
