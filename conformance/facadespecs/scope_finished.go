package facadespecs

import (
	"errors"
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
// may not see the task that it exists (and, for the modern Cancel, what it holds). What
// an admitted caller's write on a finished task answers is finality's, filed under its
// rule.

// finOf files a fault of finality found by a caller the truth table admits: the answer
// and the write of an admitted caller on a finished task are the finality rule's (rule),
// which its own specs judge with the system caller.
func finOf(e *battery.Env, rule, input, want, got string) {
	e.FaultOf(rule, fmt.Sprintf("input: %s\n  expected: %s\n  got: %s", input, want, got))
}

// legacyFinishedScope walks the truth table with the facade's Cancel of a completed,
// failed and cancelled task in one setting: a caller the table denies gets ErrNotFound
// and no task, and nothing is written; one it admits gets past the owner check (its
// ErrTerminal, and that nothing is written, are L-F-FIN-1's).
func legacyFinishedScope(e *battery.Env, st legacy.Store, requireOwner bool) {
	fac := battery.LegacyFacade(e, st, requireOwner)
	for _, status := range []string{"completed", "failed", "cancelled"} {
		for _, form := range ownerForms(fac) {
			for _, row := range battery.OwnerTable() {
				if !form.skips(row.Owned) {
					legacyFinishedRow(e, st, fac, form, requireOwner, status, row.Name, row.Owner(), row.Caller, row.Allowed(requireOwner))
				}
			}
		}
	}
}

// legacyFinishedRow is one row of legacyFinishedScope: a task of owner created through
// form, finished with status, then cancelled by caller through fac.
func legacyFinishedRow(e *battery.Env, st legacy.Store, fac legacy.Facade, form ownerForm[legacy.Facade], requireOwner bool, status, name, owner string, caller reference.Caller, allowed bool) {
	id := e.ID("fin-scope")
	if !form.create(e, fmt.Sprintf("facade Create(%s, {job}, owner %q)", battery.Literal(id), owner), func() error {
		_, err := form.fac.Create(e.Ctx, id, legacy.Task{"job": "j"}, owner)
		return err
	}) {
		return
	}
	before := battery.MustStatus(e, st, id, status)
	input := fmt.Sprintf("facade Cancel(%s, %s) of a %s task with %s [%s%s]", battery.Literal(id), caller, status, battery.SettingName(requireOwner), name, form.note())
	got, err := fac.Cancel(e.Ctx, id, caller)
	if !allowed {
		if e.CheckErr(err, reference.ErrNotFound, input+": denied by the truth table (as for a missing id, before any finality check)") {
			e.Check(got == nil, input, "no task with the denial", got)
		}
		battery.CheckStored(e, st, id, before, input+" (denied: nothing written)")
		return
	}
	if errors.Is(err, reference.ErrNotFound) {
		e.Check(false, input, "past the owner check: the truth table admits the caller (then ErrTerminal)", battery.DescribeErr(err))
		return
	}
	if !errors.Is(err, reference.ErrTerminal) {
		finOf(e, "L-F-FIN-1", input, "ErrTerminal", battery.DescribeErr(err))
	}
	if after, ok := battery.Stored(e, st, id); !ok || !legacy.Equal(after, before) {
		finOf(e, "L-F-FIN-1", input, "nothing written: "+battery.Show(before), battery.Show(after))
	}
}

// modernFinishedScope walks the truth table with the facade's Get, Update and Cancel of
// a task the worker completed or failed, or the system cancelled, in one setting: a
// caller the table admits reads the task, one it denies gets the answer for a missing
// task and no task, and nothing is written. An admitted caller's writes get past the
// owner check (their ErrTerminal, and Cancel's task as it is, are M-F-FIN-1's).
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
		for _, form := range ownerForms(f) {
			for _, row := range battery.OwnerTable() {
				if form.skips(row.Owned) {
					continue
				}
				c := row.Caller
				allowed := row.Allowed(requireOwner)
				t, ok := createModern(e, form, modern.CreateOptions{Owner: row.Owner()})
				if !ok {
					continue
				}
				_, err := f.RequireInput(e.Ctx, t.TaskID, map[string]any{"k": map[string]any{"message": "?"}})
				e.RequireErr(err, nil, fmt.Sprintf("setup: facade RequireInput(%s, {k})", battery.Literal(t.TaskID)))
				final, err := fin.run(e, f, t.TaskID)
				e.RequireErr(err, nil, fmt.Sprintf("setup: facade %s(%s)", fin.name, battery.Literal(t.TaskID)))
				where := fmt.Sprintf("[%s, %s%s, after %s (%s)]", setting, row.Name, form.note(), fin.name, final.Status)
				// admittedWrite judges an admitted caller's write: past the owner check here,
				// the rest is finality's.
				admittedWrite := func(input string, got modern.Task, err error, returnsTask bool) {
					if errors.Is(err, reference.ErrNotFound) {
						e.Check(false, input, "past the owner check: the truth table admits the caller (then ErrTerminal)", battery.DescribeErr(err))
						return
					}
					if !errors.Is(err, reference.ErrTerminal) {
						finOf(e, "M-F-FIN-1", input, "ErrTerminal", battery.DescribeErr(err))
					} else if returnsTask && !modern.Equal(got, final) {
						finOf(e, "M-F-FIN-1", input, "the task as it is: "+battery.Show(final), battery.Show(got))
					}
					if after, ok := modernspecs.Stored(e, st, t.TaskID); !ok || !modern.Equal(after, final) {
						finOf(e, "M-F-FIN-1", input, "nothing written: "+battery.Show(final), battery.Show(after))
					}
				}

				checkScopedGet(e, f, where, c, allowed, t.TaskID, missing, final)

				answer := map[string]any{"k": "late"}
				_, missErr := f.Update(e.Ctx, missing, c, answer)
				input := fmt.Sprintf("%s facade Update(%s, %s, {\"k\": \"late\"})", where, battery.Literal(t.TaskID), c)
				got, err := f.Update(e.Ctx, t.TaskID, c, answer)
				if allowed {
					admittedWrite(input, got, err, false)
				} else {
					modernspecs.CheckNotFoundLike(e, input+": denied by the truth table (before any finality check)", err, t.TaskID, missErr, missing)
					modernspecs.CheckStored(e, st, final, input+" (denied: nothing written)")
				}

				_, missErr = f.Cancel(e.Ctx, missing, c)
				input = fmt.Sprintf("%s facade Cancel(%s, %s)", where, battery.Literal(t.TaskID), c)
				got, err = f.Cancel(e.Ctx, t.TaskID, c)
				if allowed {
					admittedWrite(input, got, err, true)
				} else {
					if modernspecs.CheckNotFoundLike(e, input+": denied by the truth table (before any finality check)", err, t.TaskID, missErr, missing) {
						e.Check(got.TaskID == "", input, "no task with the denial", got)
					}
					modernspecs.CheckStored(e, st, final, input+" (denied: nothing written)")
				}
			}
		}
	}
}
