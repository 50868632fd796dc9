// Package jobcheck is the River adapter's check of the job side of its stores, run by
// both flavours' tests: what the battery cannot see from outside.
package jobcheck

import (
	"errors"
	"testing"

	"github.com/riverqueue/river/rivertype"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Run checks the job side the battery cannot see: Create inserts the task's job in
// its transaction (and a refused Create leaves none), Cancel cancels it through River,
// and a cancel never fails because the job already finished or is gone.
func Run[TTx any](t *testing.T, b *riverstore.Backend[TTx]) {
	t.Helper()
	ctx := t.Context()
	l, m := b.Legacy(), b.Modern()
	state := func(era, id string) rivertype.JobState {
		t.Helper()
		job, ok, err := b.JobOf(ctx, era, id)
		if err != nil || !ok {
			t.Fatalf("JobOf(%s, %s) = %d, %v, %v; want a job", era, id, job, ok, err)
		}
		row, err := b.Client().JobGet(ctx, job)
		if err != nil {
			t.Fatalf("JobGet(%d): %v", job, err)
		}
		if row.Queue != riverstore.Queue || row.Kind != (riverstore.TaskArgs{}).Kind() {
			t.Errorf("job of %s: queue %q kind %q", id, row.Queue, row.Kind)
		}
		return row.State
	}

	if _, err := l.Create(ctx, "t1", legacy.Task{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	if got := state(riverstore.EraLegacy, "t1"); got != rivertype.JobStateAvailable {
		t.Errorf("job of a new legacy task is %s, want available", got)
	}
	first, _, _ := b.JobOf(ctx, riverstore.EraLegacy, "t1")
	if _, err := l.Create(ctx, "t1", legacy.Task{}); !errors.Is(err, reference.ErrExists) {
		t.Errorf("second Create: want ErrExists, got %v", err)
	}
	if again, _, _ := b.JobOf(ctx, riverstore.EraLegacy, "t1"); again != first {
		t.Errorf("a refused Create relinked the task: job %d, was %d", again, first)
	}
	if _, err := b.Client().JobGet(ctx, first+1); !errors.Is(err, rivertype.ErrNotFound) {
		t.Errorf("a refused Create left a job behind (JobGet(%d) = %v)", first+1, err)
	}
	if _, err := l.Cancel(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if got := state(riverstore.EraLegacy, "t1"); got != rivertype.JobStateCancelled {
		t.Errorf("job of a cancelled legacy task is %s, want cancelled", got)
	}
	// Cancelling again: the job is already finalised; no error.
	if got, err := l.Cancel(ctx, "t1"); err != nil || got.Status() != reference.StatusCancelled {
		t.Errorf("Cancel of a task whose job is finished = %v, %v", got, err)
	}
	// The job is gone altogether (River's cleaner prunes finished jobs): still no error.
	if _, err := b.Client().JobDelete(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Cancel(ctx, "t1"); err != nil {
		t.Errorf("Cancel of a task whose job was pruned: %v", err)
	}

	// Modern: a swap to cancelled cancels the job; other swaps leave it alone.
	mt, err := m.Create(ctx, modern.Task{TaskID: "m1", Status: reference.StatusWorking, CreatedAt: 1})
	if err != nil {
		t.Fatal(err)
	}
	next := mt
	next.Status = reference.StatusInputRequired
	if _, err := m.Swap(ctx, reference.System(), 1, next); err != nil {
		t.Fatal(err)
	}
	if got := state(riverstore.EraModern, "m1"); got != rivertype.JobStateAvailable {
		t.Errorf("job after a swap to input_required is %s, want available", got)
	}
	next.Status = reference.StatusCancelled
	if _, err := m.Swap(ctx, reference.System(), 1, next); !errors.Is(err, reference.ErrConflict) {
		t.Errorf("stale swap to cancelled: want ErrConflict, got %v", err)
	}
	if got := state(riverstore.EraModern, "m1"); got != rivertype.JobStateAvailable {
		t.Errorf("a refused swap to cancelled cancelled the job (%s)", got)
	}
	if _, err := m.Swap(ctx, reference.System(), 2, next); err != nil {
		t.Fatal(err)
	}
	if got := state(riverstore.EraModern, "m1"); got != rivertype.JobStateCancelled {
		t.Errorf("job after a swap to cancelled is %s, want cancelled", got)
	}
}
