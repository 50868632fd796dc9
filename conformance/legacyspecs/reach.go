package legacyspecs

import (
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Specs that reach where realistic store bugs live: more rows than a page or batch
// (100, 1000), ttls of 0 and below at the store, and expiry after a Swap.

func Reach(s *battery.Suite) {
	s.It("L-LIST-1", "returns every matching task of more than a page (1100 tasks), each once", func(e *battery.Env) {
		st := e.Legacy()
		rows := battery.OwnedRows{}
		j := battery.NewListJudge(e, "L-LIST-1", rows)
		ids := battery.Bulk(e, "bulk", battery.BulkRows, func(i int, id string) {
			battery.MustCreate(e, st, id, legacy.Task{"i": fmt.Sprint(i)})
			if i%3 == 0 {
				battery.MustStatus(e, st, id, "completed")
			}
		})
		for i, id := range ids {
			rows[id] = ""
			if i%3 == 0 {
				j.Status[id] = "completed"
			}
		}
		j.List(st, legacy.ListOptions{})
		j.List(st, legacy.ListOptions{Status: new("completed")})
		j.List(st, legacy.ListOptions{Status: new("working")})
		j.Finish()
	})

	s.It("L-LIST-2", "a Limit above a page (1050 of 1100 tasks) returns that many rows", func(e *battery.Env) {
		st := e.Legacy()
		rows := battery.OwnedRows{}
		j := battery.NewListJudge(e, "L-LIST-2", rows)
		ids := battery.Bulk(e, "bulk", battery.BulkRows, func(_ int, id string) {
			battery.MustCreate(e, st, id, legacy.Task{})
		})
		for _, id := range ids {
			rows[id] = ""
		}
		j.List(st, legacy.ListOptions{Limit: new(1050)})
		j.List(st, legacy.ListOptions{Limit: new(1000)})
		j.List(st, legacy.ListOptions{Limit: new(battery.BulkRows + 1)})
		j.Finish()
	})

	s.It("L-CLEAN-1", "removes every due task of more than a batch (1100), keeps the live ones, and counts them", func(e *battery.Env) {
		st := e.Legacy()
		c := battery.RequireCleaner(st)
		due, live := battery.IDSet{}, battery.IDSet{}
		ids := battery.Bulk(e, "bulk", battery.BulkRows+50, func(i int, id string) {
			battery.MustCreate(e, st, id, legacy.Task{})
			if i < battery.BulkRows {
				battery.MustStatus(e, st, id, []string{"completed", "failed", "cancelled"}[i%3])
			}
		})
		for i, id := range ids {
			if i < battery.BulkRows {
				due[id] = true
			} else {
				live[id] = true
			}
		}
		// Every task is older than 0 ms once the clock has moved.
		e.Age(time.Second, 5*time.Millisecond)
		n, err := c.Cleanup(e.Ctx, 0)
		if !e.CheckErr(err, nil, "Cleanup(0)") {
			return
		}
		e.Check(n == len(due), fmt.Sprintf("Cleanup(0) over %d terminal and %d working tasks", len(due), len(live)),
			fmt.Sprintf("%d removed", len(due)), n)
		got := battery.RowIDs(battery.ListRows(e, st, legacy.ListOptions{}), nil)
		var kept, lost int
		for id := range due {
			if got[id] {
				kept++
			}
		}
		for id := range live {
			if !got[id] {
				lost++
			}
		}
		e.Check(kept == 0 && lost == 0, "List({}) after Cleanup(0)", "no terminal task left and every working one kept",
			fmt.Sprintf("%d of %d terminal tasks left, %d of %d working tasks removed", kept, len(due), lost, len(live)))
	})
}
