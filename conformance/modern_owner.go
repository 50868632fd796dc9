package conformance

import (
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// The shared owner rules (S-OWN-1/2/3) as they apply to the modern store: Get and Swap
// follow the truth table with require_owner off (docs/spec.md 2.1). The facade's side is
// M-F-SCOPE-1 (modern_facade_scope.go).

func modernOwnerSpecs(s *suite) {
	s.It("S-OWN-1", "the modern store's Get and Swap follow the truth table (require_owner is the facade's)", func(e *Env) {
		st := e.Modern()
		for _, row := range ownerTable() {
			// Get.
			t := modCreate(e, st, modOwned(e, e.ID("own"), row.owner()))
			input := fmt.Sprintf("%s: Get(%s, %s) of a task owned by %q", row.name, Q(t.TaskID), row.caller, row.owner())
			got, err := st.Get(e.Ctx, t.TaskID, row.caller)
			if row.allow {
				if e.CheckErr(err, nil, input) {
					modCheckTask(e, input, t, got)
				}
			} else {
				e.CheckErr(err, reference.ErrNotFound, input)
			}
			// Swap with the right version.
			next := modNext(t, "by "+row.caller.String())
			call := fmt.Sprintf("%s: %s of a task owned by %q", row.name, modSwapCall(row.caller, t.Version, next), row.owner())
			got, err = st.Swap(e.Ctx, row.caller, t.Version, next)
			if row.allow {
				if e.CheckErr(err, nil, call) {
					modCheckTask(e, call+" returned", modWithVersion(next, t.Version+1), got)
					modCheckStored(e, st, modWithVersion(next, t.Version+1), call)
				}
			} else {
				e.CheckErr(err, reference.ErrNotFound, call)
				modCheckStored(e, st, t, call)
			}
		}
	})

	s.It("S-OWN-2", "a denied task reads exactly as a missing one at the modern store, and nothing is written", func(e *Env) {
		st := e.Modern()
		t := modCreate(e, st, modOwned(e, e.ID("deny"), ownerY))
		missing := e.ID("missing")
		for _, c := range []reference.Caller{reference.Anonymous(), reference.Principal(ownerX)} {
			_, missGet := st.Get(e.Ctx, missing, c)
			_, err := st.Get(e.Ctx, t.TaskID, c)
			modCheckNotFoundLike(e, fmt.Sprintf("Get(%s, %s) of a task owned by %q", Q(t.TaskID), c, ownerY), err, t.TaskID, missGet, missing)

			// Swap: the same answer as for a missing id, whether the version matches,
			// does not match, or next would even change the owner: no existence leak.
			for _, tc := range []struct {
				what    string
				version int64
				owner   string
			}{
				{"right version", 1, ownerY},
				{"wrong version", 7, ownerY},
				{"right version, owner changed to the caller's", 1, ownerX},
				{"wrong version, owner removed", 0, ""},
			} {
				probe := modOwned(e, missing, tc.owner)
				_, missSwap := st.Swap(e.Ctx, c, tc.version, probe)
				next := modNext(t, "hijack")
				next.Owner = tc.owner
				call := fmt.Sprintf("%s of a task owned by %q (%s)", modSwapCall(c, tc.version, next), ownerY, tc.what)
				_, err := st.Swap(e.Ctx, c, tc.version, next)
				modCheckNotFoundLike(e, call, err, t.TaskID, missSwap, missing)
				modCheckStored(e, st, t, call)
			}
		}
		modCheckAbsent(e, st, missing, "Swaps of a missing id")
	})

	s.It("S-OWN-3", "the modern store compares owners byte for byte", func(e *Env) {
		st := e.Modern()
		owners := ownerCorpus()
		tasks := map[string]modern.Task{}
		for _, o := range owners {
			tasks[o] = modCreate(e, st, modOwned(e, e.ID("exact"), o))
		}
		for _, o := range owners {
			t := tasks[o]
			for _, p := range owners {
				c := reference.Principal(p)
				input := fmt.Sprintf("Get(%s, principal %s) of a task owned by %s", Q(t.TaskID), showOwner(p), showOwner(o))
				got, err := st.Get(e.Ctx, t.TaskID, c)
				if p == o {
					if e.CheckErr(err, nil, input) {
						modCheckTask(e, input, t, got)
					}
					continue
				}
				if !e.Check(errors.Is(err, reference.ErrNotFound), input, "ErrNotFound: the owners differ byte for byte", modOutcome(got, err)) {
					continue
				}
				next := modNext(t, "by another principal")
				call := fmt.Sprintf("Swap(principal %s, %d, …) of a task owned by %s", showOwner(p), t.Version, showOwner(o))
				_, err = st.Swap(e.Ctx, c, t.Version, next)
				e.CheckErr(err, reference.ErrNotFound, call)
			}
			modCheckStored(e, st, t, fmt.Sprintf("Swaps by every other principal of the task owned by %s", showOwner(o)))
		}
	})
}

// modOutcome renders a call's result for a failure message: the error, or the task
// that came back instead of one.
func modOutcome(t modern.Task, err error) string {
	if err != nil {
		return describeErr(err)
	}
	return "the task: " + show(t)
}
