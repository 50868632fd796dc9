// Command river-worker is the Oban guide's worker flow on River: a task store of
// adapters/riverstore on a SQLite file, a River client working its jobs with Worker, and the
// reference modern facade in front, as an MCP server would hold it. It runs one task
// through working → input_required → working → completed, printing each status and its
// job's River state, and a second task that the client cancels.
//
//	go run ./examples/river-worker [-db FILE]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// server is what an MCP server holds: the facade, over the River-backed store, whose
// client works the jobs.
type server struct {
	backend *riverstore.Backend[*sql.Tx]
	tasks   *modern.Tasks
	worker  *Worker
}

// quickRetry retries a failed job after a fixed delay (River's default backs off for
// seconds to hours, too slow for a demonstration).
type quickRetry time.Duration

func (q quickRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(time.Duration(q)) }

// newServer opens the database file, migrates it and starts a River client working the
// task queue with handler.
func newServer(ctx context.Context, path string, handler Handler) (*server, error) {
	db, err := riverstore.OpenSQLite(path)
	if err != nil {
		return nil, err
	}
	if err := riverstore.MigrateSQLite(ctx, db); err != nil {
		return nil, err
	}
	w := &Worker{Handler: handler, Snooze: 30 * time.Second}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	b, err := riverstore.NewSQLite(db, riverstore.WithRiverConfig(&river.Config{
		Queues:            map[string]river.QueueConfig{riverstore.Queue: {MaxWorkers: 4}},
		Workers:           workers,
		FetchPollInterval: 50 * time.Millisecond,
		FetchCooldown:     10 * time.Millisecond,
		RetryPolicy:       quickRetry(50 * time.Millisecond),
	}))
	if err != nil {
		return nil, err
	}
	s := &server{backend: b, worker: w}
	s.tasks = modern.New(modern.Config{Store: b.Modern(), Notifier: Waker[*sql.Tx]{Backend: b}})
	w.Modern = s.tasks
	w.Legacy = legacy.New(b.Legacy())
	if err := b.Client().Start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *server) stop(ctx context.Context) error { return s.backend.Client().Stop(ctx) }

// createTask is the tool's {:task, ...}: the store inserts the row and its job in one
// transaction, so the start hook has nothing left to enqueue.
func (s *server) createTask(ctx context.Context, owner string) (modern.Task, error) {
	return s.tasks.Create(ctx, modern.CreateOptions{Owner: owner, StatusMessage: "Queued"},
		func(context.Context, string) error { return nil })
}

// jobState is the River state of a task's job.
func (s *server) jobState(ctx context.Context, id string) (rivertype.JobState, error) {
	job, ok, err := s.backend.JobOf(ctx, riverstore.EraModern, id)
	if err != nil || !ok {
		return "", fmt.Errorf("job of %s: %v (found %v)", id, err, ok)
	}
	row, err := s.backend.Client().JobGet(ctx, job)
	if err != nil {
		return "", err
	}
	return row.State, nil
}

// waitFor polls until the task and its job are in the given states.
func (s *server) waitFor(ctx context.Context, id string, status reference.Status, state rivertype.JobState) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		t, err := s.tasks.Status(ctx, id)
		js, jerr := s.jobState(ctx, id)
		if err == nil && jerr == nil && t.Status == status && js == state {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("task %s: want %s with job %s, have %s (%v) with job %s (%v)", id, status, state, t.Status, err, js, jerr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// confirmHandler asks the client to confirm once, then completes with the answer.
func confirmHandler(_ context.Context, _ string, input map[string]any) (map[string]any, map[string]any, error) {
	if answer, ok := input["confirm"]; ok {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprint("confirmed: ", answer)}}}, nil, nil
	}
	return nil, map[string]any{"confirm": map[string]any{"message": "Go ahead?"}}, nil
}

func main() {
	path := flag.String("db", "", "SQLite database file (default: a temporary one)")
	flag.Parse()
	if err := run(*path); err != nil {
		fmt.Fprintln(os.Stderr, "river-worker:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	ctx := context.Background()
	if path == "" {
		dir, err := os.MkdirTemp("", "river-worker-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "tasks.db")
	}
	s, err := newServer(ctx, path, confirmHandler)
	if err != nil {
		return err
	}
	defer func() {
		if err := s.stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "river-worker: stopping River: %v\n", err)
		}
	}()
	alice := reference.Principal("alice")
	show := func(id string) {
		t, _ := s.tasks.Status(ctx, id)
		js, _ := s.jobState(ctx, id)
		fmt.Printf("task %s: %-14s job: %s\n", id, t.Status, js)
	}

	t, err := s.createTask(ctx, "alice")
	if err != nil {
		return err
	}
	show(t.TaskID)
	if err := s.waitFor(ctx, t.TaskID, reference.StatusInputRequired, rivertype.JobStateScheduled); err != nil {
		return err
	}
	show(t.TaskID)
	if _, err := s.tasks.Update(ctx, t.TaskID, alice, map[string]any{"confirm": "yes"}); err != nil {
		return err
	}
	show(t.TaskID)
	if err := s.waitFor(ctx, t.TaskID, reference.StatusCompleted, rivertype.JobStateCompleted); err != nil {
		return err
	}
	show(t.TaskID)

	c, err := s.createTask(ctx, "alice")
	if err != nil {
		return err
	}
	if err := s.waitFor(ctx, c.TaskID, reference.StatusInputRequired, rivertype.JobStateScheduled); err != nil {
		return err
	}
	show(c.TaskID)
	if _, err := s.tasks.Cancel(ctx, c.TaskID, alice); err != nil {
		return err
	}
	if err := s.waitFor(ctx, c.TaskID, reference.StatusCancelled, rivertype.JobStateCancelled); err != nil {
		return err
	}
	show(c.TaskID)
	return nil
}
