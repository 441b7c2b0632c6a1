package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migration is one step of the schema, written for each engine. Times are Unix microseconds in
// BIGINT columns on both engines, so that one set of queries serves both and sorts exactly; ids
// compare bytewise on both (COLLATE "C" on PostgreSQL, whatever the database's locale), as the
// API's cursors do.
type migration struct {
	version  int
	name     string
	sqlite   string
	postgres string
}

// migrations are the schema's steps, oldest first. Never edit a released step: add one.
var migrations = []migration{
	{
		version: 1,
		name:    "transcripts",
		sqlite: `
CREATE TABLE transcripts (
	id             TEXT PRIMARY KEY,
	organization   TEXT NOT NULL,
	source_type    TEXT NOT NULL,
	status         TEXT NOT NULL,
	ai_pass_status TEXT NOT NULL,
	created_us     INTEGER NOT NULL,
	completed_us   INTEGER,
	deleted_us     INTEGER,
	version        INTEGER NOT NULL,
	archived_us    INTEGER NOT NULL,
	record         TEXT NOT NULL
);
CREATE INDEX transcripts_org_created ON transcripts (organization, created_us DESC, id DESC);
CREATE INDEX transcripts_org_status_created ON transcripts (organization, status, created_us DESC, id DESC);
CREATE INDEX transcripts_org_source_created ON transcripts (organization, source_type, created_us DESC, id DESC);
CREATE INDEX transcripts_deleted ON transcripts (deleted_us) WHERE deleted_us IS NOT NULL;
`,
		postgres: `
CREATE TABLE transcripts (
	id             TEXT COLLATE "C" PRIMARY KEY,
	organization   TEXT NOT NULL,
	source_type    TEXT NOT NULL,
	status         TEXT NOT NULL,
	ai_pass_status TEXT NOT NULL,
	created_us     BIGINT NOT NULL,
	completed_us   BIGINT,
	deleted_us     BIGINT,
	version        BIGINT NOT NULL,
	archived_us    BIGINT NOT NULL,
	record         JSONB NOT NULL
);
CREATE INDEX transcripts_org_created ON transcripts (organization, created_us DESC, id DESC);
CREATE INDEX transcripts_org_status_created ON transcripts (organization, status, created_us DESC, id DESC);
CREATE INDEX transcripts_org_source_created ON transcripts (organization, source_type, created_us DESC, id DESC);
CREATE INDEX transcripts_deleted ON transcripts (deleted_us) WHERE deleted_us IS NOT NULL;
`,
	},
	{
		version: 2,
		name:    "webhook_deliveries",
		sqlite: `
CREATE TABLE webhook_deliveries (
	id            TEXT PRIMARY KEY,
	organization  TEXT NOT NULL,
	endpoint      TEXT NOT NULL,
	transcript_id TEXT NOT NULL,
	event         TEXT NOT NULL,
	state         TEXT NOT NULL,
	created_us    INTEGER NOT NULL,
	version       INTEGER NOT NULL,
	record        TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_endpoint_created ON webhook_deliveries (endpoint, created_us DESC, id DESC);
CREATE INDEX webhook_deliveries_transcript_created ON webhook_deliveries (transcript_id, created_us DESC, id DESC);
`,
		postgres: `
CREATE TABLE webhook_deliveries (
	id            TEXT COLLATE "C" PRIMARY KEY,
	organization  TEXT NOT NULL,
	endpoint      TEXT NOT NULL,
	transcript_id TEXT NOT NULL,
	event         TEXT NOT NULL,
	state         TEXT NOT NULL,
	created_us    BIGINT NOT NULL,
	version       BIGINT NOT NULL,
	record        JSONB NOT NULL
);
CREATE INDEX webhook_deliveries_endpoint_created ON webhook_deliveries (endpoint, created_us DESC, id DESC);
CREATE INDEX webhook_deliveries_transcript_created ON webhook_deliveries (transcript_id, created_us DESC, id DESC);
`,
	},
	{
		version: 3,
		name:    "idempotency_records",
		sqlite: `
CREATE TABLE idempotency_records (
	organization TEXT NOT NULL,
	route        TEXT NOT NULL,
	key_hash     TEXT NOT NULL,
	state        TEXT NOT NULL,
	status_code  INTEGER NOT NULL DEFAULT 0,
	content_type TEXT NOT NULL DEFAULT '',
	body         BLOB,
	body_ref     TEXT NOT NULL DEFAULT '',
	request_id   TEXT NOT NULL DEFAULT '',
	created_us   INTEGER NOT NULL,
	completed_us INTEGER,
	expires_us   INTEGER NOT NULL,
	PRIMARY KEY (organization, route, key_hash)
);
CREATE INDEX idempotency_records_expires ON idempotency_records (expires_us);
`,
		postgres: `
CREATE TABLE idempotency_records (
	organization TEXT NOT NULL,
	route        TEXT NOT NULL,
	key_hash     TEXT NOT NULL,
	state        TEXT NOT NULL,
	status_code  INTEGER NOT NULL DEFAULT 0,
	content_type TEXT NOT NULL DEFAULT '',
	body         BYTEA,
	body_ref     TEXT NOT NULL DEFAULT '',
	request_id   TEXT NOT NULL DEFAULT '',
	created_us   BIGINT NOT NULL,
	completed_us BIGINT,
	expires_us   BIGINT NOT NULL,
	PRIMARY KEY (organization, route, key_hash)
);
CREATE INDEX idempotency_records_expires ON idempotency_records (expires_us);
`,
	},
	{
		version: 4,
		name:    "webhook_deliveries_ended",
		// When a delivery ended, for the retention purge; a record from before gets its
		// creation time.
		sqlite: `
ALTER TABLE webhook_deliveries ADD COLUMN ended_us INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_deliveries SET ended_us = created_us;
CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (ended_us, id);
`,
		postgres: `
ALTER TABLE webhook_deliveries ADD COLUMN ended_us BIGINT NOT NULL DEFAULT 0;
UPDATE webhook_deliveries SET ended_us = created_us;
CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (ended_us, id);
`,
	},
	{
		// The API keeps its idempotency records here rather than as resources in the cluster:
		// the run holding a record, its heartbeat and the transcript it makes, and the whole
		// response (its body too, so no object-store body outlives or precedes its record).
		version: 5,
		name:    "idempotency_runs",
		sqlite: `
ALTER TABLE idempotency_records ADD COLUMN transcript_id TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_records ADD COLUMN holder TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_records ADD COLUMN heartbeat_us INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency_records ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency_records ADD COLUMN headers TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_records DROP COLUMN body_ref;
`,
		postgres: `
ALTER TABLE idempotency_records ADD COLUMN transcript_id TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_records ADD COLUMN holder TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_records ADD COLUMN heartbeat_us BIGINT NOT NULL DEFAULT 0;
ALTER TABLE idempotency_records ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency_records ADD COLUMN headers TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency_records DROP COLUMN body_ref;
`,
	},
	{
		// The audit trail of the organizations, which Events (deleted by kube-apiserver after
		// its event TTL) could not keep. Entries are only added, each once by its id, and
		// removed after the audit retention.
		version: 6,
		name:    "audit_entries",
		sqlite: `
CREATE TABLE audit_entries (
	id           TEXT PRIMARY KEY,
	organization TEXT NOT NULL,
	at_us        INTEGER NOT NULL,
	actor        TEXT NOT NULL,
	action       TEXT NOT NULL,
	target       TEXT NOT NULL DEFAULT '',
	message      TEXT NOT NULL
);
CREATE INDEX audit_entries_org_at ON audit_entries (organization, at_us DESC, id DESC);
CREATE INDEX audit_entries_at ON audit_entries (at_us, id);
`,
		postgres: `
CREATE TABLE audit_entries (
	id           TEXT COLLATE "C" PRIMARY KEY,
	organization TEXT NOT NULL,
	at_us        BIGINT NOT NULL,
	actor        TEXT NOT NULL,
	action       TEXT NOT NULL,
	target       TEXT NOT NULL DEFAULT '',
	message      TEXT NOT NULL
);
CREATE INDEX audit_entries_org_at ON audit_entries (organization, at_us DESC, id DESC);
CREATE INDEX audit_entries_at ON audit_entries (at_us, id);
`,
	},
	{
		// The metadata of the archived transcripts (options.metadata), a row per pair, for the
		// list's metadata[key]=value filter; filled from the records already archived.
		version: 7,
		name:    "transcript_metadata",
		sqlite: `
CREATE TABLE transcript_metadata (
	transcript_id TEXT NOT NULL,
	organization  TEXT NOT NULL,
	key           TEXT NOT NULL,
	value         TEXT NOT NULL,
	PRIMARY KEY (transcript_id, key)
);
CREATE INDEX transcript_metadata_org_pair ON transcript_metadata (organization, key, value);
INSERT INTO transcript_metadata (transcript_id, organization, key, value)
	SELECT t.id, t.organization, m.key, m.value FROM transcripts t, json_each(t.record, '$.spec.options.metadata') m;
`,
		postgres: `
CREATE TABLE transcript_metadata (
	transcript_id TEXT COLLATE "C" NOT NULL,
	organization  TEXT NOT NULL,
	key           TEXT COLLATE "C" NOT NULL,
	value         TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (transcript_id, key)
);
CREATE INDEX transcript_metadata_org_pair ON transcript_metadata (organization, key, value);
INSERT INTO transcript_metadata (transcript_id, organization, key, value)
	SELECT t.id, t.organization, m.key, m.value FROM transcripts t, jsonb_each_text(t.record->'spec'->'options'->'metadata') m;
`,
	},
	{
		// The suggestions of a transcript no one decided on (Transcript.Undecided), for the
		// list's needs_review filter; a record from before review decisions has its
		// changes summary's.
		version: 8,
		name:    "transcripts_undecided",
		sqlite: `
ALTER TABLE transcripts ADD COLUMN undecided INTEGER NOT NULL DEFAULT 0;
UPDATE transcripts SET undecided = COALESCE(json_extract(record, '$.status.changesSummary.needsReview'), 0) WHERE status = 'completed';
CREATE INDEX transcripts_org_undecided_created ON transcripts (organization, undecided, created_us DESC, id DESC) WHERE status = 'completed';
`,
		postgres: `
ALTER TABLE transcripts ADD COLUMN undecided INTEGER NOT NULL DEFAULT 0;
UPDATE transcripts SET undecided = COALESCE((record->'status'->'changesSummary'->>'needsReview')::integer, 0) WHERE status = 'completed';
CREATE INDEX transcripts_org_undecided_created ON transcripts (organization, undecided, created_us DESC, id DESC) WHERE status = 'completed';
`,
	},
}

// migrationLock is the key of the PostgreSQL advisory lock that serializes migrations of
// replicas starting at once ("tcsres" in ASCII).
const migrationLock int64 = 0x746373726573

// migrate applies the migrations the database is missing, each in its own transaction.
func (s *Store) migrate(ctx context.Context) error {
	for _, m := range migrations {
		if err := s.apply(ctx, m); err != nil {
			return fmt.Errorf("migrating the results store to version %d (%s): %w", m.version, m.name, err)
		}
	}
	// A newer tcs may have migrated further; this one would misread what it does not know.
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if latest := migrations[len(migrations)-1].version; v > latest {
		return fmt.Errorf("the results store's schema is at version %d, newer than this tcs knows (%d): run a tcs at least as new as the one that migrated it", v, latest)
	}
	return nil
}

// apply applies m unless it already is. The transaction first takes the migration lock (an
// advisory lock on PostgreSQL; on SQLite the write lock, taken at BEGIN IMMEDIATE), then checks
// schema_migrations, so of two processes opening the store at once the second sees the first's
// work.
func (s *Store) apply(ctx context.Context, m migration) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreDone(tx.Rollback()))
		}
	}()
	ddl := m.sqlite
	if s.driver == Postgres {
		ddl = m.postgres
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("taking the migration lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_us BIGINT NOT NULL
)`); err != nil {
		return fmt.Errorf("creating schema_migrations: %w", err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, m.version).Scan(&n); err != nil {
		return fmt.Errorf("reading schema_migrations: %w", err)
	}
	if n > 0 {
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_us) VALUES ($1, $2, $3)`,
		m.version, m.name, micros(s.now())); err != nil {
		return fmt.Errorf("recording the migration: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	return nil
}

// ignoreDone drops the error of rolling back a transaction that already ended.
func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// SchemaVersion returns the highest migration applied to the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading the schema version: %w", err)
	}
	return int(v.Int64), nil
}
