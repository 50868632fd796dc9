package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/reference"
)

// Several MCP server instances over one schema (storecheck serve --mcp --namespace):
// OpenNamed opens a schema by name, made and migrated by the first instance and left in
// place on Close; Cluster is what the instances share beyond the tasks, on the same
// schema: LISTEN/NOTIFY for signals, a table of leases.

// leasesLockClass is the first key of the advisory lock under which the lease table is
// made: concurrent CREATE TABLE IF NOT EXISTS can collide in the catalogue.
const leasesLockClass = 0x5c0e

// OpenNamed returns the namespace of the schema name, made and migrated when it does not
// exist yet; its Close leaves the schema and its tasks for the other instances.
func (h *Harness) OpenNamed(ctx context.Context, clock reference.Clock, name string) (harness.Namespace, error) {
	admin, err := h.adminPool(ctx)
	if err != nil {
		return nil, err
	}
	if err = pgschema.Ensure(ctx, admin, name); err == nil {
		err = Migrate(ctx, inSchema{admin, name})
	}
	if err != nil {
		return nil, fmt.Errorf("postgres harness: schema %s: %w", name, err)
	}
	return &namespace{h: h, schema: name, clock: clock, kept: true}, nil
}

// Cluster returns the MCP instances' backend on the namespace's schema, on a pool of its
// own (closed with the namespace).
func (n *namespace) Cluster(ctx context.Context) (cluster.Backend, error) {
	pool, err := n.newPool(ctx)
	if err != nil {
		return nil, err
	}
	return NewCluster(ctx, pool, n.schema)
}

// leasesSQL makes the lease table: one row per leased key, its end in Unix milliseconds.
const leasesSQL = `CREATE TABLE IF NOT EXISTS storecheck_mcp_leases (key text PRIMARY KEY, until_ms bigint NOT NULL)`

// Cluster is cluster.Backend on a Postgres schema: signals are NOTIFY on a channel named
// after the schema, heard on a connection of their own that LISTENs (taken again from
// the pool when it breaks); leases are rows of storecheck_mcp_leases, claimed by an
// UPDATE ... RETURNING, which gives each expired row to one caller.
type Cluster struct {
	pool    *pgxpool.Pool
	channel string

	mu     sync.Mutex
	closed bool
	stops  []context.CancelFunc
}

var _ cluster.Backend = (*Cluster)(nil)

// NewCluster returns the backend on pool's schema, schema naming its channel; it makes
// the lease table when missing. Close does not close pool.
func NewCluster(ctx context.Context, pool *pgxpool.Pool, schema string) (*Cluster, error) {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, leasesLockClass, schema); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, leasesSQL)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres cluster: %w", err)
	}
	// A channel is an identifier of at most 63 bytes, shared by the whole database.
	sum := sha256.Sum256([]byte(schema))
	return &Cluster{pool: pool, channel: "storecheck_mcp_" + hex.EncodeToString(sum[:12])}, nil
}

func (c *Cluster) Publish(ctx context.Context, msg []byte) error {
	_, err := c.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, c.channel, string(msg))
	return err
}

// Subscribe LISTENs on a connection taken out of the pool; the connection is taken
// again when it breaks (what was sent meanwhile is lost).
func (c *Cluster) Subscribe(ctx context.Context) (<-chan []byte, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, cluster.ErrClosed
	}
	ctx, stop := context.WithCancel(ctx)
	c.stops = append(c.stops, stop)
	c.mu.Unlock()
	conn, err := c.listen(ctx)
	if err != nil {
		stop()
		return nil, err
	}
	out := make(chan []byte, 256)
	go c.hear(ctx, conn, out)
	return out, nil
}

// listen returns a connection of its own that LISTENs on the channel.
func (c *Cluster) listen(ctx context.Context) (*pgx.Conn, error) {
	pc, err := c.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres cluster: listen: %w", err)
	}
	conn := pc.Hijack()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{c.channel}.Sanitize()); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("postgres cluster: listen: %w", err)
	}
	return conn, nil
}

func (c *Cluster) hear(ctx context.Context, conn *pgx.Conn, out chan<- []byte) {
	defer close(out)
	defer func() { conn.Close(context.WithoutCancel(ctx)) }()
	for ctx.Err() == nil {
		n, err := conn.WaitForNotification(ctx)
		if err == nil {
			select {
			case out <- []byte(n.Payload):
			default: // a subscriber behind loses the signal
			}
			continue
		}
		if ctx.Err() != nil {
			return
		}
		conn.Close(context.WithoutCancel(ctx))
		for conn, err = c.listen(ctx); err != nil && ctx.Err() == nil; conn, err = c.listen(ctx) {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
		if err != nil {
			return
		}
	}
}

func (c *Cluster) Hold(ctx context.Context, key string, until time.Time) error {
	_, err := c.pool.Exec(ctx, `INSERT INTO storecheck_mcp_leases (key, until_ms) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET until_ms = EXCLUDED.until_ms`, key, until.UnixMilli())
	return err
}

func (c *Cluster) Drop(ctx context.Context, key string) error {
	_, err := c.pool.Exec(ctx, `DELETE FROM storecheck_mcp_leases WHERE key = $1`, key)
	return err
}

// Expired claims by an UPDATE: of two at once, the second re-reads a row the first
// moved and skips it.
func (c *Cluster) Expired(ctx context.Context, now, until time.Time) ([]string, error) {
	rows, err := c.pool.Query(ctx, `UPDATE storecheck_mcp_leases SET until_ms = $2 WHERE until_ms < $1 RETURNING key`,
		now.UnixMilli(), until.UnixMilli())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Close ends the subscriptions (their connections close); the pool stays open.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	for _, stop := range c.stops {
		stop()
	}
	return nil
}
