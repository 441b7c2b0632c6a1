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
	"time"

	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/results"
)

// HeaderIdempotencyKey and HeaderIdempotentReplayed are the idempotency headers of POSTs.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// The heartbeat of a request in progress: renewed every heartbeatEvery, and taken for dead
// when older than staleAfter. A retry waits at most idempotencyWait for a request in progress
// before it answers 409, which is longer than staleAfter so that a retry after a crash resumes.
const (
	heartbeatEvery  = 3 * time.Second
	staleAfter      = 12 * time.Second
	idempotencyWait = 15 * time.Second
)

// IdempotencyRecordName returns the name of the record of key sent by org on route: jobs a
// request queues carry it, so that a retry finds them.
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
	s   *Server
	key results.IdempotencyKey
	// name identifies the record in the jobs the request queues.
	name         string
	holder       string
	transcriptID string
	// resumed is true when an earlier run of the request may have made its effects.
	resumed bool
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
	return ids.NewSortable("tr", s.clock.Now()), false
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

// heartbeat renews the record's heartbeat until stop is called or another run took it over.
func (run *idemRun) heartbeat(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(run.s.idempotency.heartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			err := run.s.results.HeartbeatIdempotency(ctx, run.key, run.holder, run.s.clock.Now())
			if errors.Is(err, results.ErrNotHeld) {
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
// The record, in the results store, is claimed before the handler runs, with the id of the
// transcript the request will create, and its heartbeat is renewed while it runs. A repeat
// that finds the first run dead (its heartbeat stopped: the process was killed) or interrupted
// (a 500 or a timed-out wait, which are not replayed) runs the request again with the same
// transcript id; every handler treats what an earlier run made under that id as its own.
func (s *Server) idempotent(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key, sent := r.Header[http.CanonicalHeaderKey(HeaderIdempotencyKey)]
		if !sent {
			return next(w, r)
		}
		if len(key) != 1 || !validIdempotencyKey(key[0]) {
			return invalid(HeaderIdempotencyKey, "Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.")
		}
		if s.results == nil {
			return errors.New("idempotency keys need the results store, and the API server has none")
		}
		ctx := r.Context()
		org := principalFrom(ctx).OrganizationID
		route := r.Method + " " + r.URL.Path
		keySum := sha256.Sum256([]byte(key[0]))
		run := &idemRun{s: s, name: IdempotencyRecordName(org, route, key[0]), holder: ids.Random(16),
			key: results.IdempotencyKey{Organization: org, Route: route, KeyHash: hex.EncodeToString(keySum[:])}}
		held, prior, err := s.claim(ctx, run)
		switch {
		case err != nil:
			return err
		case prior != nil:
			s.replay(w, prior)
			return nil
		}
		run.transcriptID, run.resumed = held.TranscriptID, held.Resumed()
		s.idempotencyStep(ctx, "claimed", run.transcriptID)

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
		// The handler's error is answered here, so that its answer is recorded.
		s.handle(next)(rw, r.WithContext(context.WithValue(ctx, idemRunKey{}, run)))
		done = true
		stop()
		s.record(context.WithoutCancel(ctx), run, rw)
		return nil
	}
}

// claim makes run the holder of its key's record, waiting a bounded time for a run of the
// same request in progress elsewhere. It returns the record held, or the completed record of
// an earlier run to replay.
func (s *Server) claim(ctx context.Context, run *idemRun) (held, completed *results.IdempotencyRecord, err error) {
	deadline := time.Now().Add(s.idempotency.wait)
	for {
		now := s.clock.Now()
		held, prior, err := s.results.ClaimIdempotency(ctx, run.key, results.IdempotencyClaim{
			Holder: run.holder, TranscriptID: ids.NewSortable("tr", now),
			Now: now, ExpiresAt: now.Add(s.idempotency.retention), StaleBefore: now.Add(-s.idempotency.staleAfter),
		})
		switch {
		case err != nil:
			return nil, nil, fmt.Errorf("recording an idempotency key: %w", err)
		case held != nil:
			return held, nil, nil
		case prior.State == results.IdempotencyCompleted:
			return nil, prior, nil
		case time.Now().After(deadline):
			return nil, nil, &apiError{Status: http.StatusConflict, Type: ErrConflict, Param: HeaderIdempotencyKey,
				Message: "A request with this Idempotency-Key is still being processed; retry later."}
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// idempotencyStep calls the tests' hook after a step of an idempotent request.
func (s *Server) idempotencyStep(ctx context.Context, step, transcriptID string) {
	if s.hooks.afterIdempotencyStep != nil {
		s.hooks.afterIdempotencyStep(ctx, step, transcriptID)
	}
}

// interrupt leaves the record for a retry to resume.
func (s *Server) interrupt(ctx context.Context, run *idemRun) {
	err := s.results.InterruptIdempotency(ctx, run.key, run.holder)
	if err != nil && !errors.Is(err, results.ErrNotHeld) {
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
	resp := results.IdempotencyResponse{
		StatusCode: rw.status, ContentType: rw.Header().Get("Content-Type"),
		Body: rw.body.Bytes(), RequestID: rw.Header().Get("X-Request-Id"),
	}
	for _, h := range []string{"Cache-Control", "Location", "Retry-After", "ETag"} {
		if v := rw.Header().Get(h); v != "" {
			if resp.Headers == nil {
				resp.Headers = map[string]string{}
			}
			resp.Headers[h] = v
		}
	}
	err := s.results.CompleteIdempotency(ctx, run.key, run.holder, resp, s.clock.Now())
	if err != nil && !errors.Is(err, results.ErrNotHeld) {
		// The heartbeat has stopped: a retry takes the record over and resumes the request.
		s.log.Error(err, "recording an idempotent response; a retry with the key runs again", "record", run.name)
		return
	}
	s.idempotencyStep(ctx, "recorded", run.transcriptID)
}

// replay answers with a recorded response.
func (s *Server) replay(w http.ResponseWriter, rec *results.IdempotencyRecord) {
	resp := rec.Response
	for h, v := range resp.Headers {
		w.Header().Set(h, v)
	}
	if resp.ContentType != "" {
		w.Header().Set("Content-Type", resp.ContentType)
	}
	w.Header().Set(HeaderIdempotentReplayed, "true")
	if resp.RequestID != "" {
		// The recorded body names the first request; the header must agree with it.
		w.Header().Set("X-Request-Id", resp.RequestID)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(resp.Body)
}
