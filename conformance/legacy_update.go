package conformance

import (
	"encoding/json"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func legacyUpdateSpecs(s *suite) {
	s.It("L-UPDATE-1", "shallow-merges: top-level keys replace, nested objects are replaced whole, null is stored, no key is removed", func(e *Env) {
		st := e.Legacy()
		id := e.ID("upd")
		cur := mustCreate(e, st, id, legacy.Task{
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
		}
		for _, changes := range steps {
			input := fmt.Sprintf("Update(%s, %s)", Q(id), Q(changes))
			want := legacy.Merge(cur, changes)
			got, err := st.Update(e.Ctx, id, changes)
			if !e.CheckErr(err, nil, input) {
				return
			}
			checkTask(e, input+" returned", want, got)
			if !checkStored(e, st, id, want, input) {
				return
			}
			cur = want
		}
	})

	s.It("L-UPDATE-1", "replaces the keys Create stamped, created_at and task_id, like any other key; the task keeps answering to the id it was created with", func(e *Env) {
		st := e.Legacy()
		id, renamed := e.ID("stamped"), e.ID("renamed")
		cur := mustCreate(e, st, id, legacy.Task{"a": "b"})
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
		for _, changes := range steps {
			input := fmt.Sprintf("Update(%s, %s)", Q(id), Q(changes))
			want := legacy.Merge(cur, changes)
			got, err := st.Update(e.Ctx, id, changes)
			if !e.CheckErr(err, nil, input) {
				return
			}
			checkTask(e, input+" returned", want, got)
			if !checkStored(e, st, id, want, input) {
				return
			}
			cur = want
		}
		// The id names the task; its task_id key is data: no task answers to it.
		input := fmt.Sprintf("Get(%s) after Update(%s, {\"task_id\": %s})", Q(renamed), Q(id), Q(renamed))
		got, ok := stored(e, st, renamed)
		e.Check(!ok, input, "ErrNotFound: no task was created with that id", got)
		rows := listRows(e, st, legacy.ListOptions{})
		n := 0
		for _, r := range rows {
			if legacy.Equal(r, cur) {
				n++
			}
		}
		e.Check(n == 1, fmt.Sprintf("List({}) after Updates of %s's created_at and task_id", Q(id)), "exactly one row equal to "+show(cur), fmt.Sprintf("%d such rows among %d", n, len(rows)))
		e.CheckErr(st.Delete(e.Ctx, id), nil, fmt.Sprintf("Delete(%s) of a task whose task_id key says %s", Q(id), Q(renamed)))
		checkGone(e, st, id, fmt.Sprintf("Delete(%s) of a task whose task_id key says %s", Q(id), Q(renamed)))
	})

	s.It("L-UPDATE-2", "answers ErrNotFound for a missing id and creates nothing", func(e *Env) {
		st := e.Legacy()
		missing := e.ID("missing")
		changes := legacy.Task{"a": json.Number("1"), legacy.KeyStatus: "completed"}
		input := fmt.Sprintf("Update(%s, %s) of an id never created", Q(missing), Q(changes))
		_, err := st.Update(e.Ctx, missing, changes)
		e.CheckErr(err, reference.ErrNotFound, input)
		checkGone(e, st, missing, input)
		rows := listRows(e, st, legacy.ListOptions{})
		e.Check(!rowIDs(rows, nil)[missing], "after "+input+": List({})", "no row "+Q(missing), rowIDs(rows, setOf(missing)))

		// A deleted task is missing too: Update must not bring it back.
		id := e.ID("deleted")
		mustCreate(e, st, id, legacy.Task{"a": "b"})
		if err := st.Delete(e.Ctx, id); err != nil {
			e.Fatalf("setup: Delete(%q): %v", id, err)
		}
		input = fmt.Sprintf("Update(%s, %s) after Delete", Q(id), Q(changes))
		_, err = st.Update(e.Ctx, id, changes)
		e.CheckErr(err, reference.ErrNotFound, input)
		checkGone(e, st, id, input)
	})

	s.It("L-DELETE-1", "succeeds whether or not the id exists, and afterwards Get answers ErrNotFound", func(e *Env) {
		st := e.Legacy()
		missing := e.ID("missing")
		e.CheckErr(st.Delete(e.Ctx, missing), nil, "Delete("+Q(missing)+") of an id never created")
		checkGone(e, st, missing, "Delete("+Q(missing)+")")

		id, other := e.ID("del"), e.ID("other")
		mustCreate(e, st, id, legacy.Task{"a": "b"})
		keep := mustCreate(e, st, other, legacy.Task{"a": "b"})
		e.CheckErr(st.Delete(e.Ctx, id), nil, "Delete("+Q(id)+")")
		checkGone(e, st, id, "Delete("+Q(id)+")")
		checkStored(e, st, other, keep, "Delete("+Q(id)+") of another task")
		rows := listRows(e, st, legacy.ListOptions{})
		e.Check(!rowIDs(rows, nil)[id], "after Delete("+Q(id)+"): List({})", "no row "+Q(id), rowIDs(rows, setOf(id, other)))
		e.CheckErr(st.Delete(e.Ctx, id), nil, "Delete("+Q(id)+") a second time")
		checkGone(e, st, id, "Delete("+Q(id)+") a second time")

		// A terminal task is deleted like any other.
		done := e.ID("done")
		mustCreate(e, st, done, legacy.Task{})
		mustStatus(e, st, done, "completed")
		e.CheckErr(st.Delete(e.Ctx, done), nil, "Delete("+Q(done)+") of a completed task")
		checkGone(e, st, done, "Delete("+Q(done)+")")
	})
}
