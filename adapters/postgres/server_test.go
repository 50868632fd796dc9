package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// srv is one server for the whole test binary: started by the first test that needs it,
// stopped by TestMain. srv.Get(t) is its DSN, or skips the test when Docker is absent
// outside CI and fails it otherwise (containers.SkipOrFail).
var srv = containers.NewShared("postgres", pgcontainer.Start)

func TestMain(m *testing.M) { srv.Main(m) }

// fixture is a fresh namespace on the shared server with both stores, closed with the test.
type fixture struct {
	h      *postgres.Harness
	ns     harness.Namespace
	clock  *reference.ManualClock
	legacy *postgres.Legacy
	modern *postgres.Modern
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dsn := srv.Get(t)
	ctx := t.Context()
	f := &fixture{h: postgres.NewHarness(dsn), clock: reference.NewManualClock(time.UnixMilli(1_764_400_000_000))}
	ns, err := f.h.Open(ctx, f.clock)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	f.ns = ns
	t.Cleanup(func() {
		if err := ns.Close(context.Background()); err != nil {
			t.Errorf("namespace Close: %v", err)
		}
		f.h.Close()
	})
	ls, err := ns.Legacy(ctx)
	if err != nil {
		t.Fatalf("Legacy: %v", err)
	}
	ms, err := ns.Modern(ctx)
	if err != nil {
		t.Fatalf("Modern: %v", err)
	}
	f.legacy, f.modern = ls.(*postgres.Legacy), ms.(*postgres.Modern)
	return f
}

// TestClosedNamespacesPoolsServeTheNextOnItsSchema: the pools of a closed namespace are
// kept for the next namespaces, and a kept pool's connections reach the new schema
// only: a task of the old one is not found, a task made in the new one is listed alone.
func TestClosedNamespacesPoolsServeTheNextOnItsSchema(t *testing.T) {
	ctx := t.Context()
	h := postgres.NewHarness(srv.Get(t))
	t.Cleanup(h.Close)
	open := func() (harness.Namespace, legacy.Store) {
		t.Helper()
		ns, err := h.Open(ctx, reference.SystemClock{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		st, err := ns.Legacy(ctx)
		if err != nil {
			t.Fatalf("Legacy: %v", err)
		}
		return ns, st
	}
	first, st := open()
	if _, err := st.Create(ctx, "kept-pool", legacy.Task{"status": "working"}); err != nil {
		t.Fatalf("Create in the first namespace: %v", err)
	}
	if err := first.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := postgres.IdlePools(h); n != 1 {
		t.Fatalf("after a namespace of one pool closed: %d idle pools, want 1", n)
	}
	second, st := open()
	t.Cleanup(func() { _ = second.Close(context.Background()) })
	if n := postgres.IdlePools(h); n != 0 {
		t.Errorf("after the next namespace took the pool: %d idle pools, want 0", n)
	}
	if got, err := st.Get(ctx, "kept-pool"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("Get(%q) in the next namespace, on a kept pool: %v, %v; want ErrNotFound (the task is the closed namespace's)", "kept-pool", got, err)
	}
	if _, err := st.Create(ctx, "kept-pool", legacy.Task{"status": "working", "n": "2"}); err != nil {
		t.Fatalf("Create in the next namespace: %v", err)
	}
	rows, err := st.List(ctx, legacy.ListOptions{})
	if err != nil || len(rows) != 1 || rows[0]["n"] != "2" {
		t.Errorf("List in the next namespace: %v, %v; want the one task made there", rows, err)
	}
}
