package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/storecheck/storecheck/adapters/internal/storetest"
	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// TestBattery runs the whole conformance battery, both eras, against Postgres in a
// container (or STORECHECK_POSTGRES_URL). Every MUST must pass.
func TestBattery(t *testing.T) {
	h := postgres.NewHarness(srv.Get(t))
	t.Cleanup(h.Close)
	// Every store call is a round trip to a server that fsyncs each commit; under -race
	// on a shared 2-core CI machine the state machines need more than the default 30 s
	// per spec. A store call that hangs still fails its spec.
	conformance.Run(t, h, conformance.Options{SpecTimeout: 3 * time.Minute})
}

// hostile are ids and owners that would break a store that splices them into SQL or
// LIKE patterns.
var hostile = []string{
	`'; DROP TABLE storecheck_legacy_tasks; --`,
	`"; DROP TABLE storecheck_modern_tasks; --`,
	`%`, `_`, `a%`, `a_`, `\`, `\\'`, `$1`, `'`, `''`, `a'b"c`, `:{}.*?`,
}

func TestHostileIDsAndOwnersAreOrdinaryValues(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	for i, s := range hostile {
		id := fmt.Sprintf("%s#%d", s, i)
		created, err := f.legacy.Create(ctx, id, legacy.Task{"owner": s, "k": s})
		if err != nil {
			t.Fatalf("legacy Create(%q, owner %q): %v", id, s, err)
		}
		if created.ID() != id || created.Owner() != s {
			t.Errorf("legacy Create(%q): got id %q owner %q", id, created.ID(), created.Owner())
		}
		if _, err := f.modern.Create(ctx, modern.Task{TaskID: id, Owner: s, Status: reference.StatusWorking, CreatedAt: 1}); err != nil {
			t.Fatalf("modern Create(%q, owner %q): %v", id, s, err)
		}
	}
	for i, s := range hostile {
		id := fmt.Sprintf("%s#%d", s, i)
		got, err := f.legacy.Get(ctx, id)
		if err != nil || got["k"] != s {
			t.Errorf("legacy Get(%q) = %v, %v; want k = %q", id, got, err, s)
		}
		// A principal named like a pattern sees exactly its own task: no wildcard match.
		rows, err := f.legacy.List(ctx, legacy.ListOptions{Owner: legacy.PrincipalOwner(s), RequireOwner: true})
		if err != nil {
			t.Fatalf("List(principal %q): %v", s, err)
		}
		if len(rows) != 1 || rows[0].ID() != id {
			t.Errorf("List(principal %q, require_owner) = %d rows %v; want only %q", s, len(rows), ids(rows), id)
		}
		m, err := f.modern.Get(ctx, id, reference.Principal(s))
		if err != nil || m.Owner != s {
			t.Errorf("modern Get(%q, principal %q) = owner %q, %v", id, s, m.Owner, err)
		}
		if _, err := f.modern.Get(ctx, id, reference.Principal(s+"x")); !errors.Is(err, reference.ErrNotFound) {
			t.Errorf("modern Get(%q, principal %q): want ErrNotFound, got %v", id, s+"x", err)
		}
	}
	// Both tables survived.
	rows, err := f.legacy.List(ctx, legacy.ListOptions{})
	if err != nil || len(rows) != len(hostile) {
		t.Errorf("List(any) after hostile writes = %d rows, %v; want %d", len(rows), err, len(hostile))
	}
}

func ids(rows []legacy.Task) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID())
	}
	return out
}

// TestValuesSurviveExactly checks the representation choice of doc.go: what jsonb would
// break (U+0000, number spelling, huge integers) round-trips through both eras.
func TestValuesSurviveExactly(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	meta, err := legacy.DecodeTask([]byte(`{"nul":"a\u0000b","big":9223372036854775807,"neg":-9223372036854775807,
		"tiny":1e-7,"max":1.7976931348623157e308,"":"empty key","a.b":{"$x":[null,true,{}]},"_id":"",
		"astral":"𝄞 שלום é"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.legacy.Create(ctx, "vals", meta); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err := f.legacy.Get(ctx, "vals")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	for k, v := range meta {
		if !jsonEqual(got[k], v) {
			t.Errorf("legacy key %q: stored %v, got back %v", k, v, got[k])
		}
	}
	if n, ok := got["big"].(json.Number); !ok || n != "9223372036854775807" {
		t.Errorf("legacy big integer came back as %#v", got["big"])
	}

	mt := modern.Task{TaskID: "vals", Status: reference.StatusWorking, StatusMessage: "x\x00y", CreatedAt: 5,
		Result: map[string]any(meta), InputRequests: map[string]any{}, IssuedKeys: []string{"\x00"}}
	if _, err := f.modern.Create(ctx, mt); err != nil {
		t.Fatalf("modern Create: %v", err)
	}
	back, err := f.modern.Get(ctx, "vals", reference.System())
	if err != nil {
		t.Fatalf("modern Get: %v", err)
	}
	mt.Version = 1
	if !modern.Equal(back, mt) || back.Error != nil || back.InputRequests == nil {
		t.Errorf("modern round trip:\n want %+v\n got  %+v", mt, back)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestInvalidUTF8IsRefusedNotAltered(t *testing.T) {
	f := newFixture(t)
	storetest.InvalidUTF8Refused(t, t.Context(), f.legacy, f.modern)
}

// TestMigrateConcurrently runs Migrate from several clients at once on one empty schema
// (several nodes starting together), then again on the migrated one.
func TestMigrateConcurrently(t *testing.T) {
	dsn := srv.Get(t)
	ctx := t.Context()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	schema := fmt.Sprintf("storecheck_migrate_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	})
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = schema
	for round := range 2 {
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Go(func() {
				conn, err := pgx.ConnectConfig(ctx, cfg)
				if err != nil {
					errs[i] = err
					return
				}
				defer conn.Close(context.Background())
				errs[i] = postgres.Migrate(ctx, conn)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d: Migrate #%d: %v", round, i, err)
			}
		}
	}
	var n int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, schema).Scan(&n); err != nil || n != 2 {
		t.Errorf("tables in %s after Migrate: %d (%v); want 2", schema, n, err)
	}
}

func TestMigrateWithoutSchemaSaysWhy(t *testing.T) {
	dsn := srv.Get(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = "storecheck_no_such_schema"
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	err = postgres.Migrate(t.Context(), conn)
	if err == nil || !strings.Contains(err.Error(), "search_path") {
		t.Errorf("Migrate with a search_path naming no schema: want an error naming search_path, got %v", err)
	}
}

// TestServerIsDurable checks what the bring-up promises: fsync on, a data directory on
// disk, synchronous commit.
func TestServerIsDurable(t *testing.T) {
	conn, err := pgx.Connect(t.Context(), srv.Get(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for setting, want := range map[string]string{"fsync": "on", "synchronous_commit": "on"} {
		var got string
		if err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", setting).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("SHOW %s = %q, want %q", setting, got, want)
		}
	}
}

// TestStoreClockNotDatabaseClock moves the store's clock: cleanup and expiry must follow it, which they
// cannot if the SQL reads now().
func TestStoreClockNotDatabaseClock(t *testing.T) {
	f := newFixture(t)
	storetest.ClockFollowed(t, t.Context(), f.legacy, f.modern, f.clock)
}

// TestSwapErrors checks how a refused Swap is explained (M-SWAP-2, M-SWAP-3) and that it
// wrote nothing.
func TestSwapErrors(t *testing.T) {
	storetest.SwapErrors(t, t.Context(), newFixture(t).modern)
}

func TestCancelledContextReturnsPromptly(t *testing.T) {
	storetest.CancelledCreateReturnsPromptly(t, t.Context(), newFixture(t).legacy)
}
