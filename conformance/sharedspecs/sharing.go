package sharedspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy-era body of S-SHARE-1; the modern body lives with the modern specs.

func LegacySharing(s *battery.Suite) {
	s.It("S-SHARE-1", "a write acknowledged by one legacy instance is visible to the next read on another", func(e *battery.Env) {
		a := e.Legacy()
		b := e.OtherLegacy()
		id := e.ID("share")
		created := battery.MustCreate(e, a, id, legacy.Task{"v": "1"})
		battery.CheckStored(e, b, id, created, "Create("+battery.Literal(id)+") on instance A, read on instance B")
		inList := func(st legacy.Store, after string) {
			rows := battery.ListRows(e, st, legacy.ListOptions{})
			e.Check(battery.RowIDs(rows, battery.SetOf(id))[id], "List({}) on instance B after "+after, "a row "+battery.Literal(id), "none")
		}
		inList(b, "Create on A")

		updated := battery.MustUpdate(e, a, id, legacy.Task{"v": "2"})
		battery.CheckStored(e, b, id, updated, "Update("+battery.Literal(id)+", {v: 2}) on A, read on B")
		updated = battery.MustUpdate(e, b, id, legacy.Task{"w": "3"})
		battery.CheckStored(e, a, id, updated, "Update("+battery.Literal(id)+", {w: 3}) on B, read on A")

		if c, ok := a.(legacy.Canceler); ok {
			got, err := c.Cancel(e.Ctx, id)
			e.RequireErr(err, nil, "Cancel("+battery.Literal(id)+") on A")
			battery.CheckStored(e, b, id, got, "Cancel("+battery.Literal(id)+") on A, read on B")
		}
		// The facade over B sees what was written through A, owner included.
		owned := e.ID("share")
		battery.MustCreate(e, a, owned, legacy.Task{legacy.KeyOwner: "share-owner"})
		fac := legacy.New(b)
		_, err := fac.Get(e.Ctx, owned, reference.Principal("share-owner"))
		e.CheckErr(err, nil, fmt.Sprintf("facade over B: Get(%s, principal \"share-owner\") of a task created on A", battery.Literal(owned)))

		e.CheckErr(a.Delete(e.Ctx, id), nil, "Delete("+battery.Literal(id)+") on A")
		battery.CheckGone(e, b, id, "Delete("+battery.Literal(id)+") on A, read on B")
		rows := battery.ListRows(e, b, legacy.ListOptions{})
		e.Check(!battery.RowIDs(rows, battery.SetOf(id))[id], "List({}) on B after Delete on A", "no row "+battery.Literal(id), "the deleted row")

		// A duplicate Create on B of an id created on A is refused or leaves one task.
		dup := e.ID("share")
		first := battery.MustCreate(e, a, dup, legacy.Task{"from": "A"})
		if _, err := b.Create(e.Ctx, dup, legacy.Task{"from": "B"}); err == nil {
			got, _ := battery.Stored(e, a, dup)
			e.Check(got["from"] == "B", "Create("+battery.Literal(dup)+") on A, then on B (accepted), read on A", "the task B wrote", got)
		} else {
			battery.CheckStored(e, b, dup, first, "Create("+battery.Literal(dup)+") on A, then on B (refused), read on B")
		}
	})
}
