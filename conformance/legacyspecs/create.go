package legacyspecs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func Create(s *battery.Suite) {
	s.It("L-CREATE-1", "stamps task_id, status working and created_at now over the same keys of meta", func(e *battery.Env) {
		st := e.Legacy()
		if e.HasClock() {
			// An odd millisecond, so that a store keeping seconds or rounding is seen.
			e.ManualClock().Advance(98_765_432 * time.Millisecond)
		}
		cases := []legacy.Task{
			{"task_id": "someone-else", "status": "completed", "created_at": json.Number("1"), "name": "job", "n": json.Number("7"), "nested": map[string]any{"status": "failed"}},
			{"x": true},
			{},
			nil,
		}
		for _, meta := range cases {
			id := e.ID("create")
			input := fmt.Sprintf("Create(%s, %s)", battery.Literal(id), battery.Literal(meta))
			before := e.NowMillis()
			got, err := st.Create(e.Ctx, id, meta)
			after := e.NowMillis()
			if !e.CheckErr(err, nil, input) {
				continue
			}
			created, ok := got.CreatedAt()
			window := fmt.Sprintf("created_at an integer of milliseconds in [%d, %d] (the store's clock at the call)", before, after)
			if !e.Check(ok && created >= before && created <= after, input, window, got[legacy.KeyCreatedAt]) {
				created = before
			}
			want := legacy.Stamp(id, meta, created)
			battery.CheckTask(e, input+" returned", want, got)
			battery.CheckStored(e, st, id, want, input)
		}
	})

	s.It("L-CREATE-2", "refuses to create an id that exists with ErrExists and leaves the task untouched", func(e *battery.Env) {
		st := e.Legacy()
		id := e.ID("dup")
		battery.MustCreate(e, st, id, legacy.Task{"old": "meta", "keep": json.Number("1")})
		old := battery.MustUpdate(e, st, id, legacy.Task{"progress": json.Number("50"), legacy.KeyStatus: "input_required"})
		if e.HasClock() {
			e.ManualClock().Advance(time.Second)
		}
		meta := legacy.Task{"new": "meta", "keep": json.Number("2")}
		input := fmt.Sprintf("Create(%s, %s) of an existing id", battery.Literal(id), battery.Literal(meta))
		_, err := st.Create(e.Ctx, id, meta)
		e.CheckErr(err, reference.ErrExists, input)
		battery.CheckStored(e, st, id, old, input)
	})

	s.It("L-CREATE-3", "never merges the old and the new task when an id is created again", func(e *battery.Env) {
		st := e.Legacy()
		for round := range 3 {
			id := e.ID("dup")
			battery.MustCreate(e, st, id, legacy.Task{"old": "meta", "keep": json.Number("1"), "owner": "first"})
			old := battery.MustUpdate(e, st, id, legacy.Task{"progress": json.Number(fmt.Sprint(round)), legacy.KeyStatus: "input_required"})
			if e.HasClock() {
				e.ManualClock().Advance(time.Second)
			}
			var meta legacy.Task
			switch round {
			case 0:
				meta = legacy.Task{"new": "meta", "keep": json.Number("2")}
			case 1:
				meta = legacy.Task{}
			case 2:
				meta = legacy.Task{"owner": "second"}
			}
			input := fmt.Sprintf("Create(%s, %s) of an existing id", battery.Literal(id), battery.Literal(meta))
			before := e.NowMillis()
			_, err := st.Create(e.Ctx, id, meta)
			after := e.NowMillis()
			got, ok := battery.Stored(e, st, id)
			if !e.Check(ok, "after "+input+": Get("+battery.Literal(id)+")", "the old task or the new one", "ErrNotFound") {
				continue
			}
			if legacy.Equal(got, old) {
				continue // refused (or a no-op): the old task untouched
			}
			created, _ := got.CreatedAt()
			if created < before || created > after {
				created = before
			}
			fresh := legacy.Stamp(id, meta, created)
			if legacy.Equal(got, fresh) {
				if err != nil {
					e.Errorf("  input:    %s\n  the call failed (%s) but replaced the task: a failed call must change nothing", input, battery.DescribeErr(err))
				}
				continue
			}
			e.Check(false, "after "+input+": Get("+battery.Literal(id)+")",
				fmt.Sprintf("exactly the old task %s or exactly the new one %s", battery.Show(old), battery.Show(fresh)), got)
		}
	})

	s.It("L-GET-1", "returns the stored task, and ErrNotFound for a missing or deleted id", func(e *battery.Env) {
		st := e.Legacy()
		id := e.ID("get")
		created := battery.MustCreate(e, st, id, legacy.Task{"a": "b"})
		got, err := st.Get(e.Ctx, id)
		if e.CheckErr(err, nil, "Get("+battery.Literal(id)+") after Create") {
			battery.CheckTask(e, "Get("+battery.Literal(id)+") after Create", created, got)
		}
		updated := battery.MustUpdate(e, st, id, legacy.Task{"c": json.Number("3")})
		got, err = st.Get(e.Ctx, id)
		if e.CheckErr(err, nil, "Get("+battery.Literal(id)+") after Update") {
			battery.CheckTask(e, "Get("+battery.Literal(id)+") after Update", updated, got)
		}

		missing := e.ID("missing")
		got, err = st.Get(e.Ctx, missing)
		e.CheckErr(err, reference.ErrNotFound, "Get("+battery.Literal(missing)+") of an id never created")
		e.Check(err == nil || got == nil, "Get("+battery.Literal(missing)+") of an id never created", "no task", got)

		if err := st.Delete(e.Ctx, id); err != nil {
			e.Fatalf("setup: Delete(%q): %v", id, err)
		}
		_, err = st.Get(e.Ctx, id)
		e.CheckErr(err, reference.ErrNotFound, "Get("+battery.Literal(id)+") after Delete")
	})
}
