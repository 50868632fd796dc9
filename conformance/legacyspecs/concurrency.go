package legacyspecs

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy races with exact outcomes. Each runs many short rounds: in a round a fresh
// task is contended by more clients than there are processors, all released at once
// by a barrier (battery/concurrency.go), and the round's outcome is judged as soon as it ends.
// Every round's calls are timed, and the check reports how much they overlapped
// (battery/overlap.go).

func Concurrency(s *battery.Suite) {
	s.It("L-CONC-1", "keeps every one of concurrent Updates of disjoint keys (no lost update)", DisjointUpdates)

	s.It("L-CONC-1", "a task deleted while Updates, Cancels and UpdateIfs race it never comes back (an acknowledged Delete is not undone)", func(e *battery.Env) {
		st := e.Legacy()
		canc, _ := st.(legacy.Canceler)
		cu, _ := st.(legacy.ConditionalUpdater)
		battery.DeleteRounds(e, battery.DeleteRace{
			Create: func(r int, id string) {
				battery.MustCreate(e, st, id, legacy.Task{"round": json.Number(fmt.Sprint(r))})
			},
			Delete: func(id string) error { return st.Delete(e.Ctx, id) },
			Write: func(c int, id string, tl *battery.Timeline, record func(string)) {
				for n := range 2 {
					var name string
					var err error
					switch k := (c + n) % 4; {
					case k == 1 && canc != nil:
						name = "Cancel"
						tl.Do(c, id, func() { _, err = canc.Cancel(e.Ctx, id) })
					case k == 2 && cu != nil:
						name = "UpdateIf([working, input_required], {status: completed})"
						tl.Do(c, id, func() {
							_, err = cu.UpdateIf(e.Ctx, id, []reference.Status{reference.StatusWorking, reference.StatusInputRequired},
								legacy.Task{legacy.KeyStatus: "completed"})
						})
					default:
						name = fmt.Sprintf("Update({c%d: %d})", c, n)
						tl.Do(c, id, func() { _, err = st.Update(e.Ctx, id, legacy.Task{fmt.Sprintf("c%d", c): json.Number(fmt.Sprint(n))}) })
					}
					record(name + " -> " + battery.Outcome(err))
				}
			},
			Writes: "two of Update, Cancel, UpdateIf",
			Writer: "write",
			Get:    "Get(%s)",
			Stored: func(id string) (any, bool) { return battery.Stored(e, st, id) },
			Gone: func(id, in string) bool {
				rows, err := st.List(e.Ctx, legacy.ListOptions{})
				if e.CheckErr(err, nil, "List({}) after "+in) && battery.RowIDs(rows, nil)[id] {
					e.Check(false, "List({}) after "+in, "no row for the deleted task", "a row for it")
					return false
				}
				return true
			},
		})
	})

	s.It("L-CONC-1", "a Cancel racing Updates of other keys keeps every write: status cancelled and each key written", func(e *battery.Env) {
		st := e.Legacy()
		canc, ok := st.(legacy.Canceler)
		if !ok {
			ginkgo.Skip("not applicable: the store does not implement legacy.Canceler (the facade's fallback is an Update, checked by the disjoint-keys spec)")
		}
		clients := e.RaceClients()
		battery.Race(e, e.RaceRounds(), func(r int, tl *battery.Timeline) battery.Round {
			id := e.ID("race-cancel")
			battery.MustCreate(e, st, id, legacy.Task{})
			cancelers := 1 + r%2
			errs := make([]error, clients)
			return battery.Round{Clients: clients, Client: func(c int) {
				if c < cancelers {
					tl.Do(c, id, func() { _, errs[c] = canc.Cancel(e.Ctx, id) })
				} else {
					tl.Do(c, id, func() { _, errs[c] = st.Update(e.Ctx, id, legacy.Task{fmt.Sprintf("p%d", c): json.Number("1")}) })
				}
			}, Judge: func() bool {
				in := fmt.Sprintf("round %d: %d Cancel(%s) released together with %d Update(%s, {pN: 1}) of distinct keys", r, cancelers, battery.Literal(id), clients-cancelers, battery.Literal(id))
				// A call that failed wrote nothing to lose: a refusal (ErrUnsupported) is the
				// store declining the setup this check needs, any other error a fault of that
				// call, neither a lost write.
				failed := false
				for c, err := range errs {
					call := fmt.Sprintf("Update(%s, {p%d: 1})", battery.Literal(id), c)
					if c < cancelers {
						call = fmt.Sprintf("Cancel(%s)", battery.Literal(id))
					}
					if errors.Is(err, reference.ErrUnsupported) {
						e.RequireErr(err, nil, "setup: "+call+" in "+in)
					}
					failed = !e.CheckErr(err, nil, call+" in "+in) || failed
				}
				if failed {
					return false
				}
				got, _ := battery.Stored(e, st, id)
				var lost []string
				if battery.StatusOf(got) != "cancelled" {
					lost = append(lost, "status "+battery.Show(got[legacy.KeyStatus]))
				}
				for c := cancelers; c < clients; c++ {
					if got[fmt.Sprintf("p%d", c)] == nil {
						lost = append(lost, fmt.Sprintf("p%d", c))
					}
				}
				return e.Check(len(lost) == 0, "Get("+battery.Literal(id)+") after "+in, "status cancelled and every pN = 1: no write lost",
					fmt.Sprintf("lost %v in %s\n  %s", lost, battery.Show(got), e.Rerun()))
			}}
		})
	})

	createRace := func(e *battery.Env, judge func(e *battery.Env, in string, id string, winners map[int]legacy.Task, final legacy.Task, found bool) bool) {
		st := e.Legacy()
		battery.CreateRounds(e, func(c int, id string) (legacy.Task, error) { return st.Create(e.Ctx, id, createMeta(c)) },
			func(c int, id string) string { return fmt.Sprintf("Create(%q, %s)", id, battery.Show(createMeta(c))) },
			func(r int, id string, winners map[int]legacy.Task, faults *battery.FaultList) bool {
				in := fmt.Sprintf("round %d: %d concurrent Create(%s, {creator: N, onlyN: true}) released together", r, e.RaceClients(), battery.Literal(id))
				faults.Report(e, in, "success or ErrExists")
				final, found := battery.Stored(e, st, id)
				if !judge(e, in, id, winners, final, found) {
					return false
				}
				_ = st.Delete(e.Ctx, id) // keeps the namespace, and the next List, small
				return true
			})
	}

	s.It("L-CREATE-2", "of concurrent Creates of one id exactly one succeeds; the others fail with ErrExists", func(e *battery.Env) {
		createRace(e, func(e *battery.Env, in, id string, winners map[int]legacy.Task, final legacy.Task, found bool) bool {
			return e.Check(len(winners) == 1, in, "exactly one success, every other Create ErrExists",
				fmt.Sprintf("%d successes (creators %v)\n  %s", len(winners), battery.SortedKeys(winners), e.Rerun()))
		})
	})

	s.It("L-CREATE-3", "concurrent Creates of one id never merge: every later read sees exactly the task of the Create that won", func(e *battery.Env) {
		createRace(e, func(e *battery.Env, in, id string, winners map[int]legacy.Task, final legacy.Task, found bool) bool {
			if !e.Check(found && len(winners) > 0, in, "at least one success, and the task stored", fmt.Sprintf("%d successes, stored: %v", len(winners), found)) {
				return false
			}
			for c, w := range winners {
				at, _ := battery.CreatedAtOf(w)
				want := model.Stamped(id, createMeta(c), at)
				if !e.Check(legacy.Equal(w, want), in+fmt.Sprintf(": creator %d's answer", c), want, w) {
					return false
				}
			}
			match := false
			for _, w := range winners {
				match = match || legacy.Equal(final, w)
			}
			if !e.Check(match, "Get("+battery.Literal(id)+") after "+in, "exactly the task a successful Create returned (the one that won)",
				fmt.Sprintf("%s; the successful Creates returned %v\n  %s", battery.Show(final), winners, e.Rerun())) {
				return false
			}
			rows, err := e.Legacy().List(e.Ctx, legacy.ListOptions{})
			if !e.CheckErr(err, nil, "List({}) after "+in) {
				return false
			}
			for _, row := range rows {
				if row.ID() == id && !e.Check(legacy.Equal(row, final), "List({}) after "+in, final, row) {
					return false
				}
			}
			return true
		})
	})
}

// createMeta is the metadata creator c races with: its own marker key, so that a
// merge of two creators' tasks shows.
func createMeta(c int) legacy.Task {
	return legacy.Task{"creator": json.Number(fmt.Sprint(c)), fmt.Sprintf("only%d", c): true}
}

// DisjointUpdates is L-CONC-1's lost-update check: in each round every client Updates
// its own key of one fresh task a few times; every key must end at its last value.
func DisjointUpdates(e *battery.Env) {
	st := e.Legacy()
	writers := e.RaceClients()
	const per = 3
	battery.Race(e, e.RaceRounds(), func(r int, tl *battery.Timeline) battery.Round {
		id := e.ID("conc")
		battery.MustCreate(e, st, id, legacy.Task{"base": true})
		var faults battery.FaultList
		return battery.Round{Clients: writers, Client: func(w int) {
			for n := range per {
				changes := legacy.Task{fmt.Sprintf("k%d", w): json.Number(fmt.Sprint(n))}
				var err error
				tl.Do(w, id, func() { _, err = st.Update(e.Ctx, id, changes) })
				if err != nil {
					faults.Add("Update(%q, %s): %s", id, battery.Show(changes), battery.DescribeErr(err))
					return
				}
			}
		}, Judge: func() bool {
			in := fmt.Sprintf("round %d: %d clients released together, each Updating its own key of %s %d times", r, writers, battery.Literal(id), per)
			faults.Report(e, in, "every Update to succeed")
			got, ok := battery.Stored(e, st, id)
			if !e.Check(ok, "Get("+battery.Literal(id)+") after "+in, "the task", "ErrNotFound") {
				return false
			}
			var lost []string
			for w := range writers {
				k := fmt.Sprintf("k%d", w)
				if !legacy.Equal(legacy.Task{k: got[k]}, legacy.Task{k: json.Number(fmt.Sprint(per - 1))}) {
					lost = append(lost, fmt.Sprintf("%s=%s", k, battery.Show(got[k])))
				}
			}
			sort.Strings(lost)
			if !e.Check(len(lost) == 0 && got["base"] == true, "Get("+battery.Literal(id)+") after "+in,
				fmt.Sprintf("base=true and every key k0..k%d at its last value %d", writers-1, per-1),
				fmt.Sprintf("lost or stale: %v in %s\n  %s", lost, battery.Show(got), e.Rerun())) {
				return false
			}
			_ = st.Delete(e.Ctx, id)
			return true
		}}
	})
}
