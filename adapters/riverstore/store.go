package riverstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/storecheck/storecheck/adapters/internal/storeerr"
	"github.com/storecheck/storecheck/reference"
)

// Queue is the River queue the stores insert task jobs into (the guide's :mcp_tasks).
const Queue = "mcp_tasks"

// MaxAttempts is the job's attempt budget (the guide's max_attempts: 3); a worker marks
// its task failed only on the last one.
const MaxAttempts = 3

// TaskArgs are the arguments of a task's job: the id of the task it works on and its era.
// Kind is the one job kind the stores insert; a worker for it is registered with
// river.AddWorker (examples/river-worker).
type TaskArgs struct {
	TaskID string `json:"task_id"`
	Era    string `json:"era"`
}

// Kind is the job kind of a task's job.
func (TaskArgs) Kind() string { return "storecheck_task" }

// Eras as stored in TaskArgs.Era.
const (
	EraLegacy = "legacy"
	EraModern = "modern"
)

// Option configures a Backend.
type Option func(*config)

type config struct {
	clock reference.Clock
	river *river.Config
}

// WithClock makes the stores read time from c (created_at, cleanup, expiry, sweep); the
// default is the real clock. The database's own clock is never read by the task tables'
// SQL. (River keeps its own job timestamps from the real clock.)
func WithClock(c reference.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithRiverConfig is the configuration of the River client the Backend builds: workers
// and queues make it a client that also works jobs (call Client().Start); without it the
// client only inserts and cancels. For Postgres, its Schema is overwritten by the
// Backend's schema.
func WithRiverConfig(c *river.Config) Option { return func(cfg *config) { cfg.river = c } }

func newConfig(opts []Option) config {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = reference.SystemClock{}
	}
	if cfg.river == nil {
		cfg.river = &river.Config{}
	}
	return cfg
}

func (c config) now() int64 { return reference.NowMillis(c.clock) }

// row is one result row of conn.queryRow.
type row interface{ Scan(dest ...any) error }

// conn is what the stores need from a database handle, a pool or a transaction: pgx on
// Postgres, database/sql on SQLite. queryRow's Scan answers errNoRows for no row.
type conn interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	queryRow(ctx context.Context, q string, args ...any) row
	queryStrings(ctx context.Context, q string, args ...any) ([]string, error)
}

// errNoRows is what both drivers' "no rows" errors become.
var errNoRows = errors.New("no rows")

// db is one client of a database: its pool, how to run a transaction on it (TTx is the
// River driver's transaction type) and the flavour's SQL.
type db[TTx any] struct {
	pool conn
	inTx func(ctx context.Context, fn func(tx TTx, c conn) error) error
	sql  *queries
	// name prefixes errors: "river-postgres", "river-sqlite".
	name string
}

// dbError turns an error met during op into the store's error (storeerr.Wrap).
func (d *db[TTx]) dbError(ctx context.Context, op string, err error) error {
	return storeerr.Wrap(ctx, d.name, op, err)
}

// deleteTask runs query, the era's DELETE by task_id, for id: a missing id is not an
// error in either era, and the task's job is left to River.
func (d *db[TTx]) deleteTask(ctx context.Context, query, id string) error {
	if err := reference.ValidateID(id); err != nil {
		return err
	}
	if _, err := d.pool.exec(ctx, query, id); err != nil {
		return d.dbError(ctx, "delete", err)
	}
	return nil
}

// Backend is one client of a database holding the task tables and River's: a River
// client (TTx is its driver's transaction type) and the stores of both eras over it.
type Backend[TTx any] struct {
	db     *db[TTx]
	client *river.Client[TTx]
	cfg    config
}

// Client is the Backend's River client: start it to work jobs when the Backend was
// built WithRiverConfig with workers.
func (b *Backend[TTx]) Client() *river.Client[TTx] { return b.client }

// Legacy is the legacy-era store of the Backend.
func (b *Backend[TTx]) Legacy() *Legacy[TTx] { return &Legacy[TTx]{b: b} }

// Modern is the modern-era store of the Backend.
func (b *Backend[TTx]) Modern() *Modern[TTx] { return &Modern[TTx]{b: b} }

// insertJob inserts the task's job in tx and links it to the task row of table: the
// guide's create_with_job, minus the transaction, which the caller holds.
func (b *Backend[TTx]) insertJob(ctx context.Context, tx TTx, c conn, link, id, era string) error {
	res, err := b.client.InsertTx(ctx, tx, TaskArgs{TaskID: id, Era: era},
		&river.InsertOpts{Queue: Queue, MaxAttempts: MaxAttempts})
	if err != nil {
		return fmt.Errorf("insert job: %w", err)
	}
	if _, err := c.exec(ctx, link, id, res.Job.ID); err != nil {
		return fmt.Errorf("link job: %w", err)
	}
	return nil
}

// cancelJob cancels job through River in tx. A job that already finished is left as it
// is, and a job that is gone (River's cleaner removes finished jobs) is no error: a
// cancel never fails because the job already finished (L-CANCEL-1).
func (b *Backend[TTx]) cancelJob(ctx context.Context, tx TTx, job *int64) error {
	if job == nil {
		return nil
	}
	if _, err := b.client.JobCancelTx(ctx, tx, *job); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
		return fmt.Errorf("cancel job %d: %w", *job, err)
	}
	return nil
}

// JobOf returns the id of the River job of the task id of era (EraLegacy, EraModern);
// ok is false when the task does not exist or has no job.
func (b *Backend[TTx]) JobOf(ctx context.Context, era, id string) (job int64, ok bool, err error) {
	q := b.db.sql.jobLegacy
	if era == EraModern {
		q = b.db.sql.jobModern
	}
	var j *int64
	err = b.db.pool.queryRow(ctx, q, id).Scan(&j)
	if errors.Is(err, errNoRows) || (err == nil && j == nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, b.db.dbError(ctx, "job-of", err)
	}
	return *j, true, nil
}
