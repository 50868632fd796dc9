package modernspecs

import (
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// The shared owner rules (S-OWN-1/2/3) as they apply to the modern store: Get and Swap
// follow the truth table with require_owner off (docs/spec.md 2.1). The facade's side is
// M-F-SCOPE-1 (facadespecs/modern_scope.go).

func Owner(s *battery.Suite) {
	s.It("S-OWN-1", "the modern store's Get and Swap follow the truth table (require_owner is the facade's)", func(e *battery.Env) {
		st := e.Modern()
		for _, row := range battery.OwnerTable() {
			// Get.
			t := CreateTask(e, st, Owned(e, e.ID("own"), row.Owner()))
			input := fmt.Sprintf("%s: Get(%s, %s) of a task owned by %q", row.Name, battery.Literal(t.TaskID), row.Caller, row.Owner())
			got, err := st.Get(e.Ctx, t.TaskID, row.Caller)
			if row.Allow {
				if e.CheckErr(err, nil, input) {
					CheckTask(e, input, t, got)
				}
			} else if deniedLikeMissing(e, input, got, err) {
				e.Of("S-OWN-2", func() { e.CheckErr(err, reference.ErrNotFound, input) })
			}
			// Swap with the right version.
			next := Next(t, "by "+row.Caller.String())
			call := fmt.Sprintf("%s: %s of a task owned by %q", row.Name, SwapCall(row.Caller, t.Version, next), row.Owner())
			got, err = st.Swap(e.Ctx, row.Caller, t.Version, next)
			if row.Allow {
				if e.CheckErr(err, nil, call) {
					CheckTask(e, call+" returned", WithVersion(next, t.Version+1), got)
					CheckStored(e, st, WithVersion(next, t.Version+1), call)
				}
			} else if deniedLikeMissing(e, call, got, err) {
				e.Of("S-OWN-2", func() {
					e.CheckErr(err, reference.ErrNotFound, call)
					CheckStored(e, st, t, call)
				})
			}
		}
	})

	s.It("S-OWN-2", "a denied task reads exactly as a missing one at the modern store, and nothing is written", func(e *battery.Env) {
		st := e.Modern()
		t := CreateTask(e, st, Owned(e, e.ID("deny"), battery.OwnerY))
		missing := e.ID("missing")
		for _, c := range []reference.Caller{reference.Anonymous(), reference.Principal(battery.OwnerX)} {
			_, missGet := st.Get(e.Ctx, missing, c)
			got, err := st.Get(e.Ctx, t.TaskID, c)
			input := fmt.Sprintf("Get(%s, %s) of a task owned by %q", battery.Literal(t.TaskID), c, battery.OwnerY)
			denied := deniedLikeMissing(e, input, got, err)
			if denied {
				CheckNotFoundLike(e, input, err, t.TaskID, missGet, missing)
			}
			// A store that let the caller read the task admits it (S-OWN-1): its Swaps
			// then answer as the owner's would (a stale version a conflict), which says
			// nothing about how a denial reads.
			swapRule := ""
			if !denied {
				swapRule = "S-OWN-1"
			}

			// Swap: the same answer as for a missing id, whether the version matches,
			// does not match, or next would even change the owner: no existence leak.
			for _, tc := range []struct {
				what  string
				right bool
				owner string
			}{
				{"right version", true, battery.OwnerY},
				{"wrong version", false, battery.OwnerY},
				{"right version, owner changed to the caller's", true, battery.OwnerX},
				{"wrong version, owner removed", false, ""},
			} {
				version := t.Version + 6
				if tc.right {
					version = t.Version
				}
				probe := Owned(e, missing, tc.owner)
				_, missSwap := st.Swap(e.Ctx, c, version, probe)
				next := Next(t, "hijack")
				next.Owner = tc.owner
				call := fmt.Sprintf("%s of a task owned by %q (%s)", SwapCall(c, version, next), battery.OwnerY, tc.what)
				got, err := st.Swap(e.Ctx, c, version, next)
				e.Of(swapRule, func() {
					if deniedLikeMissing(e, call, got, err) {
						CheckNotFoundLike(e, call, err, t.TaskID, missSwap, missing)
						CheckStored(e, st, t, call)
					}
				})
				if err == nil { // an S-OWN-1 write: what the next call must leave alone
					if cur, ok := Stored(e, st, t.TaskID); ok {
						t = cur
					}
				}
			}
		}
		checkAbsent(e, st, missing, "Swaps of a missing id")
	})

	s.It("S-OWN-3", "the modern store compares owners byte for byte", func(e *battery.Env) {
		st := e.Modern()
		owners := battery.OwnerCorpus()
		tasks := map[string]modern.Task{}
		for _, o := range owners {
			tasks[o] = CreateTask(e, st, Owned(e, e.ID("exact"), o))
		}
		for _, o := range owners {
			t := tasks[o]
			for _, p := range owners {
				c := reference.Principal(p)
				input := fmt.Sprintf("Get(%s, principal %s) of a task owned by %s", battery.Literal(t.TaskID), model.ShowOwner(p), model.ShowOwner(o))
				got, err := st.Get(e.Ctx, t.TaskID, c)
				if p == o {
					if e.CheckErr(err, nil, input) {
						CheckTask(e, input, t, got)
					}
					continue
				}
				if !e.Check(errors.Is(err, reference.ErrNotFound), input, "ErrNotFound: the owners differ byte for byte", outcome(got, err)) {
					continue
				}
				next := Next(t, "by another principal")
				call := fmt.Sprintf("Swap(principal %s, %d, …) of a task owned by %s", model.ShowOwner(p), t.Version, model.ShowOwner(o))
				_, err = st.Swap(e.Ctx, c, t.Version, next)
				e.CheckErr(err, reference.ErrNotFound, call)
			}
			CheckStored(e, st, t, fmt.Sprintf("Swaps by every other principal of the task owned by %s", model.ShowOwner(o)))
		}
	})
}

// deniedLikeMissing reports whether the store turned away a caller the truth table
// denies (err not nil): a call that succeeded breaks the table, S-OWN-1, and is filed
// there whichever owner rule's spec made it; how the denial reads is S-OWN-2's.
func deniedLikeMissing(e *battery.Env, input string, got modern.Task, err error) bool {
	if err != nil {
		return true
	}
	e.Of("S-OWN-1", func() {
		e.Check(false, input+": denied by the truth table", "ErrNotFound, as for a missing task", "the task: "+battery.Show(got))
	})
	return false
}

// outcome renders a call's result for a failure message: the error, or the task
// that came back instead of one.
func outcome(t modern.Task, err error) string {
	if err != nil {
		return battery.DescribeErr(err)
	}
	return "the task: " + battery.Show(t)
}
