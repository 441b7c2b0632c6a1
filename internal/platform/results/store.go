// Package results is the results store: an SQL database of the full records of finished
// transcripts, their webhook delivery history and the responses kept for Idempotency-Keys, so
// that the cluster keeps only the work in flight.
//
// One Go API has two drivers, chosen by the DSN given to Open: SQLite in a file (the pure-Go
// modernc.org/sqlite, so the build stays CGO-free; the embedded default, in the state dir) and
// PostgreSQL (pgx) for several replicas and real deployments. The schema is versioned: Open
// applies the migrations it is missing, each in a transaction, and two replicas opening one
// database at once apply each migration exactly once.
package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"modernc.org/sqlite"               // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is returned (wrapped) when the record asked for does not exist or, for an
// operation that hides soft-deleted records, is soft-deleted.
var ErrNotFound = errors.New("not found")

// Driver names a database engine of the store.
type Driver string

// The drivers of the store.
const (
	SQLite   Driver = "sqlite"
	Postgres Driver = "postgres"
)

// maxPostgresConns bounds the connections of one Store to PostgreSQL.
const maxPostgresConns = 10

// Store is an open results store. It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	driver Driver
	now    func() time.Time
}

// Open opens the store named by dsn and applies the schema migrations it is missing.
//
// A dsn starting with postgres:// or postgresql:// is a PostgreSQL connection string (the
// forms pgx accepts, including its query parameters). Anything else is an SQLite database
// file: sqlite:///abs/path/results.db, sqlite://rel/path.db, or a plain path; its directory is
// created when missing.
func Open(ctx context.Context, dsn string) (*Store, error) {
	driver, source, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	s := &Store{driver: driver, now: time.Now}
	switch driver {
	case Postgres:
		s.db, err = sql.Open("pgx", source)
		if err == nil {
			// A bounded pool per replica, so that PostgreSQL's max_connections can be sized:
			// replicas × maxPostgresConns plus what other clients need.
			s.db.SetMaxOpenConns(maxPostgresConns)
			s.db.SetMaxIdleConns(maxPostgresConns / 2)
		}
	case SQLite:
		if err := os.MkdirAll(filepath.Dir(source), 0o700); err != nil {
			return nil, fmt.Errorf("creating the directory of the results database: %w", err)
		}
		s.db, err = sql.Open("sqlite", sqliteSource(source))
		// One writer at a time is SQLite's model: a few connections serve concurrent
		// readers (WAL) while writers queue on the busy timeout.
		s.db.SetMaxOpenConns(4)
		s.db.SetMaxIdleConns(4)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the %s results store: %w", driver, err)
	}
	if err := s.connect(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("connecting to the %s results store: %w", driver, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// connectBusyFor bounds how long connect waits for another process that holds SQLite's lock
// while a new connection sets its pragmas: as long as the busy timeout of its statements.
const connectBusyFor = 30 * time.Second

// connect opens the store's first connection. On SQLite, a connection's switch to WAL can be
// refused at once with SQLITE_BUSY, without the busy timeout, while another process starting
// on the same file migrates it: connect tries again until connectBusyFor has passed.
func (s *Store) connect(ctx context.Context) error {
	deadline := time.Now().Add(connectBusyFor)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		err := s.db.PingContext(ctx)
		var se *sqlite.Error
		if err == nil || s.driver != SQLite || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// parseDSN returns the driver of dsn and the source string to open it with.
func parseDSN(dsn string) (Driver, string, error) {
	switch {
	case dsn == "":
		return "", "", errors.New("the results store DSN is empty")
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return Postgres, dsn, nil
	case strings.HasPrefix(dsn, "sqlite:"):
		u, err := url.Parse(dsn)
		if err != nil {
			return "", "", fmt.Errorf("parsing the results store DSN: %w", err)
		}
		path := u.Host + u.Path
		if u.Opaque != "" {
			path = u.Opaque
		}
		if path == "" {
			return "", "", fmt.Errorf("the results store DSN %q names no database file", dsn)
		}
		if u.RawQuery != "" {
			return "", "", fmt.Errorf("the results store DSN %q has query parameters; the SQLite store sets its own", dsn)
		}
		return SQLite, path, nil
	case strings.Contains(dsn, "://"):
		return "", "", fmt.Errorf("the results store DSN %q is neither postgres://… nor sqlite://… nor a file path", dsn)
	case strings.ContainsRune(dsn, '?'):
		return "", "", fmt.Errorf("the results store path %q contains '?'", dsn)
	}
	return SQLite, dsn, nil
}

// sqliteSource returns the modernc.org/sqlite source of the database file at path: WAL, so
// readers do not wait for the writer; a busy timeout, so writers of several processes queue
// rather than fail; and transactions that take the write lock when they begin, so a
// read-then-write transaction cannot deadlock with another writer.
func sqliteSource(path string) string {
	return path + "?_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// Driver returns the database engine of s.
func (s *Store) Driver() Driver { return s.driver }

// Close closes the store's connections.
func (s *Store) Close() error { return s.db.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("pinging the results store: %w", err)
	}
	return nil
}

// micros returns t as Unix microseconds, the form of every time column.
func micros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros is the inverse of micros, in UTC.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// nullMicros returns t as a nullable time column.
func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*t), Valid: true}
}

// timePtr returns a nullable time column as a time, nil when NULL.
func timePtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

// Analyze refreshes the query planner's statistics of the store's tables. PostgreSQL plans the
// list queries well only with statistics: its autovacuum gathers them within about a minute of
// large changes, and the archiver calls Analyze after a bulk archive (such as the first one of
// a cluster that kept everything) so that lists do not wait for it.
func (s *Store) Analyze(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `ANALYZE`); err != nil {
		return fmt.Errorf("analyzing the results store: %w", err)
	}
	return nil
}
