package legacyspecs

import (
	"encoding/json"
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func Update(s *battery.Suite) {
	s.It("L-UPDATE-1", "shallow-merges: top-level keys replace, nested objects are replaced whole, null is stored, no key is removed", func(e *battery.Env) {
		st := e.Legacy()
		id := e.ID("upd")
		cur := battery.MustCreate(e, st, id, legacy.Task{
			"a":      json.Number("1"),
			"keep":   "k",
			"nested": map[string]any{"x": json.Number("1"), "y": map[string]any{"deep": true}},
			"list":   []any{json.Number("1"), json.Number("2")},
			"gone":   "soon null",
		})
		steps := []legacy.Task{
			{"nested": map[string]any{"z": json.Number("3")}, "gone": nil, "a": json.Number("2")},
			{"list": []any{json.Number("3")}, "new": map[string]any{}},
			{"nested": map[string]any{}, legacy.KeyStatus: "input_required"},
			{},
			{"a": nil, "nested": nil, "list": nil},
			// Strings that read as another type stay strings.
			{"a": "123", "list": "true", "gone": "null", "new": `{"z":3}`},
		}
		updateSteps(e, st, id, cur, steps)
	})

	s.It("L-UPDATE-1", "replaces the keys Create stamped, created_at and task_id, like any other key; the task keeps answering to the id it was created with", func(e *battery.Env) {
		st := e.Legacy()
		id, renamed := e.ID("stamped"), e.ID("renamed")
		cur := battery.MustCreate(e, st, id, legacy.Task{"a": "b"})
		stamp, _ := cur.CreatedAt()
		steps := []legacy.Task{
			{legacy.KeyCreatedAt: json.Number(fmt.Sprint(stamp - 7_200_000))}, // two hours older
			{legacy.KeyCreatedAt: json.Number("1")},
			{legacy.KeyCreatedAt: "yesterday"},
			{legacy.KeyCreatedAt: nil},
			{legacy.KeyCreatedAt: json.Number("9223372036854775807"), "a": "c"},
			{legacy.KeyTaskID: renamed},
			{legacy.KeyTaskID: json.Number("7"), legacy.KeyStatus: "completed"},
			{legacy.KeyTaskID: renamed, legacy.KeyCreatedAt: json.Number(fmt.Sprint(stamp + 1))},
		}
		cur, ok := updateSteps(e, st, id, cur, steps)
		if !ok {
			return
		}
		// The id names the task; its task_id key is data: no task answers to it.
		input := fmt.Sprintf("Get(%s) after Update(%s, {\"task_id\": %s})", battery.Literal(renamed), battery.Literal(id), battery.Literal(renamed))
		got, ok := battery.Stored(e, st, renamed)
		e.Check(!ok, input, "ErrNotFound: no task was created with that id", got)
		rows := battery.ListRows(e, st, legacy.ListOptions{})
		n := 0
		for _, r := range rows {
			if legacy.Equal(r, cur) {
				n++
			}
		}
		e.Check(n == 1, fmt.Sprintf("List({}) after Updates of %s's created_at and task_id", battery.Literal(id)), "exactly one row equal to "+battery.Show(cur), fmt.Sprintf("%d such rows among %d", n, len(rows)))
		e.CheckErr(st.Delete(e.Ctx, id), nil, fmt.Sprintf("Delete(%s) of a task whose task_id key says %s", battery.Literal(id), battery.Literal(renamed)))
		battery.CheckGone(e, st, id, fmt.Sprintf("Delete(%s) of a task whose task_id key says %s", battery.Literal(id), battery.Literal(renamed)))
	})

	s.It("L-UPDATE-2", "answers ErrNotFound for a missing id and creates nothing", func(e *battery.Env) {
		st := e.Legacy()
		missing := e.ID("missing")
		changes := legacy.Task{"a": json.Number("1"), legacy.KeyStatus: "completed"}
		input := fmt.Sprintf("Update(%s, %s) of an id never created", battery.Literal(missing), battery.Literal(changes))
		_, err := st.Update(e.Ctx, missing, changes)
		e.CheckErr(err, reference.ErrNotFound, input)
		battery.CheckGone(e, st, missing, input)
		rows := battery.ListRows(e, st, legacy.ListOptions{})
		e.Check(!battery.RowIDs(rows, nil)[missing], "after "+input+": List({})", "no row "+battery.Literal(missing), battery.RowIDs(rows, battery.SetOf(missing)))

		// A deleted task is missing too: Update must not bring it back.
		id := e.ID("deleted")
		battery.MustCreate(e, st, id, legacy.Task{"a": "b"})
		if err := st.Delete(e.Ctx, id); err != nil {
			e.Fatalf("setup: Delete(%q): %v", id, err)
		}
		input = fmt.Sprintf("Update(%s, %s) after Delete", battery.Literal(id), battery.Literal(changes))
		_, err = st.Update(e.Ctx, id, changes)
		e.CheckErr(err, reference.ErrNotFound, input)
		battery.CheckGone(e, st, id, input)
	})

	s.It("L-DELETE-1", "succeeds whether or not the id exists, and afterwards Get answers ErrNotFound", func(e *battery.Env) {
		st := e.Legacy()
		missing := e.ID("missing")
		e.CheckErr(st.Delete(e.Ctx, missing), nil, "Delete("+battery.Literal(missing)+") of an id never created")
		battery.CheckGone(e, st, missing, "Delete("+battery.Literal(missing)+")")

		id, other := e.ID("del"), e.ID("other")
		battery.MustCreate(e, st, id, legacy.Task{"a": "b"})
		keep := battery.MustCreate(e, st, other, legacy.Task{"a": "b"})
		e.CheckErr(st.Delete(e.Ctx, id), nil, "Delete("+battery.Literal(id)+")")
		battery.CheckGone(e, st, id, "Delete("+battery.Literal(id)+")")
		battery.CheckStored(e, st, other, keep, "Delete("+battery.Literal(id)+") of another task")
		rows := battery.ListRows(e, st, legacy.ListOptions{})
		e.Check(!battery.RowIDs(rows, nil)[id], "after Delete("+battery.Literal(id)+"): List({})", "no row "+battery.Literal(id), battery.RowIDs(rows, battery.SetOf(id, other)))
		e.CheckErr(st.Delete(e.Ctx, id), nil, "Delete("+battery.Literal(id)+") a second time")
		battery.CheckGone(e, st, id, "Delete("+battery.Literal(id)+") a second time")

		// A terminal task is deleted like any other.
		done := e.ID("done")
		battery.MustCreate(e, st, done, legacy.Task{})
		battery.MustStatus(e, st, done, "completed")
		e.CheckErr(st.Delete(e.Ctx, done), nil, "Delete("+battery.Literal(done)+") of a completed task")
		battery.CheckGone(e, st, done, "Delete("+battery.Literal(done)+")")
	})
}

// updateSteps applies each step's Update to the task id holds (cur) and checks the merged
// task is what Update returned and what is stored; it returns the task after the last
// step, or false at the first step that failed.
func updateSteps(e *battery.Env, st legacy.Store, id string, cur legacy.Task, steps []legacy.Task) (legacy.Task, bool) {
	for _, changes := range steps {
		input := fmt.Sprintf("Update(%s, %s)", battery.Literal(id), battery.Literal(changes))
		want := legacy.Merge(cur, changes)
		got, err := st.Update(e.Ctx, id, changes)
		if !e.CheckErr(err, nil, input) {
			return cur, false
		}
		battery.CheckTask(e, input+" returned", want, got)
		if !battery.CheckStored(e, st, id, want, input) {
			return cur, false
		}
		cur = want
	}
	return cur, true
}
