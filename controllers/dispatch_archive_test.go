package controllers

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	iwebhook "tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/tooling/apicount"
)

// TestADispatchedTranscriptIsArchivedWithoutAMarkOfItsEvents checks that, with the archiver
// on, the dispatcher writes nothing to a transcript whose deliveries it made (at their first
// attempt, or none when no endpoint subscribes): the archiver, told by the dispatcher, marks
// it at once (not an archive-after later), and no read of the API server follows the mark.
// A paste then costs the API server its create, its status, and the archiver's mark.
func TestADispatchedTranscriptIsArchivedWithoutAMarkOfItsEvents(t *testing.T) {
	for _, tc := range []struct {
		name       string
		subscribed bool
	}{
		{"an endpoint answering at once", true},
		{"no endpoint", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := iwebhook.NewSecret()
			rc := newReceiver(t, secret)
			rs := openResults(t)
			opts := inlineOptions(rs)
			opts.archive = true
			h, _ := startWebhooks(t, rc, opts)
			org := "org_a"
			if tc.subscribed {
				h.endpoint(t, org, rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
			} else {
				// An endpoint of another organization receives nothing of org_a's.
				h.endpoint(t, "org_b", rc.srv.URL, secret, tcsv1.EventTranscriptCreated, tcsv1.EventTranscriptCompleted)
			}
			// The test's own reads of the transcript are counted, to tell the controllers' apart.
			own := &countingGets{Client: h.c}
			h.c = own
			before := readCounts(t)
			tr := h.transcript(t, org)
			h.pending(t, tr)
			h.complete(t, tr, "text\n")
			cur := &tcsv1.Transcript{}
			waitUntil(t, "the transcript marked archived", func() bool {
				err := h.c.Get(t.Context(), client.ObjectKeyFromObject(tr), cur)
				return err == nil && cur.Labels[tcsv1.LabelArchived] == "true"
			})
			want := 0
			if tc.subscribed {
				want = 2
			}
			if n := len(records(t, rs, tr.Spec.ID)); n != want {
				t.Fatalf("%d deliveries recorded, want %d", n, want)
			}
			if got := len(rc.requests()); got != want {
				t.Fatalf("the receiver got %d requests, want %d", got, want)
			}
			// A read after the mark would come at once, when the cache lets the transcript go.
			time.Sleep(500 * time.Millisecond)
			got := readCounts(t).Since(before)
			transcripts := func(sub string, verbs ...string) int64 {
				var n int64
				for _, v := range verbs {
					n += got[apicount.Key{Group: tcsv1.GroupVersion.Group, Resource: "transcripts", Subresource: sub, Verb: v}]
				}
				return n
			}
			// The test's own: the create, and the two status updates to pending and completed.
			if n := transcripts("status", apicount.Writes...); n != 2 {
				t.Errorf("%d status writes of the transcript, want the test's 2 (all requests: %v)", n, got)
			}
			if n := transcripts("", apicount.Writes...); n != 2 {
				t.Errorf("%d writes of the transcript, want the test's create and the archiver's mark (all requests: %v)", n, got)
			}
			if n := transcripts("", "GET") - own.n.Load(); n != 0 {
				t.Errorf("%d reads of the transcript at the API server besides the test's %d, want none (all requests: %v)", n, own.n.Load(), got)
			}
			if !allUndispatched(cur) {
				t.Errorf("events %+v: want them left as emitted", cur.Status.EmittedEvents)
			}
		})
	}
}

// readCounts returns the requests the control plane's kube-apiserver has served so far.
func readCounts(t *testing.T) apicount.Counts {
	t.Helper()
	c, err := apicount.Read(t.Context(), env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// allUndispatched reports whether tr has events and none is marked dispatched.
func allUndispatched(tr *tcsv1.Transcript) bool {
	for _, e := range tr.Status.EmittedEvents {
		if e.Dispatched {
			return false
		}
	}
	return len(tr.Status.EmittedEvents) > 0
}

// countingGets is a client that counts its reads of Transcripts.
type countingGets struct {
	client.Client
	n atomic.Int64
}

func (c *countingGets) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*tcsv1.Transcript); ok {
		c.n.Add(1)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}
