package property

import (
	"context"
	"testing"

	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// TestExplainModernJudgesTheFinalRead: the modern race check's final Get is judged like
// the calls' answers: an empty task with no error is a fault (no order explains it), as
// is a wrong task; the task the model holds is explained.
func TestExplainModernJudgesTheFinalRead(t *testing.T) {
	task := modern.Task{TaskID: "t1", Status: reference.StatusWorking, Version: 1, CreatedAt: 5, LastUpdatedAt: 5}
	start := model.NewModern()
	start.Put(task)
	m := start.Clone()
	owner := reference.System()
	calls := []RaceCall[modern.Task]{{"Cancel(system)",
		func(context.Context) (modern.Task, error) { return modern.Task{}, nil },
		func() (modern.Task, error) { return m.FacadeCancel(model.Facade{}, "t1", owner, 5) }}}
	want, err := start.Clone().FacadeCancel(model.Facade{}, "t1", owner, 5)
	if err != nil {
		t.Fatal(err)
	}
	got := []RaceResult[modern.Task]{{want, nil}}
	if !ExplainModern(start, &m, "t1", calls, got, want, nil) {
		t.Errorf("the model's own final state is not explained")
	}
	if ExplainModern(start, &m, "t1", calls, got, modern.Task{}, nil) {
		t.Errorf("an empty task read with no error is explained: it must be a fault")
	}
	if ExplainModern(start, &m, "t1", calls, got, task, nil) {
		t.Errorf("the task before the race is explained after a successful Cancel")
	}
	if ExplainModern(start, &m, "t1", calls, got, modern.Task{}, reference.NotFound("t1")) {
		t.Errorf("a not-found final read of a task never deleted is explained")
	}
}
