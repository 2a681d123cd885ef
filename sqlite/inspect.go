package sqlite

import (
	"context"
	"database/sql"
	"net/url"
)

// LatestVersion is the schema version this baton's migrations reach.
func LatestVersion() (int64, error) { return latestMigration() }

// FileFacts are what `baton doctor` reads from a database file without
// opening it as a store (which would migrate it).
type FileFacts struct {
	SchemaVersion int64  // PRAGMA user_version
	JournalMode   string // wal for a healthy baton database
}

// Inspect reads a database file read-only: its schema version and journal
// mode. It writes nothing, not even a WAL file's creation.
func Inspect(ctx context.Context, path string) (FileFacts, error) {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return FileFacts{}, err
	}
	defer db.Close()
	var f FileFacts
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&f.SchemaVersion); err != nil {
		return f, err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&f.JournalMode); err != nil {
		return f, err
	}
	return f, nil
}
