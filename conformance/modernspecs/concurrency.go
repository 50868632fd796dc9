package modernspecs

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern races with exact outcomes, in rounds released by a barrier like the legacy
// ones (legacyspecs/concurrency.go).

func Concurrency(s *battery.Suite) {
	s.It("M-CREATE-1", "of concurrent Creates of one id exactly one succeeds, the others fail with ErrExists, and every later read sees the winner's task", ModernCreateRace)

	s.It("S-CONC-1", "a task deleted while CAS writers race it never comes back (an acknowledged Delete is not undone)", func(e *battery.Env) {
		st := e.Modern()
		battery.DeleteRounds(e, battery.DeleteRace{
			Create: func(_ int, id string) { CreateTask(e, st, task(e, id)) },
			Delete: func(id string) error { return st.Delete(e.Ctx, id) },
			Write: func(c int, id string, tl *battery.Timeline, record func(string)) {
				for n := range 2 {
					var cur modern.Task
					var err error
					tl.Do(c, id, func() { cur, err = st.Get(e.Ctx, id, reference.System()) })
					if err != nil {
						record("Get -> " + battery.Outcome(err))
						return
					}
					next := Next(cur, fmt.Sprintf("client %d write %d", c, n))
					tl.Do(c, id, func() { _, err = st.Swap(e.Ctx, reference.System(), cur.Version, next) })
					record(fmt.Sprintf("Swap(v%d) -> %s", cur.Version, battery.Outcome(err)))
				}
			},
			Writes: "two CAS writes (Get, Swap)",
			Writer: "Swap",
			Get:    "Get(%s, system)",
			Stored: func(id string) (any, bool) { return Stored(e, st, id) },
		})
	})

	s.It("S-CONC-1", "Swaps of several fields are atomic: concurrent Gets never see half of one", func(e *battery.Env) {
		st := e.Modern()
		clients := e.RaceClients()
		writers := max(clients/4, 1)
		const per = 4
		battery.Race(e, e.RaceRounds(), func(r int, tl *battery.Timeline) battery.Round {
			id := e.ID("torn")
			CreateTask(e, st, stamped(task(e, id), "init"))
			var faults battery.FaultList
			return battery.Round{Clients: clients, Client: func(c int) {
				for n := range per {
					var cur modern.Task
					var err error
					tl.Do(c, id, func() { cur, err = st.Get(e.Ctx, id, reference.System()) })
					if err != nil {
						faults.Add("Get: %s", battery.DescribeErr(err))
						return
					}
					if !consistent(cur) {
						faults.Add("Get saw %s", battery.Show(cur))
					}
					if c >= writers {
						continue
					}
					next := stamped(cur, fmt.Sprintf("w%d-%d", c, n))
					tl.Do(c, id, func() { _, err = st.Swap(e.Ctx, reference.System(), cur.Version, next) })
					if err != nil && !errors.Is(err, reference.ErrConflict) {
						faults.Add("%s: %s", SwapCall(reference.System(), cur.Version, next), battery.DescribeErr(err))
					}
				}
			}, Judge: func() bool {
				in := fmt.Sprintf("round %d: %d writers each making %d CAS writes (Get, Swap) of status_message, result, error and poll_interval of %s, released together with %d readers", r, writers, per, battery.Literal(id), clients-writers)
				if !faults.Check(e, in, "every read to see the four fields of one write (the same mark in each)") {
					return false
				}
				_ = st.Delete(e.Ctx, id)
				return true
			}}
		})
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
	n.PollInterval = MS(markNumber(mark))
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

// ModernCreateRace is M-CREATE-1 under races: in each round every client Creates the
// same fresh id; exactly one may succeed, and every later read sees its task.
func ModernCreateRace(e *battery.Env) {
	st := e.Modern()
	task := func(c int, id string) modern.Task {
		t := task(e, id)
		t.StatusMessage = fmt.Sprintf("creator %d", c)
		return t
	}
	battery.CreateRounds(e, func(c int, id string) (modern.Task, error) { return st.Create(e.Ctx, task(c, id)) },
		func(c int, id string) string { return fmt.Sprintf("Create(%s)", battery.Literal(task(c, id))) },
		func(r int, id string, winners map[int]modern.Task, faults *battery.FaultList) bool {
			in := fmt.Sprintf("round %d: %d concurrent Create(task %s, status_message \"creator N\") released together", r, e.RaceClients(), battery.Literal(id))
			if !faults.Check(e, in, "success or ErrExists") {
				return false
			}
			if !e.Check(len(winners) == 1, in, "exactly one success, every other Create ErrExists",
				fmt.Sprintf("%d successes (creators %v)\n  %s", len(winners), battery.SortedKeys(winners), e.Rerun())) {
				return false
			}
			for c, w := range winners {
				if !CheckTask(e, in+fmt.Sprintf(": the winner's (creator %d) answer", c), WithVersion(task(c, id), 1), w) ||
					!CheckStored(e, st, w, in) {
					return false
				}
			}
			return true
		})
}
