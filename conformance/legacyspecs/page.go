package legacyspecs

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Page is the optional ordered List (legacy.Pager).
func Page(s *battery.Suite) {
	s.It("L-LIST-5", "ListAfter is List in (created_at, task_id) order from a position: the rows strictly after it, oldest first, Status, Owner and Limit honoured", func(e *battery.Env) {
		st := e.Legacy()
		p := battery.RequireOptional[legacy.Pager](st, "legacy.Pager")
		owner, other := e.ID("page-owner"), e.ID("page-other")

		// Nine rows of one principal in two statuses, two of another and one unowned. The
		// oracle orders them by the created_at and task_id the store itself reports.
		var mine []legacy.Task
		for i := range 9 {
			id := e.ID("page")
			battery.MustCreate(e, st, id, legacy.Task{legacy.KeyOwner: owner, "n": i})
			if i%3 == 1 {
				battery.MustStatus(e, st, id, "completed")
			}
			t, ok := battery.Stored(e, st, id)
			if !ok {
				e.Fatalf("setup: Get(%s) after Create: not found", battery.Literal(id))
			}
			mine = append(mine, t)
		}
		for range 2 {
			battery.MustCreate(e, st, e.ID("page"), legacy.Task{legacy.KeyOwner: other})
		}
		unowned := e.ID("page-unowned")
		battery.MustCreate(e, st, unowned, legacy.Task{})

		// Positions: none, before every row, after every row, and for each row its own
		// (which excludes it), its millisecond with the smallest id (which keeps every row
		// of that millisecond) and with an id above any (which drops them all).
		positions := []*legacy.Position{nil, {CreatedAt: -1 << 62}, {CreatedAt: 1 << 62}}
		for _, t := range mine {
			pos := legacy.PositionOf(t)
			positions = append(positions, &pos,
				&legacy.Position{CreatedAt: pos.CreatedAt},
				&legacy.Position{CreatedAt: pos.CreatedAt, ID: string(utf8.MaxRune)})
		}
		scope := legacy.ListOptions{Owner: legacy.PrincipalOwner(owner), RequireOwner: true}
		for _, status := range []*string{nil, new("working"), new("completed"), new("bogus")} {
			for _, limit := range []*int{nil, new(1), new(2), new(4), new(0), new(-1)} {
				for _, after := range positions {
					opts := scope
					opts.Status, opts.Limit = status, limit
					input := fmt.Sprintf("ListAfter(%s, after %s)", battery.ShowOpts(opts), showPosition(after))
					got, err := p.ListAfter(e.Ctx, opts, after)
					if !e.CheckErr(err, nil, input) {
						continue
					}
					want := ids(expectedPage(mine, opts, after))
					e.Check(slices.Equal(ids(got), want), input, fmt.Sprintf("exactly %q, in this order", want), fmt.Sprintf("%q", ids(got)))
				}
			}
		}

		// Without RequireOwner the scope also holds unowned rows, other specs' among them:
		// every row must be in the scope and in order, and of this spec's rows exactly the
		// principal's and the unowned one, each as Get reports it.
		opts := legacy.ListOptions{Owner: legacy.PrincipalOwner(owner)}
		input := fmt.Sprintf("ListAfter(%s, after %s)", battery.ShowOpts(opts), showPosition(nil))
		got, err := p.ListAfter(e.Ctx, opts, nil)
		if !e.CheckErr(err, nil, input) {
			return
		}
		for i, r := range got {
			if o := r.Owner(); o != "" && o != owner {
				e.Check(false, input, "rows of "+battery.Literal(owner)+" or unowned", fmt.Sprintf("row %s of %s", battery.Literal(r.ID()), battery.Literal(o)))
			}
			if i > 0 && !precedes(legacy.PositionOf(got[i-1]), legacy.PositionOf(r)) {
				e.Check(false, input, "rows in increasing (created_at, task_id)",
					fmt.Sprintf("%s at %s after %s at %s", battery.Literal(r.ID()), showPosition(new(legacy.PositionOf(r))),
						battery.Literal(got[i-1].ID()), showPosition(new(legacy.PositionOf(got[i-1])))))
			}
		}
		unownedRow, _ := battery.Stored(e, st, unowned)
		want := ids(expectedPage(append(slices.Clone(mine), unownedRow), opts, nil))
		ours := battery.SetOf(want...)
		var gotOurs []string
		for _, r := range got {
			if ours[r.ID()] {
				gotOurs = append(gotOurs, r.ID())
				stored, _ := battery.Stored(e, st, r.ID())
				battery.CheckTask(e, input+" row", stored, r)
			}
		}
		e.Check(slices.Equal(gotOurs, want), input, fmt.Sprintf("of this spec's rows exactly %q, in this order", want), fmt.Sprintf("%q", gotOurs))

		// A page is the caller's copy, as List's rows are (S-VAL-4).
		if len(got) > 0 {
			id := got[0].ID()
			before, _ := battery.Stored(e, st, id)
			got[0]["page-mutated"] = true
			battery.CheckStored(e, st, id, before, input+", then a key set on the first row returned")
		}
	})
}

// expectedPage is the oracle of L-LIST-5 over rows all in opts' owner scope: those whose
// status is opts.Status (working when absent) and that come strictly after after, in
// (created_at, task_id) order, cut at opts.Limit. It is written here, apart from the
// reference code, so that a fault of that code cannot agree with itself.
func expectedPage(rows []legacy.Task, opts legacy.ListOptions, after *legacy.Position) []legacy.Task {
	var out []legacy.Task
	for _, r := range rows {
		status, ok := r[legacy.KeyStatus].(string)
		if !ok {
			status = "working"
		}
		if (opts.Status == nil || *opts.Status == status) && (after == nil || precedes(*after, legacy.PositionOf(r))) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b legacy.Task) int {
		if precedes(legacy.PositionOf(a), legacy.PositionOf(b)) {
			return -1
		}
		return 1
	})
	if opts.Limit != nil {
		out = out[:max(0, min(len(out), *opts.Limit))]
	}
	return out
}

// precedes reports whether a comes strictly before b: an earlier created_at, or the same
// and a smaller task_id.
func precedes(a, b legacy.Position) bool {
	return a.CreatedAt < b.CreatedAt || a.CreatedAt == b.CreatedAt && a.ID < b.ID
}

func ids(rows []legacy.Task) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID()
	}
	return out
}

func showPosition(p *legacy.Position) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("(created_at %d, task_id %s)", p.CreatedAt, battery.Literal(p.ID))
}
