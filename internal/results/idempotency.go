package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// IdempotencyKey identifies one request sent with an Idempotency-Key.
type IdempotencyKey struct {
	Organization string
	// Route is the method and path, e.g. "POST /api/v1/transcripts".
	Route string
	// KeyHash is the SHA-256 (hex) of the Idempotency-Key; the key itself is not kept.
	KeyHash string
}

// IdempotencyRecord is a request made with an Idempotency-Key and, once completed, its
// response.
type IdempotencyRecord struct {
	Key   IdempotencyKey
	State tcsv1.IdempotencyState
	// Response is the first response; zero while the request is in progress.
	Response IdempotencyResponse
	// CreatedAt is when the request was claimed.
	CreatedAt time.Time
	// CompletedAt is when its response was recorded; nil while in progress.
	CompletedAt *time.Time
	// ExpiresAt is when the record stops replaying.
	ExpiresAt time.Time
}

// IdempotencyResponse is a recorded response.
type IdempotencyResponse struct {
	StatusCode  int
	ContentType string
	// Body is the body when it is kept inline; BodyRef the object-store key of a larger one.
	Body    []byte
	BodyRef string
	// RequestID is the X-Request-Id of the first request.
	RequestID string
}

const idempotencyColumns = `organization, route, key_hash, state, status_code, content_type, body, body_ref, request_id, created_us, completed_us, expires_us`

// ClaimIdempotency records key as in progress, created at now and expiring at expiresAt,
// unless a record of key is in the way. A record in the way gives way when it expired (at or
// before now) or when it is still in progress and was created before abandonedBefore (its
// request died with its process); a zero abandonedBefore abandons none. It returns true when
// the caller claimed the key and runs the request; otherwise false and the record in the way.
// Of concurrent claims of one key exactly one wins.
func (s *Store) ClaimIdempotency(ctx context.Context, key IdempotencyKey, now, expiresAt, abandonedBefore time.Time) (bool, *IdempotencyRecord, error) {
	if key.Organization == "" || key.Route == "" || key.KeyHash == "" {
		return false, nil, errors.New("claiming an idempotency key: the organization, route and key hash must be set")
	}
	abandoned := int64(-1 << 63)
	if !abandonedBefore.IsZero() {
		abandoned = micros(abandonedBefore)
	}
	// A record in the way can vanish (expiry, drop) between the insert and the read: try again.
	for attempt := 0; attempt < 3; attempt++ {
		res, err := s.db.ExecContext(ctx, `INSERT INTO idempotency_records (organization, route, key_hash, state, created_us, expires_us)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (organization, route, key_hash) DO UPDATE SET
	state = excluded.state, status_code = 0, content_type = '', body = NULL, body_ref = '', request_id = '',
	created_us = excluded.created_us, completed_us = NULL, expires_us = excluded.expires_us
WHERE idempotency_records.expires_us <= excluded.created_us
	OR (idempotency_records.state = $4 AND idempotency_records.created_us < $7)`,
			key.Organization, key.Route, key.KeyHash, string(tcsv1.IdempotencyInProgress), micros(now), micros(expiresAt), abandoned)
		if err != nil {
			return false, nil, fmt.Errorf("claiming an idempotency key: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, nil, fmt.Errorf("claiming an idempotency key: %w", err)
		}
		if n > 0 {
			return true, nil, nil
		}
		rec, err := s.GetIdempotency(ctx, key)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return false, nil, err
		}
		return false, rec, nil
	}
	return false, nil, errors.New("claiming an idempotency key: the record in the way kept changing")
}

// GetIdempotency returns the record of key, expired or not; ErrNotFound when there is none.
func (s *Store) GetIdempotency(ctx context.Context, key IdempotencyKey) (*IdempotencyRecord, error) {
	var (
		rec              IdempotencyRecord
		state            string
		created, expires int64
		completed        sql.NullInt64
	)
	r := &rec.Response
	err := s.db.QueryRowContext(ctx, `SELECT `+idempotencyColumns+` FROM idempotency_records
WHERE organization = $1 AND route = $2 AND key_hash = $3`, key.Organization, key.Route, key.KeyHash).
		Scan(&rec.Key.Organization, &rec.Key.Route, &rec.Key.KeyHash, &state, &r.StatusCode, &r.ContentType, &r.Body, &r.BodyRef,
			&r.RequestID, &created, &completed, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("idempotency record: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading an idempotency record: %w", err)
	}
	rec.State = tcsv1.IdempotencyState(state)
	rec.CreatedAt, rec.ExpiresAt, rec.CompletedAt = fromMicros(created), fromMicros(expires), timePtr(completed)
	return &rec, nil
}

// CompleteIdempotency records resp as the response of the claim of key made at claimedAt (the
// now of its ClaimIdempotency). ErrNotFound when that claim is no longer in progress: it was
// dropped, completed, or taken over as abandoned.
func (s *Store) CompleteIdempotency(ctx context.Context, key IdempotencyKey, claimedAt time.Time, resp IdempotencyResponse, at time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE idempotency_records SET
	state = $1, status_code = $2, content_type = $3, body = $4, body_ref = $5, request_id = $6, completed_us = $7
WHERE organization = $8 AND route = $9 AND key_hash = $10 AND state = $11 AND created_us = $12`,
		string(tcsv1.IdempotencyCompleted), resp.StatusCode, resp.ContentType, resp.Body, resp.BodyRef, resp.RequestID, micros(at),
		key.Organization, key.Route, key.KeyHash, string(tcsv1.IdempotencyInProgress), micros(claimedAt))
	if err != nil {
		return fmt.Errorf("completing an idempotency record: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("completing an idempotency record: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("completing an idempotency record: no claim in progress: %w", ErrNotFound)
	}
	return nil
}

// DropIdempotency removes the claim of key made at claimedAt, so that a retry with the key runs
// again (the response is not one to replay, or the handler failed). It is a no-op when that
// claim is gone or was taken over.
func (s *Store) DropIdempotency(ctx context.Context, key IdempotencyKey, claimedAt time.Time) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_records
WHERE organization = $1 AND route = $2 AND key_hash = $3 AND created_us = $4`,
		key.Organization, key.Route, key.KeyHash, micros(claimedAt))
	if err != nil {
		return fmt.Errorf("dropping an idempotency record: %w", err)
	}
	return nil
}

// DeleteExpiredIdempotency removes at most limit records that expired at or before now and
// returns them, so that the caller deletes the bodies they keep in the object store.
func (s *Store) DeleteExpiredIdempotency(ctx context.Context, now time.Time, limit int) ([]IdempotencyRecord, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("deleting expired idempotency records: limit %d is not positive", limit)
	}
	rows, err := s.db.QueryContext(ctx, `DELETE FROM idempotency_records
WHERE (organization, route, key_hash) IN (
	SELECT organization, route, key_hash FROM idempotency_records WHERE expires_us <= $1 ORDER BY expires_us LIMIT $2)
	AND expires_us <= $1
RETURNING organization, route, key_hash, state, body_ref, created_us, expires_us`, micros(now), limit)
	if err != nil {
		return nil, fmt.Errorf("deleting expired idempotency records: %w", err)
	}
	defer rows.Close()
	var out []IdempotencyRecord
	for rows.Next() {
		var (
			rec              IdempotencyRecord
			state            string
			created, expires int64
		)
		if err := rows.Scan(&rec.Key.Organization, &rec.Key.Route, &rec.Key.KeyHash, &state, &rec.Response.BodyRef, &created, &expires); err != nil {
			return nil, fmt.Errorf("deleting expired idempotency records: %w", err)
		}
		rec.State, rec.CreatedAt, rec.ExpiresAt = tcsv1.IdempotencyState(state), fromMicros(created), fromMicros(expires)
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("deleting expired idempotency records: %w", err)
	}
	return out, nil
}
