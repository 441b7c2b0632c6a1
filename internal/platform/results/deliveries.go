package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// Delivery is the archived record of one webhook delivery: one event for one endpoint, with
// its attempts (in the resource's status).
type Delivery struct {
	// ID is the delivery id (evt_…).
	ID           string
	Organization string
	// Endpoint is the name of the WebhookEndpoint.
	Endpoint string
	// TranscriptID is the id of the transcript the event is about.
	TranscriptID string
	Event        string
	State        tcsv1.DeliveryState
	// CreatedAt is the resource's creation time, at the second.
	CreatedAt time.Time
	// EndedAt is when the delivery reached its final state (its creation when it has no
	// completedAt), at the second.
	EndedAt time.Time
	// Version orders the puts of one delivery, as for transcripts.
	Version int64
	// Delivery is the resource, spec and status with its attempts.
	Delivery *tcsv1.WebhookDelivery
}

// Cursor returns the position of d in a list.
func (d *Delivery) Cursor() Cursor { return Cursor{ID: d.ID, CreatedAt: d.CreatedAt} }

// DeliveryListOptions select a page of delivery history, newest first. At most one of
// Endpoint and TranscriptID is set, and Organization when neither is.
type DeliveryListOptions struct {
	// Endpoint lists the deliveries to one WebhookEndpoint (by name).
	Endpoint string
	// TranscriptID lists the deliveries of one transcript's events.
	TranscriptID string
	// Organization, when set, keeps the deliveries of that organization.
	Organization string
	// StartingAfter and EndingBefore are cursors as for transcripts; CreatedAt must be set.
	StartingAfter, EndingBefore *Cursor
	// Limit is the page size; it must be positive.
	Limit int
}

// DeliveryPage is one page of delivery history, newest first.
type DeliveryPage struct {
	Deliveries []*Delivery
	HasMore    bool
}

const deliveryColumns = `id, organization, endpoint, transcript_id, event, state, created_us, ended_us, version, record`

// PutDelivery writes d's record at version, idempotently as Put does for transcripts. A test
// delivery has no transcript.
func (s *Store) PutDelivery(ctx context.Context, d *tcsv1.WebhookDelivery, version int64) (bool, error) {
	switch {
	case d.Spec.ID == "":
		return false, errors.New("putting a delivery record: the delivery has no spec.id")
	case d.Spec.Endpoint == "":
		return false, fmt.Errorf("putting delivery record %s: it has no spec.endpoint", d.Spec.ID)
	case d.CreationTimestamp.IsZero():
		return false, fmt.Errorf("putting delivery record %s: it has no creationTimestamp", d.Spec.ID)
	}
	data, err := encodeRecord(d.DeepCopy(), "WebhookDelivery")
	if err != nil {
		return false, fmt.Errorf("encoding delivery record %s: %w", d.Spec.ID, err)
	}
	ended := d.CreationTimestamp.Time
	if d.Status.CompletedAt != nil {
		ended = d.Status.CompletedAt.Time
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO webhook_deliveries (`+deliveryColumns+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (id) DO UPDATE SET
	organization = excluded.organization, endpoint = excluded.endpoint, transcript_id = excluded.transcript_id,
	event = excluded.event, state = excluded.state, created_us = excluded.created_us, ended_us = excluded.ended_us,
	version = excluded.version, record = excluded.record
WHERE webhook_deliveries.version < excluded.version`,
		d.Spec.ID, d.Spec.Organization, d.Spec.Endpoint, d.Spec.TranscriptID, d.Spec.Event, string(d.Status.State),
		micros(d.CreationTimestamp.Truncate(time.Second)), micros(ended.Truncate(time.Second)), version, string(data))
	if err != nil {
		return false, fmt.Errorf("putting delivery record %s: %w", d.Spec.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("putting delivery record %s: %w", d.Spec.ID, err)
	}
	return n > 0, nil
}

// GetDelivery returns the record of delivery id; ErrNotFound when there is none.
func (s *Store) GetDelivery(ctx context.Context, id string) (*Delivery, error) {
	d, err := scanDelivery(s.db.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("delivery record %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading delivery record %s: %w", id, err)
	}
	return d, nil
}

// ListDeliveries returns a page of the delivery history of an endpoint or of a transcript,
// newest first.
func (s *Store) ListDeliveries(ctx context.Context, opts DeliveryListOptions) (*DeliveryPage, error) {
	var q query
	switch {
	case opts.Limit <= 0:
		return nil, fmt.Errorf("listing delivery records: limit %d is not positive", opts.Limit)
	case opts.Endpoint != "" && opts.TranscriptID != "":
		return nil, errors.New("listing delivery records: give Endpoint or TranscriptID, not both")
	case opts.Endpoint == "" && opts.TranscriptID == "" && opts.Organization == "":
		return nil, errors.New("listing delivery records: give one of Endpoint, TranscriptID and Organization")
	case opts.StartingAfter != nil && opts.EndingBefore != nil:
		return nil, errors.New("listing delivery records: StartingAfter and EndingBefore cannot be used together")
	case opts.Endpoint != "":
		q.where("endpoint = " + q.arg(opts.Endpoint))
	case opts.TranscriptID != "":
		q.where("transcript_id = " + q.arg(opts.TranscriptID))
	}
	if opts.Organization != "" {
		q.where("organization = " + q.arg(opts.Organization))
	}
	before := opts.EndingBefore != nil
	cursor := opts.StartingAfter
	if before {
		cursor = opts.EndingBefore
	}
	if cursor != nil {
		if cursor.CreatedAt.IsZero() {
			return nil, fmt.Errorf("listing delivery records: the cursor %s has no creation time", cursor.ID)
		}
		q.seek(*cursor, before)
	}
	order := "created_us DESC, id DESC"
	if before {
		order = "created_us ASC, id ASC"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries`+q.whereClause()+
		` ORDER BY `+order+` LIMIT `+strconv.Itoa(opts.Limit+1), q.args...)
	if err != nil {
		return nil, fmt.Errorf("listing delivery records: %w", err)
	}
	defer rows.Close()
	page := &DeliveryPage{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("listing delivery records: %w", err)
		}
		page.Deliveries = append(page.Deliveries, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing delivery records: %w", err)
	}
	if len(page.Deliveries) > opts.Limit {
		page.HasMore = true
		page.Deliveries = page.Deliveries[:opts.Limit]
	}
	if before {
		slices.Reverse(page.Deliveries)
	}
	return page, nil
}

// DeleteDeliveries removes the delivery records of a transcript's events (when it is purged)
// and returns how many there were.
func (s *Store) DeleteDeliveries(ctx context.Context, transcriptID string) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE transcript_id = $1`, transcriptID)
	if err != nil {
		return 0, fmt.Errorf("deleting the delivery records of %s: %w", transcriptID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("deleting the delivery records of %s: %w", transcriptID, err)
	}
	return n, nil
}

// DeleteDelivery removes the record of delivery id (the purge); ErrNotFound when there is none.
func (s *Store) DeleteDelivery(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("deleting delivery record %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("deleting delivery record %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("deleting delivery record %s: %w", id, ErrNotFound)
	}
	return nil
}

// DeliveriesEndedBefore returns at most limit delivery records that ended at or before t, the
// ones that ended longest ago first: the records due for the retention purge.
func (s *Store) DeliveriesEndedBefore(ctx context.Context, t time.Time, limit int) ([]*Delivery, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("listing ended delivery records: limit %d is not positive", limit)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries
WHERE ended_us <= $1 ORDER BY ended_us, id LIMIT $2`, micros(t), limit)
	if err != nil {
		return nil, fmt.Errorf("listing ended delivery records: %w", err)
	}
	defer rows.Close()
	var out []*Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("listing ended delivery records: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing ended delivery records: %w", err)
	}
	return out, nil
}

func scanDelivery(row scanner) (*Delivery, error) {
	var (
		d              Delivery
		state          string
		created, ended int64
		data           []byte
	)
	if err := row.Scan(&d.ID, &d.Organization, &d.Endpoint, &d.TranscriptID, &d.Event, &state, &created, &ended, &d.Version, &data); err != nil {
		return nil, err
	}
	d.State, d.CreatedAt, d.EndedAt = tcsv1.DeliveryState(state), fromMicros(created), fromMicros(ended)
	d.Delivery = &tcsv1.WebhookDelivery{}
	if err := json.Unmarshal(data, d.Delivery); err != nil {
		return nil, fmt.Errorf("decoding delivery record %s: %w", d.ID, err)
	}
	return &d, nil
}
