package conformance

import (
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy-era body of S-SHARE-1; the modern body lives with the modern specs.

func legacySharingSpecs(s *suite) {
	s.It("S-SHARE-1", "a write acknowledged by one legacy instance is visible to the next read on another", func(e *Env) {
		a := e.Legacy()
		b := e.OtherLegacy()
		id := e.ID("share")
		created := mustCreate(e, a, id, legacy.Task{"v": "1"})
		checkStored(e, b, id, created, "Create("+Q(id)+") on instance A, read on instance B")
		inList := func(st legacy.Store, after string) {
			rows := listRows(e, st, legacy.ListOptions{})
			e.Check(rowIDs(rows, setOf(id))[id], "List({}) on instance B after "+after, "a row "+Q(id), "none")
		}
		inList(b, "Create on A")

		updated := mustUpdate(e, a, id, legacy.Task{"v": "2"})
		checkStored(e, b, id, updated, "Update("+Q(id)+", {v: 2}) on A, read on B")
		updated = mustUpdate(e, b, id, legacy.Task{"w": "3"})
		checkStored(e, a, id, updated, "Update("+Q(id)+", {w: 3}) on B, read on A")

		if c, ok := a.(legacy.Canceler); ok {
			got, err := c.Cancel(e.Ctx, id)
			e.RequireErr(err, nil, "Cancel("+Q(id)+") on A")
			checkStored(e, b, id, got, "Cancel("+Q(id)+") on A, read on B")
		}
		// The facade over B sees what was written through A, owner included.
		owned := e.ID("share")
		mustCreate(e, a, owned, legacy.Task{legacy.KeyOwner: "share-owner"})
		fac := legacy.New(b)
		_, err := fac.Get(e.Ctx, owned, reference.Principal("share-owner"))
		e.CheckErr(err, nil, fmt.Sprintf("facade over B: Get(%s, principal \"share-owner\") of a task created on A", Q(owned)))

		e.CheckErr(a.Delete(e.Ctx, id), nil, "Delete("+Q(id)+") on A")
		checkGone(e, b, id, "Delete("+Q(id)+") on A, read on B")
		rows := listRows(e, b, legacy.ListOptions{})
		e.Check(!rowIDs(rows, setOf(id))[id], "List({}) on B after Delete on A", "no row "+Q(id), "the deleted row")

		// A duplicate Create on B of an id created on A is refused or leaves one task.
		dup := e.ID("share")
		first := mustCreate(e, a, dup, legacy.Task{"from": "A"})
		if _, err := b.Create(e.Ctx, dup, legacy.Task{"from": "B"}); err == nil {
			got, _ := stored(e, a, dup)
			e.Check(got["from"] == "B", "Create("+Q(dup)+") on A, then on B (accepted), read on A", "the task B wrote", got)
		} else {
			checkStored(e, b, dup, first, "Create("+Q(dup)+") on A, then on B (refused), read on B")
		}
	})
}
