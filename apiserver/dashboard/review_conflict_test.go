package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// losingStatus is a client whose first status writes lose to another writer, as they do
// while the controllers write a transcript that just finished its AI check.
type losingStatus struct {
	client.Client
	mu   sync.Mutex
	lose int
}

func (c *losingStatus) Status() client.SubResourceWriter {
	return &losingWriter{SubResourceWriter: c.Client.Status(), c: c}
}

type losingWriter struct {
	client.SubResourceWriter
	c *losingStatus
}

func (w *losingWriter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	w.c.mu.Lock()
	lose := w.c.lose > 0
	w.c.lose--
	w.c.mu.Unlock()
	if lose {
		return apierrors.NewConflict(schema.GroupResource{Group: "tcs.dev", Resource: "transcripts"}, obj.GetName(), nil)
	}
	return w.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

// TestADecisionWhoseStatusWriteLosesIsRecordedNotCalledMoved is the walk of issue #23's
// "accept all the AI check confirmed": right after the AI check the controllers write the
// transcript, the status write of the decisions lost more often than it is retried at once,
// and the page was told that someone else had decided, with nothing recorded.
func TestADecisionWhoseStatusWriteLosesIsRecordedNotCalledMoved(t *testing.T) {
	e, id := startReview(t)
	capernum := changeOf(t, e, id, "capernum")
	// More than one UpdateStatus retries (retry.DefaultRetry: 5 tries), fewer than Decide's.
	e.svc.Client = &losingStatus{Client: e.svc.Client, lose: 7}
	rec := e.review(t, id, url.Values{"version": {"0"}, "action": {"accept"}, "change": {capernum.ID}})
	if want := "/dashboard/o/" + e.org + "/transcripts/" + id + "#c-" + capernum.ID; rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
		t.Fatalf("%d to %q, want 303 to %s:\n%s", rec.Code, rec.Header().Get("Location"), want, rec.Body)
	}
	if c := changeOf(t, e, id, "capernum"); !c.IsApplied() || c.Decision == nil {
		t.Fatalf("after accepting: %+v", c)
	}
}
