package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A namespace's stores each get a pool of their own (a distinct client), but a new
// pool means new server sessions, and a Postgres session costs a process fork and an
// authentication: far more than the spec's first statements. So the pools of a closed
// namespace wait for the next one, whose schema each of their connections is switched
// to (search_path) when next acquired; a pool still in use when its namespace closes
// is closed instead, so that nothing of one spec can reach another's schema.

// maxIdlePools bounds the pools kept between namespaces (each holds its connections).
const maxIdlePools = 6

// schemaPool is a pool whose connections follow its current schema.
type schemaPool struct {
	pool   *pgxpool.Pool
	schema atomic.Pointer[string] // sanitized identifier of the schema its connections use
	paths  sync.Map               // *pgx.Conn → the sanitized search_path it has
}

// pools keeps the idle schemaPools of a harness.
type pools struct {
	mu     sync.Mutex
	idle   []*schemaPool
	closed bool
}

// take returns a pool on schema: an idle one switched to it, else a new one made with
// config (a pool configuration whose connections begin on schema).
func (ps *pools) take(ctx context.Context, schema string, config func() (*pgxpool.Config, error)) (*schemaPool, error) {
	path := pgx.Identifier{schema}.Sanitize()
	ps.mu.Lock()
	if n := len(ps.idle); n > 0 {
		sp := ps.idle[n-1]
		ps.idle = ps.idle[:n-1]
		ps.mu.Unlock()
		sp.schema.Store(&path)
		return sp, nil
	}
	ps.mu.Unlock()
	cfg, err := config()
	if err != nil {
		return nil, err
	}
	sp := &schemaPool{}
	sp.schema.Store(&path)
	cfg.BeforeConnect = func(_ context.Context, cc *pgx.ConnConfig) error {
		cc.RuntimeParams["search_path"] = *sp.schema.Load()
		return nil
	}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		sp.paths.Store(c, c.Config().RuntimeParams["search_path"])
		return nil
	}
	cfg.PrepareConn = sp.prepare
	cfg.BeforeClose = func(c *pgx.Conn) { sp.paths.Delete(c) }
	sp.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres harness: %w", err)
	}
	return sp, nil
}

// prepare switches a connection about to be acquired to the pool's schema. When the
// caller's context ends first, the call fails with its error and the connection goes
// back to the pool (switched at its next acquire); a connection that cannot be switched
// otherwise is destroyed, and the acquire tries another.
func (sp *schemaPool) prepare(ctx context.Context, c *pgx.Conn) (bool, error) {
	want := *sp.schema.Load()
	if have, _ := sp.paths.Load(c); have == want {
		return true, nil
	}
	if _, err := c.Exec(ctx, `SELECT set_config('search_path', $1, false)`, want); err != nil {
		sp.paths.Delete(c)
		if ctx.Err() != nil {
			return !c.IsClosed(), ctx.Err()
		}
		return false, nil
	}
	sp.paths.Store(c, want)
	return true, nil
}

// give takes back the pools of a closed namespace: each idle one waits for the next
// namespace, up to maxIdlePools; one with a connection still acquired is closed.
func (ps *pools) give(sps []*schemaPool) {
	for _, sp := range sps {
		ps.mu.Lock()
		keep := !ps.closed && len(ps.idle) < maxIdlePools && sp.pool.Stat().AcquiredConns() == 0
		if keep {
			ps.idle = append(ps.idle, sp)
		}
		ps.mu.Unlock()
		if !keep {
			sp.pool.Close()
		}
	}
}

// close closes the idle pools; pools given afterwards are closed.
func (ps *pools) close() {
	ps.mu.Lock()
	idle := ps.idle
	ps.idle, ps.closed = nil, true
	ps.mu.Unlock()
	for _, sp := range idle {
		sp.pool.Close()
	}
}
