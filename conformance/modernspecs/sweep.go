package modernspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference/modern"
)

// Sweep counts every expired task of the namespace. The harness gives each spec a fresh
// namespace (B-ISO-1), so these specs compare the count with the tasks they created
// themselves; a store whose namespaces leak into each other fails them, rightly.

func Sweep(s *battery.Suite) {
	s.It("M-SWEEP-1", "deletes exactly the expired tasks, at the ms boundary, and returns the count", func(e *battery.Env) {
		clock := e.ManualClock()
		st := e.Modern()
		base := e.NowMillis()
		mk := func(prefix string, createdAt int64, ttl *int64) modern.Task {
			t := Owned(e, e.ID(prefix), "alice")
			t.CreatedAt, t.LastUpdatedAt, t.TTL = createdAt, createdAt, ttl
			return CreateTask(e, st, t)
		}
		forever := mk("forever", base, nil)
		b1000 := mk("b1000", base, MS(1000))     // expires base+1000
		c5000 := mk("c5000", base, MS(5000))     // expires base+5000
		d1500 := mk("d1500", base+500, MS(1000)) // expires base+1500
		e999 := mk("e999", base-1, MS(1000))     // expires base+999
		all := []modern.Task{forever, b1000, c5000, d1500, e999}

		sweep := func(at int64, want int, gone, kept []modern.Task) {
			clock.SetMillis(at)
			call := fmt.Sprintf("Sweep() at clock base+%d", at-base)
			n, err := st.Sweep(e.Ctx)
			if !e.CheckErr(err, nil, call) {
				return
			}
			e.Check(n == want, call, fmt.Sprintf("%d tasks removed", want), fmt.Sprintf("%d", n))
			for _, t := range kept {
				CheckStored(e, st, t, call+" (this task has not expired)")
			}
			for _, t := range gone {
				checkAbsent(e, st, t.TaskID, call)
			}
		}
		sweep(base+998, 0, nil, all)
		sweep(base+999, 1, []modern.Task{e999}, []modern.Task{forever, b1000, c5000, d1500})
		sweep(base+1000, 1, []modern.Task{b1000}, []modern.Task{forever, c5000, d1500})
		sweep(base+1000, 0, nil, []modern.Task{forever, c5000, d1500})
		sweep(base+4999, 1, []modern.Task{d1500}, []modern.Task{forever, c5000})
		sweep(base+100*365*24*3600*1000, 1, []modern.Task{c5000}, []modern.Task{forever})

		// A swept task is gone, not merely hidden: its id can be created again, and
		// moving the clock back does not bring it back.
		clock.SetMillis(base)
		for _, t := range []modern.Task{e999, b1000, d1500, c5000} {
			checkAbsent(e, st, t.TaskID, "Sweep, then the clock moved back before expiry")
			again := task(e, t.TaskID)
			_, err := st.Create(e.Ctx, again)
			e.CheckErr(err, nil, "Create("+battery.Literal(again)+") of a swept id")
		}
	})

	s.It("M-SWEEP-1", "removes expired tasks and keeps live ones and tasks without ttl", func(e *battery.Env) {
		st := e.Modern()
		var expired, live []modern.Task
		for i := range 3 {
			t := Owned(e, e.ID("exp"), []string{"", "alice", "bob"}[i])
			t.TTL = MS(ShortTTL)
			expired = append(expired, CreateTask(e, st, t))
		}
		for i := range 4 {
			t := Owned(e, e.ID("live"), []string{"", "alice"}[i%2])
			if i < 2 {
				t.TTL = MS(longTTL)
			}
			live = append(live, CreateTask(e, st, t))
		}
		last := int64(0)
		for _, t := range expired {
			last = max(last, t.CreatedAt+*t.TTL)
		}
		TimeTo(e, last)
		n, err := st.Sweep(e.Ctx)
		e.RequireErr(err, nil, "Sweep()")
		e.Check(n == len(expired), "Sweep() after 3 of 7 tasks expired (fresh namespace)", "3 tasks removed", fmt.Sprint(n))
		for _, t := range live {
			CheckStored(e, st, t, "Sweep() (this task has not expired)")
		}
		for _, t := range expired {
			again := task(e, t.TaskID)
			_, err := st.Create(e.Ctx, again)
			e.CheckErr(err, nil, "Create("+battery.Literal(again)+") of an id Sweep should have removed")
		}
		n, err = st.Sweep(e.Ctx)
		e.CheckErr(err, nil, "second Sweep()")
		e.Check(n == 0, "a second Sweep() with nothing newly expired", "0 tasks removed", fmt.Sprint(n))
	})

	s.It("M-SWEEP-1", "an empty namespace sweeps 0", func(e *battery.Env) {
		st := e.Modern()
		n, err := st.Sweep(e.Ctx)
		if e.CheckErr(err, nil, "Sweep() on a fresh namespace") {
			e.Check(n == 0, "Sweep() on a fresh namespace", "0", fmt.Sprint(n))
		}
	})
}
