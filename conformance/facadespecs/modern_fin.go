package facadespecs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// finisher drives a task to a terminal status through the facade.
type finisher struct {
	name   string
	status reference.Status
	run    func(e *battery.Env, f modern.Facade, id string) (modern.Task, error)
}

func finishers() []finisher {
	return []finisher{
		{"Complete", reference.StatusCompleted, func(e *battery.Env, f modern.Facade, id string) (modern.Task, error) {
			return f.Complete(e.Ctx, id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}})
		}},
		{"Fail", reference.StatusFailed, func(e *battery.Env, f modern.Facade, id string) (modern.Task, error) {
			return f.Fail(e.Ctx, id, modern.RPCError(-32000, "tool failed", nil))
		}},
		{"Cancel by the owner", reference.StatusCancelled, func(e *battery.Env, f modern.Facade, id string) (modern.Task, error) {
			return f.Cancel(e.Ctx, id, reference.Principal("alice"))
		}},
		{"Cancel by the system", reference.StatusCancelled, func(e *battery.Env, f modern.Facade, id string) (modern.Task, error) {
			return f.Cancel(e.Ctx, id, reference.System())
		}},
	}
}

func ModernFin(s *battery.Suite) {
	s.It("M-F-FIN-1", "every write to a terminal task is ErrTerminal and writes nothing; Cancel returns the task as it is", func(e *battery.Env) {
		st := e.Modern()
		f := battery.ModernFacade(e)
		for _, fin := range finishers() {
			t := createThrough(e, f, modern.CreateOptions{Owner: "alice"})
			_, err := f.RequireInput(e.Ctx, t.TaskID, map[string]any{"k": "?"})
			e.RequireErr(err, nil, "setup: facade RequireInput("+battery.Literal(t.TaskID)+", {k})")
			final, err := fin.run(e, f, t.TaskID)
			e.RequireErr(err, nil, fmt.Sprintf("setup: facade %s(%s)", fin.name, battery.Literal(t.TaskID)))
			e.Require(final.Status == fin.status, fmt.Sprintf("setup: facade %s(%s)", fin.name, battery.Literal(t.TaskID)), fin.status, final)
			id := t.TaskID
			for _, w := range []struct {
				name string
				run  func() (modern.Task, error)
			}{
				{"Complete", func() (modern.Task, error) { return f.Complete(e.Ctx, id, map[string]any{"late": true}) }},
				{"Fail", func() (modern.Task, error) { return f.Fail(e.Ctx, id, modern.RPCError(-1, "late", nil)) }},
				{"Progress", func() (modern.Task, error) { return f.Progress(e.Ctx, id, "late progress") }},
				{"RequireInput", func() (modern.Task, error) { return f.RequireInput(e.Ctx, id, map[string]any{"new": "?"}) }},
				{"Update (answering the outstanding key)", func() (modern.Task, error) {
					return f.Update(e.Ctx, id, reference.Principal("alice"), map[string]any{"k": "late"})
				}},
			} {
				input := fmt.Sprintf("facade %s of task %s after %s (%s)", w.name, battery.Literal(id), fin.name, fin.status)
				got, err := w.run()
				if !e.CheckErr(err, reference.ErrTerminal, input) && err == nil {
					e.Errorf("  the facade wrote %s", battery.Show(got))
				}
				modernspecs.CheckStored(e, st, final, input)
			}
			for _, c := range []reference.Caller{reference.Principal("alice"), reference.System()} {
				input := fmt.Sprintf("facade Cancel(%s, %s) after %s (%s)", battery.Literal(id), c, fin.name, fin.status)
				got, err := f.Cancel(e.Ctx, id, c)
				e.CheckErr(err, reference.ErrTerminal, input)
				modernspecs.CheckTask(e, input+" returned (the task as it is)", final, got)
				modernspecs.CheckStored(e, st, final, input)
			}
			cancelled, err := f.Cancelled(e.Ctx, id)
			input := fmt.Sprintf("facade Cancelled(%s) after %s", battery.Literal(id), fin.name)
			if e.CheckErr(err, nil, input) {
				e.Check(cancelled == (fin.status == reference.StatusCancelled), input, fin.status == reference.StatusCancelled, cancelled)
			}
		}
	})

	s.It("M-F-FIN-1", "a late Complete after Cancel is ErrTerminal and the task stays cancelled", func(e *battery.Env) {
		st := e.Modern()
		client := battery.ModernFacade(e)
		worker := battery.ModernFacade(e) // another node's facade over the same store
		t := createThrough(e, client, modern.CreateOptions{Owner: "alice"})
		_, err := worker.Progress(e.Ctx, t.TaskID, "halfway")
		e.RequireErr(err, nil, "setup: worker Progress")
		c, err := client.Cancel(e.Ctx, t.TaskID, reference.Principal("alice"))
		e.RequireErr(err, nil, "client Cancel(alice)")
		yes, err := worker.Cancelled(e.Ctx, t.TaskID)
		e.Check(err == nil && yes, "worker Cancelled("+battery.Literal(t.TaskID)+") after the client's Cancel", "true", fmt.Sprintf("%v, %s", yes, battery.DescribeErr(err)))
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": "too late"}}}
		input := fmt.Sprintf("worker Complete(%s, %s) after Cancel", battery.Literal(t.TaskID), jsonvalue.Describe(result))
		_, err = worker.Complete(e.Ctx, t.TaskID, result)
		e.CheckErr(err, reference.ErrTerminal, input)
		got, ok := modernspecs.Stored(e, st, t.TaskID)
		e.Check(ok && got.Status == reference.StatusCancelled && got.Result == nil, input, "the task cancelled, without result", got)
		modernspecs.CheckStored(e, st, c, input)
	})

	s.It("M-F-FIN-2", "under races exactly one terminal status wins and a completed result is never lost", FacadeFinRaces)
}

// FacadeFinRaces is M-F-FIN-2's race of finishing calls through two facades (a client's
// and a worker's) over one store.
func FacadeFinRaces(e *battery.Env) {
	{
		st := e.Modern()
		// Reads are slowed down so that the racers' CAS loops overlap: both read the same
		// version, and only the store's compare-and-swap can keep one of them out.
		var client, worker modern.Facade
		if e.ForeignFacade() {
			// The store's own facade: the calls race over the pipelined wire, unslowed.
			client, worker = battery.ModernFacade(e), battery.ModernFacade(e)
		} else {
			slow := slowReads{Store: st, delay: 200 * time.Microsecond}
			client = battery.ModernFacade(e, func(c *modern.Config) { c.Store = slow })
			worker = battery.ModernFacade(e, func(c *modern.Config) { c.Store = slow })
		}
		meter := e.Meter()
		defer meter.Done()
		type racer struct {
			name     string
			terminal reference.Status // "" when the call does not finish the task
			run      func(id string, round int) (modern.Task, error)
		}
		result := func(round int) map[string]any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("result %d", round)}}}
		}
		cancel := racer{"client Cancel", reference.StatusCancelled, func(id string, _ int) (modern.Task, error) {
			return client.Cancel(e.Ctx, id, reference.Principal("alice"))
		}}
		complete := racer{"worker Complete", reference.StatusCompleted, func(id string, r int) (modern.Task, error) {
			return worker.Complete(e.Ctx, id, result(r))
		}}
		fail := racer{"worker Fail", reference.StatusFailed, func(id string, r int) (modern.Task, error) {
			return worker.Fail(e.Ctx, id, modern.RPCError(-32000, fmt.Sprintf("failure %d", r), nil))
		}}
		progress := racer{"worker Progress", "", func(id string, r int) (modern.Task, error) {
			return worker.Progress(e.Ctx, id, fmt.Sprintf("progress %d", r))
		}}
		update := racer{"client Update", "", func(id string, r int) (modern.Task, error) {
			return client.Update(e.Ctx, id, reference.Principal("alice"), map[string]any{"k": fmt.Sprintf("answer %d", r)})
		}}
		races := [][]racer{
			{cancel, complete},
			{update, complete},
			{cancel, fail},
			{cancel, progress},
			{update, fail},
			{complete, fail, cancel},
			{cancel, cancel, complete},
		}
		// 25 rounds of each race, on the shared rounds (extended while the racers have
		// not overlapped enough: an unoverlapped run is inconclusive, not passed). A
		// round runs one race on as many fresh tasks as make RaceClients() clients, all
		// released together.
		perRace := 25
		for round := range meter.Rounds(perRace * len(races)) {
			if e.Ctx.Err() != nil {
				return
			}
			race := races[round%len(races)]
			var names []string
			for _, r := range race {
				names = append(names, r.name)
			}
			copies := max((e.RaceClients()+len(race)-1)/len(race), 1)
			ids := make([]string, copies)
			bases := make([]modern.Task, copies)
			for c := range copies {
				t := createThrough(e, client, modern.CreateOptions{Owner: "alice"})
				base, err := worker.RequireInput(e.Ctx, t.TaskID, map[string]any{"k": "?"})
				e.RequireErr(err, nil, "setup: worker RequireInput("+battery.Literal(t.TaskID)+", {k})")
				ids[c], bases[c] = t.TaskID, base
			}
			n := copies * len(race)
			var (
				errsAll = make([]error, n)
				gotsAll = make([]modern.Task, n)
			)
			tl := battery.NewTimeline()
			battery.Together(n, func(k int) {
				c, i := k/len(race), k%len(race)
				tl.Do(k, ids[c], func() { gotsAll[k], errsAll[k] = race[i].run(ids[c], round) })
			})
			meter.Add(tl.Take())
			for c := range copies {
				id, base := ids[c], bases[c]
				errs, gots := errsAll[c*len(race):(c+1)*len(race)], gotsAll[c*len(race):(c+1)*len(race)]
				input := fmt.Sprintf("round %d: %v racing on task %s (one of %d tasks raced at once)", round, names, battery.Literal(id), copies)
				final, ok := modernspecs.Stored(e, st, id)
				if !e.Check(ok, input, "the task", "ErrNotFound") {
					return
				}
				fails := len(e.Faults())
				writes, winners := 0, 0
				var winner racer
				for i, r := range race {
					switch {
					case errs[i] == nil:
						// A call that "succeeded" without writing (an Update that found
						// nothing outstanding) returns the task at an older version.
						if gots[i].Version > base.Version {
							writes++
						}
						if r.terminal != "" {
							winners++
							winner = r
						}
					case !errors.Is(errs[i], reference.ErrTerminal):
						e.Check(false, fmt.Sprintf("%s: %s", input, r.name), "success or ErrTerminal", errs[i])
					}
				}
				e.Check(final.Status.Terminal(), input, "a terminal status", final)
				e.Check(winners == 1 && final.Status == winner.terminal, input,
					"exactly one finishing call succeeded, and its status is the task's",
					fmt.Sprintf("%d finishing calls succeeded; final task %s", winners, battery.Show(final)))
				e.Check(final.Version == base.Version+int64(writes), input,
					fmt.Sprintf("version %d + one per successful write (%d)", base.Version, writes), final)
				switch final.Status {
				case reference.StatusCompleted:
					e.Check(jsonvalue.Equal(final.Result, result(round)) && final.Error == nil, input, "the worker's result, no error", final)
				case reference.StatusFailed:
					e.Check(final.Result == nil && final.Error != nil, input, "an error, no result", final)
				case reference.StatusCancelled:
					e.Check(final.Result == nil && final.Error == nil, input, "no result, no error", final)
				}
				if len(e.Faults()) > fails {
					return // one failed round says it; the rest would repeat it
				}
			}
		}
	}
}

// slowReads delays every Get of the store it wraps, widening the window between a CAS
// loop's read and its Swap.
type slowReads struct {
	modern.Store
	delay time.Duration
}

func (s slowReads) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	t, err := s.Store.Get(ctx, id, caller)
	battery.YieldFor(s.delay)
	return t, err
}
