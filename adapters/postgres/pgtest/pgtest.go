// Package pgtest gives a test the stores of a fresh Postgres namespace in a container
// it starts, for tests of code above the stores (the MCP server, the probe).
package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Stores starts Postgres and returns the legacy and modern stores of one namespace, all
// closed when the test ends. Without Docker the test is skipped, except under CI
// (CI=true), where it fails.
func Stores(t *testing.T) (legacy.Store, modern.Store) {
	t.Helper()
	h := postgres.NewHarness(DSN(t))
	t.Cleanup(h.Close)
	ns, err := h.Open(t.Context(), reference.SystemClock{})
	if err != nil {
		t.Fatalf("Postgres namespace: %v", err)
	}
	t.Cleanup(func() { _ = ns.Close(context.Background()) })
	l, err := ns.Legacy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	m, err := ns.Modern(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return l, m
}

// DSN starts Postgres, stopped when the test ends, and returns its connection string.
// Without Docker the test is skipped, except under CI (CI=true), where it fails.
func DSN(t *testing.T) string {
	t.Helper()
	dsn, stop, err := pgcontainer.Start(t.Context())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres: %v", err)
		}
		t.Skipf("no Postgres: %v", err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	return dsn
}
