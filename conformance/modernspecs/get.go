package modernspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
)

// callers are the callers of the store-level truth table.
var callers = []reference.Caller{
	reference.System(), reference.Anonymous(), reference.Principal("alice"), reference.Principal("bob"),
}

func Get(s *battery.Suite) {
	s.It("M-GET-1", "answers ErrNotFound for a missing id, for every caller", func(e *battery.Env) {
		st := e.Modern()
		id := e.ID("missing")
		for _, c := range callers {
			got, err := st.Get(e.Ctx, id, c)
			e.Check(err != nil, fmt.Sprintf("Get(%s, %s) of an id never created", battery.Literal(id), c), "ErrNotFound", got)
			e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("Get(%s, %s) of an id never created", battery.Literal(id), c))
		}
		// A deleted task is missing too.
		t := CreateTask(e, st, task(e, e.ID("deleted")))
		e.RequireErr(st.Delete(e.Ctx, t.TaskID), nil, "setup: Delete("+battery.Literal(t.TaskID)+")")
		_, err := st.Get(e.Ctx, t.TaskID, reference.System())
		e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("Get(%s, system) after Delete", battery.Literal(t.TaskID)))
	})

	s.It("M-GET-1", "applies the owner truth table at the store; a denied task reads as missing", func(e *battery.Env) {
		st := e.Modern()
		owned := CreateTask(e, st, Owned(e, e.ID("owned"), "alice"))
		unowned := CreateTask(e, st, task(e, e.ID("unowned")))
		missing := e.ID("missing")
		for _, c := range callers {
			_, missErr := st.Get(e.Ctx, missing, c)
			for _, tc := range []struct {
				task    string
				owner   string
				visible bool
			}{
				{owned.TaskID, "alice", model.Visible("alice", c, false)},
				{unowned.TaskID, "", model.Visible("", c, false)},
			} {
				input := fmt.Sprintf("Get(%s, %s) of a task owned by %q", battery.Literal(tc.task), c, tc.owner)
				got, err := st.Get(e.Ctx, tc.task, c)
				if tc.visible {
					if e.CheckErr(err, nil, input) {
						want := owned
						if tc.task == unowned.TaskID {
							want = unowned
						}
						CheckTask(e, input, want, got)
					}
					continue
				}
				CheckNotFoundLike(e, input, err, tc.task, missErr, missing)
			}
		}
	})

	s.It("M-GET-1", "a task expires exactly at created_at + ttl", func(e *battery.Env) {
		clock := e.ManualClock()
		st := e.Modern()
		// created_at is deliberately not the store's now: expiry counts from the task's
		// created_at, not from when the store received it.
		base := e.NowMillis()
		cases := []struct {
			createdAt, ttl int64
		}{
			{base, 1000},
			{base, 1},
			{base - 5000, 5500},
			{base + 250, 750},
			// Past 32 bits of milliseconds, and past 2^53, where a double loses the
			// millisecond.
			{base, 1 << 31},
			{base, 1<<32 + 1},
			{base, 1<<53 + 1},
		}
		type row struct {
			id     string
			expiry int64
		}
		var rows []row
		for _, c := range cases {
			t := Owned(e, e.ID("ttl"), "alice")
			t.CreatedAt, t.LastUpdatedAt, t.TTL = c.createdAt, c.createdAt, MS(c.ttl)
			CreateTask(e, st, t)
			rows = append(rows, row{t.TaskID, c.createdAt + c.ttl})
		}
		for _, r := range rows {
			for _, c := range []reference.Caller{reference.System(), reference.Principal("alice")} {
				clock.SetMillis(r.expiry - 1)
				_, err := st.Get(e.Ctx, r.id, c)
				e.CheckErr(err, nil, fmt.Sprintf("Get(%s, %s) at expiry-1ms (clock %d, expires %d)", battery.Literal(r.id), c, r.expiry-1, r.expiry))
				clock.SetMillis(r.expiry)
				got, err := st.Get(e.Ctx, r.id, c)
				input := fmt.Sprintf("Get(%s, %s) at exactly created_at+ttl (clock %d)", battery.Literal(r.id), c, r.expiry)
				if !e.CheckErr(err, reference.ErrNotFound, input) && err == nil {
					e.Errorf("  the store returned %s", battery.Show(got))
				}
				clock.SetMillis(r.expiry + 3_600_000)
				_, err = st.Get(e.Ctx, r.id, c)
				e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("Get(%s, %s) an hour after expiry", battery.Literal(r.id), c))
			}
		}
	})

	s.It("M-GET-1", "an expired task reads exactly as a missing one; a task without ttl never expires", func(e *battery.Env) {
		st := e.Modern()
		exp := Owned(e, e.ID("exp"), "alice")
		exp.TTL = MS(ShortTTL)
		CreateTask(e, st, exp)
		live := task(e, e.ID("live"))
		live.TTL = MS(longTTL)
		live = CreateTask(e, st, live)
		forever := CreateTask(e, st, task(e, e.ID("forever")))

		TimeTo(e, exp.CreatedAt+*exp.TTL)
		missing := e.ID("missing")
		for _, c := range callers {
			_, missErr := st.Get(e.Ctx, missing, c)
			_, err := st.Get(e.Ctx, exp.TaskID, c)
			CheckNotFoundLike(e, fmt.Sprintf("Get(%s, %s) of an expired task", battery.Literal(exp.TaskID), c), err, exp.TaskID, missErr, missing)
		}
		CheckStored(e, st, live, "time passed but less than its ttl")
		CheckStored(e, st, forever, "time passed (no ttl)")
		e.NoClockDrops("a task without ttl still there a hundred years later")
		if e.HasClock() {
			// A hundred years later the task without ttl is still there.
			e.ManualClock().SetMillis(forever.CreatedAt + 100*365*24*3600*1000)
			CheckStored(e, st, forever, "a hundred years passed (no ttl)")
		}
	})
}
