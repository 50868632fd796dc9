package conformance

import (
	"fmt"

	"github.com/storecheck/storecheck/reference"
)

func modernDeleteSpecs(s *suite) {
	s.It("M-DELETE-1", "removes the task and is idempotent", func(e *Env) {
		st := e.Modern()
		a := modCreate(e, st, modOwned(e, e.ID("del"), "alice"))
		b := modCreate(e, st, modTask(e, e.ID("del-keep")))
		for i := range 3 {
			call := fmt.Sprintf("Delete(%s) #%d", Q(a.TaskID), i+1)
			e.CheckErr(st.Delete(e.Ctx, a.TaskID), nil, call)
			modCheckAbsent(e, st, a.TaskID, call)
			_, err := st.Get(e.Ctx, a.TaskID, reference.Principal("alice"))
			e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("after %s: Get(%s, principal \"alice\")", call, Q(a.TaskID)))
		}
		modCheckStored(e, st, b, "Delete of another task")
		never := e.ID("never")
		e.CheckErr(st.Delete(e.Ctx, never), nil, fmt.Sprintf("Delete(%s) of an id never created", Q(never)))
		modCheckAbsent(e, st, never, "Delete of an id never created")

		// The id is free again, starting over at version 1.
		again := modTask(e, a.TaskID)
		again.StatusMessage = "reborn"
		call := "Create(" + Q(again) + ") after Delete"
		got, err := st.Create(e.Ctx, again)
		if e.CheckErr(err, nil, call) {
			modCheckTask(e, call+" returned", modWithVersion(again, 1), got)
		}
	})

	s.It("M-DELETE-1", "removes a swapped task and an expired one, idempotently", func(e *Env) {
		st := e.Modern()
		sw := modCreate(e, st, modTask(e, e.ID("del-sw")))
		next := modNext(sw, "v2")
		_, err := st.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "setup: "+modSwapCall(reference.System(), 1, next))
		exp := modTask(e, e.ID("del-exp"))
		exp.TTL = modMS(modShortTTL)
		modCreate(e, st, exp)
		modTimeTo(e, exp.CreatedAt+*exp.TTL)
		for _, id := range []string{sw.TaskID, exp.TaskID} {
			for i := range 2 {
				call := fmt.Sprintf("Delete(%s) #%d", Q(id), i+1)
				e.CheckErr(st.Delete(e.Ctx, id), nil, call)
				modCheckAbsent(e, st, id, call)
			}
		}
		// The deleted expired task is gone for good: Sweep does not count it, and its id
		// can be created again.
		n, err := st.Sweep(e.Ctx)
		e.CheckErr(err, nil, "Sweep() after deleting the only expired task")
		e.Check(n == 0, "Sweep() after deleting the only expired task (fresh namespace)", 0, n)
		again := modTask(e, exp.TaskID)
		_, err = st.Create(e.Ctx, again)
		e.CheckErr(err, nil, "Create("+Q(again)+") after Delete of the expired task")
	})
}
