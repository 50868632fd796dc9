package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/adapters/internal/opened"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Harness puts the store under the battery on the server at a DSN. Every namespace is a
// fresh schema with a random name, migrated on Open and dropped (CASCADE) on Close, so
// specs never see each other's rows and the server keeps nothing afterwards (B-ISO-1).
// Each Legacy or Modern call on a namespace gets a pool of its own on the schema, so the
// battery's second instance (S-SHARE-1, M-CREATE-2) is a distinct client; the pools of
// a closed namespace serve the next ones (pools.go).
type Harness struct {
	dsn      string
	maxConns int32

	admin pgschema.Admin
	ahead ahead
	pools pools
}

var _ harness.Harness = (*Harness)(nil)

// NewHarness returns a harness on the server at dsn (a URL or keyword/value string that
// pgx accepts). The role needs CREATE on the database. Call Close when done.
func NewHarness(dsn string) *Harness {
	return &Harness{dsn: dsn, maxConns: 16, admin: pgschema.Admin{DSN: dsn, What: "postgres harness"}}
}

func (h *Harness) Name() string { return "postgres" }

func (h *Harness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: true}
}

// Close drops the schemas made ahead and no spec took, and closes the harness's
// administrative pool. Namespaces still open keep their own pools.
func (h *Harness) Close() {
	h.ahead.stop(func(schema string) { _ = h.admin.DropSchema(context.Background(), schema) })
	h.pools.close()
	h.admin.Close()
}

func (h *Harness) adminPool(ctx context.Context) (*pgxpool.Pool, error) {
	pool, err := h.admin.Pool(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres harness: %w", err)
	}
	return pool, nil
}

// Open returns a fresh migrated schema with a random name as a namespace whose stores
// read clock. Schemas are made one ahead of the spec that takes them, while the spec
// before it runs: a fresh schema costs a few statements and a commit that would
// otherwise sit in every spec's time.
func (h *Harness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	schema, err := h.ahead.take(ctx, h.newSchema)
	if err != nil {
		return nil, err
	}
	return &namespace{h: h, schema: schema, clock: clock}, nil
}

// newSchema creates a schema with a random name and migrates it, in a transaction of
// the administrative pool whose search_path is the schema.
func (h *Harness) newSchema(ctx context.Context) (string, error) {
	schema, err := h.admin.NewSchema(ctx, "storecheck_")
	if err != nil {
		return "", err
	}
	admin, err := h.adminPool(ctx)
	if err == nil {
		err = Migrate(ctx, inSchema{admin, schema})
	}
	if err != nil {
		return "", errors.Join(err, h.admin.DropSchema(ctx, schema))
	}
	return schema, nil
}

// inSchema begins transactions of pool whose search_path is schema.
type inSchema struct {
	pool   *pgxpool.Pool
	schema string
}

func (s inSchema) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('search_path', $1, true)`, pgx.Identifier{s.schema}.Sanitize()); err != nil {
		return nil, errors.Join(err, tx.Rollback(context.WithoutCancel(ctx)))
	}
	return tx, nil
}

type namespace struct {
	h      *Harness
	schema string
	clock  reference.Clock

	pools opened.Set[*schemaPool]
	mu    sync.Mutex
	holds []*pgx.Conn // connections of Block, closed by Close if still open
	kept  bool        // a named schema (cluster.go): Close leaves it
}

var errClosed = errors.New("postgres harness: namespace closed")

func (n *namespace) poolConfig() (*pgxpool.Config, error) {
	cfg, err := pgschema.PoolConfig(n.h.dsn, n.schema, n.h.maxConns)
	if err != nil {
		return nil, fmt.Errorf("postgres harness: %w", err)
	}
	CancelOnServer(cfg)
	return cfg, nil
}

// newPool returns a pool of the namespace's own, on its schema (pools.take).
func (n *namespace) newPool(ctx context.Context) (*pgxpool.Pool, error) {
	sp, err := n.pools.Add(func() (*schemaPool, error) { return n.h.pools.take(ctx, n.schema, n.poolConfig) }, errClosed)
	if err != nil {
		return nil, err
	}
	return sp.pool, nil
}

func (n *namespace) Legacy(ctx context.Context) (legacy.Store, error) {
	pool, err := n.newPool(ctx)
	if err != nil {
		return nil, err
	}
	return NewLegacy(pool, WithClock(n.clock)), nil
}

func (n *namespace) Modern(ctx context.Context) (modern.Store, error) {
	pool, err := n.newPool(ctx)
	if err != nil {
		return nil, err
	}
	return NewModern(pool, WithClock(n.clock)), nil
}

// Close closes the namespace's pools and drops its schema with everything in it.
func (n *namespace) Close(ctx context.Context) error {
	pools := n.pools.Close()
	n.mu.Lock()
	holds := n.holds
	n.holds = nil
	n.mu.Unlock()
	for _, c := range holds {
		c.Close(context.WithoutCancel(ctx)) // a no-op for a released hold
	}
	n.h.pools.give(pools)
	return n.drop(ctx)
}

func (n *namespace) drop(ctx context.Context) error {
	if n.kept {
		return nil
	}
	return n.h.admin.DropSchema(ctx, n.schema)
}

var _ harness.Blocker = (*namespace)(nil)

// Block holds the task's row, or with reads the whole table, from another connection of
// its own, in a transaction left open until Release: a row lock (SELECT ... FOR UPDATE)
// holds back the store's writes of the task, LOCK TABLE ... IN ACCESS EXCLUSIVE MODE its
// reads as well. S-CTX-1 then ends the context of a call waiting on it.
func (n *namespace) Block(ctx context.Context, era harness.Era, id string, reads bool) (harness.Hold, error) {
	table := "storecheck_legacy_tasks"
	if era == harness.EraModern {
		table = "storecheck_modern_tasks"
	}
	cfg, err := n.poolConfig()
	if err != nil {
		return harness.Hold{}, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return harness.Hold{}, fmt.Errorf("postgres harness: block: %w", err)
	}
	fail := func(err error) (harness.Hold, error) {
		conn.Close(context.WithoutCancel(ctx))
		return harness.Hold{}, fmt.Errorf("postgres harness: block: %w", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fail(err)
	}
	var how string
	if reads {
		how = "LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE on another connection"
		if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
			return fail(err)
		}
	} else {
		how = "a row lock (SELECT ... FOR UPDATE) on another connection"
		var one int
		if err := tx.QueryRow(ctx, "SELECT 1 FROM "+table+" WHERE task_id = $1 FOR UPDATE", id).Scan(&one); err != nil {
			return fail(fmt.Errorf("locking the row of task %q: %w", id, err))
		}
	}
	n.mu.Lock()
	n.holds = append(n.holds, conn)
	n.mu.Unlock()
	return harness.Hold{How: how, Release: func(ctx context.Context) error {
		err := tx.Rollback(ctx)
		conn.Close(context.WithoutCancel(ctx))
		if err != nil {
			return fmt.Errorf("postgres harness: release: %w", err)
		}
		return nil
	}}, nil
}
