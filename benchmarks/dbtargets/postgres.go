package dbtargets

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/benchmarks"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// pgConns is the pool size of both subjects: room for the seeding workers.
const pgConns = benchmarks.SeedWorkers

func init() {
	benchmarks.Register(benchmarks.Target{
		Name: "postgres",
		Summary: "the PostgreSQL adapter vs the equivalent raw pgx statements (insert, select, " +
			"conditional update by primary key) on the same tables, each in a schema of its own",
		Start: startPostgres,
	})
}

// postgresServer is the server env names, or a container it starts, and an
// administrative pool on it; stop closes the pool and stops what it started.
func postgresServer(ctx context.Context, env benchmarks.Env, target string) (dsn string, admin *pgxpool.Pool, stop func(context.Context) error, err error) {
	if err := needDocker(ctx, env.PostgresDSN, pgcontainer.EnvURL); err != nil {
		return "", nil, nil, err
	}
	dsn, stopServer := env.PostgresDSN, func(context.Context) error { return nil }
	if dsn == "" {
		if dsn, stopServer, err = pgcontainer.Start(ctx); err != nil {
			return "", nil, nil, err
		}
	}
	admin, err = pgxpool.New(ctx, dsn)
	if err == nil {
		err = admin.Ping(ctx)
	}
	if err != nil {
		_ = stopServer(context.WithoutCancel(ctx))
		return "", nil, nil, fmt.Errorf("%s: %w", target, err)
	}
	return dsn, admin, func(ctx context.Context) error { admin.Close(); return stopServer(ctx) }, nil
}

func startPostgres(ctx context.Context, env benchmarks.Env) (*benchmarks.Backend, error) {
	dsn, admin, stop, err := postgresServer(ctx, env, "postgres")
	if err != nil {
		return nil, err
	}
	open := func(ctx context.Context) (*pgxpool.Pool, func(context.Context) error, error) {
		return pgSchema(ctx, admin, dsn)
	}
	store := benchmarks.Subject{Label: "store", What: "postgres adapter", Open: func(ctx context.Context) (*benchmarks.Space, error) {
		pool, closeSchema, err := open(ctx)
		if err != nil {
			return nil, err
		}
		clock, set := benchmarks.ManualClock()
		return &benchmarks.Space{
			Legacy: benchmarks.StoreLegacy(postgres.NewLegacy(pool, postgres.WithClock(clock)), set, pgSeeder(pool)),
			Modern: benchmarks.StoreModern(postgres.NewModern(pool, postgres.WithClock(clock)), clock),
			Close:  closeSchema,
		}, nil
	}}
	base := benchmarks.Subject{Label: "baseline", What: "raw pgx", Open: func(ctx context.Context) (*benchmarks.Space, error) {
		pool, closeSchema, err := open(ctx)
		if err != nil {
			return nil, err
		}
		r := &pgRaw{pool: pool, createdAt: time.Now().UnixMilli()}
		return &benchmarks.Space{Legacy: r, Modern: rawModern{(*pgRawModern)(r)}, Close: closeSchema}, nil
	}}
	return &benchmarks.Backend{Store: store, Baseline: base, Stop: stop}, nil
}

// pgSchema makes a schema with a random name holding the adapter's tables (Migrate) and
// a pool whose connections land in it; the returned function drops it.
func pgSchema(ctx context.Context, admin *pgxpool.Pool, dsn string) (*pgxpool.Pool, func(context.Context) error, error) {
	return pgschema.Fresh(ctx, admin, dsn, "storecheck_bench_", pgConns,
		postgres.CancelOnServer, // as the adapter's README asks of every pool
		func(ctx context.Context, pool *pgxpool.Pool) error { return postgres.Migrate(ctx, pool) })
}

// pgSeeder loads the cleanup case's completed tasks with one COPY, rows exactly as the
// adapter writes them (its documented schema: promoted columns and the task as JSON
// text), so that reloading 5 000 tasks before every timed Cleanup takes milliseconds.
// Both subjects load this way.
func pgSeeder(pool *pgxpool.Pool) func(ctx context.Context, ids []string, owner string, atMillis int64) error {
	return func(ctx context.Context, ids []string, owner string, atMillis int64) error {
		rows := make([][]any, len(ids))
		for i, id := range ids {
			meta := benchmarks.LegacyMeta(owner, 0)
			meta[legacy.KeyStatus] = string(reference.StatusCompleted)
			row, err := legacy.NewRow(id, meta, atMillis)
			if err != nil {
				return err
			}
			row[legacy.KeyStatus] = string(reference.StatusCompleted) // NewRow stamps working
			body, err := json.Marshal(row)
			if err != nil {
				return err
			}
			rows[i] = []any{id, []byte(owner), []byte(reference.StatusCompleted), atMillis, string(body)}
		}
		_, err := pool.CopyFrom(ctx, pgx.Identifier{"storecheck_legacy_tasks"},
			[]string{"task_id", "owner", "status", "created_at", "body"}, pgx.CopyFromRows(rows))
		return err
	}
}

// pgRaw is the baseline: the statements a store on these tables cannot do without, one
// round trip each, values already encoded.
type pgRaw struct {
	pool      *pgxpool.Pool
	createdAt int64
}

// legacyBody is a legacy task's JSON text, built by concatenation: the baseline pays for
// the statement, not for encoding.
func legacyBody(id, owner string, progress int) string {
	return `{"args":{"page":0,"q":"task stores"},"created_at":0,"owner":` + strconv.Quote(owner) +
		`,"progress":` + strconv.Itoa(progress) + `,"status":"working","task_id":` + strconv.Quote(id) + `,"tool":"search"}`
}

func (r *pgRaw) Create(ctx context.Context, id, owner string) error {
	_, err := r.pool.Exec(ctx,
		`INSERT INTO storecheck_legacy_tasks (task_id, owner, status, created_at, body) VALUES ($1, $2, $3, $4, $5)`,
		id, []byte(owner), []byte("working"), r.createdAt, legacyBody(id, owner, 0))
	return err
}

func (r *pgRaw) Get(ctx context.Context, id string) error {
	var body string
	return r.pool.QueryRow(ctx, `SELECT body FROM storecheck_legacy_tasks WHERE task_id = $1`, id).Scan(&body)
}

func (r *pgRaw) Update(ctx context.Context, id string, n int) error {
	tag, err := r.pool.Exec(ctx, `UPDATE storecheck_legacy_tasks SET body = $2 WHERE task_id = $1`, id, legacyBody(id, "", n))
	if err == nil && tag.RowsAffected() != 1 {
		err = reference.NotFound(id)
	}
	return err
}

func (r *pgRaw) List(ctx context.Context, owner string, limit int) (int, error) {
	rows, err := r.pool.Query(ctx, `SELECT body FROM storecheck_legacy_tasks
		WHERE (owner = $1 OR owner IS NULL) ORDER BY task_id LIMIT $2`, []byte(owner), limit)
	if err != nil {
		return 0, err
	}
	bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return len(bodies), err
}

func (r *pgRaw) Seed(ctx context.Context, ids []string, owner string, atMillis int64) error {
	return pgSeeder(r.pool)(ctx, ids, owner, atMillis)
}

func (r *pgRaw) Cleanup(ctx context.Context, nowMillis int64, ttl time.Duration) (int, error) {
	tag, err := r.pool.Exec(ctx, `DELETE FROM storecheck_legacy_tasks WHERE status = ANY($1) AND created_at <= $2`,
		[][]byte{[]byte("completed"), []byte("failed"), []byte("cancelled")}, nowMillis-ttl.Milliseconds()-1)
	return int(tag.RowsAffected()), err
}

// pgRawModern is the modern half of the baseline.
type pgRawModern pgRaw

const modernBodyJSON = `{"status":"working","status_message":"step","last_updated_at":0,"poll_interval":1000,` +
	`"result":null,"error":null,"input_requests":null,"staged_responses":null,"input_responses":null,"issued_keys":null}`

func (r *pgRawModern) Create(ctx context.Context, id, owner string) error {
	ttl := benchmarks.TaskTTL.Milliseconds()
	_, err := r.pool.Exec(ctx,
		`INSERT INTO storecheck_modern_tasks (task_id, owner, created_at, ttl, expires_at, version, body)
		 VALUES ($1, $2, $3, $4, $5, 1, $6)`,
		id, []byte(owner), r.createdAt, ttl, r.createdAt+ttl, modernBodyJSON)
	return err
}

// get is the select of a Get: the row, unexpired; it returns the version.
func (r *pgRawModern) get(ctx context.Context, id string) (int64, error) {
	return scanVersion(r.pool.QueryRow(ctx,
		`SELECT owner, created_at, ttl, version, body FROM storecheck_modern_tasks
		 WHERE task_id = $1 AND (expires_at IS NULL OR expires_at > $2)`,
		id, time.Now().UnixMilli()))
}

// swap is the conditional update by primary key; ok is false when the version moved.
func (r *pgRawModern) swap(ctx context.Context, id string, version int64) (bool, error) {
	tag, err := r.pool.Exec(ctx,
		`UPDATE storecheck_modern_tasks SET version = $3, body = $4 WHERE task_id = $1 AND version = $2`,
		id, version, version+1, modernBodyJSON)
	return tag.RowsAffected() == 1, err
}
