package sharedspecs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy-era bodies of S-CONC-1: plain concurrency checks with exact outcomes. The
// randomised linearizability checks live in the property specs.

func LegacyConcurrency(s *battery.Suite) {
	s.It("S-CONC-1", "every legacy method is safe for concurrent use: each goroutine sees its own writes", func(e *battery.Env) {
		st := e.Legacy()
		const workers, rounds = 8, 15
		var faults battery.FaultList
		battery.Together(workers, func(w int) {
			for r := range rounds {
				id := e.ID(fmt.Sprintf("w%d-", w))
				meta := legacy.Task{"w": json.Number(fmt.Sprint(w)), "r": json.Number(fmt.Sprint(r))}
				created, err := st.Create(e.Ctx, id, meta)
				if err != nil {
					faults.Add("Create(%q): %s", id, battery.DescribeErr(err))
					continue
				}
				if got, err := st.Get(e.Ctx, id); err != nil || !legacy.Equal(got, created) {
					faults.Add("Get(%q) after Create: %s %s", id, battery.Show(got), battery.DescribeErr(err))
				}
				changes := legacy.Task{"step": json.Number(fmt.Sprint(r))}
				updated, err := st.Update(e.Ctx, id, changes)
				if err != nil || !legacy.Equal(updated, legacy.Merge(created, changes)) {
					faults.Add("Update(%q, %s): %s %s", id, battery.Show(changes), battery.Show(updated), battery.DescribeErr(err))
				}
				rows, err := st.List(e.Ctx, legacy.ListOptions{})
				if err != nil || !battery.RowIDs(rows, nil)[id] {
					faults.Add("List({}) after Create(%q): row missing or %s", id, battery.DescribeErr(err))
				}
				if err := st.Delete(e.Ctx, id); err != nil {
					faults.Add("Delete(%q): %s", id, battery.DescribeErr(err))
				}
				if _, err := st.Get(e.Ctx, id); !errors.Is(err, reference.ErrNotFound) {
					faults.Add("Get(%q) after Delete: %s", id, battery.DescribeErr(err))
				}
			}
		})
		faults.Report(e, fmt.Sprintf("%d goroutines each running Create, Get, Update, List, Delete, Get on their own ids %d times", workers, rounds),
			"every call to answer as it would alone")
	})

	s.It("S-CONC-1", "multi-key Updates are atomic: concurrent Gets and Lists never see half of one", func(e *battery.Env) {
		st := e.Legacy()
		clients := e.RaceClients()
		writers := max(clients/4, 1)
		// Sixteen keys and eight calls a client: a write made key by key (one column
		// or hash field per statement) is half done for longer, and read more often.
		const per = 8
		keys := strings.Split("abcdefghijklmnop", "")
		battery.Race(e, e.RaceRounds(), func(r int, tl *battery.Timeline) battery.Round {
			id := e.ID("torn")
			battery.MustCreate(e, st, id, multiKey(keys, "0"))
			var faults battery.FaultList
			torn := func(t legacy.Task, what string) {
				for _, k := range keys[1:] {
					if !legacy.Equal(legacy.Task{"v": t[keys[0]]}, legacy.Task{"v": t[k]}) {
						faults.Add("%s saw %s", what, battery.Show(t))
						return
					}
				}
			}
			return battery.Round{Clients: clients, Client: func(c int) {
				for n := range per {
					switch {
					case c < writers:
						v := fmt.Sprintf("%d%02d", c+1, n+1)
						var err error
						tl.Do(c, id, func() { _, err = st.Update(e.Ctx, id, multiKey(keys, v)) })
						if err != nil {
							faults.Add("Update: %s", battery.DescribeErr(err))
						}
					case (c+n)%3 == 0:
						var rows []legacy.Task
						var err error
						tl.Do(c, id, func() { rows, err = st.List(e.Ctx, legacy.ListOptions{}) })
						if err != nil {
							faults.Add("List: %s", battery.DescribeErr(err))
						}
						for _, row := range rows {
							if row.ID() == id {
								torn(row, "List")
							}
						}
					default:
						var t legacy.Task
						var err error
						tl.Do(c, id, func() { t, err = st.Get(e.Ctx, id) })
						if err != nil {
							faults.Add("Get: %s", battery.DescribeErr(err))
							continue
						}
						torn(t, "Get")
					}
				}
			}, Judge: func() bool {
				in := fmt.Sprintf("round %d: %d writers each Update(%s, {a: v, b: v, ..., p: v}) %d times, released together with %d clients reading it by Get and List", r, writers, battery.Literal(id), per, clients-writers)
				if !faults.Check(e, in, "every read to see a == b == ... == p (one whole Update or another)") {
					return false
				}
				_ = st.Delete(e.Ctx, id)
				return true
			}}
		})
	})
}

// multiKey is a change (or task) giving every key the same value.
func multiKey(keys []string, v string) legacy.Task {
	t := legacy.Task{}
	for _, k := range keys {
		t[k] = json.Number(v)
	}
	return t
}
