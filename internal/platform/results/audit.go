package results

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AuditEntry is one line of an organization's audit trail: who did what, when.
type AuditEntry struct {
	// ID identifies the entry (aud_…); writing an entry again with its id changes nothing, so
	// a write can be retried after any failure.
	ID           string
	Organization string
	// Time is when it was done, kept to the microsecond.
	Time time.Time
	// Actor is who did it: a member's email address, or a tool.
	Actor string
	// Action says what was done, in one CamelCase word (APIKeyRevealed).
	Action string
	// Target is the id of what it was done to, when there is one (a key, an endpoint).
	Target string
	// Message says it in a sentence.
	Message string
}

// AuditCursor is the position of an entry in the trail, newest first.
type AuditCursor struct {
	Time time.Time
	ID   string
}

// Cursor returns the position of e.
func (e *AuditEntry) Cursor() AuditCursor { return AuditCursor{Time: e.Time, ID: e.ID} }

// AuditListOptions select a page of an organization's audit trail, newest first.
type AuditListOptions struct {
	// Organization is whose trail; it must be set.
	Organization string
	// Since, when set, keeps the entries at or after it.
	Since time.Time
	// After, when set, keeps the entries after it in newest-first order (older ones).
	After *AuditCursor
	// Limit is the page size; it must be positive.
	Limit int
}

// AuditPage is one page of an audit trail, newest first.
type AuditPage struct {
	Entries []*AuditEntry
	HasMore bool
}

// PutAudit records e. An entry already recorded with e's id is left as it is, so that a write
// whose outcome is unknown (a timeout, a crash of the writer) can be repeated safely.
func (s *Store) PutAudit(ctx context.Context, e *AuditEntry) error {
	switch {
	case e.ID == "":
		return errors.New("recording an audit entry: it has no id")
	case e.Organization == "":
		return fmt.Errorf("recording audit entry %s: it has no organization", e.ID)
	case e.Time.IsZero():
		return fmt.Errorf("recording audit entry %s: it has no time", e.ID)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO audit_entries (id, organization, at_us, actor, action, target, message)
VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
		e.ID, e.Organization, micros(e.Time), e.Actor, e.Action, e.Target, e.Message); err != nil {
		return fmt.Errorf("recording audit entry %s: %w", e.ID, err)
	}
	return nil
}

// ListAudit returns a page of an organization's audit trail, newest first.
func (s *Store) ListAudit(ctx context.Context, opts AuditListOptions) (*AuditPage, error) {
	switch {
	case opts.Organization == "":
		return nil, errors.New("listing the audit trail: no organization")
	case opts.Limit <= 0:
		return nil, fmt.Errorf("listing the audit trail: limit %d is not positive", opts.Limit)
	}
	var q query
	q.where("organization = " + q.arg(opts.Organization))
	if !opts.Since.IsZero() {
		q.where("at_us >= " + q.arg(micros(opts.Since)))
	}
	if c := opts.After; c != nil {
		at, id := q.arg(micros(c.Time)), q.arg(c.ID)
		q.where(fmt.Sprintf("at_us <= %s AND (at_us < %s OR id < %s)", at, at, id))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, organization, at_us, actor, action, target, message FROM audit_entries`+
		q.whereClause()+` ORDER BY at_us DESC, id DESC LIMIT `+q.arg(opts.Limit+1), q.args...)
	if err != nil {
		return nil, fmt.Errorf("listing the audit trail of %s: %w", opts.Organization, err)
	}
	defer rows.Close()
	page := &AuditPage{}
	for rows.Next() {
		e := &AuditEntry{}
		var at int64
		if err := rows.Scan(&e.ID, &e.Organization, &at, &e.Actor, &e.Action, &e.Target, &e.Message); err != nil {
			return nil, fmt.Errorf("reading the audit trail of %s: %w", opts.Organization, err)
		}
		e.Time = fromMicros(at)
		page.Entries = append(page.Entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the audit trail of %s: %w", opts.Organization, err)
	}
	if len(page.Entries) > opts.Limit {
		page.Entries, page.HasMore = page.Entries[:opts.Limit], true
	}
	return page, nil
}

// DeleteAuditBefore removes at most limit entries, oldest first, recorded before t, and
// returns how many it removed.
func (s *Store) DeleteAuditBefore(ctx context.Context, t time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("deleting old audit entries: limit %d is not positive", limit)
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM audit_entries
WHERE id IN (SELECT id FROM audit_entries WHERE at_us < $1 ORDER BY at_us, id LIMIT $2) AND at_us < $1`, micros(t), limit)
	if err != nil {
		return 0, fmt.Errorf("deleting old audit entries: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("deleting old audit entries: %w", err)
	}
	return int(n), nil
}
