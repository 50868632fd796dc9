package facadespecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// checkScopedGet checks a facade Get of id by c (where names the setting and the row):
// the task as want has it when the truth table admits c, else the answer for a missing id.
func checkScopedGet(e *battery.Env, f modern.Facade, where string, c reference.Caller, allowed bool, id, missing string, want modern.Task) {
	_, missErr := f.Get(e.Ctx, missing, c)
	input := fmt.Sprintf("%s facade Get(%s, %s)", where, battery.Literal(id), c)
	got, err := f.Get(e.Ctx, id, c)
	if !allowed {
		modernspecs.CheckNotFoundLike(e, input, err, id, missErr, missing)
	} else if e.CheckErr(err, nil, input) {
		modernspecs.CheckTask(e, input, want, got)
	}
}

func ModernScope(s *battery.Suite) {
	s.It("M-F-SCOPE-1", "facade Get, Update and Cancel follow the truth table in both settings; denied reads as missing and writes nothing", func(e *battery.Env) {
		st := e.Modern()
		for _, requireOwner := range []bool{false, true} {
			f := battery.ModernFacade(e, func(c *modern.Config) { c.RequireOwner = requireOwner })
			setting := battery.SettingName(requireOwner)
			missing := reference.GenerateID()
			for _, form := range ownerForms(f) {
				for _, row := range battery.OwnerTable() {
					if form.skips(row.Owned) {
						continue
					}
					allowed := row.Allowed(requireOwner)
					c := row.Caller
					t, ok := createModern(e, form, modern.CreateOptions{Owner: row.Owner()})
					if !ok {
						continue
					}
					asked, err := f.RequireInput(e.Ctx, t.TaskID, map[string]any{"k": map[string]any{"message": "?"}})
					e.RequireErr(err, nil, fmt.Sprintf("setup: facade RequireInput(%s, {k})", battery.Literal(t.TaskID)))
					where := fmt.Sprintf("[%s, %s%s]", setting, row.Name, form.note())

					checkScopedGet(e, f, where, c, allowed, t.TaskID, missing, asked)

					// Update: answering the outstanding key.
					answer := map[string]any{"k": "yes"}
					_, missErr := f.Update(e.Ctx, missing, c, answer)
					input := fmt.Sprintf("%s facade Update(%s, %s, %s)", where, battery.Literal(t.TaskID), c, jsonvalue.Describe(answer))
					got, err := f.Update(e.Ctx, t.TaskID, c, answer)
					cur := asked
					if allowed {
						if e.CheckErr(err, nil, input) {
							e.Check(got.Status == reference.StatusWorking && jsonvalue.Equal(got.InputResponses, answer) && got.Version == asked.Version+1,
								input, "the answer delivered: working, input_responses {\"k\": \"yes\"}, version +1", got)
							cur = got
						}
					} else {
						modernspecs.CheckNotFoundLike(e, input, err, t.TaskID, missErr, missing)
					}
					modernspecs.CheckStored(e, st, cur, input)

					// Cancel.
					_, missErr = f.Cancel(e.Ctx, missing, c)
					input = fmt.Sprintf("%s facade Cancel(%s, %s)", where, battery.Literal(t.TaskID), c)
					got, err = f.Cancel(e.Ctx, t.TaskID, c)
					if allowed {
						if e.CheckErr(err, nil, input) {
							e.Check(got.Status == reference.StatusCancelled && got.Version == cur.Version+1, input, "the task cancelled, version +1", got)
							cur = got
						}
					} else {
						modernspecs.CheckNotFoundLike(e, input, err, t.TaskID, missErr, missing)
					}
					modernspecs.CheckStored(e, st, cur, input)
				}
			}
		}
	})

	s.It("M-F-SCOPE-1", "facade Get, Update and Cancel of a completed, failed or cancelled task follow the truth table before finality in both settings: denied reads as missing and writes nothing, an admitted caller reads the task and its writes get past the owner check", func(e *battery.Env) {
		for _, requireOwner := range []bool{false, true} {
			modernFinishedScope(e, requireOwner)
		}
	})

	s.It("M-F-SCOPE-1", "the facade compares owners byte for byte", func(e *battery.Env) {
		st := e.Modern()
		f := battery.ModernFacade(e)
		owners := battery.TrickyOwners()
		for _, o := range owners {
			t := createThrough(e, f, modern.CreateOptions{Owner: o})
			for _, p := range owners {
				c := reference.Principal(p)
				_, gerr := f.Get(e.Ctx, t.TaskID, c)
				_, cerr := f.Cancel(e.Ctx, t.TaskID, c)
				if p == o {
					e.CheckErr(gerr, nil, fmt.Sprintf("facade Get(%s, %s) of a task owned by %q", battery.Literal(t.TaskID), c, o))
					continue
				}
				e.CheckErr(gerr, reference.ErrNotFound, fmt.Sprintf("facade Get(%s, %s) of a task owned by %q", battery.Literal(t.TaskID), c, o))
				e.CheckErr(cerr, reference.ErrNotFound, fmt.Sprintf("facade Cancel(%s, %s) of a task owned by %q", battery.Literal(t.TaskID), c, o))
			}
			// Only the owner's Cancel may have written: the task is cancelled exactly once.
			got, ok := modernspecs.Stored(e, st, t.TaskID)
			e.Check(ok && got.Status == reference.StatusCancelled && got.Version == 2,
				fmt.Sprintf("facade Cancel of the task owned by %q by every principal in %q", o, owners),
				"cancelled once, by its owner (version 2)", got)
		}
	})
}
