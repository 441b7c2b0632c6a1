package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// IdempotencyState is the state of a request sent with an Idempotency-Key.
type IdempotencyState string

// The states of a recorded request. A request in progress renews its heartbeat; one whose
// heartbeat stopped died with its process. An interrupted request ended without a response to
// replay (a 500, a 504, a refusal to retry): the next request with the key runs again, resuming
// what the first one did with the same transcript id.
const (
	IdempotencyInProgress  IdempotencyState = "in_progress"
	IdempotencyCompleted   IdempotencyState = "completed"
	IdempotencyInterrupted IdempotencyState = "interrupted"
)

// ErrNotHeld is returned (wrapped) when a run of a request changes the record of its key after
// another run took the record over, or after it was completed, interrupted or removed.
var ErrNotHeld = errors.New("the idempotency record is not held by this run")

// IdempotencyKey identifies one request sent with an Idempotency-Key.
type IdempotencyKey struct {
	Organization string
	// Route is the method and path, e.g. "POST /api/v1/transcripts".
	Route string
	// KeyHash is the SHA-256 (hex) of the Idempotency-Key; the key itself is not kept.
	KeyHash string
}

// IdempotencyRecord is a request made with an Idempotency-Key: the run working on it and,
// once completed, its response.
type IdempotencyRecord struct {
	Key   IdempotencyKey
	State IdempotencyState
	// TranscriptID is the id a transcript made by the request gets; it is chosen before the
	// request runs, so that a retry of a run that died makes the same transcript.
	TranscriptID string
	// Holder identifies the run working on the request; empty once it ended.
	Holder string
	// HeartbeatAt is renewed by the run in progress.
	HeartbeatAt time.Time
	// Attempts counts the runs of the request: more than one when a retry resumed it.
	Attempts int
	// Response is the first response; zero until the request completed.
	Response IdempotencyResponse
	// CreatedAt is when the first run claimed the key.
	CreatedAt time.Time
	// CompletedAt is when the response was recorded; nil until then.
	CompletedAt *time.Time
	// ExpiresAt is when the record stops replaying.
	ExpiresAt time.Time
}

// Resumed reports whether an earlier run of the request may have made its effects.
func (r *IdempotencyRecord) Resumed() bool { return r.Attempts > 1 }

// IdempotencyResponse is a recorded response.
type IdempotencyResponse struct {
	StatusCode  int
	ContentType string
	// Headers are the other headers the response is replayed with.
	Headers map[string]string
	Body    []byte
	// RequestID is the X-Request-Id of the request that made the response.
	RequestID string
}

// IdempotencyClaim is a run of a request that claims the record of its key.
type IdempotencyClaim struct {
	// Holder identifies the run; only it renews, completes or interrupts the record it holds.
	Holder string
	// TranscriptID is the id the request's transcript gets, unless an earlier run chose one.
	TranscriptID string
	// Now is the time of the claim; ExpiresAt when a new record stops replaying.
	Now, ExpiresAt time.Time
	// StaleBefore: a run in progress whose last heartbeat is older died.
	StaleBefore time.Time
}

const idempotencyColumns = `organization, route, key_hash, state, transcript_id, holder, heartbeat_us, attempts,
	status_code, content_type, headers, body, request_id, created_us, completed_us, expires_us`

// ClaimIdempotency makes c's run the holder of the record of key, unless another run holds
// it. A new key, or one whose record expired, starts a new record with c.TranscriptID. A
// record interrupted, or in progress with a heartbeat older than c.StaleBefore, is resumed: it
// keeps its transcript id and expiry and counts one more attempt. The claim is one statement,
// so of concurrent claims of one key, from any number of processes, exactly one wins.
//
// It returns the record held by c's run, or nil and the record in the way (in progress and
// alive, or completed).
func (s *Store) ClaimIdempotency(ctx context.Context, key IdempotencyKey, c IdempotencyClaim) (held, prior *IdempotencyRecord, err error) {
	if key.Organization == "" || key.Route == "" || key.KeyHash == "" || c.Holder == "" || c.TranscriptID == "" {
		return nil, nil, errors.New("claiming an idempotency key: the organization, route, key hash, holder and transcript id must be set")
	}
	// A record in the way can vanish (swept once expired) between the claim and the read: try
	// again.
	for range 3 {
		rec := IdempotencyRecord{Key: key, State: IdempotencyInProgress, Holder: c.Holder, HeartbeatAt: c.Now.UTC()}
		var created, expires int64
		err := s.db.QueryRowContext(ctx, `INSERT INTO idempotency_records
	(organization, route, key_hash, state, transcript_id, holder, heartbeat_us, attempts, created_us, expires_us)
VALUES ($1, $2, $3, '`+string(IdempotencyInProgress)+`', $4, $5, $6, 1, $6, $7)
ON CONFLICT (organization, route, key_hash) DO UPDATE SET
	state = excluded.state, holder = excluded.holder, heartbeat_us = excluded.heartbeat_us,
	transcript_id = CASE WHEN idempotency_records.expires_us <= excluded.created_us OR idempotency_records.transcript_id = ''
		THEN excluded.transcript_id ELSE idempotency_records.transcript_id END,
	attempts = CASE WHEN idempotency_records.expires_us <= excluded.created_us THEN 1 ELSE idempotency_records.attempts + 1 END,
	created_us = CASE WHEN idempotency_records.expires_us <= excluded.created_us THEN excluded.created_us ELSE idempotency_records.created_us END,
	expires_us = CASE WHEN idempotency_records.expires_us <= excluded.created_us THEN excluded.expires_us ELSE idempotency_records.expires_us END,
	status_code = 0, content_type = '', headers = '', body = NULL, request_id = '', completed_us = NULL
WHERE idempotency_records.expires_us <= excluded.created_us
	OR idempotency_records.state = '`+string(IdempotencyInterrupted)+`'
	OR (idempotency_records.state = '`+string(IdempotencyInProgress)+`' AND idempotency_records.heartbeat_us < $8)
RETURNING transcript_id, attempts, created_us, expires_us`,
			key.Organization, key.Route, key.KeyHash, c.TranscriptID, c.Holder, micros(c.Now), micros(c.ExpiresAt), micros(c.StaleBefore)).
			Scan(&rec.TranscriptID, &rec.Attempts, &created, &expires)
		if err == nil {
			rec.CreatedAt, rec.ExpiresAt = fromMicros(created), fromMicros(expires)
			return &rec, nil, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, nil, fmt.Errorf("claiming an idempotency key: %w", err)
		}
		prior, err := s.GetIdempotency(ctx, key)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return nil, prior, nil
	}
	return nil, nil, errors.New("claiming an idempotency key: the record in the way kept changing")
}

// GetIdempotency returns the record of key, expired or not; ErrNotFound when there is none.
func (s *Store) GetIdempotency(ctx context.Context, key IdempotencyKey) (*IdempotencyRecord, error) {
	var (
		rec                         IdempotencyRecord
		state, headers              string
		heartbeat, created, expires int64
		completed                   sql.NullInt64
	)
	r := &rec.Response
	err := s.db.QueryRowContext(ctx, `SELECT `+idempotencyColumns+` FROM idempotency_records
WHERE organization = $1 AND route = $2 AND key_hash = $3`, key.Organization, key.Route, key.KeyHash).
		Scan(&rec.Key.Organization, &rec.Key.Route, &rec.Key.KeyHash, &state, &rec.TranscriptID, &rec.Holder, &heartbeat, &rec.Attempts,
			&r.StatusCode, &r.ContentType, &headers, &r.Body, &r.RequestID, &created, &completed, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("idempotency record: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading an idempotency record: %w", err)
	}
	if headers != "" {
		if err := json.Unmarshal([]byte(headers), &r.Headers); err != nil {
			return nil, fmt.Errorf("reading the headers of an idempotency record: %w", err)
		}
	}
	rec.State = IdempotencyState(state)
	rec.HeartbeatAt, rec.CreatedAt, rec.ExpiresAt, rec.CompletedAt = fromMicros(heartbeat), fromMicros(created), fromMicros(expires), timePtr(completed)
	return &rec, nil
}

// heldUpdate applies set (an SQL SET list whose parameters start at $5) to the record of key
// while holder's run holds it in progress; ErrNotHeld otherwise.
func (s *Store) heldUpdate(ctx context.Context, what string, key IdempotencyKey, holder, set string, args ...any) error {
	res, err := s.db.ExecContext(ctx, `UPDATE idempotency_records SET `+set+`
WHERE organization = $1 AND route = $2 AND key_hash = $3 AND holder = $4 AND state = '`+string(IdempotencyInProgress)+`'`,
		append([]any{key.Organization, key.Route, key.KeyHash, holder}, args...)...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, ErrNotHeld)
	}
	return nil
}

// HeartbeatIdempotency renews the heartbeat of the record of key held by holder's run.
func (s *Store) HeartbeatIdempotency(ctx context.Context, key IdempotencyKey, holder string, at time.Time) error {
	return s.heldUpdate(ctx, "renewing the heartbeat of an idempotency record", key, holder, `heartbeat_us = $5`, micros(at))
}

// CompleteIdempotency records resp as the response of the request of key, replayed from now
// on, provided holder's run still holds the record.
func (s *Store) CompleteIdempotency(ctx context.Context, key IdempotencyKey, holder string, resp IdempotencyResponse, at time.Time) error {
	headers := ""
	if len(resp.Headers) > 0 {
		b, err := json.Marshal(resp.Headers)
		if err != nil {
			return fmt.Errorf("completing an idempotency record: %w", err)
		}
		headers = string(b)
	}
	body := resp.Body
	if body == nil {
		body = []byte{}
	}
	return s.heldUpdate(ctx, "completing an idempotency record", key, holder,
		`state = '`+string(IdempotencyCompleted)+`', holder = '', status_code = $5, content_type = $6, headers = $7, body = $8, request_id = $9, completed_us = $10`,
		resp.StatusCode, resp.ContentType, headers, body, resp.RequestID, micros(at))
}

// InterruptIdempotency marks the request of key as ended without a response to replay,
// provided holder's run still holds it: the next request with the key resumes it.
func (s *Store) InterruptIdempotency(ctx context.Context, key IdempotencyKey, holder string) error {
	return s.heldUpdate(ctx, "interrupting an idempotency record", key, holder,
		`state = '`+string(IdempotencyInterrupted)+`', holder = ''`)
}

// DeleteExpiredIdempotency removes at most limit records (with the responses they keep) that
// expired at or before now, oldest first, and returns how many it removed.
func (s *Store) DeleteExpiredIdempotency(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("deleting expired idempotency records: limit %d is not positive", limit)
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_records
WHERE (organization, route, key_hash) IN (
	SELECT organization, route, key_hash FROM idempotency_records WHERE expires_us <= $1 ORDER BY expires_us LIMIT $2)
	AND expires_us <= $1`, micros(now), limit)
	if err != nil {
		return 0, fmt.Errorf("deleting expired idempotency records: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("deleting expired idempotency records: %w", err)
	}
	return int(n), nil
}
