package legacyspecs

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func List(s *battery.Suite) {
	s.It("L-LIST-1", "filters by exact status (an unknown status yields nothing) and returns each task once", func(e *battery.Env) {
		st := e.Legacy()
		mine := battery.IDSet{}
		byStatus := map[string]battery.IDSet{}
		for _, status := range reference.Statuses() {
			byStatus[string(status)] = battery.IDSet{}
			for range 2 {
				id := e.ID(string(status))
				battery.MustCreate(e, st, id, legacy.Task{"kind": string(status)})
				if status != reference.StatusWorking {
					battery.MustStatus(e, st, id, string(status))
				}
				mine[id] = true
				byStatus[string(status)][id] = true
			}
		}
		check := func(opts legacy.ListOptions, want battery.IDSet) {
			input := "List(" + battery.ShowOpts(opts) + ")"
			rows, err := st.List(e.Ctx, opts)
			if !e.CheckErr(err, nil, input) {
				return
			}
			if dup := battery.DuplicateIDs(rows); len(dup) > 0 {
				e.Check(false, input, "each task once", fmt.Sprintf("repeated rows %q", dup))
			}
			if opts.Status != nil {
				for _, r := range rows {
					if battery.StatusOf(r) != *opts.Status {
						e.Check(false, input, fmt.Sprintf("only rows whose status is exactly %q", *opts.Status),
							fmt.Sprintf("row %s with status %q", battery.Literal(r.ID()), battery.StatusOf(r)))
					}
				}
			}
			got := battery.RowIDs(rows, mine)
			e.Check(got.Equal(want), input, "of the tasks this spec created, exactly "+want.String(), got)
		}
		check(legacy.ListOptions{}, mine)
		for status, want := range byStatus {
			check(legacy.ListOptions{Status: new(status)}, want)
		}
		// Unknown statuses, near misses of real ones among them, match nothing.
		for _, status := range []string{"bogus", "Working", "WORKING", "working ", " working", "work", "complete", "cancel", "%", "*", "", "working|completed"} {
			check(legacy.ListOptions{Status: new(status)}, battery.IDSet{})
		}
	})

	s.It("L-LIST-2", "Limit: absent is unbounded, N > 0 is at most N rows (N around the row count and past 32 bits), 0 or negative is no rows", func(e *battery.Env) {
		st := e.Legacy()
		const owner = "limit-owner"
		rows := battery.OwnedRows{}
		j := battery.NewListJudge(e, "L-LIST-2", rows)
		for i := range 8 {
			id := e.ID("lim")
			meta := legacy.Task{}
			if i%2 == 0 {
				meta[legacy.KeyOwner] = owner
			}
			battery.MustCreate(e, st, id, meta)
			if i >= 5 {
				battery.MustStatus(e, st, id, "completed")
				j.Status[id] = "completed"
			}
			rows[id] = battery.RowOwner(meta)
		}
		// Every answer is judged by L-LIST-4's either/or, whatever the store chose for
		// the one before: a store that ignores Owner and Limit must do so on every call.
		j.List(st, legacy.ListOptions{})
		// Around the 8 rows (7, 8, 9), and past what 32 bits hold (a LIMIT cast to a
		// signed or unsigned 32-bit integer wraps to a negative or a small number).
		for _, n := range []int{1, 3, 7, 8, 9, 100, 1<<31 - 1, 1 << 31, 1<<32 + 1} {
			j.List(st, legacy.ListOptions{Limit: new(n)})
		}
		for _, n := range []int{0, -1, -100} {
			j.List(st, legacy.ListOptions{Limit: new(n)})
			j.List(st, legacy.ListOptions{Limit: new(n), Status: new("working")})
			j.List(st, legacy.ListOptions{Limit: new(n), Owner: legacy.PrincipalOwner(owner)})
		}
		for _, n := range []int{1, 2, 3, 5} {
			j.List(st, legacy.ListOptions{Limit: new(n), Status: new("completed")})
		}
		p := legacy.PrincipalOwner(owner)
		for _, n := range []int{1, 2, 4} {
			j.List(st, legacy.ListOptions{Limit: new(n), Owner: p})
			j.List(st, legacy.ListOptions{Limit: new(n), Owner: p, RequireOwner: true})
			j.List(st, legacy.ListOptions{Limit: new(n), Owner: p, Status: new("working")})
		}
		j.Finish()
	})

	s.It("L-LIST-3", "scopes rows by owner: any, anonymous (unowned only), principal X (X's plus unowned); RequireOwner drops unowned rows", func(e *battery.Env) {
		st := e.Legacy()
		j := scopeCorpus(e, st, "L-LIST-3")
		scopes := []legacy.OwnerScope{legacy.AnyOwner(), legacy.AnonymousOwner(), legacy.PrincipalOwner("nobody")}
		for _, o := range battery.OwnerCorpus() {
			scopes = append(scopes, legacy.PrincipalOwner(o))
		}
		for _, sc := range scopes {
			for _, ro := range []bool{false, true} {
				j.List(st, legacy.ListOptions{Owner: sc, RequireOwner: ro})
			}
			// A status filter combined with the scope: both must hold at once.
			j.List(st, legacy.ListOptions{Owner: sc, Status: new("completed")})
			j.List(st, legacy.ListOptions{Owner: sc, Status: new("working"), RequireOwner: true})
		}
		j.Finish()
	})

	s.It("L-LIST-3", "an id deleted and created again under another owner, or none, is in the new owner's scope only (an owner index that Delete does not clean lists it to the old one)", func(e *battery.Env) {
		st := e.Legacy()
		const a, b = "owner-a-reused", "owner-b-reused"
		rows := battery.OwnedRows{}
		j := battery.NewListJudge(e, "L-LIST-3", rows)
		create := func(id, owner string) {
			meta := legacy.Task{}
			if owner != "" {
				meta[legacy.KeyOwner] = owner
			}
			battery.MustCreate(e, st, id, meta)
		}
		// Each id lives a first life under one owner, is deleted, and lives again
		// under another; the last is deleted for good.
		var gone []string
		for i, life := range [][2]string{{a, b}, {a, ""}, {"", b}, {a, a}, {b, a}, {a, "-"}} {
			id := e.ID("reused")
			create(id, life[0])
			if i%2 == 1 {
				battery.MustStatus(e, st, id, "completed")
			}
			if err := st.Delete(e.Ctx, id); err != nil {
				e.Fatalf("setup: Delete(%s): %s", battery.Literal(id), battery.DescribeErr(err))
			}
			if life[1] == "-" {
				gone = append(gone, id)
				continue
			}
			create(id, life[1])
			rows[id] = life[1]
		}
		for _, owner := range []string{a, b, ""} { // rows that were never deleted, beside them
			id := e.ID("kept")
			create(id, owner)
			rows[id] = owner
		}
		for _, sc := range []legacy.OwnerScope{legacy.AnyOwner(), legacy.AnonymousOwner(), legacy.PrincipalOwner(a), legacy.PrincipalOwner(b)} {
			for _, ro := range []bool{false, true} {
				j.List(st, legacy.ListOptions{Owner: sc, RequireOwner: ro})
				j.List(st, legacy.ListOptions{Owner: sc, RequireOwner: ro, Status: new("working")})
			}
			for _, n := range []int{1, 2, 3} {
				j.List(st, legacy.ListOptions{Owner: sc, Limit: new(n)})
			}
		}
		j.Finish()
		for _, sc := range []legacy.OwnerScope{legacy.AnyOwner(), legacy.PrincipalOwner(a)} {
			got, err := st.List(e.Ctx, legacy.ListOptions{Owner: sc})
			in := "List(" + battery.Show(sc) + ") after Delete of " + strings.Join(gone, ", ")
			if e.CheckErr(err, nil, in) {
				e.Check(battery.RowIDs(got, battery.SetOf(gone...)).Equal(battery.IDSet{}), in, "no deleted row", battery.RowIDs(got, battery.SetOf(gone...)))
			}
		}
	})

	s.It("L-LIST-4", "honours both Owner and Limit, or ignores both and returns every row matching Status", func(e *battery.Env) {
		st := e.Legacy()
		// Pairs of owners that share a long prefix: a store that compares a fixed-width
		// prefix of the owner (an index column) merges them.
		pairs := [][2]string{
			{"tenant-acme-corp-1", "tenant-acme-corp-2"},
			{strings.Repeat("o", 255), strings.Repeat("o", 255) + "q"},
		}
		rows := battery.OwnedRows{}
		j := battery.NewListJudge(e, "L-LIST-4", rows)
		add := func(owner string, status string) {
			id := e.ID("l4")
			meta := legacy.Task{}
			if owner != "" {
				meta[legacy.KeyOwner] = owner
			}
			battery.MustCreate(e, st, id, meta)
			if status != "working" {
				battery.MustStatus(e, st, id, status)
				j.Status[id] = status
			}
			rows[id] = owner
		}
		for _, pq := range pairs {
			p, q := pq[0], pq[1]
			// Foreign rows before and after the caller's, so that a store that stops at
			// the limit in any insertion order meets foreign rows first.
			for i := range 6 {
				add(q, []string{"working", "completed"}[i%2])
			}
			add(p, "working")
			add(p, "completed")
			for i := range 6 {
				add(q, []string{"working", "completed"}[i%2])
			}
		}
		add("", "working")
		type listCase struct {
			limit  int
			ro     bool
			status string
		}
		cases := []listCase{{3, false, ""}, {2, false, ""}, {1, false, ""}, {2, true, ""}, {1, false, "working"}, {2, true, "completed"}}
		list := func(sc legacy.OwnerScope, c listCase) {
			opts := legacy.ListOptions{Owner: sc, Limit: new(c.limit), RequireOwner: c.ro}
			if c.status != "" {
				opts.Status = new(c.status)
			}
			j.List(st, opts)
		}
		for _, pq := range pairs {
			for _, c := range cases {
				list(legacy.PrincipalOwner(pq[0]), c)
			}
		}
		list(legacy.AnonymousOwner(), listCase{1, false, ""})
		list(legacy.AnonymousOwner(), listCase{2, false, "working"})
		j.Finish()
	})
}

// scopeCorpus creates the rows every List scope is judged on (L-LIST-3): unowned rows
// of every kind (owner absent, null, the empty string, set to null by an Update), rows
// whose owner is not a string, and one row for each owner of OwnerCorpus; every third
// row is completed, so that a status filter combined with a scope is judged too.
func scopeCorpus(e *battery.Env, st legacy.Store, rule string) *battery.ListJudge {
	rows := battery.OwnedRows{}
	j := battery.NewListJudge(e, rule, rows)
	n := 0
	add := func(meta legacy.Task) string {
		id := e.ID("scope")
		battery.MustCreate(e, st, id, meta)
		rows[id] = battery.RowOwner(meta)
		if n%3 == 2 {
			battery.MustStatus(e, st, id, "completed")
			j.Status[id] = "completed"
		}
		n++
		return id
	}
	add(legacy.Task{})
	add(legacy.Task{legacy.KeyOwner: nil})
	add(legacy.Task{legacy.KeyOwner: ""})
	add(legacy.Task{})
	for _, o := range []any{json.Number("1"), json.Number("0"), true, map[string]any{"id": "alice"}, []any{"alice"}} {
		add(legacy.Task{legacy.KeyOwner: o})
	}
	for _, o := range battery.OwnerCorpus() {
		add(legacy.Task{legacy.KeyOwner: o})
	}
	// An owner removed by an Update that writes null: the row is unowned from then on.
	id := add(legacy.Task{legacy.KeyOwner: "temporary"})
	battery.MustUpdate(e, st, id, legacy.Task{legacy.KeyOwner: nil})
	rows[id] = ""
	return j
}
