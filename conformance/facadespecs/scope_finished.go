package facadespecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// The truth table over finished tasks. The scope tables walk it with live tasks, and
// finality is judged with callers that may see the task; a facade that answers a
// finished task's finality before its owner check passes both, and tells a caller that
// may not see the task that it exists (and, for the modern Cancel, what it holds).

// legacyFinishedScope walks the truth table with the facade's Cancel of a completed,
// failed and cancelled task in one setting: a caller the table admits gets ErrTerminal,
// one it denies ErrNotFound and no task; neither writes.
func legacyFinishedScope(e *battery.Env, st legacy.Store, requireOwner bool) {
	fac := battery.LegacyFacade(e, st, requireOwner)
	for _, status := range []string{"completed", "failed", "cancelled"} {
		for _, row := range battery.OwnerTable() {
			id := e.ID("fin-scope")
			if _, err := fac.Create(e.Ctx, id, legacy.Task{"job": "j"}, row.Owner()); err != nil {
				e.Fatalf("setup: facade Create(%s, {job}, owner %q): %s", battery.Q(id), row.Owner(), battery.DescribeErr(err))
			}
			before := battery.MustStatus(e, st, id, status)
			input := fmt.Sprintf("facade Cancel(%s, %s) of a %s task with %s [%s]", battery.Q(id), row.Caller, status, battery.SettingName(requireOwner), row.Name)
			got, err := fac.Cancel(e.Ctx, id, row.Caller)
			if row.Allowed(requireOwner) {
				e.CheckErr(err, reference.ErrTerminal, input+": allowed by the truth table, and the task is finished")
			} else if e.CheckErr(err, reference.ErrNotFound, input+": denied by the truth table (as for a missing id, before any finality check)") {
				e.Check(got == nil, input, "no task with the denial", got)
			}
			battery.CheckStored(e, st, id, before, input+" (refused: nothing written)")
		}
	}
}

// modernFinishedScope walks the truth table with the facade's Get, Update and Cancel of
// a task the worker completed or failed, or the system cancelled, in one setting: a
// caller the table admits reads the task and gets ErrTerminal for the writes (Cancel
// with the task as it is), one it denies the answer for a missing task and no task;
// nothing is written.
func modernFinishedScope(e *battery.Env, requireOwner bool) {
	st := e.Modern()
	f := battery.ModernFacade(e, func(c *modern.Config) { c.RequireOwner = requireOwner })
	setting := battery.SettingName(requireOwner)
	missing := reference.GenerateID()
	var fins []finisher
	for _, fin := range finishers() {
		if fin.name != "Cancel by the owner" { // the owner differs per row: the system cancels
			fins = append(fins, fin)
		}
	}
	for _, fin := range fins {
		for _, row := range battery.OwnerTable() {
			c := row.Caller
			allowed := row.Allowed(requireOwner)
			t := createThrough(e, f, modern.CreateOptions{Owner: row.Owner()})
			_, err := f.RequireInput(e.Ctx, t.TaskID, map[string]any{"k": map[string]any{"message": "?"}})
			e.RequireErr(err, nil, fmt.Sprintf("setup: facade RequireInput(%s, {k})", battery.Q(t.TaskID)))
			final, err := fin.run(e, f, t.TaskID)
			e.RequireErr(err, nil, fmt.Sprintf("setup: facade %s(%s)", fin.name, battery.Q(t.TaskID)))
			where := fmt.Sprintf("[%s, %s, after %s (%s)]", setting, row.Name, fin.name, final.Status)

			_, missErr := f.Get(e.Ctx, missing, c)
			input := fmt.Sprintf("%s facade Get(%s, %s)", where, battery.Q(t.TaskID), c)
			got, err := f.Get(e.Ctx, t.TaskID, c)
			if allowed {
				if e.CheckErr(err, nil, input) {
					modernspecs.CheckTask(e, input, final, got)
				}
			} else {
				modernspecs.CheckNotFoundLike(e, input, err, t.TaskID, missErr, missing)
			}

			answer := map[string]any{"k": "late"}
			_, missErr = f.Update(e.Ctx, missing, c, answer)
			input = fmt.Sprintf("%s facade Update(%s, %s, {\"k\": \"late\"})", where, battery.Q(t.TaskID), c)
			_, err = f.Update(e.Ctx, t.TaskID, c, answer)
			if allowed {
				e.CheckErr(err, reference.ErrTerminal, input+": allowed by the truth table, and the task is finished")
			} else {
				modernspecs.CheckNotFoundLike(e, input+": denied by the truth table (before any finality check)", err, t.TaskID, missErr, missing)
			}
			modernspecs.CheckStored(e, st, final, input)

			_, missErr = f.Cancel(e.Ctx, missing, c)
			input = fmt.Sprintf("%s facade Cancel(%s, %s)", where, battery.Q(t.TaskID), c)
			got, err = f.Cancel(e.Ctx, t.TaskID, c)
			if allowed {
				if e.CheckErr(err, reference.ErrTerminal, input+": allowed by the truth table, and the task is finished") {
					modernspecs.CheckTask(e, input+" returned (the task as it is)", final, got)
				}
			} else if modernspecs.CheckNotFoundLike(e, input+": denied by the truth table (before any finality check)", err, t.TaskID, missErr, missing) {
				e.Check(got.TaskID == "", input, "no task with the denial", got)
			}
			modernspecs.CheckStored(e, st, final, input)
		}
	}
}
