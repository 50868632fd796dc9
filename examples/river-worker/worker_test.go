package main

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func newTestServer(t *testing.T, h Handler) *server {
	t.Helper()
	s, err := newServer(t.Context(), filepath.Join(t.TempDir(), "tasks.db"), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.stop(ctx)
	})
	return s
}

func mustWait(t *testing.T, s *server, id string, status reference.Status, state rivertype.JobState) {
	t.Helper()
	if err := s.waitFor(t.Context(), id, status, state); err != nil {
		t.Fatal(err)
	}
}

// TestJobThroughTheStatusMapping drives a real job through every row of the README's
// mapping: working/available → input_required/scheduled (snoozed) → working (woken by
// the client's answer) → completed/completed; and a waiting task cancelled by its client
// ends with its job cancelled in River.
func TestJobThroughTheStatusMapping(t *testing.T) {
	s := newTestServer(t, confirmHandler)
	ctx := t.Context()
	alice := reference.Principal("alice")

	task, err := s.createTask(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if task.Status != reference.StatusWorking {
		t.Fatalf("new task is %s", task.Status)
	}
	if st, err := s.jobState(ctx, task.TaskID); err != nil || (st != rivertype.JobStateAvailable && st != rivertype.JobStateRunning) {
		t.Errorf("job of a new task: %s, %v; want available or running", st, err)
	}
	mustWait(t, s, task.TaskID, reference.StatusInputRequired, rivertype.JobStateScheduled)

	// The client answers: the task is working again, and the notifier wakes the job
	// long before its 30 s snooze ends.
	answered := time.Now()
	got, err := s.tasks.Update(ctx, task.TaskID, alice, map[string]any{"confirm": "yes"})
	if err != nil || got.Status != reference.StatusWorking {
		t.Fatalf("client's tasks/update: %s, %v", got.Status, err)
	}
	mustWait(t, s, task.TaskID, reference.StatusCompleted, rivertype.JobStateCompleted)
	if waited := time.Since(answered); waited > 20*time.Second {
		t.Errorf("the job was not woken by the answer: completed %s after it", waited)
	}
	done, err := s.tasks.Status(ctx, task.TaskID)
	if err != nil || done.Result == nil {
		t.Fatalf("completed task has no result: %+v, %v", done, err)
	}

	// A task waiting for input, cancelled by its client: the job is cancelled through
	// River (the store's swap to cancelled), not left to wake up.
	c, err := s.createTask(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	mustWait(t, s, c.TaskID, reference.StatusInputRequired, rivertype.JobStateScheduled)
	if _, err := s.tasks.Cancel(ctx, c.TaskID, alice); err != nil {
		t.Fatal(err)
	}
	if st, err := s.jobState(ctx, c.TaskID); err != nil || st != rivertype.JobStateCancelled {
		t.Errorf("job right after the client's cancel: %s, %v; want cancelled", st, err)
	}
	mustWait(t, s, c.TaskID, reference.StatusCancelled, rivertype.JobStateCancelled)
}

// TestFailsOnTheFinalAttempt: a handler that always errs leaves the task working through
// the retries and fails it on the last attempt; River discards the job.
func TestFailsOnTheFinalAttempt(t *testing.T) {
	var calls, failedEarly atomic.Int32
	var s *server
	s = newTestServer(t, func(ctx context.Context, id string, _ map[string]any) (map[string]any, map[string]any, error) {
		if n := calls.Add(1); n < riverstore.MaxAttempts {
			if cur, err := s.tasks.Status(ctx, id); err != nil || cur.Status != reference.StatusWorking {
				failedEarly.Add(1)
			}
		}
		return nil, nil, errors.New("analysis crashed")
	})
	task, err := s.createTask(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	mustWait(t, s, task.TaskID, reference.StatusFailed, rivertype.JobStateDiscarded)
	got, _ := s.tasks.Status(t.Context(), task.TaskID)
	if got.Error["message"] != "analysis crashed" {
		t.Errorf("failed task's error: %v", got.Error)
	}
	if n := calls.Load(); n != riverstore.MaxAttempts {
		t.Errorf("handler ran %d times, want %d (one per attempt)", n, riverstore.MaxAttempts)
	}
	if failedEarly.Load() != 0 {
		t.Errorf("the task left working before the final attempt")
	}
}

// TestCancelStopsARunningJob: the client cancels while the handler runs; River cancels
// the job's context, the worker stops, and the job ends cancelled.
func TestCancelStopsARunningJob(t *testing.T) {
	started := make(chan string, 1)
	s := newTestServer(t, func(ctx context.Context, id string, _ map[string]any) (map[string]any, map[string]any, error) {
		started <- id
		<-ctx.Done() // a long analysis that honours its context
		return nil, nil, ctx.Err()
	})
	task, err := s.createTask(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the job never started")
	}
	if _, err := s.tasks.Cancel(t.Context(), task.TaskID, reference.Principal("alice")); err != nil {
		t.Fatal(err)
	}
	mustWait(t, s, task.TaskID, reference.StatusCancelled, rivertype.JobStateCancelled)
}

// TestLegacyWorker: the legacy facade's task runs to completed; a cancelled one's job is
// cancelled in River.
func TestLegacyWorker(t *testing.T) {
	s := newTestServer(t, func(context.Context, string, map[string]any) (map[string]any, map[string]any, error) {
		return map[string]any{"content": []any{}}, nil, nil
	})
	ctx := t.Context()
	l := s.worker.Legacy
	state := func(id string) rivertype.JobState {
		job, ok, err := s.backend.JobOf(ctx, riverstore.EraLegacy, id)
		if err != nil || !ok {
			t.Fatalf("JobOf(%s): %v %v", id, ok, err)
		}
		row, err := s.backend.Client().JobGet(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		return row.State
	}
	if _, err := l.Create(ctx, "legacy-1", legacy.Task{"dataset_id": "d1"}, "alice"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := l.Get(ctx, "legacy-1", reference.Principal("alice"))
		if err == nil && got.Status() == reference.StatusCompleted && state("legacy-1") == rivertype.JobStateCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("legacy task: %v, %v; job %s", got, err, state("legacy-1"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A cancel that reaches the store (the facade claims the task first) cancels the job.
	if err := s.backend.Client().Stop(ctx); err != nil { // nothing may run the next job
		t.Fatal(err)
	}
	if _, err := l.Create(ctx, "legacy-2", legacy.Task{}, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Cancel(ctx, "legacy-2", reference.Principal("alice")); err != nil {
		t.Fatal(err)
	}
	if st := state("legacy-2"); st != rivertype.JobStateCancelled {
		t.Errorf("job of a cancelled legacy task is %s, want cancelled", st)
	}
}
