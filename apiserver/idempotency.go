package apiserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
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

// abandonedAfter is when a record still in progress is taken for one whose server died: no
// request runs longer (the synchronous wait is at most 60 s).
const abandonedAfter = 3 * time.Minute

// idempotencyWait bounds how long a request waits for a concurrent one with the same key.
const idempotencyWait = 10 * time.Second

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
// but not the refusals of malformed requests (400, 413, 415) nor a 429, which a retry with the
// same key must be able to get past.
func cacheable(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusTooManyRequests:
		return false
	}
	return true
}

// idempotent makes a POST handler honour Idempotency-Key: within 24 hours a repeat of a key on
// the same route of the same organization gets the first response again, whatever its body.
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
		rec := &tcsv1.IdempotencyRecord{
			ObjectMeta: metav1.ObjectMeta{
				Name:      IdempotencyRecordName(org, route, key[0]),
				Namespace: s.namespace,
				Labels:    map[string]string{tcsv1.LabelOrganization: org},
			},
			Spec: tcsv1.IdempotencyRecordSpec{
				Organization: org, Route: route, KeyHash: hex.EncodeToString(keySum[:]),
				ExpiresAt: metav1.NewTime(s.now().Add(limits.IdempotencyRetention)),
			},
			Status: tcsv1.IdempotencyRecordStatus{State: tcsv1.IdempotencyInProgress},
		}
		for attempt := 0; ; attempt++ {
			err := s.client.Create(ctx, rec)
			if err == nil {
				break
			}
			if !apierrors.IsAlreadyExists(err) || attempt > 0 {
				s.serverError(w, r, fmt.Errorf("recording an idempotency key: %w", err))
				return
			}
			prior, aerr := s.awaitRecord(ctx, rec.Name)
			switch {
			case aerr != nil:
				s.writeAPIError(w, r, aerr)
				return
			case prior == nil:
				continue // it expired or was given up: this request runs
			}
			s.replay(w, r, prior)
			return
		}

		rw := &statusRecorder{ResponseWriter: w, body: &bytes.Buffer{}}
		done := false
		defer func() {
			if !done {
				// The handler panicked: let a retry with the key run again.
				_ = s.client.Delete(context.WithoutCancel(ctx), rec)
			}
		}()
		next(rw, r)
		done = true
		s.record(context.WithoutCancel(ctx), rec, rw)
	}
}

// awaitRecord returns the completed record name, waiting a bounded time for one in progress; it
// returns nil when no record is in the way any more (expired and removed).
func (s *Server) awaitRecord(ctx context.Context, name string) (*tcsv1.IdempotencyRecord, *apiError) {
	deadline := time.Now().Add(idempotencyWait)
	for {
		rec := &tcsv1.IdempotencyRecord{}
		err := s.apiReader.Get(ctx, types.NamespacedName{Namespace: s.namespace, Name: name}, rec)
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, serverError(fmt.Errorf("reading an idempotency record: %w", err))
		}
		abandoned := rec.Status.State != tcsv1.IdempotencyCompleted && s.now().Sub(rec.CreationTimestamp.Time) > abandonedAfter
		if abandoned || !s.now().Before(rec.Spec.ExpiresAt.Time) {
			// An expired record no longer replays, and one whose request died with its process
			// never completes; remove it unless someone else did.
			err := s.client.Delete(ctx, rec, client.Preconditions{ResourceVersion: &rec.ResourceVersion})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return nil, serverError(fmt.Errorf("removing an expired idempotency record: %w", err))
			}
			return nil, nil
		}
		if rec.Status.State == tcsv1.IdempotencyCompleted {
			return rec, nil
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

// record stores the response of the first request, or drops the record when the response is
// not one to replay.
func (s *Server) record(ctx context.Context, rec *tcsv1.IdempotencyRecord, rw *statusRecorder) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	if !cacheable(rw.status) {
		if err := s.client.Delete(ctx, rec); err != nil && !apierrors.IsNotFound(err) {
			s.log.Error(err, "dropping an idempotency record", "record", rec.Name)
		}
		return
	}
	now := metav1.NewTime(s.now())
	rec.Status = tcsv1.IdempotencyRecordStatus{
		State: tcsv1.IdempotencyCompleted, StatusCode: rw.status,
		ContentType: rw.Header().Get("Content-Type"), CompletedAt: &now,
		RequestID: rw.Header().Get("X-Request-Id"),
	}
	if rw.body.Len() <= inlineBodyLimit {
		rec.Status.Body = rw.body.String()
	} else {
		rec.Status.BodyRef = "idempotency/" + rec.Spec.Organization + "/" + rec.Name
		if err := s.store.Put(ctx, rec.Status.BodyRef, rw.body.Bytes(), rec.Status.ContentType); err != nil {
			s.log.Error(err, "storing an idempotent response; the key will run again", "record", rec.Name)
			_ = s.client.Delete(ctx, rec)
			return
		}
	}
	if err := s.client.Update(ctx, rec); err != nil {
		s.log.Error(err, "recording an idempotent response; the key will run again", "record", rec.Name)
		_ = s.client.Delete(ctx, rec)
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
