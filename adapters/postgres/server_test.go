package postgres_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
)

// One server for the whole test binary: started by the first test that needs it, stopped
// by TestMain.
var (
	srvOnce sync.Once
	srvDSN  string
	srvStop func(context.Context) error
	srvErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if srvStop != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_ = srvStop(ctx)
		cancel()
	}
	os.Exit(code)
}

// server returns the DSN of the shared server, skipping the test when Docker is absent
// outside CI and failing it otherwise (containers.SkipOrFail).
func server(t *testing.T) string {
	t.Helper()
	srvOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		srvDSN, srvStop, srvErr = pgcontainer.Start(ctx)
		if srvErr == nil {
			t.Logf("postgres up in %s", time.Since(start).Round(time.Millisecond))
		}
	})
	if srvErr != nil {
		containers.SkipOrFail(t, "postgres", srvErr)
	}
	return srvDSN
}

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
	dsn := server(t)
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
