package legacyspecs

import (
	"encoding/json"
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference/legacy"
)

func Owner(s *battery.Suite) {
	s.It("L-OWNER-1", "returns owner at the top level, byte-exact, from Get and List", func(e *battery.Env) {
		st := e.Legacy()
		fac := legacy.New(st)
		owners := map[string]string{} // id -> owner
		for i, owner := range battery.TrickyOwners() {
			id := e.ID("own")
			meta := legacy.Task{"n": json.Number(fmt.Sprint(i)), "metadata": map[string]any{"kept": true}}
			if i%2 == 0 {
				meta[legacy.KeyOwner] = owner
				battery.MustCreate(e, st, id, meta)
			} else if _, err := fac.Create(e.Ctx, id, meta, owner); err != nil {
				e.Fatalf("setup: facade Create(%q, %s, owner %q): %v", id, battery.Show(meta), owner, err)
			}
			owners[id] = owner
		}
		ids := battery.SetOf()
		for id, owner := range owners {
			ids[id] = true
			input := fmt.Sprintf("Get(%s) of a task created with owner %q", battery.Literal(id), owner)
			got, ok := battery.Stored(e, st, id)
			if e.Check(ok, input, "the task", "ErrNotFound") {
				e.Check(got[legacy.KeyOwner] == any(owner), input, fmt.Sprintf("top-level owner %q", owner), got)
			}
			// A write of other keys keeps the owner.
			changes := legacy.Task{"progress": json.Number("1")}
			battery.MustUpdate(e, st, id, changes)
			input = fmt.Sprintf("Get(%s) after Update(%s, %s)", battery.Literal(id), battery.Literal(id), battery.Literal(changes))
			if got, ok := battery.Stored(e, st, id); e.Check(ok, input, "the task", "ErrNotFound") {
				e.Check(got[legacy.KeyOwner] == any(owner), input, fmt.Sprintf("top-level owner %q", owner), got)
			}
		}
		rows := battery.ListRows(e, st, legacy.ListOptions{})
		seen := battery.IDSet{}
		for _, row := range rows {
			owner, mine := owners[row.ID()]
			if !mine {
				continue
			}
			seen[row.ID()] = true
			e.Check(row[legacy.KeyOwner] == any(owner), "List({}) row "+battery.Literal(row.ID()), fmt.Sprintf("top-level owner %q", owner), row)
		}
		e.Check(seen.Equal(ids), "List({})", "every task created, "+ids.String(), seen)
	})
}
