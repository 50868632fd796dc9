package modernspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
)

func Share(s *battery.Suite) {
	s.It("S-SHARE-1", "a modern write acknowledged by one instance is visible to the next read on another", func(e *battery.Env) {
		a := e.Modern()
		b := e.OtherModern()
		t := Owned(e, e.ID("share"), "alice")
		created, err := a.Create(e.Ctx, t)
		e.RequireErr(err, nil, "Create("+battery.Literal(t)+") on instance A")

		got, err := b.Get(e.Ctx, t.TaskID, reference.Principal("alice"))
		if e.CheckErr(err, nil, "Get on instance B after Create on A") {
			CheckTask(e, "Get on instance B after Create on A", created, got)
		}
		_, err = b.Create(e.Ctx, t)
		e.CheckErr(err, reference.ErrExists, "Create("+battery.Literal(t)+") on instance B after Create on A")

		next := Next(created, "written by B")
		sw, err := b.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "on instance B: "+SwapCall(reference.System(), 1, next))
		got, err = a.Get(e.Ctx, t.TaskID, reference.System())
		if e.CheckErr(err, nil, "Get on instance A after Swap on B") {
			CheckTask(e, "Get on instance A after Swap on B", sw, got)
		}
		stale := Next(created, "stale write by A")
		_, err = a.Swap(e.Ctx, reference.System(), 1, stale)
		e.CheckErr(err, reference.ErrConflict, "on instance A, after B's Swap to version 2: "+SwapCall(reference.System(), 1, stale))
		CheckStored(e, b, sw, "A's stale Swap, read on B")

		e.RequireErr(a.Delete(e.Ctx, t.TaskID), nil, "Delete on instance A")
		_, err = b.Get(e.Ctx, t.TaskID, reference.System())
		e.CheckErr(err, reference.ErrNotFound, "Get on instance B after Delete on A")
		_, err = b.Swap(e.Ctx, reference.System(), 2, Next(sw, "after delete"))
		e.CheckErr(err, reference.ErrNotFound, "Swap on instance B after Delete on A")
	})

	s.It("S-SHARE-1", "expiry and Sweep agree across modern instances", func(e *battery.Env) {
		a := e.Modern()
		b := e.OtherModern()
		t := task(e, e.ID("share-exp"))
		t.TTL = MS(ShortTTL)
		CreateTask(e, a, t)
		live := CreateTask(e, a, task(e, e.ID("share-live")))
		TimeTo(e, t.CreatedAt+*t.TTL)
		_, err := b.Get(e.Ctx, t.TaskID, reference.System())
		e.CheckErr(err, reference.ErrNotFound, "Get on instance B of a task created on A that has expired")
		n, err := b.Sweep(e.Ctx)
		if e.CheckErr(err, nil, "Sweep() on instance B") {
			e.Check(n == 1, "Sweep() on instance B after A's task expired (fresh namespace)", "1 task removed", fmt.Sprint(n))
		}
		again := task(e, t.TaskID)
		_, err = a.Create(e.Ctx, again)
		e.CheckErr(err, nil, "Create("+battery.Literal(again)+") on instance A after B swept the id")
		CheckStored(e, b, live, "Sweep on B (the task without ttl stays)")
	})
}
