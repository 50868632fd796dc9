package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern races with exact outcomes, in rounds released by a barrier like the legacy
// ones (legacy_concurrency.go).

func modernConcurrencySpecs(s *suite) {
	s.It("M-CREATE-1", "of concurrent Creates of one id exactly one succeeds, the others fail with ErrExists, and every later read sees the winner's task", func(e *Env) {
		e.modernCreateRace()
	})

	s.It("S-CONC-1", "a task deleted while CAS writers race it never comes back (an acknowledged Delete is not undone)", func(e *Env) {
		st := e.Modern()
		clients, rounds := e.raceClients(), e.raceRounds()
		m := e.meter()
		defer m.done()
		for r := range m.rounds(rounds) {
			if e.Ctx.Err() != nil {
				return
			}
			id := e.ID("resurrect")
			modCreate(e, st, modTask(e, id))
			deleter := r % clients
			var delErr error
			var mu sync.Mutex
			var calls []string
			tl := newTimeline()
			together(clients, func(c int) {
				if c == deleter {
					tl.do(c, id, func() { delErr = st.Delete(e.Ctx, id) })
					return
				}
				for n := range 2 {
					var cur modern.Task
					var err error
					tl.do(c, id, func() { cur, err = st.Get(e.Ctx, id, reference.System()) })
					if err != nil {
						mu.Lock()
						calls = append(calls, "Get -> "+outcome(err))
						mu.Unlock()
						return
					}
					next := modNext(cur, fmt.Sprintf("client %d write %d", c, n))
					tl.do(c, id, func() { _, err = st.Swap(e.Ctx, reference.System(), cur.Version, next) })
					mu.Lock()
					calls = append(calls, fmt.Sprintf("Swap(v%d) -> %s", cur.Version, outcome(err)))
					mu.Unlock()
				}
			})
			m.add(tl.take())
			in := fmt.Sprintf("round %d: Delete(%s) released together with %d clients each making two CAS writes (Get, Swap) on it", r, Q(id), clients-1)
			e.CheckErr(delErr, nil, in+": the Delete")
			if got, ok := modStored(e, st, id); ok {
				sort.Strings(calls)
				e.Check(false, "Get("+Q(id)+", system) after "+in, "ErrNotFound: once Delete has returned, a racing Swap either ran before it or finds nothing",
					fmt.Sprintf("the task is back: %s\n  the racing calls answered: %v\n  %s", show(got), calls, e.rerun()))
				return
			}
		}
	})

	s.It("S-CONC-1", "Swaps of several fields are atomic: concurrent Gets never see half of one", func(e *Env) {
		st := e.Modern()
		clients, rounds := e.raceClients(), e.raceRounds()
		writers := max(clients/4, 1)
		const per = 4
		m := e.meter()
		defer m.done()
		for r := range m.rounds(rounds) {
			if e.Ctx.Err() != nil {
				return
			}
			id := e.ID("torn")
			modCreate(e, st, stamped(modTask(e, id), "init"))
			var faults faultList
			tl := newTimeline()
			together(clients, func(c int) {
				for n := range per {
					var cur modern.Task
					var err error
					tl.do(c, id, func() { cur, err = st.Get(e.Ctx, id, reference.System()) })
					if err != nil {
						faults.add("Get: %s", describeErr(err))
						return
					}
					if !consistent(cur) {
						faults.add("Get saw %s", show(cur))
					}
					if c >= writers {
						continue
					}
					next := stamped(cur, fmt.Sprintf("w%d-%d", c, n))
					tl.do(c, id, func() { _, err = st.Swap(e.Ctx, reference.System(), cur.Version, next) })
					if err != nil && !errors.Is(err, reference.ErrConflict) {
						faults.add("%s: %s", modSwapCall(reference.System(), cur.Version, next), describeErr(err))
					}
				}
			})
			m.add(tl.take())
			in := fmt.Sprintf("round %d: %d writers each making %d CAS writes (Get, Swap) of status_message, result, error and poll_interval of %s, released together with %d readers", r, writers, per, Q(id), clients-writers)
			if !faults.check(e, in, "every read to see the four fields of one write (the same mark in each)") {
				return
			}
			_ = st.Delete(e.Ctx, id)
		}
	})
}

// stamped is t with the same mark written to four fields: status_message, result,
// error and poll_interval (a number derived from the mark). A read that mixes two
// writes shows as fields that disagree.
func stamped(t modern.Task, mark string) modern.Task {
	n := t.Clone()
	n.StatusMessage = mark
	n.Result = map[string]any{"mark": mark}
	n.Error = map[string]any{"code": json.Number("-32000"), "message": mark}
	n.PollInterval = modMS(markNumber(mark))
	return n
}

func markNumber(mark string) int64 {
	var h int64 = 7
	for _, b := range []byte(mark) {
		h = h*31 + int64(b)
	}
	return h & 0xffffff
}

func consistent(t modern.Task) bool {
	mark := t.StatusMessage
	res, _ := t.Result["mark"].(string)
	msg, _ := t.Error["message"].(string)
	return res == mark && msg == mark && t.PollInterval != nil && *t.PollInterval == markNumber(mark)
}

// modernCreateRace is M-CREATE-1 under races: in each round every client Creates the
// same fresh id; exactly one may succeed, and every later read sees its task.
func (e *Env) modernCreateRace() {
	st := e.Modern()
	task := func(c int, id string) modern.Task {
		t := modTask(e, id)
		t.StatusMessage = fmt.Sprintf("creator %d", c)
		return t
	}
	createRounds(e, func(c int, id string) (modern.Task, error) { return st.Create(e.Ctx, task(c, id)) },
		func(c int, id string) string { return fmt.Sprintf("Create(%s)", Q(task(c, id))) },
		func(r int, id string, winners map[int]modern.Task, faults *faultList) bool {
			in := fmt.Sprintf("round %d: %d concurrent Create(task %s, status_message \"creator N\") released together", r, e.raceClients(), Q(id))
			if !faults.check(e, in, "success or ErrExists") {
				return false
			}
			if !e.Check(len(winners) == 1, in, "exactly one success, every other Create ErrExists",
				fmt.Sprintf("%d successes (creators %v)\n  %s", len(winners), sortedKeys(winners), e.rerun())) {
				return false
			}
			for c, w := range winners {
				if !modCheckTask(e, in+fmt.Sprintf(": the winner's (creator %d) answer", c), modWithVersion(task(c, id), 1), w) ||
					!modCheckStored(e, st, w, in) {
					return false
				}
			}
			return true
		})
}
