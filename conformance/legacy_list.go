package conformance

import (
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func init() { register(EraLegacy, legacyListSpecs) }

// scopeCase is an owner scope of List with the battery's own idea of what it admits
// (L-LIST-3), written out rather than taken from legacy.OwnerScope.Admits.
type scopeCase struct {
	scope     legacy.OwnerScope
	any       bool
	principal string // "" for the anonymous scope
}

func anyScope() scopeCase       { return scopeCase{scope: legacy.AnyOwner(), any: true} }
func anonymousScope() scopeCase { return scopeCase{scope: legacy.AnonymousOwner()} }
func principalScope(id string) scopeCase {
	return scopeCase{scope: legacy.PrincipalOwner(id), principal: id}
}

// admits: any admits every row; anonymous admits unowned rows; principal X admits X's
// rows and unowned ones; RequireOwner drops unowned rows from the last two.
func (c scopeCase) admits(owner string, requireOwner bool) bool {
	switch {
	case c.any:
		return true
	case owner == "":
		return !requireOwner
	default:
		return c.principal != "" && owner == c.principal
	}
}

// ownedRows is a set of tasks a list spec created, with their owners ("" for none).
type ownedRows map[string]string

func (o ownedRows) ids() idSet {
	s := idSet{}
	for id := range o {
		s[id] = true
	}
	return s
}

// admitted is the subset of o that c admits.
func (o ownedRows) admitted(c scopeCase, requireOwner bool) idSet {
	s := idSet{}
	for id, owner := range o {
		if c.admits(owner, requireOwner) {
			s[id] = true
		}
	}
	return s
}

// rowOwner is the owner of a row as the battery reads it: "" when owner is absent or
// null (L-LIST-3), the string otherwise, and a marker no principal matches for any other
// value.
func rowOwner(t legacy.Task) string {
	switch o := t[legacy.KeyOwner].(type) {
	case nil:
		return ""
	case string:
		return o
	}
	return "\x00not a string"
}

// outside lists the rows that c does not admit.
func outside(rows []legacy.Task, c scopeCase, requireOwner bool) []string {
	var out []string
	for _, r := range rows {
		if !c.admits(rowOwner(r), requireOwner) {
			out = append(out, fmt.Sprintf("%s (owner %s)", Q(r.ID()), show(r[legacy.KeyOwner])))
		}
	}
	return out
}

func legacyListSpecs(s *suite) {
	s.It("L-LIST-1", "filters by exact status (an unknown status yields nothing) and returns each task once", func(e *Env) {
		st := e.Legacy()
		mine := idSet{}
		byStatus := map[string]idSet{}
		for _, status := range reference.Statuses() {
			byStatus[string(status)] = idSet{}
			for range 2 {
				id := e.ID(string(status))
				mustCreate(e, st, id, legacy.Task{"kind": string(status)})
				if status != reference.StatusWorking {
					mustStatus(e, st, id, string(status))
				}
				mine[id] = true
				byStatus[string(status)][id] = true
			}
		}
		check := func(opts legacy.ListOptions, want idSet) {
			input := "List(" + showOpts(opts) + ")"
			rows, err := st.List(e.Ctx, opts)
			if !e.CheckErr(err, nil, input) {
				return
			}
			if dup := duplicateIDs(rows); len(dup) > 0 {
				e.Check(false, input, "each task once", fmt.Sprintf("repeated rows %q", dup))
			}
			if opts.Status != nil {
				for _, r := range rows {
					if statusOf(r) != *opts.Status {
						e.Check(false, input, fmt.Sprintf("only rows whose status is exactly %q", *opts.Status),
							fmt.Sprintf("row %s with status %q", Q(r.ID()), statusOf(r)))
					}
				}
			}
			got := rowIDs(rows, mine)
			e.Check(got.equal(want), input, "of the tasks this spec created, exactly "+want.String(), got)
		}
		check(legacy.ListOptions{}, mine)
		for status, want := range byStatus {
			check(legacy.ListOptions{Status: new(status)}, want)
		}
		// Unknown statuses, near misses of real ones among them, match nothing.
		for _, status := range []string{"bogus", "Working", "WORKING", "working ", " working", "work", "complete", "cancel", "%", "*", "", "working|completed"} {
			check(legacy.ListOptions{Status: new(status)}, idSet{})
		}
	})

	s.It("L-LIST-2", "Limit: absent is unbounded, N > 0 is at most N rows, 0 or negative is no rows", func(e *Env) {
		st := e.Legacy()
		if listIgnoresOwner(e, st) {
			skipIgnoresBoth()
		}
		const owner = "limit-owner"
		rows := ownedRows{}
		for i := range 8 {
			id := e.ID("lim")
			meta := legacy.Task{}
			if i%2 == 0 {
				meta[legacy.KeyOwner] = owner
			}
			mustCreate(e, st, id, meta)
			if i >= 5 {
				mustStatus(e, st, id, "completed")
			}
			rows[id] = rowOwner(meta)
		}
		completed := 3
		mine := rows.ids()
		check := func(opts legacy.ListOptions, sc scopeCase, matching int) {
			input := "List(" + showOpts(opts) + ")"
			got, err := st.List(e.Ctx, opts)
			if !e.CheckErr(err, nil, input) {
				return
			}
			if opts.Limit == nil {
				ids, want := rowIDs(got, mine), rows.admitted(sc, opts.RequireOwner)
				e.Check(ids.equal(want), input, "without a limit, every matching task of this spec's: "+want.String(), ids)
				return
			}
			n := *opts.Limit
			if n <= 0 {
				e.Check(len(got) == 0, input, "no rows", fmt.Sprintf("%d rows", len(got)))
				return
			}
			want := min(n, matching)
			e.Check(len(got) <= n, input, fmt.Sprintf("at most %d rows", n), fmt.Sprintf("%d rows", len(got)))
			e.Check(len(got) >= want, input, fmt.Sprintf("%d rows: %d tasks match and the limit is %d", want, matching, n), fmt.Sprintf("%d rows", len(got)))
			if bad := outside(got, sc, opts.RequireOwner); len(bad) > 0 {
				e.Check(false, input, "only rows in scope "+sc.scope.String(), "rows "+strings.Join(bad, ", "))
			}
			if opts.Status != nil {
				for _, r := range got {
					e.Check(statusOf(r) == *opts.Status, input, "only rows with status "+Q(*opts.Status), fmt.Sprintf("row %s with status %q", Q(r.ID()), statusOf(r)))
				}
			}
		}
		all := anyScope()
		check(legacy.ListOptions{}, all, len(rows))
		for _, n := range []int{1, 3, 7, 8, 100} {
			check(legacy.ListOptions{Limit: new(n)}, all, len(rows))
		}
		for _, n := range []int{0, -1, -100} {
			check(legacy.ListOptions{Limit: new(n)}, all, len(rows))
			check(legacy.ListOptions{Limit: new(n), Status: new("working")}, all, len(rows)-completed)
			check(legacy.ListOptions{Limit: new(n), Owner: legacy.PrincipalOwner(owner)}, principalScope(owner), len(rows))
		}
		for _, n := range []int{1, 2, 3, 5} {
			check(legacy.ListOptions{Limit: new(n), Status: new("completed")}, all, completed)
		}
		p := principalScope(owner)
		for _, n := range []int{1, 2, 4} {
			check(legacy.ListOptions{Limit: new(n), Owner: p.scope}, p, len(rows.admitted(p, false)))
			check(legacy.ListOptions{Limit: new(n), Owner: p.scope, RequireOwner: true}, p, len(rows.admitted(p, true)))
		}
	})

	s.It("L-LIST-3", "scopes rows by owner: any, anonymous (unowned only), principal X (X's plus unowned); RequireOwner drops unowned rows", func(e *Env) {
		st := e.Legacy()
		ignores := listIgnoresOwner(e, st)
		const p, q = "scope-p", "scope-q"
		rows := ownedRows{}
		add := func(meta legacy.Task) {
			id := e.ID("scope")
			mustCreate(e, st, id, meta)
			rows[id] = rowOwner(meta)
		}
		add(legacy.Task{})
		add(legacy.Task{legacy.KeyOwner: nil}) // null owner: unowned
		add(legacy.Task{legacy.KeyOwner: p})
		add(legacy.Task{legacy.KeyOwner: p})
		add(legacy.Task{legacy.KeyOwner: q})
		for _, o := range trickyOwners() {
			add(legacy.Task{legacy.KeyOwner: o})
		}
		// One more unowned row whose owner was written as null by an Update.
		id := e.ID("scope")
		mustCreate(e, st, id, legacy.Task{legacy.KeyOwner: "temporary"})
		mustUpdate(e, st, id, legacy.Task{legacy.KeyOwner: nil})
		rows[id] = ""

		scopes := []scopeCase{anyScope(), anonymousScope(), principalScope(p), principalScope(q), principalScope("nobody")}
		for _, o := range trickyOwners() {
			scopes = append(scopes, principalScope(o))
		}
		mine := rows.ids()
		for _, sc := range scopes {
			for _, ro := range []bool{false, true} {
				opts := legacy.ListOptions{Owner: sc.scope, RequireOwner: ro}
				input := "List(" + showOpts(opts) + ")"
				got, err := st.List(e.Ctx, opts)
				if !e.CheckErr(err, nil, input) {
					continue
				}
				ids := rowIDs(got, mine)
				if ignores {
					e.Check(ids.equal(mine), input,
						"every row, as for every other scope: this store ignores Owner (a principal's list returned another principal's row), and L-LIST-4 allows that only for every scope", ids)
					continue
				}
				want := rows.admitted(sc, ro)
				if !ids.equal(want) {
					e.Check(false, input, "of this spec's rows exactly "+describeRows(rows, want), describeRows(rows, ids))
				}
				if dup := duplicateIDs(got); len(dup) > 0 {
					e.Check(false, input, "each task once", fmt.Sprintf("repeated rows %q", dup))
				}
			}
		}
		if ignores {
			skipIgnoresBoth()
		}
	})

	s.It("L-LIST-4", "honours both Owner and Limit, or ignores both and returns every row matching Status", func(e *Env) {
		st := e.Legacy()
		const p, q = "list4-p", "list4-q"
		rows := ownedRows{}
		add := func(owner string, status string) {
			id := e.ID("l4")
			meta := legacy.Task{}
			if owner != "" {
				meta[legacy.KeyOwner] = owner
			}
			mustCreate(e, st, id, meta)
			if status != "working" {
				mustStatus(e, st, id, status)
			}
			rows[id] = owner
		}
		// Foreign rows before and after the caller's, so that a store that stops at the
		// limit in any insertion order meets foreign rows first.
		for i := range 6 {
			add(q, []string{"working", "completed"}[i%2])
		}
		add(p, "working")
		add(p, "completed")
		add("", "working")
		for i := range 6 {
			add(q, []string{"working", "completed"}[i%2])
		}
		statuses := map[string]string{}
		for id := range rows {
			t, _ := stored(e, st, id)
			statuses[id] = statusOf(t)
		}
		mine := rows.ids()
		type listCase struct {
			sc     scopeCase
			limit  int
			ro     bool
			status string
		}
		cases := []listCase{
			{principalScope(p), 3, false, ""},
			{principalScope(p), 2, false, ""},
			{principalScope(p), 1, false, ""},
			{principalScope(p), 2, true, ""},
			{principalScope(p), 1, false, "working"},
			{anonymousScope(), 1, false, ""},
			{anonymousScope(), 2, false, "working"},
		}
		for _, c := range cases {
			opts := legacy.ListOptions{Owner: c.sc.scope, Limit: new(c.limit), RequireOwner: c.ro}
			if c.status != "" {
				opts.Status = new(c.status)
			}
			input := "List(" + showOpts(opts) + ")"
			got, err := st.List(e.Ctx, opts)
			if !e.CheckErr(err, nil, input) {
				continue
			}
			matching, visible := idSet{}, 0
			for id, owner := range rows {
				if c.status != "" && statuses[id] != c.status {
					continue
				}
				matching[id] = true
				if c.sc.admits(owner, c.ro) {
					visible++
				}
			}
			bad := outside(got, c.sc, c.ro)
			honours := len(bad) == 0 && len(got) <= c.limit
			ids := rowIDs(got, mine)
			ignoresBoth := true
			for id := range matching {
				ignoresBoth = ignoresBoth && ids[id]
			}
			switch {
			case honours:
				want := min(c.limit, visible)
				e.Check(len(got) >= want, input,
					fmt.Sprintf("%d rows: the caller can see %d matching tasks and the limit is %d (returning fewer starves the caller of its own rows)", want, visible, c.limit),
					fmt.Sprintf("%d rows", len(got)))
			case ignoresBoth:
			default:
				var gotDesc string
				if len(bad) > 0 {
					gotDesc = fmt.Sprintf("%d rows, %d outside the scope (%s): Owner ignored but Limit honoured, so the caller's own rows are starved", len(got), len(bad), strings.Join(bad, ", "))
				} else {
					gotDesc = fmt.Sprintf("%d rows, all in scope, more than the limit: Owner honoured but Limit ignored", len(got))
				}
				e.Check(false, input,
					fmt.Sprintf("either at most %d rows, all in scope %s (Owner and Limit honoured), or every row matching Status, %d of this spec's (both ignored)", c.limit, c.sc.scope, len(matching)),
					gotDesc)
			}
		}
	})
}

// filterStatus keeps the rows whose status is exactly status.
func filterStatus(rows []legacy.Task, status string) []legacy.Task {
	var out []legacy.Task
	for _, r := range rows {
		if statusOf(r) == status {
			out = append(out, r)
		}
	}
	return out
}

// describeRows renders a set of a spec's rows with their owners, for messages.
func describeRows(rows ownedRows, ids idSet) string {
	var parts []string
	for _, id := range ids.sorted() {
		owner := rows[id]
		if owner == "" {
			parts = append(parts, id+" (unowned)")
		} else {
			parts = append(parts, fmt.Sprintf("%s (owner %q)", id, owner))
		}
	}
	return fmt.Sprintf("%d rows [%s]", len(ids), strings.Join(parts, ", "))
}
