package client_test

import (
	"context"
	"os"
	"testing"
	"time"

	"tcs.dev/tcs/pkg/client"
)

// TestDecideAndTheReviewFilters checks the client's review: Decide with a version, the review
// fields, and the needs_review and decided filters of the lists.
func TestDecideAndTheReviewFilters(t *testing.T) {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.CreatePaste(ctx, client.PasteRequest{Content: "They sailed past capernum and the Revelations.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Review == nil || tr.Review.Version != 0 || tr.Review.Undecided == 0 {
		t.Fatalf("review of a new transcript with suggestions: %+v", tr.Review)
	}
	// listed reports whether the transcript is in the list that needs_review selects, once
	// the list shows it so (the list is read from a cache).
	listed := func(needsReview bool, want bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			found := false
			for got, err := range c.Transcripts(ctx, client.TranscriptFilter{Status: client.StatusCompleted, NeedsReview: &needsReview}, 100) {
				if err != nil {
					t.Fatal(err)
				}
				if got.ID == tr.ID {
					found = true
				}
			}
			if found == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("needs_review=%t: listed %t, want %t", needsReview, found, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	listed(true, true)
	listed(false, false)

	var decisions []client.Decision
	yes, no := true, false
	for ch, err := range c.Changes(ctx, tr.ID, client.ChangeFilter{Decided: &no}, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Decision != nil {
			t.Fatalf("decided=false listed %+v", ch)
		}
		decisions = append(decisions, client.Decision{ChangeID: ch.ID, Action: client.ActionAccept})
	}
	version := tr.Review.Version
	tr, err = c.Decide(ctx, tr.ID, client.DecideRequest{ReviewVersion: &version, Decisions: decisions}, client.IdempotencyKey("decide-"+tr.ID))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Review.Version != 1 || tr.Review.Undecided != 0 || tr.Review.Decided != len(decisions) || tr.Review.LastDecidedBy == nil || tr.Review.LastDecidedAt == nil {
		t.Fatalf("review after the decisions: %+v", tr.Review)
	}
	if want := "They sailed past Capernaum and the Revelation.\n"; *tr.Content != want {
		t.Fatalf("content %q, want %q", *tr.Content, want)
	}
	n := 0
	for ch, err := range c.Changes(ctx, tr.ID, client.ChangeFilter{Decided: &yes}, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Decision == nil || ch.Decision.Action != client.ActionAccept || ch.Decision.By != *tr.Review.LastDecidedBy || !ch.Applied {
			t.Fatalf("decided change %+v", ch)
		}
		n++
	}
	if n != len(decisions) {
		t.Fatalf("%d decided changes, want %d", n, len(decisions))
	}
	listed(true, false)
	listed(false, true)
}
