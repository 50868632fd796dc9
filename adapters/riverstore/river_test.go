package riverstore_test

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/internal/storetest"
	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/adapters/riverstore/internal/jobcheck"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/reference"
)

// TestBatterySQLite runs the whole battery, both eras, against the River stores on
// SQLite files (no Docker, no cgo). The Postgres flavour's battery is in
// adapters/riverstore/postgrestest (Ginkgo runs once per process).
func TestBatterySQLite(t *testing.T) {
	h, err := riverstore.NewSQLiteHarness(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	// Every write is an fsynced commit through one connection per client; under -race
	// on a shared 2-core machine the state machines need more than 30 s per spec.
	conformance.Run(t, h, conformance.Options{SpecTimeout: 3 * time.Minute})
}

// sqliteBackend is a fresh migrated database file with one client reading clock.
func sqliteBackend(t *testing.T, clock reference.Clock) *riverstore.Backend[*sql.Tx] {
	t.Helper()
	db, err := riverstore.OpenSQLite(filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := riverstore.MigrateSQLite(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	// Migrating twice changes nothing (idempotent).
	if err := riverstore.MigrateSQLite(t.Context(), db); err != nil {
		t.Fatalf("second MigrateSQLite: %v", err)
	}
	b, err := riverstore.NewSQLite(db, riverstore.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSQLiteStoreClockNotDatabaseClock(t *testing.T) {
	clock := reference.NewManualClock(time.UnixMilli(1_764_400_000_000))
	b := sqliteBackend(t, clock)
	storetest.ClockFollowed(t, t.Context(), b.Legacy(), b.Modern(), clock)
}

func TestSQLiteJobs(t *testing.T) { jobcheck.Run(t, sqliteBackend(t, reference.SystemClock{})) }

// TestSQLiteCancelledContext: a cancelled context returns promptly and writes nothing.
func TestSQLiteCancelledContext(t *testing.T) {
	storetest.CancelledCreateReturnsPromptly(t, t.Context(), sqliteBackend(t, reference.SystemClock{}).Legacy())
}
