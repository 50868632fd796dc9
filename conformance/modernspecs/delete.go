package modernspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
)

func Delete(s *battery.Suite) {
	s.It("M-DELETE-1", "removes the task and is idempotent", func(e *battery.Env) {
		st := e.Modern()
		a := CreateTask(e, st, Owned(e, e.ID("del"), "alice"))
		b := CreateTask(e, st, task(e, e.ID("del-keep")))
		for i := range 3 {
			call := fmt.Sprintf("Delete(%s) #%d", battery.Literal(a.TaskID), i+1)
			e.CheckErr(st.Delete(e.Ctx, a.TaskID), nil, call)
			checkAbsent(e, st, a.TaskID, call)
			_, err := st.Get(e.Ctx, a.TaskID, reference.Principal("alice"))
			e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("after %s: Get(%s, principal \"alice\")", call, battery.Literal(a.TaskID)))
		}
		CheckStored(e, st, b, "Delete of another task")
		never := e.ID("never")
		e.CheckErr(st.Delete(e.Ctx, never), nil, fmt.Sprintf("Delete(%s) of an id never created", battery.Literal(never)))
		checkAbsent(e, st, never, "Delete of an id never created")

		// The id is free again, starting over at version 1.
		again := task(e, a.TaskID)
		again.StatusMessage = "reborn"
		call := "Create(" + battery.Literal(again) + ") after Delete"
		got, err := st.Create(e.Ctx, again)
		if e.CheckErr(err, nil, call) {
			CheckTask(e, call+" returned", WithVersion(again, 1), got)
		}
	})

	s.It("M-DELETE-1", "removes a swapped task and an expired one, idempotently", func(e *battery.Env) {
		st := e.Modern()
		sw := CreateTask(e, st, task(e, e.ID("del-sw")))
		next := Next(sw, "v2")
		_, err := st.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "setup: "+SwapCall(reference.System(), 1, next))
		exp := task(e, e.ID("del-exp"))
		exp.TTL = MS(ShortTTL)
		CreateTask(e, st, exp)
		TimeTo(e, exp.CreatedAt+*exp.TTL)
		for _, id := range []string{sw.TaskID, exp.TaskID} {
			for i := range 2 {
				call := fmt.Sprintf("Delete(%s) #%d", battery.Literal(id), i+1)
				e.CheckErr(st.Delete(e.Ctx, id), nil, call)
				checkAbsent(e, st, id, call)
			}
		}
		// The deleted expired task is gone for good: Sweep does not count it, and its id
		// can be created again.
		n, err := st.Sweep(e.Ctx)
		e.CheckErr(err, nil, "Sweep() after deleting the only expired task")
		e.Check(n == 0, "Sweep() after deleting the only expired task (fresh namespace)", 0, n)
		again := task(e, exp.TaskID)
		_, err = st.Create(e.Ctx, again)
		e.CheckErr(err, nil, "Create("+battery.Literal(again)+") after Delete of the expired task")
	})
}
