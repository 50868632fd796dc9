package modernspecs

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Specs that reach where realistic store bugs live: more rows than a page or batch
// (100, 1000), ttls of 0 and below at the store, and expiry after a Swap.

func Reach(s *battery.Suite) {
	s.It("M-SWEEP-1", "sweeps every expired task of more than a batch (1100) and keeps the rest", func(e *battery.Env) {
		st := e.Modern()
		base := e.NowMillis()
		made := make([]modern.Task, battery.BulkRows+20)
		battery.Bulk(e, "bulk", len(made), func(i int, id string) {
			t := task(e, id)
			if i < battery.BulkRows {
				t.TTL = MS(ShortTTL)
			}
			made[i] = CreateTask(e, st, t)
		})
		expiring, kept := made[:battery.BulkRows], made[battery.BulkRows:]
		TimeTo(e, base+ShortTTL+1)
		n, err := st.Sweep(e.Ctx)
		if !e.CheckErr(err, nil, "Sweep()") {
			return
		}
		e.Check(n == len(expiring), fmt.Sprintf("Sweep() with %d expired tasks and %d without ttl", len(expiring), len(kept)),
			fmt.Sprintf("%d removed", len(expiring)), n)
		e.Check(reachCount(e, st, expiring) == 0, "Get of each expired task after Sweep()", "ErrNotFound for all", "some found")
		e.Check(reachCount(e, st, kept) == len(kept), "Get of each task without ttl after Sweep()", fmt.Sprintf("all %d found", len(kept)),
			fmt.Sprintf("%d found", reachCount(e, st, kept)))
		// Swept, not hidden: each id can be created again.
		again := task(e, expiring[len(expiring)-1].TaskID)
		_, err = st.Create(e.Ctx, again)
		e.CheckErr(err, nil, "Create of a swept id "+battery.Literal(again.TaskID))
	})

	s.It("M-GET-1", "a ttl of 0 or below is stored and expired at once (now >= created_at + ttl): not found, still a taken id, swept", func(e *battery.Env) {
		st := e.Modern()
		for _, ttl := range []int64{0, -1, -1000, -(1 << 62)} {
			in := task(e, e.ID("ttl0"))
			in.TTL = MS(ttl)
			call := fmt.Sprintf("Create(%s) with ttl %d", battery.Literal(in.TaskID), ttl)
			got, err := st.Create(e.Ctx, in)
			if !e.CheckErr(err, nil, call+" (the store keeps ttl opaque: only the facade refuses it)") {
				continue
			}
			e.Check(got.TTL != nil && *got.TTL == ttl, call, fmt.Sprintf("the task returned with ttl %d", ttl), got)
			for _, c := range []reference.Caller{reference.System(), reference.Anonymous()} {
				input := fmt.Sprintf("Get(%s, %s) of a task with ttl %d", battery.Literal(in.TaskID), c, ttl)
				t, err := st.Get(e.Ctx, in.TaskID, c)
				e.Check(errors.Is(err, reference.ErrNotFound), input, "ErrNotFound: the task expired at created_at + ttl, which is not after now", outcome(t, err))
			}
			_, err = st.Create(e.Ctx, task(e, in.TaskID))
			e.CheckErr(err, reference.ErrExists, fmt.Sprintf("Create(%s) again before Sweep (an expired task still holds its id, M-CREATE-1)", battery.Literal(in.TaskID)))
			next := Next(got, "revived?")
			_, err = st.Swap(e.Ctx, reference.System(), 1, next)
			e.CheckErr(err, reference.ErrNotFound, SwapCall(reference.System(), 1, next)+fmt.Sprintf(" of a task with ttl %d", ttl))
		}
		n, err := st.Sweep(e.Ctx)
		if e.CheckErr(err, nil, "Sweep()") {
			e.Check(n == 4, "Sweep() after creating tasks with ttl 0, -1, -1000 and -2^62", "4 removed", n)
		}
	})

	s.It("M-GET-1", "expiry counts from created_at after a Swap: a Swap neither resets nor extends it, and a Swap of ttl moves it", func(e *battery.Env) {
		clock := e.ManualClock()
		st := e.Modern()
		base := e.NowMillis()
		in := task(e, e.ID("swap-ttl"))
		in.TTL = MS(1000)
		cur := CreateTask(e, st, in)
		// getAt is a system Get of id at created_at+ms, judged by wantErr.
		getAt := func(ms int64, id string, wantErr error, input string) {
			clock.SetMillis(base + ms)
			_, err := st.Get(e.Ctx, id, reference.System())
			e.CheckErr(err, wantErr, input)
		}
		clock.SetMillis(base + 600)
		next := Next(cur, "halfway")
		_, err := st.Swap(e.Ctx, reference.System(), cur.Version, next)
		e.RequireErr(err, nil, "setup: "+SwapCall(reference.System(), cur.Version, next))
		getAt(999, in.TaskID, nil, "Get at created_at+999 of a task with ttl 1000, swapped at created_at+600")
		getAt(1000, in.TaskID, reference.ErrNotFound, "Get at created_at+1000 of a task with ttl 1000, swapped at created_at+600 (a Swap does not restart the ttl)")

		// A Swap that lengthens the ttl moves the expiry with it.
		clock.SetMillis(base)
		in2 := task(e, e.ID("swap-ttl"))
		in2.TTL = MS(1000)
		cur2 := CreateTask(e, st, in2)
		longer := Next(cur2, "longer")
		longer.TTL = MS(5000)
		_, err = st.Swap(e.Ctx, reference.System(), cur2.Version, longer)
		e.RequireErr(err, nil, "setup: "+SwapCall(reference.System(), cur2.Version, longer))
		getAt(4999, in2.TaskID, nil, "Get at created_at+4999 of a task whose ttl a Swap raised from 1000 to 5000")
		getAt(5000, in2.TaskID, reference.ErrNotFound, "Get at created_at+5000 of a task whose ttl a Swap raised to 5000")
		n, err := st.Sweep(e.Ctx)
		if e.CheckErr(err, nil, "Sweep() at created_at+5000") {
			e.Check(n == 2, "Sweep() at created_at+5000 after both tasks expired", "2 removed", n)
		}
	})
}

// reachCount counts the tasks a system Get still finds.
func reachCount(e *battery.Env, st modern.Store, ts []modern.Task) int {
	var n atomic.Int64
	battery.Each(e, len(ts), func(i int) {
		if _, ok := Stored(e, st, ts[i].TaskID); ok {
			n.Add(1)
		}
	})
	return int(n.Load())
}
