package conformance

import (
	"fmt"
	"time"

	"github.com/storecheck/storecheck/reference/legacy"
)

// Specs that reach where realistic store bugs live: more rows than a page or batch
// (100, 1000), ttls of 0 and below at the store, and expiry after a Swap.

func legacyReachSpecs(s *suite) {
	s.It("L-LIST-1", "returns every matching task of more than a page (1100 tasks), each once", func(e *Env) {
		st := e.Legacy()
		rows := ownedRows{}
		j := newListJudge(e, "L-LIST-1", rows)
		for i := range bulkRows {
			id := e.ID("bulk")
			mustCreate(e, st, id, legacy.Task{"i": fmt.Sprint(i)})
			rows[id] = ""
			if i%3 == 0 {
				mustStatus(e, st, id, "completed")
				j.status[id] = "completed"
			}
		}
		j.list(st, legacy.ListOptions{})
		j.list(st, legacy.ListOptions{Status: new("completed")})
		j.list(st, legacy.ListOptions{Status: new("working")})
		j.finish()
	})

	s.It("L-LIST-2", "a Limit above a page (1050 of 1100 tasks) returns that many rows", func(e *Env) {
		st := e.Legacy()
		rows := ownedRows{}
		j := newListJudge(e, "L-LIST-2", rows)
		for range bulkRows {
			id := e.ID("bulk")
			mustCreate(e, st, id, legacy.Task{})
			rows[id] = ""
		}
		j.list(st, legacy.ListOptions{Limit: new(1050)})
		j.list(st, legacy.ListOptions{Limit: new(1000)})
		j.list(st, legacy.ListOptions{Limit: new(bulkRows + 1)})
		j.finish()
	})

	s.It("L-CLEAN-1", "removes every due task of more than a batch (1100), keeps the live ones, and counts them", func(e *Env) {
		st := e.Legacy()
		c := requireCleaner(st)
		due, live := idSet{}, idSet{}
		for i := range bulkRows + 50 {
			id := e.ID("bulk")
			mustCreate(e, st, id, legacy.Task{})
			if i < bulkRows {
				mustStatus(e, st, id, []string{"completed", "failed", "cancelled"}[i%3])
				due[id] = true
			} else {
				live[id] = true
			}
		}
		// Every task is older than 0 ms once the clock has moved.
		if e.HasClock() {
			e.ManualClock().Advance(time.Second)
		} else {
			time.Sleep(5 * time.Millisecond)
		}
		n, err := c.Cleanup(e.Ctx, 0)
		if !e.CheckErr(err, nil, "Cleanup(0)") {
			return
		}
		e.Check(n == len(due), fmt.Sprintf("Cleanup(0) over %d terminal and %d working tasks", len(due), len(live)),
			fmt.Sprintf("%d removed", len(due)), n)
		got := rowIDs(listRows(e, st, legacy.ListOptions{}), nil)
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
