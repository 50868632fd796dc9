package postgrestest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/internal/storetest"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/adapters/riverstore/internal/jobcheck"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/reference"
)

// srv is one Postgres server for the whole binary, stopped by TestMain.
var srv = containers.NewShared("postgres", pgcontainer.Start)

func TestMain(m *testing.M) { srv.Main(m) }

// TestBattery runs the whole battery, both eras, against the River stores on Postgres:
// a fresh schema per spec, two pools (two River clients) for S-SHARE-1.
func TestBattery(t *testing.T) {
	h := riverstore.NewPostgresHarness(srv.Get(t))
	t.Cleanup(h.Close)
	conformance.Run(t, h, conformance.Options{SpecTimeout: 3 * time.Minute})
}

// backend is a fresh namespace of the harness as a Backend reading clock.
func backend(t *testing.T, clock reference.Clock) *riverstore.Backend[pgx.Tx] {
	t.Helper()
	dsn := srv.Get(t)
	h := riverstore.NewPostgresHarness(dsn)
	t.Cleanup(h.Close)
	ns, err := h.Open(t.Context(), clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Close(context.Background()) })
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = riverstore.SchemaOf(ns)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	// Migrating an already migrated schema changes nothing (idempotent).
	if err := riverstore.MigratePostgres(t.Context(), pool); err != nil {
		t.Fatalf("second MigratePostgres: %v", err)
	}
	b, err := riverstore.NewPostgres(pool, riverstore.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStoreClockNotDatabaseClock(t *testing.T) {
	clock := reference.NewManualClock(time.UnixMilli(1_764_400_000_000))
	b := backend(t, clock)
	storetest.ClockFollowed(t, t.Context(), b.Legacy(), b.Modern(), clock)
}

func TestJobs(t *testing.T) { jobcheck.Run(t, backend(t, reference.SystemClock{})) }
