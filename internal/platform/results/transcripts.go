package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// Record is the archived record of one transcript: the columns the queries select on and the
// full Transcript resource as it was archived.
type Record struct {
	// ID is the transcript's API id (tr_…).
	ID string
	// Organization is the id of the organization that owns it.
	Organization string
	// SourceType is its source type.
	SourceType tcsv1.SourceType
	// Status is its phase, the API's status.
	Status tcsv1.Phase
	// AIPassStatus is the state of its AI pass.
	AIPassStatus tcsv1.AIPassStatus
	// CreatedAt is its creation time, at the second like the resource's.
	CreatedAt time.Time
	// CompletedAt is when its deterministic pass finished; nil when it did not.
	CompletedAt *time.Time
	// DeletedAt is when it was soft-deleted; nil when it is not.
	DeletedAt *time.Time
	// Version orders the puts of one transcript: a put replaces the record only with a higher
	// version.
	Version int64
	// ArchivedAt is when this version was written.
	ArchivedAt time.Time
	// Transcript is the resource, spec and status (its DeletedAt is DeletedAt's).
	Transcript *tcsv1.Transcript
}

// Cursor is a position in a list, newest first: a record's creation time and id.
type Cursor struct {
	// ID is the id of the record at the position.
	ID string
	// CreatedAt is its creation time. When zero, the store reads it from the record ID of the
	// listed organization, which must then exist (and be visible to the list).
	CreatedAt time.Time
}

// Cursor returns the position of r in a list.
func (r *Record) Cursor() Cursor { return Cursor{ID: r.ID, CreatedAt: r.CreatedAt} }

// ListOptions select a page of an organization's records; they mirror GET /transcripts.
type ListOptions struct {
	// Status, when set, keeps the records of that status.
	Status tcsv1.Phase
	// SourceType, when set, keeps the records of that source type.
	SourceType tcsv1.SourceType
	// CreatedGTE and CreatedLTE, when set, bound the creation time (inclusive).
	CreatedGTE, CreatedLTE time.Time
	// NeedsReview, when set, keeps the completed records with (true) or without (false)
	// suggestions no one decided on.
	NeedsReview *bool
	// StartingAfter, when set, returns the records right after (older than) it.
	StartingAfter *Cursor
	// EndingBefore, when set, returns the records right before (newer than) it.
	EndingBefore *Cursor
	// Limit is the page size; it must be positive.
	Limit int
	// IncludeDeleted lists soft-deleted records too.
	IncludeDeleted bool
	// Metadata, when set, keeps the records whose options.metadata has each of its pairs.
	Metadata map[string]string
}

// Page is one page of a list, newest first.
type Page struct {
	Records []*Record
	// HasMore tells whether more records follow in the direction of the list: older ones, or
	// with EndingBefore newer ones.
	HasMore bool
}

// GetOptions tune Get.
type GetOptions struct {
	// IncludeDeleted returns a soft-deleted record too.
	IncludeDeleted bool
}

// transcriptColumns are the columns a Record is read from, in scanRecord's order.
const transcriptColumns = `id, organization, source_type, status, ai_pass_status, created_us, completed_us, deleted_us, version, archived_us, record`

// Put writes t's record at version. It is idempotent: a put of a version the store already has
// (or an older one) changes nothing and returns false; a newer version replaces the record and
// returns true. The resource's managed fields and its emitted events' snapshots are not kept.
func (s *Store) Put(ctx context.Context, t *tcsv1.Transcript, version int64) (bool, error) {
	switch {
	case t.Spec.ID == "":
		return false, errors.New("putting a transcript record: the transcript has no spec.id")
	case t.Spec.Organization == "":
		return false, fmt.Errorf("putting transcript record %s: it has no spec.organization", t.Spec.ID)
	case t.CreationTimestamp.IsZero():
		return false, fmt.Errorf("putting transcript record %s: it has no creationTimestamp", t.Spec.ID)
	}
	c := t.DeepCopy()
	// The snapshots of the emitted events serve only their dispatch, done before a transcript
	// is archived.
	for i := range c.Status.EmittedEvents {
		c.Status.EmittedEvents[i].State, c.Status.EmittedEvents[i].SameState = nil, false
	}
	data, err := encodeRecord(c, "Transcript")
	if err != nil {
		return false, fmt.Errorf("encoding transcript record %s: %w", t.Spec.ID, err)
	}
	// The columns hold the times as the JSON does (metav1.Time keeps seconds), so that a cursor
	// built from a read record finds its own position.
	var completed, deleted *time.Time
	if t.Status.CompletedAt != nil {
		completed = ptr(t.Status.CompletedAt.Truncate(time.Second))
	}
	if t.Status.DeletedAt != nil {
		deleted = ptr(t.Status.DeletedAt.Truncate(time.Second))
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("putting transcript record %s: beginning a transaction: %w", t.Spec.ID, err)
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `INSERT INTO transcripts (`+transcriptColumns+`, undecided)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
ON CONFLICT (id) DO UPDATE SET
	organization = excluded.organization, source_type = excluded.source_type, status = excluded.status,
	ai_pass_status = excluded.ai_pass_status, created_us = excluded.created_us, completed_us = excluded.completed_us,
	deleted_us = excluded.deleted_us, version = excluded.version, archived_us = excluded.archived_us, record = excluded.record,
	undecided = excluded.undecided
WHERE transcripts.version < excluded.version`,
		t.Spec.ID, t.Spec.Organization, string(t.Spec.Source.Type), string(t.Status.Phase), string(t.Status.AIPassStatus),
		micros(t.Created().Truncate(time.Second)), nullMicros(completed), nullMicros(deleted),
		version, micros(s.now()), string(data), t.Undecided())
	if err != nil {
		return false, fmt.Errorf("putting transcript record %s: %w", t.Spec.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("putting transcript record %s: %w", t.Spec.ID, err)
	}
	if n == 0 {
		return false, nil
	}
	if err := putMetadata(ctx, tx, t); err != nil {
		return false, fmt.Errorf("putting transcript record %s: %w", t.Spec.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("putting transcript record %s: committing: %w", t.Spec.ID, err)
	}
	return true, nil
}

// putMetadata replaces the rows of t's metadata pairs, which ListOptions.Metadata selects on.
func putMetadata(ctx context.Context, tx *sql.Tx, t *tcsv1.Transcript) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM transcript_metadata WHERE transcript_id = $1`, t.Spec.ID); err != nil {
		return fmt.Errorf("replacing its metadata: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(t.Spec.Options.Metadata)) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_metadata (transcript_id, organization, key, value) VALUES ($1, $2, $3, $4)`,
			t.Spec.ID, t.Spec.Organization, k, t.Spec.Options.Metadata[k]); err != nil {
			return fmt.Errorf("writing its metadata %s: %w", k, err)
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// Get returns the record of transcript id; ErrNotFound when there is none, or when it is
// soft-deleted and opts do not include deleted records.
func (s *Store) Get(ctx context.Context, id string, opts GetOptions) (*Record, error) {
	q := `SELECT ` + transcriptColumns + ` FROM transcripts WHERE id = $1`
	if !opts.IncludeDeleted {
		q += ` AND deleted_us IS NULL`
	}
	r, err := scanRecord(s.db.QueryRowContext(ctx, q, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("transcript record %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading transcript record %s: %w", id, err)
	}
	return r, nil
}

// List returns a page of org's records, newest first (creation time, then id, descending),
// with the semantics of GET /transcripts: the filters, a cursor in either direction, and
// whether more follow.
func (s *Store) List(ctx context.Context, org string, opts ListOptions) (*Page, error) {
	switch {
	case opts.Limit <= 0:
		return nil, fmt.Errorf("listing transcript records: limit %d is not positive", opts.Limit)
	case opts.StartingAfter != nil && opts.EndingBefore != nil:
		return nil, errors.New("listing transcript records: StartingAfter and EndingBefore cannot be used together")
	}
	var q query
	q.where("organization = " + q.arg(org))
	if !opts.IncludeDeleted {
		q.where("deleted_us IS NULL")
	}
	if opts.Status != "" {
		q.where("status = " + q.arg(string(opts.Status)))
	}
	if opts.SourceType != "" {
		q.where("source_type = " + q.arg(string(opts.SourceType)))
	}
	if opts.NeedsReview != nil {
		q.where("status = " + q.arg(string(tcsv1.PhaseCompleted)))
		if *opts.NeedsReview {
			q.where("undecided > 0")
		} else {
			q.where("undecided = 0")
		}
	}
	if !opts.CreatedGTE.IsZero() {
		// The first microsecond at or after the bound.
		q.where("created_us >= " + q.arg(micros(opts.CreatedGTE.Add(time.Microsecond-1))))
	}
	if !opts.CreatedLTE.IsZero() {
		q.where("created_us <= " + q.arg(micros(opts.CreatedLTE)))
	}
	for _, k := range slices.Sorted(maps.Keys(opts.Metadata)) {
		q.where("id IN (SELECT transcript_id FROM transcript_metadata WHERE organization = " + q.arg(org) +
			" AND key = " + q.arg(k) + " AND value = " + q.arg(opts.Metadata[k]) + ")")
	}
	before := opts.EndingBefore != nil
	cursor := opts.StartingAfter
	if before {
		cursor = opts.EndingBefore
	}
	if cursor != nil {
		c, err := s.resolveCursor(ctx, org, *cursor, opts.IncludeDeleted)
		if err != nil {
			return nil, err
		}
		q.seek(c, before)
	}
	order := "created_us DESC, id DESC"
	if before {
		// The records right before the cursor are the oldest of the newer ones.
		order = "created_us ASC, id ASC"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+transcriptColumns+` FROM transcripts`+q.whereClause()+
		` ORDER BY `+order+` LIMIT `+strconv.Itoa(opts.Limit+1), q.args...)
	if err != nil {
		return nil, fmt.Errorf("listing the transcript records of %s: %w", org, err)
	}
	defer rows.Close()
	page := &Page{}
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("listing the transcript records of %s: %w", org, err)
		}
		page.Records = append(page.Records, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the transcript records of %s: %w", org, err)
	}
	if len(page.Records) > opts.Limit {
		page.HasMore = true
		page.Records = page.Records[:opts.Limit]
	}
	if before {
		slices.Reverse(page.Records)
	}
	return page, nil
}

// resolveCursor fills in the creation time of a cursor given by id only.
func (s *Store) resolveCursor(ctx context.Context, org string, c Cursor, includeDeleted bool) (Cursor, error) {
	if !c.CreatedAt.IsZero() {
		return c, nil
	}
	r, err := s.Get(ctx, c.ID, GetOptions{IncludeDeleted: includeDeleted})
	if err != nil {
		return Cursor{}, fmt.Errorf("the list cursor: %w", err)
	}
	if r.Organization != org {
		return Cursor{}, fmt.Errorf("the list cursor: transcript record %s of another organization: %w", c.ID, ErrNotFound)
	}
	return r.Cursor(), nil
}

// SoftDelete marks transcript id deleted at at: it leaves lists and Get. It returns false when
// the record already was soft-deleted (and leaves its time), ErrNotFound when there is none.
func (s *Store) SoftDelete(ctx context.Context, id string, at time.Time) (bool, error) {
	return s.setDeleted(ctx, id, sql.NullInt64{Int64: micros(at.Truncate(time.Second)), Valid: true})
}

// Restore clears the soft delete of transcript id. It returns false when the record was not
// soft-deleted, ErrNotFound when there is none.
func (s *Store) Restore(ctx context.Context, id string) (bool, error) {
	return s.setDeleted(ctx, id, sql.NullInt64{})
}

func (s *Store) setDeleted(ctx context.Context, id string, at sql.NullInt64) (bool, error) {
	cond := "deleted_us IS NULL"
	if !at.Valid {
		cond = "deleted_us IS NOT NULL"
	}
	res, err := s.db.ExecContext(ctx, `UPDATE transcripts SET deleted_us = $1 WHERE id = $2 AND `+cond, at, id)
	if err != nil {
		return false, fmt.Errorf("updating the deletion of transcript record %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("updating the deletion of transcript record %s: %w", id, err)
	}
	if n > 0 {
		return true, nil
	}
	if _, err := s.Get(ctx, id, GetOptions{IncludeDeleted: true}); err != nil {
		return false, err
	}
	return false, nil
}

// Delete removes the record of transcript id for good (the purge); ErrNotFound when there is
// none.
func (s *Store) Delete(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("deleting transcript record %s: beginning a transaction: %w", id, err)
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `DELETE FROM transcripts WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("deleting transcript record %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("deleting transcript record %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("deleting transcript record %s: %w", id, ErrNotFound)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM transcript_metadata WHERE transcript_id = $1`, id); err != nil {
		return fmt.Errorf("deleting the metadata of transcript record %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("deleting transcript record %s: committing: %w", id, err)
	}
	return nil
}

// DeletedBefore returns at most limit soft-deleted records deleted at or before t, the ones
// deleted longest ago first: the records due for the purge.
func (s *Store) DeletedBefore(ctx context.Context, t time.Time, limit int) ([]*Record, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("listing soft-deleted transcript records: limit %d is not positive", limit)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+transcriptColumns+` FROM transcripts
WHERE deleted_us IS NOT NULL AND deleted_us <= $1 ORDER BY deleted_us, id LIMIT $2`, micros(t), limit)
	if err != nil {
		return nil, fmt.Errorf("listing soft-deleted transcript records: %w", err)
	}
	defer rows.Close()
	var out []*Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("listing soft-deleted transcript records: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing soft-deleted transcript records: %w", err)
	}
	return out, nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanRecord reads the transcriptColumns of a row.
func scanRecord(row scanner) (*Record, error) {
	var (
		r                  Record
		created, archived  int64
		completed, deleted sql.NullInt64
		source, status, ai string
		data               []byte
	)
	if err := row.Scan(&r.ID, &r.Organization, &source, &status, &ai, &created, &completed, &deleted, &r.Version, &archived, &data); err != nil {
		return nil, err
	}
	r.SourceType, r.Status, r.AIPassStatus = tcsv1.SourceType(source), tcsv1.Phase(status), tcsv1.AIPassStatus(ai)
	r.CreatedAt, r.ArchivedAt = fromMicros(created), fromMicros(archived)
	r.CompletedAt, r.DeletedAt = timePtr(completed), timePtr(deleted)
	r.Transcript = &tcsv1.Transcript{}
	if err := json.Unmarshal(data, r.Transcript); err != nil {
		return nil, fmt.Errorf("decoding transcript record %s: %w", r.ID, err)
	}
	// The column is the truth: SoftDelete and Restore do not rewrite the JSON.
	r.Transcript.Status.DeletedAt = nil
	if r.DeletedAt != nil {
		r.Transcript.Status.DeletedAt = &metav1.Time{Time: *r.DeletedAt}
	}
	return &r, nil
}

// query builds a WHERE clause with numbered arguments ($1, $2, …), which both drivers take.
type query struct {
	conds []string
	args  []any
}

// arg adds v as an argument and returns its placeholder.
func (q *query) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

func (q *query) where(cond string) { q.conds = append(q.conds, cond) }

// seek keeps the rows after c in newest-first order, or with before the rows before it. The
// condition is written so that both engines use the (…, created_us, id) indexes as a range.
func (q *query) seek(c Cursor, before bool) {
	at, id := q.arg(micros(c.CreatedAt)), q.arg(c.ID)
	if before {
		q.where(fmt.Sprintf("created_us >= %s AND (created_us > %s OR id > %s)", at, at, id))
	} else {
		q.where(fmt.Sprintf("created_us <= %s AND (created_us < %s OR id < %s)", at, at, id))
	}
}

func (q *query) whereClause() string {
	if len(q.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(q.conds, " AND ")
}

// encodeRecord returns the JSON of the copy c of a resource as a record keeps it: with its
// kind and apiVersion, without its managed fields.
func encodeRecord(c client.Object, kind string) ([]byte, error) {
	c.SetManagedFields(nil)
	c.GetObjectKind().SetGroupVersionKind(tcsv1.GroupVersion.WithKind(kind))
	return json.Marshal(c)
}
