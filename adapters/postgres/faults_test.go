package postgres_test

import (
	"strings"
	"testing"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/internal/storetest"
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
	containers.StopAtCleanup(t, srv.Stop)
	h, err := postgres.NewFaultHarness(ctx, srv.DSN, srv.Faults)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	if d := h.Durability(); d.MayLoseOnCrash {
		t.Fatalf("the adapter's default server settings declare lossy durability: %s", d.Setting)
	}
	storetest.NothingLost(t, faults.Check(t, h, faults.Config{}))
}

// TestFaultDurabilityDeclared: the durability declared from the server's settings is lossy
// exactly when synchronous_commit is off or fsync is off (every other
// synchronous_commit value flushes the commit record locally before the commit
// returns), and the setting is named for the report.
func TestFaultDurabilityDeclared(t *testing.T) {
	for _, c := range []struct {
		syncCommit, fsync string
		lossy             bool
	}{
		{"on", "on", false},
		{"local", "on", false},
		{"remote_write", "on", false},
		{"remote_apply", "on", false},
		{"off", "on", true},
		{"on", "off", true},
		{"off", "off", true},
	} {
		d := postgres.Durability(c.syncCommit, c.fsync)
		if d.MayLoseOnCrash != c.lossy {
			t.Errorf("Durability(synchronous_commit=%s, fsync=%s).MayLoseOnCrash = %v, want %v", c.syncCommit, c.fsync, d.MayLoseOnCrash, c.lossy)
		}
		if d.MayLoseOnFailover {
			t.Errorf("Durability(%s, %s) declares failover losses: one server has no failover", c.syncCommit, c.fsync)
		}
		for _, want := range []string{"synchronous_commit=" + c.syncCommit, "fsync=" + c.fsync} {
			if !strings.Contains(d.Setting, want) {
				t.Errorf("Durability(%s, %s).Setting = %q, does not name %s", c.syncCommit, c.fsync, d.Setting, want)
			}
		}
	}
}
