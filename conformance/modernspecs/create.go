package modernspecs

import (
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

func Create(s *battery.Suite) {
	s.It("M-CREATE-1", "stores the task with version 1 and returns it", func(e *battery.Env) {
		st := e.Modern()
		for _, owner := range []string{"", "alice"} {
			in := Owned(e, e.ID("create"), owner)
			in.StatusMessage = "queued"
			in.TTL = MS(longTTL)
			in.PollInterval = MS(1500)
			want := WithVersion(in, 1)
			call := "Create(" + battery.Literal(in) + ")"
			got, err := st.Create(e.Ctx, in)
			if !e.CheckErr(err, nil, call) {
				continue
			}
			CheckTask(e, call+" returned", want, got)
			CheckStored(e, st, want, call)
		}
	})

	s.It("M-CREATE-1", "stamps version 1 whatever version the caller passed", func(e *battery.Env) {
		st := e.Modern()
		for _, v := range []int64{7, -1} {
			in := task(e, e.ID("create-ver"))
			in.Version = v
			call := "Create(" + battery.Literal(in) + ")"
			got, err := st.Create(e.Ctx, in)
			if errors.Is(err, reference.ErrInvalid) {
				// Refusing a non-zero version is a careful reading too, if nothing is stored.
				checkAbsent(e, st, in.TaskID, call+" refused with ErrInvalid")
				continue
			}
			if !e.CheckErr(err, nil, call) {
				continue
			}
			want := WithVersion(in, 1)
			CheckTask(e, call+" returned", want, got)
			CheckStored(e, st, want, call)
		}
	})

	s.It("M-CREATE-1", "refuses an existing id with ErrExists and changes nothing", func(e *battery.Env) {
		st := e.Modern()
		orig := Owned(e, e.ID("dup"), "alice")
		orig.StatusMessage = "first"
		stored := CreateTask(e, st, orig)

		for _, again := range []modern.Task{
			task(e, orig.TaskID), // same id, other content, no owner
			func() modern.Task { t := Owned(e, orig.TaskID, "bob"); t.StatusMessage = "second"; return t }(),
			orig.Clone(), // the very same task
		} {
			call := "Create(" + battery.Literal(again) + ") of an existing id"
			_, err := st.Create(e.Ctx, again)
			e.CheckErr(err, reference.ErrExists, call)
			CheckStored(e, st, stored, call)
		}
		// A swapped task is still the existing one: Create must not reset it to version 1.
		next := Next(stored, "swapped")
		sw, err := st.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "setup: "+SwapCall(reference.System(), 1, next))
		call := "Create(" + battery.Literal(orig) + ") after a Swap"
		_, err = st.Create(e.Ctx, orig)
		e.CheckErr(err, reference.ErrExists, call)
		CheckStored(e, st, sw, call)
	})

	s.It("M-CREATE-1", "refuses the id of an expired task that is not swept yet with ErrExists", func(e *battery.Env) {
		st := e.Modern()
		orig := task(e, e.ID("dup-exp"))
		orig.TTL = MS(ShortTTL)
		orig.StatusMessage = "old"
		stored := CreateTask(e, st, orig)
		TimeTo(e, orig.CreatedAt+*orig.TTL)

		again := task(e, orig.TaskID)
		again.StatusMessage = "new"
		call := "Create(" + battery.Literal(again) + ") while the old task is expired but not swept"
		_, err := st.Create(e.Ctx, again)
		e.CheckErr(err, reference.ErrExists, call)
		e.NoClockDrops("the expired task left untouched by the refused Create, seen 1 ms before expiry,")
		if e.HasClock() {
			// Back before expiry the old task must be there, untouched. (No Get happens
			// while it is expired, so a store that deletes lazily on read is not judged.)
			e.ManualClock().SetMillis(orig.CreatedAt + *orig.TTL - 1)
			CheckStored(e, st, stored, call+", with the clock moved back before expiry")
			TimeTo(e, orig.CreatedAt+*orig.TTL)
		}
		// Once swept, the id is free again.
		_, err = st.Sweep(e.Ctx)
		e.RequireErr(err, nil, "Sweep()")
		call = "Create(" + battery.Literal(again) + ") after Sweep removed the expired task"
		got, err := st.Create(e.Ctx, again)
		if e.CheckErr(err, nil, call) {
			CheckTask(e, call+" returned", WithVersion(again, 1), got)
		}
	})

	s.It("M-CREATE-1", "keeps tasks with different ids apart", func(e *battery.Env) {
		st := e.Modern()
		a := task(e, e.ID("iso"))
		a.StatusMessage = "a"
		b := task(e, e.ID("iso"))
		b.StatusMessage = "b"
		sa := CreateTask(e, st, a)
		sb := CreateTask(e, st, b)
		CheckStored(e, st, sa, "Create(a), Create(b)")
		CheckStored(e, st, sb, "Create(a), Create(b)")
	})

	s.It("M-CREATE-1", "an id deleted is free again: another owner creates it, gets version 1, and the first owner no longer sees it", func(e *battery.Env) {
		st := e.Modern()
		id := e.ID("reuse")
		first := CreateTask(e, st, Owned(e, id, "alice"))
		if err := st.Delete(e.Ctx, id); err != nil {
			e.Fatalf("setup: Delete(%s): %v", battery.Literal(id), err)
		}
		again := Owned(e, id, "bob")
		again.StatusMessage = "created again by bob"
		call := fmt.Sprintf("Create(%s) after Create of the id by alice (version %d) and Delete", battery.Literal(again), first.Version)
		got, err := st.Create(e.Ctx, again)
		if !e.CheckErr(err, nil, call) {
			return
		}
		CheckTask(e, call+" returned", WithVersion(again, 1), got)
		CheckStored(e, st, got, call)
		_, err = st.Get(e.Ctx, id, reference.Principal("alice"))
		e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("Get(%s, principal \"alice\") after %s", battery.Literal(id), call))
		// Every path that finds a task by its owner, after the id changed owners.
		e.Of("M-SWAP-2", func() {
			next := Next(got, "by alice, the first owner")
			swap := SwapCall(reference.Principal("alice"), got.Version, next) + " after " + call
			_, err := st.Swap(e.Ctx, reference.Principal("alice"), got.Version, next)
			e.CheckErr(err, reference.ErrNotFound, swap)
			CheckStored(e, st, got, swap)
		})
		e.Of("M-SWAP-1", func() {
			next := Next(got, "by bob, the owner now")
			swap := SwapCall(reference.Principal("bob"), got.Version, next) + " after " + call
			_, err := st.Swap(e.Ctx, reference.Principal("bob"), got.Version, next)
			e.CheckErr(err, nil, swap)
		})
		// Created again with no owner: every caller sees it.
		unowned := CreateTask(e, st, Owned(e, e.ID("reuse"), "alice"))
		if err := st.Delete(e.Ctx, unowned.TaskID); err != nil {
			e.Fatalf("setup: Delete(%s): %v", battery.Literal(unowned.TaskID), err)
		}
		free := CreateTask(e, st, Owned(e, unowned.TaskID, ""))
		e.Of("M-GET-1", func() {
			for _, c := range []reference.Caller{reference.Anonymous(), reference.Principal("bob"), reference.Principal("alice")} {
				in := fmt.Sprintf("Get(%s, %s) of a task created by alice, deleted and created again with no owner", battery.Literal(free.TaskID), c)
				t, err := st.Get(e.Ctx, free.TaskID, c)
				if e.CheckErr(err, nil, in) {
					CheckTask(e, in, free, t)
				}
			}
		})
	})

	s.It("M-CREATE-2", "a Get on the same instance succeeds as soon as Create has returned", func(e *battery.Env) {
		st := e.Modern()
		readAfterCreate(e, "durable", st, st, "", "", []reference.Caller{reference.System(), reference.Principal("alice")})
	})

	s.It("M-CREATE-2", "a Get on another instance of the namespace succeeds as soon as Create has returned", func(e *battery.Env) {
		readAfterCreate(e, "durable2", e.Modern(), e.OtherModern(), " on instance A", " on instance B", []reference.Caller{reference.System()})
	})
}

// readAfterCreate is M-CREATE-2: twenty tasks, every other one owned by alice, each
// Created on a and at once read by each caller on b (onA and onB name the instances in
// messages, "" for one instance): each read finds the task the Create returned.
func readAfterCreate(e *battery.Env, prefix string, a, b modern.Store, onA, onB string, callers []reference.Caller) {
	for i := range 20 {
		in := Owned(e, e.ID(prefix), []string{"", "alice"}[i%2])
		got, err := a.Create(e.Ctx, in)
		call := "Create(" + battery.Literal(in) + ")" + onA
		if !e.CheckErr(err, nil, call) {
			continue
		}
		for _, c := range callers {
			r, err := b.Get(e.Ctx, in.TaskID, c)
			input := fmt.Sprintf("Get(%s, %s)%s right after %s", battery.Literal(in.TaskID), c, onB, call)
			if e.CheckErr(err, nil, input) {
				CheckTask(e, input, got, r)
			}
		}
	}
}
