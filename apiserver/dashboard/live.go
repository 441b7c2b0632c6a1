package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/transcripts"
)

// progress is what the live stream sends about a transcript: its API status and jobs.
type progress struct {
	ID           string             `json:"id"`
	Status       tcsv1.Phase        `json:"status"`
	AIPassStatus tcsv1.AIPassStatus `json:"ai_pass_status"`
	Jobs         []apiview.Job      `json:"jobs"`
	Changes      int                `json:"changes"`
	// StatusText and AIPassText are Status and AIPassStatus in the words staff read (say).
	StatusText string `json:"status_text"`
	AIPassText string `json:"ai_pass_text"`
}

// streamLimits bound the live streams open at once.
type streamLimits struct {
	perSession, perOrg, total int
}

// maxPendingProgress bounds the transcripts whose latest state a stream holds unsent.
const maxPendingProgress = 4096

// subscriber is one open live stream.
type subscriber struct {
	org, session, email string
	// pending holds, under the hub's lock, the latest state of each transcript not sent yet, in
	// the order they first changed: a slow reader skips intermediate states, never the last
	// one. ready tells the stream there is something to send.
	pending map[string]progress
	order   []string
	ready   chan struct{}
	// recheck asks the stream to check its member's membership again (the organization changed).
	recheck chan struct{}
	// ended is closed, and gone set under the hub's lock, when this replica removed the member
	// from the organization: from then on the stream is sent nothing.
	ended chan struct{}
	gone  bool
}

// hub fans the transcript watch out to the live streams of the organizations, and the
// organization watch out to the streams that must check their membership again.
type hub struct {
	lim streamLimits
	mu  sync.Mutex
	// subs are the open streams; perSession and perOrg count them.
	subs       map[*subscriber]struct{}
	perSession map[string]int
	perOrg     map[string]int
}

func newHub(lim streamLimits) *hub {
	return &hub{lim: lim, subs: map[*subscriber]struct{}{}, perSession: map[string]int{}, perOrg: map[string]int{}}
}

// start registers the hub on the transcript and organization informers until ctx ends.
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
	defer func() { _ = inf.RemoveEventHandler(reg) }()
	orgInf, err := c.GetInformer(ctx, &tcsv1.Organization{})
	if err != nil {
		return fmt.Errorf("watching organizations: %w", err)
	}
	orgReg, err := orgInf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { h.organizationChanged(obj) },
		DeleteFunc: h.organizationChanged,
	})
	if err != nil {
		return fmt.Errorf("watching organizations: %w", err)
	}
	defer func() { _ = orgInf.RemoveEventHandler(orgReg) }()
	<-ctx.Done()
	return nil
}

func (h *hub) publish(obj any) {
	t, ok := obj.(*tcsv1.Transcript)
	if !ok || t.Status.DeletedAt != nil || t.Status.Phase == "" {
		return
	}
	view := apiview.NewTranscript(t, nil)
	p := progress{ID: view.ID, Status: view.Status, AIPassStatus: view.AIPassStatus, Jobs: []apiview.Job{},
		StatusText: say(wordStatus, view.Status), AIPassText: say(wordAIPass, view.AIPassStatus)}
	if view.ChangesSummary != nil {
		p.Changes = view.ChangesSummary.Total
	}
	for i := range t.Status.Jobs {
		p.Jobs = append(p.Jobs, apiview.NewJob(t, &t.Status.Jobs[i]))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		if !transcripts.Belongs(sub.org, t) || sub.gone {
			continue
		}
		if _, ok := sub.pending[p.ID]; !ok {
			if len(sub.pending) >= maxPendingProgress {
				continue // the page reads itself again when its stream reopens
			}
			sub.order = append(sub.order, p.ID)
		}
		sub.pending[p.ID] = p
		select {
		case sub.ready <- struct{}{}:
		default: // the stream is told already
		}
	}
}

// take returns the states sub holds unsent, oldest change first, and empties it.
func (h *hub) take(sub *subscriber) []progress {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]progress, 0, len(sub.order))
	for _, id := range sub.order {
		out = append(out, sub.pending[id])
	}
	clear(sub.pending)
	sub.order = sub.order[:0]
	return out
}

// organizationChanged asks the streams of the organization obj to check their membership.
func (h *hub) organizationChanged(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	o, ok := obj.(*tcsv1.Organization)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		if sub.org == o.Spec.ID {
			select {
			case sub.recheck <- struct{}{}:
			default: // one is already pending
			}
		}
	}
}

// errTooManyStreams says that a new stream would go beyond a limit of the hub.
var errTooManyStreams = errors.New("too many live streams")

// endMember ends the streams of email in organization org at once: the member was removed
// here, so no event published after the removal reaches them. (Streams on other replicas end
// when their check of the membership sees the removal.)
func (h *hub) endMember(org, email string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		if sub.org == org && strings.EqualFold(sub.email, email) && !sub.gone {
			sub.gone = true
			close(sub.ended)
		}
	}
}

// subscribe opens a stream of organization org for the session of email, within the hub's
// limits.
func (h *hub) subscribe(org, session, email string) (*subscriber, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.perSession[session] >= h.lim.perSession:
		return nil, nil, fmt.Errorf("%w: this session has %d open, the most allowed", errTooManyStreams, h.lim.perSession)
	case h.perOrg[org] >= h.lim.perOrg:
		return nil, nil, fmt.Errorf("%w: this organization has %d open, the most allowed", errTooManyStreams, h.lim.perOrg)
	case len(h.subs) >= h.lim.total:
		return nil, nil, fmt.Errorf("%w: the service has %d open, the most it serves", errTooManyStreams, h.lim.total)
	}
	sub := &subscriber{org: org, session: session, email: email, pending: map[string]progress{}, ready: make(chan struct{}, 1),
		recheck: make(chan struct{}, 1), ended: make(chan struct{})}
	h.subs[sub] = struct{}{}
	h.perSession[session]++
	h.perOrg[org]++
	return sub, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs, sub)
		if h.perSession[session]--; h.perSession[session] <= 0 {
			delete(h.perSession, session)
		}
		if h.perOrg[org]--; h.perOrg[org] <= 0 {
			delete(h.perOrg, org)
		}
	}, nil
}

// open returns the number of open streams.
func (h *hub) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// liveEvents streams the progress of the organization's transcripts as server-sent events.
// A session may hold limits.MaxLiveStreamsPerSession streams, an organization
// limits.MaxLiveStreamsPerOrganization and the process limits.MaxLiveStreams; each event must
// be written within limits.LiveWriteTimeout; and the stream ends once its member no longer
// belongs to the organization, which it checks with a read from the API server every
// limits.LiveMembershipRecheck and on every change of the organization.
func (d *Dashboard) liveEvents(w http.ResponseWriter, r *http.Request, v *view) {
	sub, stop, err := d.live.subscribe(v.Org.OrganizationID, v.Session.Token, v.Session.Email)
	if err != nil {
		w.Header().Set("Retry-After", "30")
		d.fail(w, r, http.StatusTooManyRequests, "Live progress is not available: "+strings.TrimPrefix(err.Error(), errTooManyStreams.Error()+": ")+". Close other dashboard tabs, or reload this page later.")
		return
	}
	defer stop()
	rc := http.NewResponseController(w)
	// write sends one event within the write time-out; the stream otherwise outlives the
	// server's write time-out.
	write := func(format string, args ...any) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(d.liveWriteTimeout)); err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if !write("retry: 2000\n\n") {
		return
	}
	ping := time.NewTicker(25 * time.Second)
	defer ping.Stop()
	recheck := time.NewTicker(d.liveRecheck)
	defer recheck.Stop()
	for {
		ok := true
		select {
		case <-r.Context().Done():
			return
		case <-sub.ended:
			return
		case <-ping.C:
			ok = write(": ping\n\n")
		case <-recheck.C:
			ok = d.stillMember(r.Context(), v)
		case <-sub.recheck:
			ok = d.stillMember(r.Context(), v)
		case <-sub.ready:
			for _, p := range d.live.take(sub) {
				data, err := json.Marshal(p)
				if ok = err == nil && write("event: progress\ndata: %s\n\n", data); !ok {
					break
				}
			}
		}
		if !ok {
			return
		}
	}
}

// stillMember reports whether the member of v's session still belongs to v's organization,
// read from the API server. Only a definite answer ends a stream: a failed read keeps it until
// the next check.
func (d *Dashboard) stillMember(ctx context.Context, v *view) bool {
	_, err := d.liveRole(ctx, v.Org.OrganizationID, v.Session.Email)
	if errors.Is(err, accounts.ErrNotFound) {
		return false
	}
	if err != nil && ctx.Err() == nil {
		d.o.Log.Error(err, "checking the membership of a live stream", "organization", v.Org.OrganizationID)
	}
	return true
}
