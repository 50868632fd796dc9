package riverstore_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/riverqueue/river/rivertype"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// TestSQLiteCancelOfAFinishedJob: L-CANCEL-1 says a Cancel must not fail because the
// job already finished. A task whose worker completed it (job completed) or gave up on
// the final attempt (task failed, job discarded) is cancelled without an error; River
// leaves the finished job as it was.
func TestSQLiteCancelOfAFinishedJob(t *testing.T) {
	ctx := t.Context()
	db, err := riverstore.OpenSQLite(filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := riverstore.MigrateSQLite(ctx, db); err != nil {
		t.Fatal(err)
	}
	b, err := riverstore.NewSQLite(db)
	if err != nil {
		t.Fatal(err)
	}
	l := b.Legacy()
	for _, tc := range []struct {
		id       string
		status   reference.Status
		jobState rivertype.JobState
	}{
		{"done", reference.StatusCompleted, rivertype.JobStateCompleted},
		{"gave-up", reference.StatusFailed, rivertype.JobStateDiscarded},
	} {
		t.Run(string(tc.jobState), func(t *testing.T) {
			if _, err := l.Create(ctx, tc.id, legacy.Task{"k": "v"}); err != nil {
				t.Fatal(err)
			}
			job, ok, err := b.JobOf(ctx, riverstore.EraLegacy, tc.id)
			if err != nil || !ok {
				t.Fatalf("JobOf(%s) = %d, %v, %v", tc.id, job, ok, err)
			}
			// What the worker leaves behind: the task finished, then its job finalised
			// (River's completer writes the state and finalized_at, as here).
			if _, err := l.Update(ctx, tc.id, legacy.Task{legacy.KeyStatus: string(tc.status)}); err != nil {
				t.Fatal(err)
			}
			finishJob(t, db, job, tc.jobState)
			if row, err := b.Client().JobGet(ctx, job); err != nil || row.State != tc.jobState {
				t.Fatalf("job %d before Cancel: %v, %v; want %s", job, row, err, tc.jobState)
			}

			got, err := l.Cancel(ctx, tc.id)
			if err != nil {
				t.Fatalf("Cancel of a task whose job is %s failed: %v", tc.jobState, err)
			}
			if got.Status() != reference.StatusCancelled || got["k"] != "v" {
				t.Errorf("Cancel of a task whose job is %s = %v, want it cancelled with its keys", tc.jobState, got)
			}
			if stored, err := l.Get(ctx, tc.id); err != nil || stored.Status() != reference.StatusCancelled {
				t.Errorf("Get after the Cancel = %v, %v; want cancelled", stored, err)
			}
			row, err := b.Client().JobGet(ctx, job)
			if err != nil {
				t.Fatal(err)
			}
			if row.State != tc.jobState {
				t.Errorf("Cancel moved the finished job from %s to %s", tc.jobState, row.State)
			}
		})
	}
}

// finishJob finalises job in state (completed or discarded) the way River's completer
// does: the state and finalized_at together (River's check constraint wants both).
func finishJob(t *testing.T, db *sql.DB, job int64, state rivertype.JobState) {
	t.Helper()
	res, err := db.ExecContext(t.Context(),
		`UPDATE river_job SET state = ?, finalized_at = datetime('now', 'subsec') WHERE id = ?`, string(state), job)
	if err != nil {
		t.Fatalf("finalise job %d as %s: %v", job, state, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("finalise job %d as %s: %d rows", job, state, n)
	}
}
