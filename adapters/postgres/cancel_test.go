package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// TestHeldWriteEndsOnTheServer: a write that waits on a lock when its context ends must
// be over on the server when the call returns. If it is not (pgx's default closes the
// socket and asks the server to cancel in the background, after the call returned), it
// commits when the lock goes unless that cancel comes first, and on a loaded machine the
// commit can land after a read has seen the task unchanged: S-CTX-1's held-call spec
// read the old task twice, then a later write found the held one's effect. The store's
// pools (CancelOnServer) wait for the server to cancel the statement before returning.
// Each era runs several rounds, since without CancelOnServer the background cancel
// sometimes wins the race.
func TestHeldWriteEndsOnTheServer(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	watcher, err := pgx.Connect(ctx, srv.Get(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watcher.Close(context.Background()) })

	eras := []struct {
		era   harness.Era
		table string
		// create makes task id; write changes it; unchanged reports whether it is still
		// as created.
		create    func(id string) error
		write     func(ctx context.Context, id string) error
		unchanged func(id string) (bool, error)
	}{
		{harness.EraLegacy, "storecheck_legacy_tasks",
			func(id string) error { _, err := f.legacy.Create(ctx, id, legacy.Task{"a": "b"}); return err },
			func(ctx context.Context, id string) error {
				_, err := f.legacy.Update(ctx, id, legacy.Task{"a": "held"})
				return err
			},
			func(id string) (bool, error) {
				got, err := f.legacy.Get(ctx, id)
				return err == nil && got["a"] == "b", err
			}},
		{harness.EraModern, "storecheck_modern_tasks",
			func(id string) error {
				_, err := f.modern.Create(ctx, modern.Task{TaskID: id, Status: reference.StatusWorking, CreatedAt: 1})
				return err
			},
			func(ctx context.Context, id string) error {
				_, err := f.modern.Swap(ctx, reference.System(), 1,
					modern.Task{TaskID: id, Status: reference.StatusWorking, StatusMessage: "held", CreatedAt: 1})
				return err
			},
			func(id string) (bool, error) {
				got, err := f.modern.Get(ctx, id, reference.System())
				return err == nil && got.Version == 1, err
			}},
	}
	const rounds = 5
	for _, e := range eras {
		for round := range rounds {
			id := fmt.Sprintf("held-%d", round)
			if err := e.create(id); err != nil {
				t.Fatal(err)
			}
			hold, err := f.ns.(harness.Blocker).Block(ctx, e.era, id, false)
			if err != nil {
				t.Fatal(err)
			}
			wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			start := time.Now()
			werr := e.write(wctx, id)
			took := time.Since(start)
			cancel()
			if !errors.Is(werr, context.DeadlineExceeded) || took > 100*time.Millisecond+time.Second {
				t.Errorf("%s round %d: write held by a row lock, context deadline 100 ms: %v after %v; want the deadline's error within 1 s of it", e.era, round, werr, took)
			}
			var waiting int
			err = watcher.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE '||$1||'%'`, e.table).Scan(&waiting)
			if err != nil {
				t.Fatal(err)
			}
			if waiting != 0 {
				t.Errorf("%s round %d: write returned %v after %v, but its UPDATE still waits on the lock on the server: it commits when the lock goes unless a cancel comes first", e.era, round, werr, took)
			}
			if err := hold.Release(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			if same, err := e.unchanged(id); err != nil || !same {
				t.Errorf("%s round %d: write that returned %v: the task changed after the lock went (%v): applied after its call returned", e.era, round, werr, err)
			}
		}
	}
}
