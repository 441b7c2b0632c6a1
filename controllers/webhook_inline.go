package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// DefaultDispatchWorkers is the number of transcripts the dispatcher handles at once by default.
const DefaultDispatchWorkers = 32

// DefaultInlineSends is the number of first attempts the dispatcher makes at once by default:
// fewer than its workers, so that receivers slow to answer never hold all of them.
const DefaultInlineSends = 24

// inlineSlotWait is how long a delivery waits for an inline slot before it is made for the
// delivery controller to send.
const inlineSlotWait = 50 * time.Millisecond

// InlineSlowAttempt is how long an inline attempt may take before its endpoint's next
// deliveries go through the delivery controller for InlineBackoff, like after a failure.
const InlineSlowAttempt = time.Second

// InlineBackoff is how long after a failed or slow inline attempt the deliveries to its
// endpoint are made without one, for the delivery controller to send.
const InlineBackoff = 30 * time.Second

// recentTTL is how long the dispatcher remembers the deliveries it created, which its cache
// may not show yet.
const recentTTL = time.Minute

// inlineVersion is the version of the record of a delivery that succeeded inline: any later
// record of it (the archiving of a replay) has its resource's version, which is larger.
const inlineVersion = 1

// dispatchRun is what one reconcile of the dispatcher learned so far: the streams whose
// later deliveries must be made without an attempt, since an earlier one was (their order is
// the delivery controller's to keep), and the signing secrets read.
type dispatchRun struct {
	queued  map[string]bool
	secrets map[string][2]string
	// recorded tells whether a delivery was recorded in the results store, which no
	// resource's change shows.
	recorded bool
}

func newDispatchRun() *dispatchRun {
	return &dispatchRun{queued: map[string]bool{}, secrets: map[string][2]string{}}
}

// inlineState is what the dispatcher keeps between reconciles: the deliveries it created in
// the last recentTTL, which its cache may not show yet, and the endpoints whose deliveries
// go without an inline attempt until a time.
type inlineState struct {
	mu   sync.Mutex
	made map[string]recentDelivery
	// streams holds the names in made by stream key, so that a stream's are found without
	// reading all of them: a burst makes thousands in a minute.
	streams   map[string]map[string]struct{}
	pruned    time.Time
	backedOff map[string]time.Time
	// inFlight holds the start of each inline attempt under way, by endpoint and delivery.
	inFlight map[string]map[string]time.Time
}

// recentDelivery is a delivery the dispatcher created and when.
type recentDelivery struct {
	d  *tcsv1.WebhookDelivery
	at time.Time
}

func newInlineState() *inlineState {
	return &inlineState{made: map[string]recentDelivery{}, streams: map[string]map[string]struct{}{},
		backedOff: map[string]time.Time{}, inFlight: map[string]map[string]time.Time{}}
}

// add remembers d, created at now.
func (s *inlineState) add(d *tcsv1.WebhookDelivery, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.pruned) > recentTTL/4 {
		for name, m := range s.made {
			if now.Sub(m.at) > recentTTL {
				delete(s.made, name)
				key := streamKey(m.d)
				delete(s.streams[key], name)
				if len(s.streams[key]) == 0 {
					delete(s.streams, key)
				}
			}
		}
		for ep, until := range s.backedOff {
			if now.After(until) {
				delete(s.backedOff, ep)
			}
		}
		s.pruned = now
	}
	s.made[d.Name] = recentDelivery{d: d.DeepCopy(), at: now}
	key := streamKey(d)
	if s.streams[key] == nil {
		s.streams[key] = map[string]struct{}{}
	}
	s.streams[key][d.Name] = struct{}{}
}

// created reports whether the delivery named name was created in the last recentTTL.
func (s *inlineState) created(name string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.made[name]
	return ok && now.Sub(m.at) <= recentTTL
}

// stream returns the deliveries of the stream key created in the last recentTTL.
func (s *inlineState) stream(key string, now time.Time) []*tcsv1.WebhookDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*tcsv1.WebhookDelivery
	for name := range s.streams[key] {
		if m := s.made[name]; now.Sub(m.at) <= recentTTL {
			out = append(out, m.d)
		}
	}
	return out
}

// backOff makes the deliveries to endpoint go without an inline attempt until until.
func (s *inlineState) backOff(endpoint string, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.backedOff[endpoint] = until
}

// backingOff reports whether the deliveries to endpoint go without an inline attempt at now:
// after a failed or slow attempt, and while one has been under way for InlineSlowAttempt.
func (s *inlineState) backingOff(endpoint string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, start := range s.inFlight[endpoint] {
		if now.Sub(start) > InlineSlowAttempt {
			return true
		}
	}
	return now.Before(s.backedOff[endpoint])
}

// begin records the start, at now, of the inline attempt of delivery id to endpoint; the
// returned end records its end.
func (s *inlineState) begin(endpoint, id string, now time.Time) (end func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[endpoint] == nil {
		s.inFlight[endpoint] = map[string]time.Time{}
	}
	s.inFlight[endpoint][id] = now
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.inFlight[endpoint], id)
		if len(s.inFlight[endpoint]) == 0 {
			delete(s.inFlight, endpoint)
		}
	}
}

// sendInline makes the first attempt of the new delivery d to ep, with the payload stored
// at d.Spec.PayloadRef (payload, when not nil), when the dispatcher may: inline sending is on
// and deliveries are archived, the endpoint is not paused nor backing off, its URL is not
// refused, no earlier delivery of the stream waits for its first attempt, and an inline slot
// is free. It returns false when it made no attempt: d is then made for the delivery
// controller to send.
func (r *WebhookDispatchReconciler) sendInline(ctx context.Context, d *tcsv1.WebhookDelivery, ep *tcsv1.WebhookEndpoint, payload []byte, run *dispatchRun) (madeAttempt, bool, error) {
	in := r.Inline
	now := r.Clock.Now()
	if in == nil || !in.archiving() || ep.Spec.Paused || run.queued[streamKey(d)] ||
		r.inline.backingOff(ep.Name, now) || in.checkURL(ep.Spec.URL) != "" {
		return madeAttempt{}, false, nil
	}
	if blocked, err := r.streamBlocked(ctx, d, now); err != nil || blocked {
		return madeAttempt{}, false, err
	}
	wait := time.NewTimer(inlineSlotWait)
	defer wait.Stop()
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-wait.C:
		return madeAttempt{}, false, nil
	case <-ctx.Done():
		return madeAttempt{}, false, ctx.Err()
	}
	if payload == nil {
		var err error
		if payload, err = r.Store.Get(ctx, d.Spec.PayloadRef); err != nil {
			return madeAttempt{}, false, fmt.Errorf("reading the payload of %s: %w", d.Spec.ID, err)
		}
	}
	secrets, ok := run.secrets[ep.Name]
	if !ok {
		current, previous, err := in.secrets(ctx, ep)
		if err != nil {
			// The delivery controller reads it again, and retries, and reports.
			log.FromContext(ctx).Info("sending a delivery through the delivery controller", "delivery", d.Spec.ID, "error", err.Error())
			return madeAttempt{}, false, nil
		}
		secrets = [2]string{current, previous}
		run.secrets[ep.Name] = secrets
	}
	end := r.inline.begin(ep.Name, d.Spec.ID, r.Clock.Now())
	made := in.attempt(ctx, ep, d.Spec.Event, d.Spec.ID, secrets[0], secrets[1], payload)
	end()
	if r.afterSend != nil {
		r.afterSend(d.Spec.ID)
	}
	if made.Error != "" || made.End.Sub(made.Time.Time) > InlineSlowAttempt {
		r.inline.backOff(ep.Name, made.End.Add(InlineBackoff))
	}
	return made, true, nil
}

// streamBlocked reports whether an earlier delivery of d's stream waits for its first
// attempt: in the cache, or created by the dispatcher a moment ago.
func (r *WebhookDispatchReconciler) streamBlocked(ctx context.Context, d *tcsv1.WebhookDelivery, now time.Time) (bool, error) {
	return earlierWaiting(ctx, r.Client, d, r.inline.stream(streamKey(d), now))
}

// recordInline writes the record of d, delivered at its first attempt made, to the results
// store, as an ended and archived delivery that never was a resource.
func (r *WebhookDispatchReconciler) recordInline(ctx context.Context, d *tcsv1.WebhookDelivery, made madeAttempt) error {
	d.CreationTimestamp = metav1.NewTime(made.Time.Time)
	r.Inline.record(d, made)
	if _, err := r.Inline.Results.PutDelivery(ctx, d, inlineVersion); err != nil {
		return fmt.Errorf("recording delivery %s, delivered: %w", d.Spec.ID, err)
	}
	// The next reconciles of the transcript, until its events are marked dispatched, need
	// not read the record again.
	r.inline.add(d, r.Clock.Now())
	r.Inline.announce(ctx, d, &made.DeliveryAttempt)
	return nil
}

// withFirstAttempt marks d with the attempt made, for the delivery controller to record.
func withFirstAttempt(d *tcsv1.WebhookDelivery, made madeAttempt) error {
	v, err := json.Marshal(made)
	if err != nil {
		return fmt.Errorf("encoding the first attempt of %s: %w", d.Spec.ID, err)
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[tcsv1.AnnotationFirstAttempt] = string(v)
	return nil
}
