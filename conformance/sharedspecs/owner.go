package sharedspecs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy-era bodies of the owner rules (S-OWN-1/2/3): the truth table through the
// reference facade over the store under test, and owner comparison at the store's List.

// facadeCreate creates a task through the facade as setup: owner "" for none.
func facadeCreate(e *battery.Env, fac legacy.Facade, prefix, owner string) string {
	id := e.ID(prefix)
	meta := legacy.Task{"payload": "p-" + id}
	if _, err := fac.Create(e.Ctx, id, meta, owner); err != nil {
		e.Fatalf("setup: facade Create(%q, %s, owner %q): %v", id, battery.Show(meta), owner, err)
	}
	return id
}

// checkDeniedLikeMissing checks that err, the answer for a denied task id, is the answer
// for a missing one (S-OWN-2): it wraps ErrNotFound and its message is missErr's with
// missID replaced by id.
func checkDeniedLikeMissing(e *battery.Env, input string, err error, id string, missErr error, missID string) bool {
	if !e.Check(errors.Is(err, reference.ErrNotFound), input, "an error wrapping ErrNotFound, as for a missing task", err) {
		return false
	}
	if missErr == nil {
		return e.Check(false, input, "the answer for a missing id to be an error too", "no error for missing id "+battery.Literal(missID))
	}
	want := strings.ReplaceAll(missErr.Error(), missID, id)
	return e.Check(err.Error() == want, input,
		fmt.Sprintf("the message of a missing task, %q (the answer for missing id %q with the id substituted)", want, missID),
		fmt.Sprintf("%q", err.Error()))
}

// OwnerGetTable walks the truth table with the facade's Get in one setting; with
// messages it also compares each denial with the answer for a missing id (S-OWN-2).
// Each fault is filed under the rule it breaks (ownerRules).
func OwnerGetTable(e *battery.Env, st legacy.Store, requireOwner, messages bool) {
	table, denial := ownerRules(e)
	fac := battery.LegacyFacade(e, st, requireOwner)
	ids := map[bool]string{false: facadeCreate(e, fac, "unowned", ""), true: facadeCreate(e, fac, "owned", battery.OwnerY)}
	missing := e.ID("missing")
	for _, row := range battery.OwnerTable() {
		id := ids[row.Owned]
		want, _ := battery.Stored(e, st, id)
		input := fmt.Sprintf("facade Get(%s, %s) with %s [%s]", battery.Literal(id), row.Caller, battery.SettingName(requireOwner), row.Name)
		got, err := fac.Get(e.Ctx, id, row.Caller)
		if row.Allowed(requireOwner) {
			e.Of(table, func() {
				if e.CheckErr(err, nil, input+": allowed by the truth table") {
					battery.CheckTask(e, input, want, got)
				}
			})
			continue
		}
		if err == nil {
			e.Of(table, func() {
				e.Check(false, input+": denied by the truth table", "ErrNotFound, as for a missing task", "the task: "+battery.Show(got))
			})
			continue
		}
		e.Of(denial, func() {
			if !e.CheckErr(err, reference.ErrNotFound, input+": denied by the truth table") {
				return
			}
			e.Check(got == nil, input, "no task with the denial", got)
			if messages {
				_, missErr := fac.Get(e.Ctx, missing, row.Caller)
				checkDeniedLikeMissing(e, input, err, id, missErr, missing)
			}
		})
	}
}

// ownerRules are the rules a truth-table walk files its faults under in e's spec: a
// caller let through or turned away against the table breaks S-OWN-1 (table), a denial
// that does not read as a missing task or writes S-OWN-2 (denial). "" is the spec's own
// rule: a facade rule's spec (L-F-SCOPE-1 asks for both) keeps every fault.
func ownerRules(e *battery.Env) (table, denial string) {
	switch e.Rule.ID {
	case "S-OWN-1":
		return "", "S-OWN-2"
	case "S-OWN-2":
		return "S-OWN-1", ""
	}
	return "", ""
}

// OwnerCancelTable walks the truth table with the facade's Cancel in one setting: an
// allowed Cancel cancels, a denied one answers as for a missing id and writes nothing.
func OwnerCancelTable(e *battery.Env, st legacy.Store, requireOwner, messages bool) {
	table, denial := ownerRules(e)
	fac := battery.LegacyFacade(e, st, requireOwner)
	missing := e.ID("missing")
	for _, row := range battery.OwnerTable() {
		id := facadeCreate(e, fac, "cancel", row.Owner())
		before, _ := battery.Stored(e, st, id)
		input := fmt.Sprintf("facade Cancel(%s, %s) with %s [%s]", battery.Literal(id), row.Caller, battery.SettingName(requireOwner), row.Name)
		got, err := fac.Cancel(e.Ctx, id, row.Caller)
		if row.Allowed(requireOwner) {
			e.Of(table, func() {
				want := legacy.Merge(before, legacy.Task{legacy.KeyStatus: "cancelled"})
				if e.CheckErr(err, nil, input+": allowed by the truth table") {
					battery.CheckTask(e, input+" returned", want, got)
				}
				battery.CheckStored(e, st, id, want, input)
			})
			continue
		}
		if err == nil {
			e.Of(table, func() {
				e.Check(false, input+": denied by the truth table", "ErrNotFound, as for a missing task, and nothing written", "success: "+battery.Show(got))
			})
			continue
		}
		e.Of(denial, func() {
			if e.CheckErr(err, reference.ErrNotFound, input+": denied by the truth table") && messages {
				_, missErr := fac.Cancel(e.Ctx, missing, row.Caller)
				checkDeniedLikeMissing(e, input, err, id, missErr, missing)
			}
			battery.CheckStored(e, st, id, before, input+" (denied: nothing written)")
		})
	}
	battery.CheckGone(e, st, missing, "facade Cancel of a missing id")
}

// OwnerListTable checks that the facade's List shows each caller exactly the tasks the
// truth table allows, in one setting.
func OwnerListTable(e *battery.Env, st legacy.Store, requireOwner bool) {
	fac := battery.LegacyFacade(e, st, requireOwner)
	unowned := battery.SetOf(facadeCreate(e, fac, "unowned", ""), facadeCreate(e, fac, "unowned", ""))
	owned := battery.SetOf(facadeCreate(e, fac, "owned", battery.OwnerY), facadeCreate(e, fac, "owned", battery.OwnerY))
	other := battery.SetOf(facadeCreate(e, fac, "other", battery.OwnerX))
	mine := battery.IDSet{}
	for _, s := range []battery.IDSet{unowned, owned, other} {
		for id := range s {
			mine[id] = true
		}
	}
	callers := []reference.Caller{reference.System(), reference.Anonymous(), reference.Principal(battery.OwnerX), reference.Principal(battery.OwnerY), reference.Principal("owner-z")}
	for _, c := range callers {
		want := battery.IDSet{}
		for id := range mine {
			owner := ""
			switch {
			case owned[id]:
				owner = battery.OwnerY
			case other[id]:
				owner = battery.OwnerX
			}
			if model.Visible(owner, c, requireOwner) {
				want[id] = true
			}
		}
		input := fmt.Sprintf("facade List({}, %s) with %s", c, battery.SettingName(requireOwner))
		rows, err := fac.List(e.Ctx, legacy.ListOptions{}, c)
		if !e.CheckErr(err, nil, input) {
			continue
		}
		got := battery.RowIDs(rows, mine)
		e.Check(got.Equal(want), input, "of this spec's tasks exactly "+want.String(), got)
	}
}

func LegacyOwner(s *battery.Suite) {
	s.It("S-OWN-1", "facade Get, Cancel and List follow the owner truth table in both settings", func(e *battery.Env) {
		st := e.Legacy()
		for _, ro := range []bool{false, true} {
			OwnerGetTable(e, st, ro, false)
			OwnerCancelTable(e, st, ro, false)
			OwnerListTable(e, st, ro)
		}
	})

	s.It("S-OWN-1", "the store's List scopes rows by the owner truth table in both settings", func(e *battery.Env) {
		st := e.Legacy()
		rows := battery.OwnedRows{}
		j := battery.NewListJudge(e, "S-OWN-1", rows)
		// The truth table's principals, a pair of owners that share their first 17
		// bytes, and unowned rows of every kind.
		const near = "owner-y-tenant-acme-2"
		for _, owner := range []any{nil, "", battery.OwnerX, battery.OwnerY, battery.OwnerY, near, json.Number("7")} {
			id := e.ID("row")
			meta := legacy.Task{}
			if owner != nil {
				meta[legacy.KeyOwner] = owner
			}
			battery.MustCreate(e, st, id, meta)
			rows[id] = battery.RowOwner(meta)
		}
		// Every answer is judged by L-LIST-4's either/or, the same choice for every
		// caller: a store may leave scoping to the facade, but only for all callers.
		for _, ro := range []bool{false, true} {
			for _, c := range []reference.Caller{reference.System(), reference.Anonymous(), reference.Principal(battery.OwnerX), reference.Principal(battery.OwnerY), reference.Principal("owner-y-tenant-acme-1")} {
				j.List(st, legacy.ListOptions{Owner: legacy.ScopeOf(c), RequireOwner: ro})
			}
		}
		j.Finish()
	})

	s.It("S-OWN-2", "a denied task answers exactly as a missing one, and a denied Cancel writes nothing", func(e *battery.Env) {
		st := e.Legacy()
		for _, ro := range []bool{false, true} {
			OwnerGetTable(e, st, ro, true)
			OwnerCancelTable(e, st, ro, true)
		}
	})

	s.It("S-OWN-3", "compares owners exactly: case, spaces, homoglyphs, numbers, wildcards and NFC/NFD are all distinct", func(e *battery.Env) {
		st := e.Legacy()
		fac := legacy.New(st)
		owners := battery.OwnerCorpus()
		ids := map[string]string{} // owner -> task id
		for _, o := range owners {
			ids[o] = facadeCreate(e, fac, "tricky", o)
		}
		unowned := facadeCreate(e, fac, "unowned", "")
		mine := battery.SetOf(unowned)
		for _, id := range ids {
			mine[id] = true
		}
		var leaks, refusals []string
		for _, c := range owners {
			for _, o := range owners {
				_, err := fac.Get(e.Ctx, ids[o], reference.Principal(c))
				switch {
				case c == o && err != nil:
					refusals = append(refusals, fmt.Sprintf("Get as %s of its own task: %s", model.ShowOwner(c), battery.DescribeErr(err)))
				case c != o && !errors.Is(err, reference.ErrNotFound):
					leaks = append(leaks, fmt.Sprintf("Get as %s of the task of %s: %s", model.ShowOwner(c), model.ShowOwner(o), battery.DescribeErr(err)))
				}
			}
		}
		for _, c := range owners {
			want := battery.SetOf(ids[c], unowned)
			rows, err := fac.List(e.Ctx, legacy.ListOptions{}, reference.Principal(c))
			if !e.CheckErr(err, nil, fmt.Sprintf("facade List({}, principal %s)", model.ShowOwner(c))) {
				continue
			}
			if got := battery.RowIDs(rows, mine); !got.Equal(want) {
				leaks = append(leaks, fmt.Sprintf("facade List as %s returned %s, want %s", model.ShowOwner(c), got, want))
			}
		}
		// The store's own List, where owner comparison is pushed down into a query: each
		// answer is judged by L-LIST-4's either/or (scoped exactly, or every row), the
		// same way for every principal.
		rows := battery.OwnedRows{unowned: ""}
		for o, id := range ids {
			rows[id] = o
		}
		j := battery.NewListJudge(e, "S-OWN-3", rows)
		for _, c := range owners {
			j.List(st, legacy.ListOptions{Owner: legacy.PrincipalOwner(c)})
		}
		j.Finish()
		// Denied Cancels write nothing; then each owner cancels its own task.
		for _, c := range owners {
			for _, o := range owners {
				if c == o {
					continue
				}
				if _, err := fac.Cancel(e.Ctx, ids[o], reference.Principal(c)); !errors.Is(err, reference.ErrNotFound) {
					leaks = append(leaks, fmt.Sprintf("Cancel as %s of the task of %s: %s", model.ShowOwner(c), model.ShowOwner(o), battery.DescribeErr(err)))
				}
			}
		}
		for _, o := range owners {
			if t, ok := battery.Stored(e, st, ids[o]); !ok || battery.StatusOf(t) != "working" {
				leaks = append(leaks, fmt.Sprintf("the task of %s after only foreign Cancels: %s", model.ShowOwner(o), battery.Show(t)))
			}
			if _, err := fac.Cancel(e.Ctx, ids[o], reference.Principal(o)); err != nil {
				refusals = append(refusals, fmt.Sprintf("Cancel as %s of its own task: %s", model.ShowOwner(o), battery.DescribeErr(err)))
			}
		}
		const most = 15
		e.Check(len(leaks) == 0, fmt.Sprintf("%d tasks, each owned by one of %d distinct owners (case, spaces, homoglyphs, wildcards, NFC/NFD, long shared prefixes), each read, listed and cancelled by every one of those principals", len(owners), len(owners)),
			"each principal sees and cancels only its own task (and unowned ones)",
			fmt.Sprintf("%d crossings, e.g.\n    %s", len(leaks), strings.Join(leaks[:min(len(leaks), most)], "\n    ")))
		e.Check(len(refusals) == 0, "the same tasks, each read and cancelled by its own owner",
			"success", fmt.Sprintf("%d refusals, e.g.\n    %s", len(refusals), strings.Join(refusals[:min(len(refusals), most)], "\n    ")))
	})
}
