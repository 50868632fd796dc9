package facadespecs

import (
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// The L-F-* spec bodies for a store's own facade (harness.FacadeOwn): what the rule
// requires of any facade, judged from outside. The reference facade's own specs also
// judge how it drives a store (its fallbacks, its re-checks over adversarial store
// wrappers); those parts have no counterpart in a foreign facade.

// facadeStores are the stores L-F-SCOPE-1 and L-F-FIN-1 run the facade over: the
// spec's store, and for the reference facade also the store without its optional
// interfaces (the facade's fallbacks).
func facadeStores(e *battery.Env) []legacy.Store {
	if e.ForeignFacade() {
		return []legacy.Store{e.Legacy()}
	}
	return []legacy.Store{e.Legacy(), battery.PlainStore{Store: e.Legacy()}}
}

// foreignFacadeList is L-F-LIST-1 against a foreign facade: whatever its store pushes
// down, List returns only rows the caller may see and that match Status, all of this
// spec's visible rows without Limit, and between min(Limit, visible) and Limit rows
// with one.
func foreignFacadeList(e *battery.Env) {
	st := e.Legacy()
	const p, q = "flist-p", "flist-q"
	rows, statuses := facadeListRows(e, st, battery.LegacyFacade(e, st, false))
	mine := rows.Ids()
	callers := []reference.Caller{reference.Anonymous(), reference.Principal(p), reference.Principal(q), reference.Principal("flist-nobody"), reference.System()}
	limits := []*int{nil, new(1), new(2), new(4), new(100), new(0), new(-1)}
	for _, ro := range []bool{false, true} {
		fac := battery.LegacyFacade(e, st, ro)
		for _, c := range callers {
			for _, status := range []*string{nil, new("working"), new("completed")} {
				for _, limit := range limits {
					for _, filter := range ownerFilters(c, q) {
						opts := legacy.ListOptions{Status: status, Limit: limit, Owner: filter}
						input := fmt.Sprintf("the store's facade List(%s, %s) with %s", battery.ShowOpts(opts), c, battery.SettingName(ro))
						got, err := fac.List(e.Ctx, opts, c)
						if !e.CheckErr(err, nil, input) {
							continue
						}
						for _, r := range got {
							if (status != nil && battery.StatusOf(r) != *status) || !model.Visible(battery.RowOwner(r), c, ro) {
								e.Check(false, input, "only rows the caller may see and that match Status", "row "+battery.Show(r))
							}
						}
						visible := 0
						for id, owner := range rows {
							if (status == nil || statuses[id] == *status) && model.Visible(owner, c, ro) {
								visible++
							}
						}
						n := len(battery.RowIDs(got, mine))
						switch {
						case limit == nil:
							e.Check(n == visible, input, fmt.Sprintf("all %d of this spec's tasks the caller may see", visible), fmt.Sprint(n))
						case *limit <= 0:
							e.Check(len(got) == 0, input, "no rows", fmt.Sprint(len(got)))
						default:
							e.Check(len(got) <= *limit && len(got) >= min(*limit, visible), input,
								fmt.Sprintf("between %d and %d rows", min(*limit, visible), *limit), fmt.Sprint(len(got)))
						}
					}
				}
			}
		}
	}
}

// ownerFilters are the owner filters L-F-LIST-1 sends caller c, which the facade must
// all ignore: none (scope any), anonymous, another principal's (q) and c's own scope.
func ownerFilters(c reference.Caller, q string) []legacy.OwnerScope {
	return []legacy.OwnerScope{legacy.AnyOwner(), legacy.AnonymousOwner(), legacy.PrincipalOwner(q), legacy.ScopeOf(c)}
}

// facadeListRows creates L-F-LIST-1's tasks: three of flist-p, three of flist-q and nine
// without an owner (the owner key absent, null, "" in the metadata, and a task created
// through fac with owner ""), three of them before the owned ones and six after (a
// store that lists in creation order shows either first), every third one completed;
// then one working task created through each other form of "no owner" fac can send.
// It returns each task's owner ("" for none) and status.
func facadeListRows(e *battery.Env, st legacy.Store, fac legacy.Facade) (battery.OwnedRows, map[string]string) {
	rows := battery.OwnedRows{}
	statuses := map[string]string{}
	for i, owner := range []string{"", "", "", "flist-p", "flist-p", "flist-p", "flist-q", "flist-q", "flist-q", "", "", "", "", "", ""} {
		id := e.ID("flist")
		meta := legacy.Task{}
		switch {
		case owner != "":
			meta[legacy.KeyOwner] = owner
		case i == 12:
			meta[legacy.KeyOwner] = nil
		case i == 13:
			meta[legacy.KeyOwner] = ""
		}
		if i == 14 {
			if _, err := fac.Create(e.Ctx, id, meta, ""); err != nil {
				e.Fatalf("setup: facade Create(%s, {}, owner \"\"): %s", battery.Literal(id), battery.DescribeErr(err))
			}
		} else {
			battery.MustCreate(e, st, id, meta)
		}
		statuses[id] = "working"
		if i%3 == 2 {
			battery.MustStatus(e, st, id, "completed")
			statuses[id] = "completed"
		}
		rows[id] = owner
	}
	for _, form := range ownerForms(fac)[1:] {
		id := e.ID("flist")
		if form.create(e, fmt.Sprintf("facade Create(%s, {}, owner \"\")", battery.Literal(id)), func() error {
			_, err := form.fac.Create(e.Ctx, id, legacy.Task{}, "")
			return err
		}) {
			rows[id], statuses[id] = "", "working"
		}
	}
	return rows, statuses
}

// foreignFacadeCancel is L-F-CANCEL-1 against a foreign facade: Cancel sets status
// cancelled and nothing else, returns the task, and a missing id is ErrNotFound with
// nothing created.
func foreignFacadeCancel(e *battery.Env) {
	st := e.Legacy()
	fac := battery.LegacyFacade(e, st, false)
	id := e.ID("fcancel")
	battery.MustCreate(e, st, id, legacy.Task{"job": "queued"})
	checkCancel(e, st, fac, id, fmt.Sprintf("the store's facade Cancel(%s, system)", battery.Literal(id)))
	checkCancelMissing(e, st, fac, "the store's facade Cancel(%s, system) of a missing id")
}

// checkCancel is L-F-CANCEL-1 on a stored task id: fac's Cancel(id, system), described
// by input, sets status cancelled and nothing else, in its answer and in the store.
func checkCancel(e *battery.Env, st legacy.Store, fac legacy.Facade, id, input string) {
	before, _ := battery.Stored(e, st, id)
	got, err := fac.Cancel(e.Ctx, id, reference.System())
	want := legacy.Merge(before, legacy.Task{legacy.KeyStatus: "cancelled"})
	if e.CheckErr(err, nil, input) {
		battery.CheckTask(e, input+" returned", want, got)
	}
	battery.CheckStored(e, st, id, want, input)
}

// checkCancelMissing is L-F-CANCEL-1 on a missing id: fac's Cancel answers ErrNotFound
// and creates nothing. input is the call's description, with %s for the id.
func checkCancelMissing(e *battery.Env, st legacy.Store, fac legacy.Facade, input string) {
	missing := e.ID("missing")
	_, err := fac.Cancel(e.Ctx, missing, reference.System())
	e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf(input, battery.Literal(missing)))
	battery.CheckGone(e, st, missing, "facade Cancel of a missing id")
}

// foreignFacadeCleanup is L-F-CLEAN-1 against a foreign facade: Cleanup either runs a
// store cleanup (the old terminal task is gone, and counted) or is the fallback (0, and
// the task is still there); a working task is never removed. Over a store that has
// Cleanup the fallback does not apply: the facade must use it, so an answer of 0 that
// the reference facade would give a store without Cleanup fails.
func foreignFacadeCleanup(e *battery.Env) {
	st := e.Legacy()
	_, storeCleans := st.(legacy.Cleaner)
	fac := battery.LegacyFacade(e, st, false)
	old := e.ID("fclean")
	battery.MustCreate(e, st, old, legacy.Task{})
	oldTask := battery.MustStatus(e, st, old, "completed")
	live := e.ID("fclean-live")
	liveTask := battery.MustCreate(e, st, live, legacy.Task{})
	e.Age(50*time.Millisecond, 50*time.Millisecond)
	input := "the store's facade Cleanup(10ms) after a task completed 50 ms ago"
	n, err := fac.Cleanup(e.Ctx, 10*time.Millisecond)
	if !e.CheckErr(err, nil, input) {
		return
	}
	_, kept := battery.Stored(e, st, old)
	switch {
	case n == 0 && storeCleans:
		e.Check(false, input, "the store's Cleanup used (the store has one): the old completed task removed and counted",
			fmt.Sprintf("0 returned, the task %s (the answer for a store without Cleanup)", map[bool]string{true: "kept", false: "gone"}[kept]))
	case n == 0:
		e.Check(kept, input, "with 0 returned, nothing removed", "the completed task is gone")
		if kept {
			battery.CheckStored(e, st, old, oldTask, input)
		}
	default:
		e.Check(!kept, input, fmt.Sprintf("with %d returned, the old completed task removed", n), "it is still there")
	}
	battery.CheckStored(e, st, live, liveTask, input+" (a working task is never removed)")
	// Nothing left is older than an hour: a second Cleanup removes nothing.
	input = "then the store's facade Cleanup(1h)"
	n, err = fac.Cleanup(e.Ctx, time.Hour)
	if e.CheckErr(err, nil, input) {
		e.Check(n == 0, input, "0", fmt.Sprint(n))
	}
	battery.CheckStored(e, st, live, liveTask, input)
}
