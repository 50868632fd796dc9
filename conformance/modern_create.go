package conformance

import (
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

func modernCreateSpecs(s *suite) {
	s.It("M-CREATE-1", "stores the task with version 1 and returns it", func(e *Env) {
		st := e.Modern()
		for _, owner := range []string{"", "alice"} {
			in := modOwned(e, e.ID("create"), owner)
			in.StatusMessage = "queued"
			in.TTL = modMS(modLongTTL)
			in.PollInterval = modMS(1500)
			want := modWithVersion(in, 1)
			call := "Create(" + Q(in) + ")"
			got, err := st.Create(e.Ctx, in)
			if !e.CheckErr(err, nil, call) {
				continue
			}
			modCheckTask(e, call+" returned", want, got)
			modCheckStored(e, st, want, call)
		}
	})

	s.It("M-CREATE-1", "stamps version 1 whatever version the caller passed", func(e *Env) {
		st := e.Modern()
		for _, v := range []int64{7, -1} {
			in := modTask(e, e.ID("create-ver"))
			in.Version = v
			call := "Create(" + Q(in) + ")"
			got, err := st.Create(e.Ctx, in)
			if errors.Is(err, reference.ErrInvalid) {
				// Refusing a non-zero version is a careful reading too, if nothing is stored.
				modCheckAbsent(e, st, in.TaskID, call+" refused with ErrInvalid")
				continue
			}
			if !e.CheckErr(err, nil, call) {
				continue
			}
			want := modWithVersion(in, 1)
			modCheckTask(e, call+" returned", want, got)
			modCheckStored(e, st, want, call)
		}
	})

	s.It("M-CREATE-1", "refuses an existing id with ErrExists and changes nothing", func(e *Env) {
		st := e.Modern()
		orig := modOwned(e, e.ID("dup"), "alice")
		orig.StatusMessage = "first"
		stored := modCreate(e, st, orig)

		for _, again := range []modern.Task{
			modTask(e, orig.TaskID), // same id, other content, no owner
			func() modern.Task { t := modOwned(e, orig.TaskID, "bob"); t.StatusMessage = "second"; return t }(),
			orig.Clone(), // the very same task
		} {
			call := "Create(" + Q(again) + ") of an existing id"
			_, err := st.Create(e.Ctx, again)
			e.CheckErr(err, reference.ErrExists, call)
			modCheckStored(e, st, stored, call)
		}
		// A swapped task is still the existing one: Create must not reset it to version 1.
		next := modNext(stored, "swapped")
		sw, err := st.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "setup: "+modSwapCall(reference.System(), 1, next))
		call := "Create(" + Q(orig) + ") after a Swap"
		_, err = st.Create(e.Ctx, orig)
		e.CheckErr(err, reference.ErrExists, call)
		modCheckStored(e, st, sw, call)
	})

	s.It("M-CREATE-1", "refuses the id of an expired task that is not swept yet with ErrExists", func(e *Env) {
		st := e.Modern()
		orig := modTask(e, e.ID("dup-exp"))
		orig.TTL = modMS(modShortTTL)
		orig.StatusMessage = "old"
		stored := modCreate(e, st, orig)
		modTimeTo(e, orig.CreatedAt+*orig.TTL)

		again := modTask(e, orig.TaskID)
		again.StatusMessage = "new"
		call := "Create(" + Q(again) + ") while the old task is expired but not swept"
		_, err := st.Create(e.Ctx, again)
		e.CheckErr(err, reference.ErrExists, call)
		e.NoClockDrops("the expired task left untouched by the refused Create, seen 1 ms before expiry,")
		if e.HasClock() {
			// Back before expiry the old task must be there, untouched. (No Get happens
			// while it is expired, so a store that deletes lazily on read is not judged.)
			e.ManualClock().SetMillis(orig.CreatedAt + *orig.TTL - 1)
			modCheckStored(e, st, stored, call+", with the clock moved back before expiry")
			modTimeTo(e, orig.CreatedAt+*orig.TTL)
		}
		// Once swept, the id is free again.
		_, err = st.Sweep(e.Ctx)
		e.RequireErr(err, nil, "Sweep()")
		call = "Create(" + Q(again) + ") after Sweep removed the expired task"
		got, err := st.Create(e.Ctx, again)
		if e.CheckErr(err, nil, call) {
			modCheckTask(e, call+" returned", modWithVersion(again, 1), got)
		}
	})

	s.It("M-CREATE-1", "keeps tasks with different ids apart", func(e *Env) {
		st := e.Modern()
		a := modTask(e, e.ID("iso"))
		a.StatusMessage = "a"
		b := modTask(e, e.ID("iso"))
		b.StatusMessage = "b"
		sa := modCreate(e, st, a)
		sb := modCreate(e, st, b)
		modCheckStored(e, st, sa, "Create(a), Create(b)")
		modCheckStored(e, st, sb, "Create(a), Create(b)")
	})

	s.It("M-CREATE-1", "an id deleted is free again: another owner creates it, gets version 1, and the first owner no longer sees it", func(e *Env) {
		st := e.Modern()
		id := e.ID("reuse")
		first := modCreate(e, st, modOwned(e, id, "alice"))
		if err := st.Delete(e.Ctx, id); err != nil {
			e.Fatalf("setup: Delete(%s): %v", Q(id), err)
		}
		again := modOwned(e, id, "bob")
		again.StatusMessage = "created again by bob"
		call := fmt.Sprintf("Create(%s) after Create of the id by alice (version %d) and Delete", Q(again), first.Version)
		got, err := st.Create(e.Ctx, again)
		if !e.CheckErr(err, nil, call) {
			return
		}
		modCheckTask(e, call+" returned", modWithVersion(again, 1), got)
		modCheckStored(e, st, got, call)
		_, err = st.Get(e.Ctx, id, reference.Principal("alice"))
		e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("Get(%s, principal \"alice\") after %s", Q(id), call))
	})

	s.It("M-CREATE-2", "a Get on the same instance succeeds as soon as Create has returned", func(e *Env) {
		st := e.Modern()
		for i := range 20 {
			in := modOwned(e, e.ID("durable"), []string{"", "alice"}[i%2])
			got, err := st.Create(e.Ctx, in)
			call := "Create(" + Q(in) + ")"
			if !e.CheckErr(err, nil, call) {
				continue
			}
			for _, c := range []reference.Caller{reference.System(), reference.Principal("alice")} {
				r, err := st.Get(e.Ctx, in.TaskID, c)
				input := fmt.Sprintf("Get(%s, %s) right after %s", Q(in.TaskID), c, call)
				if e.CheckErr(err, nil, input) {
					modCheckTask(e, input, got, r)
				}
			}
		}
	})

	s.It("M-CREATE-2", "a Get on another instance of the namespace succeeds as soon as Create has returned", func(e *Env) {
		st := e.Modern()
		other := e.OtherModern()
		for i := range 20 {
			in := modOwned(e, e.ID("durable2"), []string{"", "alice"}[i%2])
			got, err := st.Create(e.Ctx, in)
			call := "Create(" + Q(in) + ") on instance A"
			if !e.CheckErr(err, nil, call) {
				continue
			}
			r, err := other.Get(e.Ctx, in.TaskID, reference.System())
			input := fmt.Sprintf("Get(%s, system) on instance B right after %s", Q(in.TaskID), call)
			if e.CheckErr(err, nil, input) {
				modCheckTask(e, input, got, r)
			}
		}
	})
}
