package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/tooling/testenv/postgres"
)

// pgSize copies the archived transcripts of the SQLite results store at path (a copy made with
// sqlite3 .backup from a scale run's state dir) into a PostgreSQL server it starts, and reports
// what a record takes in each, indexes included: the figures for sizing the results store.
func pgSize(ctx context.Context, path string) (err error) {
	src, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer src.Close()
	var sqliteBytes int64
	if err := src.QueryRowContext(ctx, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()").Scan(&sqliteBytes); err != nil {
		return fmt.Errorf("reading the size of %s: %w", path, err)
	}
	pg, err := postgres.Start(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if stopErr := pg.Stop(); err == nil {
			err = stopErr
		}
	}()
	dsn, err := pg.NewDatabase(ctx)
	if err != nil {
		return err
	}
	st, err := results.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	rows, err := src.QueryContext(ctx, "SELECT record, version FROM transcripts")
	if err != nil {
		return fmt.Errorf("reading the records of %s: %w", path, err)
	}
	defer rows.Close()
	n, jsonBytes := 0, 0
	for rows.Next() {
		var rec string
		var version int64
		if err := rows.Scan(&rec, &version); err != nil {
			return err
		}
		t := &tcsv1.Transcript{}
		if err := json.Unmarshal([]byte(rec), t); err != nil {
			return fmt.Errorf("decoding a record: %w", err)
		}
		if _, err := st.Put(ctx, t, version); err != nil {
			return err
		}
		n++
		jsonBytes += len(rec)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no record in %s", path)
	}
	if err := st.Analyze(ctx); err != nil {
		return err
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	var table, indexes int64
	if err := db.QueryRowContext(ctx, `SELECT pg_table_size('transcripts'), pg_indexes_size('transcripts')`).Scan(&table, &indexes); err != nil {
		return fmt.Errorf("reading the sizes of PostgreSQL's tables: %w", err)
	}
	per := func(b int64) string { return fmt.Sprintf("%.2f KB", float64(b)/float64(n)/1024) }
	fmt.Printf("## Results store: bytes per archived transcript (%d records, %s of JSON each)\n\n", n, per(int64(jsonBytes)))
	fmt.Println("| store | per record, indexes included | table (and TOAST) | indexes | per 100,000 |")
	fmt.Println("|---|---:|---:|---:|---:|")
	fmt.Printf("| SQLite (the file) | %s | | | %.2f GB |\n", per(sqliteBytes), float64(sqliteBytes)/float64(n)*1e5/(1<<30))
	fmt.Printf("| PostgreSQL | %s | %s | %s | %.2f GB |\n\n", per(table+indexes), per(table), per(indexes), float64(table+indexes)/float64(n)*1e5/(1<<30))
	return nil
}
