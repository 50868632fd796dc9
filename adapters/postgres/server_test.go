package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
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
