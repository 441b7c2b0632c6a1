package blob

import (
	"context"
	"errors"
	"testing"
)

// TestDeletePrefix checks that DeletePrefix removes every object under its prefix, however
// deep, and nothing beside it, on both backends.
func TestDeletePrefix(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := b.open(t)
			under := []string{"transcripts/org_a/tr_x/review/000001-ab/content", "transcripts/org_a/tr_x/review/000002-cd/changes.json"}
			beside := []string{"transcripts/org_a/tr_x/content", "transcripts/org_a/tr_x/reviewed", "transcripts/org_a/tr_y/review/000001-ab/content"}
			for _, k := range append(under, beside...) {
				if err := s.Put(ctx, k, []byte(k), "text/plain"); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.DeletePrefix(ctx, "transcripts/org_a/tr_x/review/"); err != nil {
				t.Fatal(err)
			}
			for _, k := range under {
				if _, err := s.Get(ctx, k); !errors.Is(err, ErrNotFound) {
					t.Errorf("%s after DeletePrefix: %v, want ErrNotFound", k, err)
				}
			}
			for _, k := range beside {
				if got, err := s.Get(ctx, k); err != nil || string(got) != k {
					t.Errorf("%s beside the prefix: %q, %v", k, got, err)
				}
			}
			if err := s.DeletePrefix(ctx, "transcripts/org_a/tr_x/review/"); err != nil {
				t.Errorf("DeletePrefix of nothing: %v", err)
			}
			if err := s.DeletePrefix(ctx, "transcripts/org_a/tr_x"); err == nil {
				t.Error("DeletePrefix of a prefix without a final / is accepted")
			}
		})
	}
}
