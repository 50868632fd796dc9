package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Handler is the work of a task, called on every run of its job with the answers the
// client gave to the last round of input requests (nil before any). It returns the
// CallToolResult, or input requests to ask for (key → request) before it can go on, or
// an error (the job is retried; the task fails on the last attempt).
type Handler func(ctx context.Context, id string, input map[string]any) (result, need map[string]any, err error)

// Worker works the stores' task jobs (riverstore.TaskArgs) through the reference facades,
// as the guide's worker goes through ConduitMcp.Ext.Tasks: progress, require input then
// snooze until the client's tasks/update answers (Wake), complete, fail on the final
// attempt, stop on cancel.
type Worker struct {
	river.WorkerDefaults[riverstore.TaskArgs]

	Modern  *modern.Tasks
	Legacy  *legacy.Tasks
	Handler Handler
	// Snooze is how long a job waiting for input sleeps before it looks again, in case a
	// wake-up was lost (the guide's {:snooze, 5}).
	Snooze time.Duration
}

// Work runs one attempt of a task's job.
func (w *Worker) Work(ctx context.Context, job *river.Job[riverstore.TaskArgs]) error {
	if job.Args.Era == riverstore.EraLegacy {
		return w.workLegacy(ctx, job)
	}
	return w.workModern(ctx, job)
}

// stop ends the job as cancelled in River: the task is cancelled, gone or finished.
func stop(id, why string) error { return river.JobCancel(fmt.Errorf("task %s %s", id, why)) }

func (w *Worker) workModern(ctx context.Context, job *river.Job[riverstore.TaskArgs]) error {
	id := job.Args.TaskID
	t, err := w.Modern.Status(ctx, id)
	switch {
	case errors.Is(err, reference.ErrNotFound):
		return stop(id, "gone (deleted or expired)")
	case err != nil:
		return err
	}
	switch t.Status {
	case reference.StatusCancelled:
		return stop(id, "cancelled by client")
	case reference.StatusInputRequired:
		return river.JobSnooze(w.Snooze) // not answered yet
	case reference.StatusCompleted, reference.StatusFailed:
		return nil // finished by an earlier attempt: nothing left to do
	}
	if _, err := w.Modern.Progress(ctx, id, fmt.Sprintf("attempt %d of %d", job.Attempt, job.MaxAttempts)); err != nil {
		return w.modernWriteFailed(id, err)
	}
	result, need, herr := w.Handler(ctx, id, t.InputResponses)
	switch {
	case herr != nil:
		if cancelled, _ := w.Modern.Cancelled(context.WithoutCancel(ctx), id); cancelled {
			return stop(id, "cancelled by client while running")
		}
		if job.Attempt >= job.MaxAttempts {
			// Only the final attempt fails the task: earlier ones stay working, so the
			// client sees no flicker between retries.
			_, _ = w.Modern.Fail(context.WithoutCancel(ctx), id, map[string]any{
				"code": modern.CodeInternalError, "message": herr.Error(),
			})
		}
		return herr
	case need != nil:
		if _, err := w.Modern.RequireInput(ctx, id, need); err != nil {
			return w.modernWriteFailed(id, err)
		}
		return river.JobSnooze(w.Snooze)
	}
	if _, err := w.Modern.Complete(ctx, id, result); err != nil {
		return w.modernWriteFailed(id, err)
	}
	return nil
}

// modernWriteFailed turns a refused write into the job's outcome: a task that became
// terminal (cancelled under the worker) or vanished stops the job; anything else retries.
func (w *Worker) modernWriteFailed(id string, err error) error {
	switch {
	case errors.Is(err, reference.ErrTerminal):
		return stop(id, "finished under the worker (cancelled)")
	case errors.Is(err, reference.ErrNotFound):
		return stop(id, "gone")
	}
	return err
}

func (w *Worker) workLegacy(ctx context.Context, job *river.Job[riverstore.TaskArgs]) error {
	id := job.Args.TaskID
	t, err := w.Legacy.Get(ctx, id, reference.System())
	switch {
	case errors.Is(err, reference.ErrNotFound):
		return stop(id, "gone")
	case err != nil:
		return err
	}
	switch t.Status() {
	case reference.StatusCancelled:
		return stop(id, "cancelled by client")
	case reference.StatusCompleted, reference.StatusFailed:
		return nil
	case reference.StatusInputRequired:
		return river.JobSnooze(w.Snooze)
	}
	result, need, herr := w.Handler(ctx, id, nil)
	switch {
	case herr != nil:
		if job.Attempt >= job.MaxAttempts {
			_, _ = w.Legacy.Update(context.WithoutCancel(ctx), id, legacy.Task{
				legacy.KeyStatus: string(reference.StatusFailed), "error": herr.Error(),
			})
		}
		return herr
	case need != nil:
		if _, err := w.Legacy.Update(ctx, id, legacy.Task{
			legacy.KeyStatus: string(reference.StatusInputRequired), "input_requests": need,
		}); err != nil {
			return w.modernWriteFailed(id, err)
		}
		return river.JobSnooze(w.Snooze)
	}
	// The facade keeps finality: a task cancelled meanwhile answers ErrTerminal.
	if _, err := w.Legacy.Update(ctx, id, legacy.Task{
		legacy.KeyStatus: string(reference.StatusCompleted), "result": result,
	}); err != nil {
		return w.modernWriteFailed(id, err)
	}
	return nil
}

// Waker wakes a task's snoozed job when the client's answer puts the task back to
// working: the guide's TaskNotifier. Use it as (part of) the modern facade's notifier.
type Waker[TTx any] struct {
	Backend *riverstore.Backend[TTx]
	Log     *slog.Logger
}

// TaskChanged retries (makes available now) the job of a task that is working again
// with its answers delivered. It runs in the writer's goroutine, after the write.
func (w Waker[TTx]) TaskChanged(t modern.Task) {
	if t.Status != reference.StatusWorking || len(t.InputResponses) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	job, ok, err := w.Backend.JobOf(ctx, riverstore.EraModern, t.TaskID)
	if err == nil && ok {
		_, err = w.Backend.Client().JobRetry(ctx, job)
	}
	if err != nil && w.Log != nil {
		w.Log.Warn("wake job", "task", t.TaskID, "err", err)
	}
}
