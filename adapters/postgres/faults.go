package postgres

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/adapters/internal/faultable"
	"github.com/storecheck/storecheck/conformance/harness"
)

// Backend is a Postgres server that can be taken away: pgcontainer.Server.Faults.
type Backend = faultable.Backend

// FaultHarness is Harness on a server the fault checks may pause, kill and restart
// (harness.FaultInjector). Its durability is the server's: with synchronous_commit and
// fsync on, every acknowledged write is on disk when it is acknowledged.
type FaultHarness struct {
	*Harness
	faultable.Injector
}

var _ harness.FaultInjector = (*FaultHarness)(nil)

// NewFaultHarness returns a harness on the server at dsn that backend controls. It
// reads the server's synchronous_commit and fsync to declare its durability.
func NewFaultHarness(ctx context.Context, dsn string, backend Backend) (*FaultHarness, error) {
	h := NewHarness(dsn)
	admin, err := h.adminPool(ctx)
	if err != nil {
		return nil, err
	}
	var syncCommit, fsync string
	if err := admin.QueryRow(ctx, "SELECT current_setting('synchronous_commit'), current_setting('fsync')").Scan(&syncCommit, &fsync); err != nil {
		h.Close()
		return nil, fmt.Errorf("postgres harness: read durability settings: %w", err)
	}
	return &FaultHarness{Harness: h, Injector: faultable.Injector{Backend: backend, Declared: Durability(syncCommit, fsync)}}, nil
}

// Durability is what a server with these settings keeps across a crash. Create sets
// synchronous_commit on for its own transaction whatever the server says (M-CREATE-2);
// Update, Swap and Delete commit with the server's setting, so with it off (or with
// fsync off) their acknowledged writes may be lost.
func Durability(synchronousCommit, fsync string) harness.Durability {
	// Every value but off flushes the commit record locally before the commit returns.
	lossy := fsync != "on" || synchronousCommit == "off"
	return harness.Durability{
		MayLoseOnCrash: lossy,
		Setting:        fmt.Sprintf("synchronous_commit=%s, fsync=%s (Create forces synchronous_commit=on)", synchronousCommit, fsync),
	}
}
