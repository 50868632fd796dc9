package modernspecs

import (
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
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
			input := fmt.Sprintf("%s: Get(%s, %s) of a task owned by %q", row.Name, battery.Q(t.TaskID), row.Caller, row.Owner())
			got, err := st.Get(e.Ctx, t.TaskID, row.Caller)
			if row.Allow {
				if e.CheckErr(err, nil, input) {
					CheckTask(e, input, t, got)
				}
			} else {
				e.CheckErr(err, reference.ErrNotFound, input)
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
			} else {
				e.CheckErr(err, reference.ErrNotFound, call)
				CheckStored(e, st, t, call)
			}
		}
	})

	s.It("S-OWN-2", "a denied task reads exactly as a missing one at the modern store, and nothing is written", func(e *battery.Env) {
		st := e.Modern()
		t := CreateTask(e, st, Owned(e, e.ID("deny"), battery.OwnerY))
		missing := e.ID("missing")
		for _, c := range []reference.Caller{reference.Anonymous(), reference.Principal(battery.OwnerX)} {
			_, missGet := st.Get(e.Ctx, missing, c)
			_, err := st.Get(e.Ctx, t.TaskID, c)
			CheckNotFoundLike(e, fmt.Sprintf("Get(%s, %s) of a task owned by %q", battery.Q(t.TaskID), c, battery.OwnerY), err, t.TaskID, missGet, missing)

			// Swap: the same answer as for a missing id, whether the version matches,
			// does not match, or next would even change the owner: no existence leak.
			for _, tc := range []struct {
				what    string
				version int64
				owner   string
			}{
				{"right version", 1, battery.OwnerY},
				{"wrong version", 7, battery.OwnerY},
				{"right version, owner changed to the caller's", 1, battery.OwnerX},
				{"wrong version, owner removed", 0, ""},
			} {
				probe := Owned(e, missing, tc.owner)
				_, missSwap := st.Swap(e.Ctx, c, tc.version, probe)
				next := Next(t, "hijack")
				next.Owner = tc.owner
				call := fmt.Sprintf("%s of a task owned by %q (%s)", SwapCall(c, tc.version, next), battery.OwnerY, tc.what)
				_, err := st.Swap(e.Ctx, c, tc.version, next)
				CheckNotFoundLike(e, call, err, t.TaskID, missSwap, missing)
				CheckStored(e, st, t, call)
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
				input := fmt.Sprintf("Get(%s, principal %s) of a task owned by %s", battery.Q(t.TaskID), battery.ShowOwner(p), battery.ShowOwner(o))
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
				call := fmt.Sprintf("Swap(principal %s, %d, …) of a task owned by %s", battery.ShowOwner(p), t.Version, battery.ShowOwner(o))
				_, err = st.Swap(e.Ctx, c, t.Version, next)
				e.CheckErr(err, reference.ErrNotFound, call)
			}
			CheckStored(e, st, t, fmt.Sprintf("Swaps by every other principal of the task owned by %s", battery.ShowOwner(o)))
		}
	})
}

// outcome renders a call's result for a failure message: the error, or the task
// that came back instead of one.
func outcome(t modern.Task, err error) string {
	if err != nil {
		return battery.DescribeErr(err)
	}
	return "the task: " + battery.Show(t)
}
