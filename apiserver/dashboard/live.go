package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/apiview"
)

// progress is what the live stream sends about a transcript: its API status and jobs.
type progress struct {
	ID           string             `json:"id"`
	Status       tcsv1.Phase        `json:"status"`
	AIPassStatus tcsv1.AIPassStatus `json:"ai_pass_status"`
	Jobs         []apiview.Job      `json:"jobs"`
	Changes      int                `json:"changes"`
}

// hub fans the transcript watch out to the live streams of the organizations.
type hub struct {
	mu   sync.Mutex
	subs map[chan progress]string // → organization id
}

func newHub() *hub { return &hub{subs: map[chan progress]string{}} }

// start registers the hub on the transcript informer until ctx ends.
func (h *hub) start(ctx context.Context, c cache.Cache) error {
	inf, err := c.GetInformer(ctx, &tcsv1.Transcript{})
	if err != nil {
		return fmt.Errorf("watching transcripts: %w", err)
	}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    h.publish,
		UpdateFunc: func(_, obj any) { h.publish(obj) },
	})
	if err != nil {
		return fmt.Errorf("watching transcripts: %w", err)
	}
	<-ctx.Done()
	_ = inf.RemoveEventHandler(reg)
	return nil
}

func (h *hub) publish(obj any) {
	t, ok := obj.(*tcsv1.Transcript)
	if !ok || t.Status.DeletedAt != nil || t.Status.Phase == "" {
		return
	}
	view := apiview.NewTranscript(t, nil)
	p := progress{ID: view.ID, Status: view.Status, AIPassStatus: view.AIPassStatus, Jobs: []apiview.Job{}}
	if view.ChangesSummary != nil {
		p.Changes = view.ChangesSummary.Total
	}
	for i := range t.Status.Jobs {
		p.Jobs = append(p.Jobs, apiview.NewJob(t, &t.Status.Jobs[i]))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch, org := range h.subs {
		if org != t.Spec.Organization {
			continue
		}
		select {
		case ch <- p:
		default: // a slow reader misses an intermediate state, never the stream
		}
	}
}

func (h *hub) subscribe(org string) (<-chan progress, func()) {
	ch := make(chan progress, 64)
	h.mu.Lock()
	h.subs[ch] = org
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

// liveEvents streams the progress of the organization's transcripts as server-sent events.
func (d *Dashboard) liveEvents(w http.ResponseWriter, r *http.Request, v *view) {
	rc := http.NewResponseController(w)
	// A stream outlives the server's write time-out.
	_ = rc.SetWriteDeadline(time.Time{})
	ch, stop := d.live.subscribe(v.Org.OrganizationID)
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, "retry: 2000\n\n")
	_ = rc.Flush()
	ping := time.NewTicker(25 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
		case p := <-ch:
			data, err := json.Marshal(p)
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(w, "event: progress\ndata: %s\n\n", data); err != nil {
				return
			}
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
