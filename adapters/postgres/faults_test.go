package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/conformance/faults"
)

// TestFaults pauses, kills and restarts a Postgres container of its own while clients
// write through the adapter at its default settings: every fault rule must pass, and
// not one acknowledged write may be lost.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the backend away for seconds; skipped with -short")
	}
	ctx := t.Context()
	srv, err := pgcontainer.StartFaultable(ctx)
	if err != nil {
		containers.SkipOrFail(t, "postgres (faults)", err)
		return
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = srv.Stop(ctx)
	})
	h, err := postgres.NewFaultHarness(ctx, srv.DSN, srv.Faults)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	if d := h.Durability(); d.MayLoseOnCrash {
		t.Fatalf("the adapter's default server settings declare lossy durability: %s", d.Setting)
	}
	r := faults.Check(t, h, faults.Config{})
	for _, f := range r.Faults {
		if f.AckedLost != 0 || f.AckedChecked == 0 {
			t.Errorf("%s: %d of %d acknowledged writes lost, want 0 of some", f.Fault, f.AckedLost, f.AckedChecked)
		}
		for _, v := range f.Rules {
			if v.Outcome != faults.Passed {
				t.Errorf("%s: %s %s, want passed: %v", f.Fault, v.ID, v.Outcome, v.Reasons)
			}
		}
	}
}
