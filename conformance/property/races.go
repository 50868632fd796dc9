package property

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Targeted races through the facades: a few calls that contend for one task start
// together; afterwards some sequential order of them must explain every answer and the
// final state (a linearizability check of a tiny history, by enumerating orders).

func ModernRaceRounds(s *battery.Suite) {
	s.It("M-F-FIN-2", "racing Cancel, Complete, Fail, Progress, tasks/update and RequireInput through the facade: one terminal status wins and a result is never lost", ModernRaces)
	s.It("M-SWAP-4", "8 goroutines × 50 CAS increments of one task end at exactly 400 (store), and concurrent facade writes all land", CasIncrements)
}

func LegacyRaceRounds(s *battery.Suite) {
	s.It("L-F-FIN-2", "a facade Cancel racing a worker's completion leaves exactly one terminal status (with a ConditionalUpdater)", LegacyRaces)
}

// RaceCall is one contender: run calls the store under test, sim the model.
type RaceCall[T any] struct {
	name string
	run  func(ctx context.Context) (T, error)
	sim  func() (T, error)
}

type RaceResult[T any] struct {
	task T
	err  error
}

// permutations lists the orders of n calls (n <= 4).
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// --- modern ---

type modernRace struct {
	name  string
	setup string // "working" or "input" (input_required with key k1 outstanding)
	calls []string
}

var modernRaceKinds = []modernRace{
	{"cancel vs complete", "working", []string{"Cancel", "Complete"}},
	{"cancel vs fail vs complete", "working", []string{"Cancel", "Fail", "Complete"}},
	{"tasks/update vs complete", "input", []string{"Update", "Complete"}},
	{"RequireInput vs tasks/update", "input", []string{"RequireInput", "Update"}},
	{"progress vs cancel vs progress", "working", []string{"Progress", "Cancel", "Progress"}},
	{"complete vs complete", "working", []string{"Complete", "Complete2"}},
	{"tasks/update vs cancel vs complete", "input", []string{"Update", "Cancel", "Complete"}},
}

func ModernRaces(e *battery.Env) {
	st := e.Modern()
	clock, _ := clockOrFrozen(e)
	var fac modern.Facade = modern.New(modern.Config{Store: st, Clock: clock})
	if e.ForeignFacade() {
		fac = battery.ModernFacade(e) // the store's own facade races over the wire
	}
	cfg := model.Facade{}
	owner := reference.Principal("alice")
	rounds := e.RaceRounds()
	seed := subSeed(e.RunSeed(), "modern-races")
	type instance = raceInstance[modernRace, modern.Task, model.Modern]
	// setup makes race number i of a round: a fresh task and the calls that contend
	// for it, each with its model twin.
	setup := func(i int) instance {
		r := clientRand(seed, i, 0)
		kind := modernRaceKinds[r.IntN(len(modernRaceKinds))]
		task, err := fac.Create(e.Ctx, modern.CreateOptions{Owner: "alice"}, nil)
		e.RequireErr(err, nil, fmt.Sprintf("setup: Tasks.Create() for race %q", kind.name))
		id := task.TaskID
		if kind.setup == "input" {
			task, err = fac.RequireInput(e.Ctx, id, map[string]any{"k1": "question"})
			e.RequireErr(err, nil, fmt.Sprintf("setup: Tasks.RequireInput(%q, {k1}) for race %q", id, kind.name))
		}
		m := model.NewModern()
		m.Put(task)
		now := clock.Now().UnixMilli()
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("result %d", i)}}}
		var calls []RaceCall[modern.Task]
		for _, c := range kind.calls {
			switch c {
			case "Cancel":
				calls = append(calls, RaceCall[modern.Task]{"Cancel(alice)",
					func(ctx context.Context) (modern.Task, error) { return fac.Cancel(ctx, id, owner) },
					func() (modern.Task, error) { return m.FacadeCancel(cfg, id, owner, now) }})
			case "Complete", "Complete2":
				res := jsonvalue.CloneObject(result)
				if c == "Complete2" {
					res = map[string]any{"other": json.Number("2")}
				}
				calls = append(calls, RaceCall[modern.Task]{"Complete(" + jsonvalue.Describe(res) + ")",
					func(ctx context.Context) (modern.Task, error) { return fac.Complete(ctx, id, res) },
					func() (modern.Task, error) { return m.FacadeComplete(cfg, id, res, now) }})
			case "Fail":
				rpc := modern.RPCError(-32000, "worker failed", nil)
				calls = append(calls, RaceCall[modern.Task]{"Fail",
					func(ctx context.Context) (modern.Task, error) { return fac.Fail(ctx, id, rpc) },
					func() (modern.Task, error) { return m.FacadeFail(cfg, id, rpc, now) }})
			case "Update":
				resp := map[string]any{"k1": "answer"}
				calls = append(calls, RaceCall[modern.Task]{"Update(alice, k1)",
					func(ctx context.Context) (modern.Task, error) { return fac.Update(ctx, id, owner, resp) },
					func() (modern.Task, error) { return m.FacadeUpdate(cfg, id, owner, resp, now) }})
			case "RequireInput":
				req := map[string]any{"k2": "another question"}
				calls = append(calls, RaceCall[modern.Task]{"RequireInput(k2)",
					func(ctx context.Context) (modern.Task, error) { return fac.RequireInput(ctx, id, req) },
					func() (modern.Task, error) { return m.FacadeRequireInput(cfg, id, req, now) }})
			case "Progress":
				msg := fmt.Sprintf("progress %d", len(calls))
				calls = append(calls, RaceCall[modern.Task]{"Progress(" + msg + ")",
					func(ctx context.Context) (modern.Task, error) { return fac.Progress(ctx, id, msg) },
					func() (modern.Task, error) { return m.FacadeProgress(cfg, id, msg, now) }})
			}
		}
		return instance{kind, id, calls, m.Clone(), m}
	}
	raceRounds(e, rounds, setup,
		func(in instance, mine []RaceResult[modern.Task]) bool {
			final, ferr := st.Get(e.Ctx, in.id, reference.System())
			if ferr != nil {
				e.Errorf("%s", raceFault(in.kind.name, in.id, in.calls, mine, "Get(system) answered "+battery.DescribeErr(ferr)+" (the task was never deleted: a read after the race must find it)", e.Rerun()))
				return false
			}
			if !ExplainModern(in.start, &in.m, in.id, in.calls, mine, final, ferr) {
				e.Errorf("%s", raceFault(in.kind.name, in.id, in.calls, mine, battery.Show(final), e.Rerun()))
				return false
			}
			return true
		})
}

// ExplainModern looks for an order of the calls that, run on the model from start,
// gives every answer that came back and the final state of task id (final, ferr: the
// store's Get after the race). *m is the model the calls' sim functions use; it is reset
// for each order. A final read is judged like the calls' answers: an empty task with no
// error (final.TaskID == "") is explained by no order, it is a fault.
func ExplainModern(start *model.Modern, m **model.Modern, id string, calls []RaceCall[modern.Task], got []RaceResult[modern.Task], final modern.Task, ferr error) bool {
	for _, order := range permutations(len(calls)) {
		**m = *start.Clone()
		ok := true
		for _, i := range order {
			t, err := calls[i].sim()
			if !model.SameKind(err, got[i].err) || !modern.Equal(t, got[i].task) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		want, werr := (*m).Get(id, reference.System(), 0)
		if model.SameKind(werr, ferr) && (ferr != nil || modern.Equal(want, final)) {
			return true
		}
	}
	return false
}

// raceFault describes a race no order explains (the spec's header names the rule).
func raceFault[T any](kind, id string, calls []RaceCall[T], got []RaceResult[T], final, rerun string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "race %q on task %q: no sequential order of the concurrent calls explains what they answered and the final state.\n", kind, id)
	successes := 0
	for i, c := range calls {
		fmt.Fprintf(&b, "    %s -> %s %s\n", c.name, battery.Outcome(got[i].err), battery.Show(got[i].task))
		if got[i].err == nil {
			successes++
		}
	}
	fmt.Fprintf(&b, "    final state: %s\n  (%d of %d calls succeeded)\n  %s", final, successes, len(calls), rerun)
	return b.String()
}

// CasIncrements is M-SWAP-4 as the rule states it, then the same through the facade:
// concurrent Progress calls must all land, each as one write.
func CasIncrements(e *battery.Env) {
	st := e.Modern()
	m := e.Meter()
	defer m.Done()
	// Again on fresh tasks while the runs have not overlapped enough.
	for range m.Rounds(1) {
		if !casIncrementsOnce(e, st, m) {
			return
		}
	}
}

// casIncrementsOnce is one run of CasIncrements; it answers false once it has recorded
// a fault.
func casIncrementsOnce(e *battery.Env, st modern.Store, m *battery.OverlapMeter) bool {
	tl := battery.NewTimeline()
	casIncrementsThroughStore(e, st, m, tl)
	casIncrementsThroughFacade(e, st, m, tl)
	return len(e.Faults()) == 0
}

// casIncrementsThroughStore is M-SWAP-4 as the rule states it: goroutines add 1 to one
// task's n by Get and Swap, retried on ErrConflict, one increment each per round; every
// increment must land, each as one write.
func casIncrementsThroughStore(e *battery.Env, st modern.Store, m *battery.OverlapMeter, tl *battery.Timeline) {
	now := e.NowMillis()
	id := e.ID("cas")
	created, err := st.Create(e.Ctx, modern.Task{TaskID: id, Status: reference.StatusWorking, CreatedAt: now, LastUpdatedAt: now,
		Result: map[string]any{"n": json.Number("0")}})
	if err != nil {
		e.Fatalf("setup Create(%q) failed: %v", id, err)
	}
	const goroutines, increments = 8, 50
	var mu sync.Mutex
	var failures []string
	rounds := battery.NewBarrier(goroutines)
	battery.Together(goroutines, func(g int) {
		defer rounds.Leave()
		for k := range increments {
			if k > 0 {
				rounds.Wait() // one increment per round: every round starts together
			}
			landed, failure := casIncrement(e, st, tl, g, id)
			if failure != "" {
				mu.Lock()
				failures = append(failures, failure)
				mu.Unlock()
			}
			if !landed {
				return
			}
		}
	})
	m.Add(tl.Take())
	for _, f := range failures {
		e.Errorf("%s", f)
	}
	end, err := st.Get(e.Ctx, id, reference.System())
	e.RequireErr(err, nil, fmt.Sprintf("Get(%q) after the increments", id))
	n, _ := end.Result["n"].(json.Number).Int64()
	in := fmt.Sprintf("%d goroutines × %d CAS increments (Get, Swap(version read, n+1), retry on ErrConflict) of task %q", goroutines, increments, id)
	e.Check(n == goroutines*increments, in, fmt.Sprintf("n = %d", goroutines*increments), fmt.Sprintf("n = %d", n))
	e.Check(end.Version == created.Version+goroutines*increments, in, fmt.Sprintf("version %d", created.Version+goroutines*increments), fmt.Sprintf("version %d", end.Version))
}

// casIncrement is goroutine g's increment of the task's n: Get, then Swap of the version
// read, again on ErrConflict. landed is false when it did not land: the run ended, or a
// call failed otherwise (failure says which).
func casIncrement(e *battery.Env, st modern.Store, tl *battery.Timeline, g int, id string) (landed bool, failure string) {
	for e.Ctx.Err() == nil {
		var cur modern.Task
		var err error
		tl.Do(g, id, func() { cur, err = st.Get(e.Ctx, id, reference.System()) })
		if err != nil {
			return false, fmt.Sprintf("goroutine %d: Get: %v", g, err)
		}
		n, _ := cur.Result["n"].(json.Number).Int64()
		next := cur.Clone()
		next.Result = map[string]any{"n": json.Number(fmt.Sprint(n + 1))}
		tl.Do(g, id, func() { _, err = st.Swap(e.Ctx, reference.System(), cur.Version, next) })
		if err == nil {
			return true, ""
		}
		if model.Kind(err) != reference.ErrConflict {
			return false, fmt.Sprintf("goroutine %d: Swap(v%d): %v", g, cur.Version, err)
		}
	}
	return false, ""
}

// casIncrementsThroughFacade is the same through the facade: every Progress is one CAS
// loop that must land, as one write and one notification.
func casIncrementsThroughFacade(e *battery.Env, st modern.Store, m *battery.OverlapMeter, tl *battery.Timeline) {
	clock, _ := clockOrFrozen(e)
	var notes sync.Mutex
	heard := 0
	fac := modern.New(modern.Config{Store: st, Clock: clock, Notifier: modern.NotifierFunc(func(modern.Task) {
		notes.Lock()
		heard++
		notes.Unlock()
	})})
	task, err := fac.Create(e.Ctx, modern.CreateOptions{}, nil)
	e.RequireErr(err, nil, "Tasks.Create")
	g, per := e.Opts.Budget.Goroutines, max(e.Opts.Budget.Ops/e.Opts.Budget.Goroutines, 1)
	var errs sync.Map
	progressRounds := battery.NewBarrier(g)
	battery.Together(g, func(c int) {
		defer progressRounds.Leave()
		for k := range per {
			if k > 0 && k%roundOps == 0 {
				progressRounds.Wait()
			}
			var err error
			tl.Do(c, task.TaskID, func() { _, err = fac.Progress(e.Ctx, task.TaskID, fmt.Sprintf("c%d-%d", c, k)) })
			if err != nil {
				errs.Store(fmt.Sprintf("c%d-%d", c, k), err)
			}
		}
	})
	m.Add(tl.Take())
	errs.Range(func(k, v any) bool {
		e.Errorf("Tasks.Progress(%q, %q) racing %d others failed: %v", task.TaskID, k, g-1, v)
		return false
	})
	end, err := fac.Status(e.Ctx, task.TaskID)
	e.RequireErr(err, nil, "Tasks.Status after the progress writes")
	in := fmt.Sprintf("%d goroutines × %d Tasks.Progress of one task", g, per)
	e.Check(end.Version == task.Version+int64(g*per), in, fmt.Sprintf("version %d (one write each)", task.Version+int64(g*per)), fmt.Sprintf("version %d", end.Version))
	e.Check(heard == 1+g*per, in, fmt.Sprintf("%d notifications (M-F-NOTIFY-1)", 1+g*per), heard)
}

// --- legacy ---

type legacyRace struct {
	name  string
	calls []string
}

var legacyRaceKinds = []legacyRace{
	{"cancel vs complete", []string{"Cancel", "Complete"}},
	{"cancel vs complete vs fail", []string{"Cancel", "Complete", "Fail"}},
	{"complete vs fail", []string{"Complete", "Fail"}},
	{"cancel vs cancel", []string{"Cancel", "Cancel"}},
}

func LegacyRaces(e *battery.Env) {
	st := e.Legacy()
	var fac legacy.Facade = legacy.New(st)
	if e.ForeignFacade() {
		fac = battery.LegacyFacade(e, st, false) // the store's own facade races over the wire
	} else if _, ok := st.(legacy.ConditionalUpdater); !ok {
		ginkgo.Skip("not applicable: the store does not implement legacy.ConditionalUpdater, without which the facade cannot make finality hold under races")
	}
	seed := subSeed(e.RunSeed(), "legacy-races")
	rounds := e.RaceRounds()
	type instance = raceInstance[legacyRace, legacy.Task, model.Legacy]
	setup := func(i int) instance {
		r := clientRand(seed, i, 0)
		kind := legacyRaceKinds[r.IntN(len(legacyRaceKinds))]
		id := e.ID("race")
		task, err := fac.Create(e.Ctx, id, legacy.Task{"job": json.Number(fmt.Sprint(i))}, "alice")
		e.RequireErr(err, nil, fmt.Sprintf("setup: Tasks.Create(%q) for race %q", id, kind.name))
		m := model.NewLegacy()
		m.Put(id, task)
		var calls []RaceCall[legacy.Task]
		for _, c := range kind.calls {
			switch c {
			case "Cancel":
				calls = append(calls, RaceCall[legacy.Task]{"Cancel(alice)",
					func(ctx context.Context) (legacy.Task, error) {
						return fac.Cancel(ctx, id, reference.Principal("alice"))
					},
					func() (legacy.Task, error) { return m.FacadeCancel(id, reference.Principal("alice"), false) }})
			case "Complete", "Fail":
				ch := legacy.Task{legacy.KeyStatus: "completed", "result": map[string]any{"n": json.Number(fmt.Sprint(i))}}
				if c == "Fail" {
					ch = legacy.Task{legacy.KeyStatus: "failed", "error": "boom"}
				}
				calls = append(calls, RaceCall[legacy.Task]{"Update(" + jsonvalue.Describe(map[string]any(ch)) + ")",
					func(ctx context.Context) (legacy.Task, error) { return fac.Update(ctx, id, ch) },
					func() (legacy.Task, error) { return m.FacadeUpdate(id, ch) }})
			}
		}
		return instance{kind, id, calls, m.Clone(), m}
	}
	raceRounds(e, rounds, setup,
		func(in instance, mine []RaceResult[legacy.Task]) bool {
			final, ferr := st.Get(e.Ctx, in.id)
			explained := false
			for _, order := range permutations(len(in.calls)) {
				*in.m = *in.start.Clone()
				ok := true
				for _, k := range order {
					t, err := in.calls[k].sim()
					if !model.SameKind(err, mine[k].err) || (err == nil && !legacy.Equal(t, mine[k].task)) {
						ok = false
						break
					}
				}
				want, werr := in.m.Get(in.id)
				if ok && model.SameKind(werr, ferr) && legacy.Equal(want, final) {
					explained = true
					break
				}
			}
			if !explained {
				got := battery.Show(final)
				if ferr != nil {
					got = "Get answered " + battery.DescribeErr(ferr)
				}
				e.Errorf("%s", raceFault(in.kind.name, in.id, in.calls, mine, got, e.Rerun()))
				return false
			}
			return true
		})
}

// raceInstance is one race of a round: its kind, the task contended for, the calls that
// contend for it, and the model of the task before the race (start) and the one the
// calls' sim functions run on (m).
type raceInstance[K, T, M any] struct {
	kind  K
	id    string
	calls []RaceCall[T]
	start *M
	m     *M
}

// raceRounds is the round loop of both eras' race checks: each round sets up races
// (setup(n) makes the check's n-th: a fresh task and the calls that contend for it, its
// kind and payload following from n and the seed) until there are RaceClients() clients
// (more than processors), two or three on each task, runs all their calls at once, and
// hands each race its answers to judge, which records a fault and returns false to end
// the check.
func raceRounds[K, T, M any](e *battery.Env, rounds int, setup func(n int) raceInstance[K, T, M], judge func(in raceInstance[K, T, M], got []RaceResult[T]) bool) {
	next := 0
	battery.Race(e, rounds, func(_ int, tl *battery.Timeline) battery.Round {
		insts := []raceInstance[K, T, M]{setup(next), setup(next + 1)}
		next += 2
		for clients := len(insts[0].calls) + len(insts[1].calls); clients < e.RaceClients(); next++ {
			insts = append(insts, setup(next))
			clients += len(insts[len(insts)-1].calls)
		}
		var calls []RaceCall[T]
		var tasks []string
		for _, in := range insts {
			calls = append(calls, in.calls...)
			for range in.calls {
				tasks = append(tasks, in.id)
			}
		}
		got := make([]RaceResult[T], len(calls))
		return battery.Round{Clients: len(calls), Client: func(i int) {
			tl.Do(i, tasks[i], func() { t, err := calls[i].run(e.Ctx); got[i] = RaceResult[T]{t, err} })
		}, Judge: func() bool {
			off := 0
			for _, in := range insts {
				n := len(in.calls)
				if !judge(in, got[off:off+n]) {
					return false
				}
				off += n
			}
			return true
		}}
	})
}
