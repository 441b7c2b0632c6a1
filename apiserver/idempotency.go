package apiserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/limits"
)

// HeaderIdempotencyKey and HeaderIdempotentReplayed are the idempotency headers of POSTs.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// inlineBodyLimit bounds a response body kept in the IdempotencyRecord itself; larger ones go
// to the object store.
const inlineBodyLimit = 4 << 10

// abandonedAfter is when a record in progress without a heartbeat (written by an older
// version) is taken for one whose server died: no request runs longer.
const abandonedAfter = 3 * time.Minute

// The heartbeat of a request in progress: renewed every heartbeatEvery, and taken for dead
// when older than staleAfter. A retry waits at most idempotencyWait for a request in progress
// before it answers 409, which is longer than staleAfter so that a retry after a crash resumes.
const (
	heartbeatEvery  = 3 * time.Second
	staleAfter      = 12 * time.Second
	idempotencyWait = 15 * time.Second
)

// IdempotencyRecordName returns the name of the record of key sent by org on route.
func IdempotencyRecordName(org, route, key string) string {
	sum := sha256.Sum256([]byte(org + "\x00" + route + "\x00" + key))
	return "idem-" + hex.EncodeToString(sum[:20])
}

// validIdempotencyKey accepts 1 to 255 printable ASCII characters.
func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// cacheable reports whether a response is recorded for replay: every executed request is,
// but not a server error or a timed-out wait (the spec tells clients to retry them, and a retry
// must get further), nor the refusals of malformed requests (400, 413, 415) or a 429, which a
// retry with the same key must be able to get past. What the request did before such an answer
// is not lost: the retry resumes it, with the same transcript id.
func cacheable(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusTooManyRequests,
		http.StatusGatewayTimeout:
		return false
	}
	return status < 500
}

// idemRun is the run of a request sent with an Idempotency-Key: it holds its record, renews
// its heartbeat and writes its outcome.
type idemRun struct {
	s            *Server
	name         string
	holder       string
	transcriptID string
	// resumed is true when an earlier run of the request may have made its effects.
	resumed bool

	mu  sync.Mutex
	rec *tcsv1.IdempotencyRecord
}

type idemRunKey struct{}

func runFrom(ctx context.Context) *idemRun {
	run, _ := ctx.Value(idemRunKey{}).(*idemRun)
	return run
}

// newTranscriptID returns the id of a transcript the request creates, and whether an earlier
// run of the same request may have created it already: with an Idempotency-Key it is the one
// recorded before the first run, so that a retry after a crash makes the same transcript.
func (s *Server) newTranscriptID(ctx context.Context) (string, bool) {
	if run := runFrom(ctx); run != nil && run.transcriptID != "" {
		return run.transcriptID, run.resumed
	}
	return ids.NewSortable("tr", s.now()), false
}

// requestRecord returns the name of the idempotency record of the request, or "" without one.
func requestRecord(ctx context.Context) string {
	if run := runFrom(ctx); run != nil {
		return run.name
	}
	return ""
}

// resumedRun reports whether an earlier run of the request may have made its effects.
func resumedRun(ctx context.Context) bool {
	run := runFrom(ctx)
	return run != nil && run.resumed
}

// errRecordLost says that another request took the record over.
var errRecordLost = errors.New("the idempotency record was taken over")

// update applies mutate to the record and writes it, as long as this run holds it.
func (run *idemRun) update(ctx context.Context, mutate func(*tcsv1.IdempotencyRecord)) error {
	run.mu.Lock()
	defer run.mu.Unlock()
	for attempt := 0; ; attempt++ {
		rec := run.rec.DeepCopy()
		mutate(rec)
		err := run.s.client.Update(ctx, rec)
		if err == nil {
			run.rec = rec
			return nil
		}
		if !apierrors.IsConflict(err) || attempt >= 5 {
			return err
		}
		fresh := &tcsv1.IdempotencyRecord{}
		if err := run.s.apiReader.Get(ctx, client.ObjectKeyFromObject(run.rec), fresh); err != nil {
			return err
		}
		if fresh.Status.Holder != run.holder {
			return errRecordLost
		}
		run.rec = fresh
	}
}

// heartbeat renews the record's heartbeat until stop is called.
func (run *idemRun) heartbeat(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(run.s.heartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			err := run.update(ctx, func(rec *tcsv1.IdempotencyRecord) {
				now := metav1.NewTime(run.s.now())
				rec.Status.HeartbeatAt = &now
			})
			if errors.Is(err, errRecordLost) {
				return
			}
			if err != nil && ctx.Err() == nil {
				run.s.log.Error(err, "renewing the heartbeat of an idempotency record", "record", run.name)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// idempotent makes a POST handler honour Idempotency-Key: within 24 hours a repeat of a key on
// the same route of the same organization gets the first response again, whatever its body.
//
// The record is written before the handler runs, with the id of the transcript the request
// will create, and its heartbeat is renewed while it runs. A repeat that finds the first run
// dead (its heartbeat stopped: the process was killed) or interrupted (a 500 or a timed-out
// wait, which are not replayed) runs the request again with the same transcript id; every
// handler treats what an earlier run made under that id as its own.
func (s *Server) idempotent(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, sent := r.Header[http.CanonicalHeaderKey(HeaderIdempotencyKey)]
		if !sent {
			next(w, r)
			return
		}
		if len(key) != 1 || !validIdempotencyKey(key[0]) {
			writeError(w, r, invalid(HeaderIdempotencyKey, "Idempotency-Key must be 1 to 255 printable ASCII characters, sent once."))
			return
		}
		ctx := r.Context()
		org := principalFrom(ctx).OrganizationID
		route := r.Method + " " + r.URL.Path
		keySum := sha256.Sum256([]byte(key[0]))
		run := &idemRun{s: s, name: IdempotencyRecordName(org, route, key[0]), holder: ids.Random(16)}
		now := metav1.NewTime(s.now())
		rec := &tcsv1.IdempotencyRecord{
			ObjectMeta: metav1.ObjectMeta{
				Name:      run.name,
				Namespace: s.namespace,
				Labels:    map[string]string{tcsv1.LabelOrganization: org},
			},
			Spec: tcsv1.IdempotencyRecordSpec{
				Organization: org, Route: route, KeyHash: hex.EncodeToString(keySum[:]),
				ExpiresAt:    metav1.NewTime(s.now().Add(limits.IdempotencyRetention)),
				TranscriptID: ids.NewSortable("tr", s.now()),
			},
			Status: tcsv1.IdempotencyRecordStatus{State: tcsv1.IdempotencyInProgress, Holder: run.holder, HeartbeatAt: &now, Attempts: 1},
		}
		for attempt := 0; run.rec == nil; attempt++ {
			err := s.client.Create(ctx, rec)
			if err == nil {
				run.rec = rec
				break
			}
			if !apierrors.IsAlreadyExists(err) || attempt > 2 {
				s.serverError(w, r, fmt.Errorf("recording an idempotency key: %w", err))
				return
			}
			prior, aerr := s.awaitRecord(ctx, run)
			switch {
			case aerr != nil:
				s.writeAPIError(w, r, aerr)
				return
			case prior == nil:
				continue // it expired: this request runs anew
			case prior.Status.State == tcsv1.IdempotencyCompleted:
				s.replay(w, r, prior)
				return
			}
			run.rec, run.resumed = prior, true // taken over from a dead or interrupted run
		}
		run.transcriptID = run.rec.Spec.TranscriptID

		stop := run.heartbeat(ctx)
		rw := &statusRecorder{ResponseWriter: w, body: &bytes.Buffer{}}
		done := false
		defer func() {
			if !done {
				// The handler panicked: let a retry with the key run again.
				stop()
				s.interrupt(context.WithoutCancel(ctx), run)
			}
		}()
		next(rw, r.WithContext(context.WithValue(ctx, idemRunKey{}, run)))
		done = true
		stop()
		s.record(context.WithoutCancel(ctx), run, rw)
	}
}

// awaitRecord waits a bounded time for the record of run's key held by another request. It
// returns the record completed (to replay), or taken over by run (when its request died or was
// interrupted), or nil when no record is in the way any more (expired and removed).
func (s *Server) awaitRecord(ctx context.Context, run *idemRun) (*tcsv1.IdempotencyRecord, *apiError) {
	deadline := time.Now().Add(s.idempotencyWait)
	for {
		rec := &tcsv1.IdempotencyRecord{}
		err := s.apiReader.Get(ctx, types.NamespacedName{Namespace: s.namespace, Name: run.name}, rec)
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, serverError(fmt.Errorf("reading an idempotency record: %w", err))
		}
		if !s.now().Before(rec.Spec.ExpiresAt.Time) {
			// An expired record no longer replays; remove it unless someone else did. Its
			// stored body goes first, so that a failure leaves the record to try again.
			if ref := rec.Status.BodyRef; ref != "" {
				if err := s.store.Delete(ctx, ref); err != nil {
					return nil, serverError(fmt.Errorf("removing the body of an expired idempotency record: %w", err))
				}
			}
			err := s.client.Delete(ctx, rec, client.Preconditions{ResourceVersion: &rec.ResourceVersion})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return nil, serverError(fmt.Errorf("removing an expired idempotency record: %w", err))
			}
			return nil, nil
		}
		if rec.Status.State == tcsv1.IdempotencyCompleted {
			return rec, nil
		}
		if rec.Status.State == tcsv1.IdempotencyInterrupted || s.dead(rec) {
			// Take it over; the resource version makes sure only one request does.
			now := metav1.NewTime(s.now())
			if rec.Spec.TranscriptID == "" {
				rec.Spec.TranscriptID = ids.NewSortable("tr", s.now())
			}
			rec.Status = tcsv1.IdempotencyRecordStatus{State: tcsv1.IdempotencyInProgress, Holder: run.holder,
				HeartbeatAt: &now, Attempts: rec.Status.Attempts + 1}
			err := s.client.Update(ctx, rec)
			switch {
			case err == nil:
				return rec, nil
			case !apierrors.IsConflict(err) && !apierrors.IsNotFound(err):
				return nil, serverError(fmt.Errorf("resuming an idempotency record: %w", err))
			}
			continue // someone else moved first: look again
		}
		if time.Now().After(deadline) {
			return nil, &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: HeaderIdempotencyKey,
				Message: "A request with this Idempotency-Key is still being processed; retry later."}
		}
		select {
		case <-ctx.Done():
			return nil, serverError(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// dead reports whether the request working on rec died: its heartbeat stopped.
func (s *Server) dead(rec *tcsv1.IdempotencyRecord) bool {
	if rec.Status.State != tcsv1.IdempotencyInProgress {
		return false
	}
	if rec.Status.HeartbeatAt == nil {
		return s.now().Sub(rec.CreationTimestamp.Time) > abandonedAfter
	}
	return s.now().Sub(rec.Status.HeartbeatAt.Time) > s.staleAfter
}

// interrupt leaves the record for a retry to resume.
func (s *Server) interrupt(ctx context.Context, run *idemRun) {
	err := run.update(ctx, func(rec *tcsv1.IdempotencyRecord) {
		rec.Status = tcsv1.IdempotencyRecordStatus{State: tcsv1.IdempotencyInterrupted, Attempts: rec.Status.Attempts}
	})
	if err != nil && !errors.Is(err, errRecordLost) {
		// The heartbeat stops, so a retry takes the record for a dead one's all the same.
		s.log.Error(err, "marking an idempotency record interrupted", "record", run.name)
	}
}

// record stores the response of the request for replay, or leaves the record for a retry to
// resume when the response is not one to replay.
func (s *Server) record(ctx context.Context, run *idemRun, rw *statusRecorder) {
	if rw.status == 0 && rw.body.Len() == 0 {
		s.interrupt(ctx, run) // the client went away before an answer
		return
	}
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	if !cacheable(rw.status) {
		s.interrupt(ctx, run)
		return
	}
	now := metav1.NewTime(s.now())
	status := tcsv1.IdempotencyRecordStatus{
		State: tcsv1.IdempotencyCompleted, StatusCode: rw.status,
		ContentType: rw.Header().Get("Content-Type"), CompletedAt: &now,
		RequestID: rw.Header().Get("X-Request-Id"),
	}
	if rw.body.Len() <= inlineBodyLimit {
		status.Body = rw.body.String()
	} else {
		status.BodyRef = "idempotency/" + run.rec.Spec.Organization + "/" + run.name
		if err := s.store.Put(ctx, status.BodyRef, rw.body.Bytes(), status.ContentType); err != nil {
			s.log.Error(err, "storing an idempotent response; a retry with the key runs again", "record", run.name)
			s.interrupt(ctx, run)
			return
		}
	}
	err := run.update(ctx, func(rec *tcsv1.IdempotencyRecord) {
		status.Attempts = rec.Status.Attempts
		rec.Status = status
	})
	if err != nil && !errors.Is(err, errRecordLost) {
		// The heartbeat has stopped: a retry takes the record over and resumes the request.
		s.log.Error(err, "recording an idempotent response; a retry with the key runs again", "record", run.name)
	}
}

// replay answers with a recorded response.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, rec *tcsv1.IdempotencyRecord) {
	body := []byte(rec.Status.Body)
	if rec.Status.BodyRef != "" {
		data, err := s.store.Get(r.Context(), rec.Status.BodyRef)
		if err != nil {
			s.serverError(w, r, fmt.Errorf("reading an idempotent response: %w", err))
			return
		}
		body = data
	}
	if rec.Status.ContentType != "" {
		w.Header().Set("Content-Type", rec.Status.ContentType)
	}
	w.Header().Set(HeaderIdempotentReplayed, "true")
	if rec.Status.RequestID != "" {
		// The recorded body names the first request; the header must agree with it.
		w.Header().Set("X-Request-Id", rec.Status.RequestID)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Status.StatusCode)
	_, _ = w.Write(body)
}
