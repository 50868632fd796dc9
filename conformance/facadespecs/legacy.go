package facadespecs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/conformance/sharedspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Adversarial list wrappers for L-F-LIST-1. Each forwards to the store under test and
// returns rows the facade must still cut down to exactly the caller's visible rows, at
// most Limit. Each records what it returned, so that the spec can judge the facade's
// order against it.

type listRecorder struct {
	mu   sync.Mutex
	last []legacy.Task
}

func (r *listRecorder) set(rows []legacy.Task) []legacy.Task {
	r.mu.Lock()
	r.last = rows
	r.mu.Unlock()
	return rows
}

func (r *listRecorder) get() []legacy.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// scopeIgnoringStore ignores Owner, RequireOwner and Limit, returning every row that
// matches Status: the store L-LIST-4 allows.
type scopeIgnoringStore struct {
	legacy.Store
	rec *listRecorder
}

func (s scopeIgnoringStore) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	rows, err := s.Store.List(ctx, legacy.ListOptions{Status: opts.Status})
	return s.rec.set(rows), err
}

// limitIgnoringStore honours the owner scope but ignores Limit.
type limitIgnoringStore struct {
	legacy.Store
	rec *listRecorder
}

func (s limitIgnoringStore) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	opts.Limit = nil
	rows, err := s.Store.List(ctx, opts)
	return s.rec.set(rows), err
}

// leakyStore answers the store's own List, with every other row of the namespace (other
// owners' rows, other statuses) mixed in between: a pushdown that leaks.
type leakyStore struct {
	legacy.Store
	rec *listRecorder
}

func (s leakyStore) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	good, err := s.Store.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	all, err := s.Store.List(ctx, legacy.ListOptions{})
	if err != nil {
		return nil, err
	}
	in := battery.RowIDs(good, nil)
	var extra []legacy.Task
	for _, r := range all {
		if !in[r.ID()] {
			extra = append(extra, r)
		}
	}
	var out []legacy.Task
	for i := 0; i < len(good) || i < len(extra); i++ {
		if i < len(extra) {
			out = append(out, extra[i])
		}
		if i < len(good) {
			out = append(out, good[i])
		}
	}
	return s.rec.set(out), nil
}

func Legacy(s *battery.Suite) {
	s.It("L-F-CREATE-1", "stamps meta.owner over a supplied one when given an owner, and passes meta unchanged without", func(e *battery.Env) {
		st := e.Legacy()
		fac := battery.LegacyFacade(e, st, false)
		cases := []struct {
			meta, want legacy.Task
			owner      string
		}{
			{legacy.Task{"owner": "mallory", "x": json.Number("1")}, legacy.Task{"owner": "alice", "x": json.Number("1")}, "alice"},
			{legacy.Task{"x": json.Number("1")}, legacy.Task{"owner": "Alice ", "x": json.Number("1")}, "Alice "},
			{nil, legacy.Task{"owner": "carol"}, "carol"},
			{legacy.Task{"owner": "bob", "x": json.Number("1")}, legacy.Task{"owner": "bob", "x": json.Number("1")}, ""},
			{legacy.Task{"owner": nil}, legacy.Task{"owner": nil}, ""},
			{legacy.Task{"x": json.Number("1")}, legacy.Task{"x": json.Number("1")}, ""},
		}
		for _, form := range ownerForms(fac) {
			for _, c := range cases {
				if form.skips(c.owner != "") {
					continue
				}
				id := e.ID("fcreate")
				input := fmt.Sprintf("facade Create(%s, %s, owner %q%s)", battery.Literal(id), battery.Literal(c.meta), c.owner, form.note())
				got, err := form.fac.Create(e.Ctx, id, c.meta, c.owner)
				if !e.CheckErr(err, nil, input) {
					continue
				}
				created, _ := got.CreatedAt()
				want := legacy.Stamp(id, c.want, created)
				battery.CheckTask(e, input+" returned", want, got)
				battery.CheckStored(e, st, id, want, input)
			}
		}
	})

	s.It("L-F-SCOPE-1", "facade Get, Cancel and List apply the truth table over the store and over its fallbacks; a denied Cancel writes nothing", func(e *battery.Env) {
		for _, st := range facadeStores(e) {
			for _, ro := range []bool{false, true} {
				sharedspecs.OwnerGetTable(e, st, ro, false)
				sharedspecs.OwnerCancelTable(e, st, ro, false)
				sharedspecs.OwnerListTable(e, st, ro)
			}
		}
	})

	s.It("L-F-SCOPE-1", "facade Cancel of a completed, failed or cancelled task applies the truth table before finality: a denied caller gets the answer for a missing id and writes nothing, an admitted one gets past the owner check", func(e *battery.Env) {
		for _, st := range facadeStores(e) {
			for _, ro := range []bool{false, true} {
				legacyFinishedScope(e, st, ro)
			}
		}
	})

	s.It("L-F-LIST-1", "facade List re-checks every row and applies Limit itself over stores that ignore or leak the scope", func(e *battery.Env) {
		if e.ForeignFacade() {
			foreignFacadeList(e)
			return
		}
		st := e.Legacy()
		const p, q = "flist-p", "flist-q"
		rows, statuses := facadeListRows(e, st, legacy.New(st))
		mine := rows.Ids()
		rec := &listRecorder{}
		wrappers := []struct {
			name  string
			store legacy.Store
		}{
			{"a store that ignores Owner and Limit", scopeIgnoringStore{st, rec}},
			{"a store that ignores Limit", limitIgnoringStore{st, rec}},
			{"a store whose pushdown leaks other owners' and other statuses' rows", leakyStore{st, rec}},
		}
		callers := []reference.Caller{reference.Anonymous(), reference.Principal(p), reference.Principal(q), reference.Principal("flist-nobody"), reference.System()}
		limits := []*int{nil, new(1), new(2), new(4), new(100), new(0), new(-1)}
		for _, w := range wrappers {
			for _, ro := range []bool{false, true} {
				fac := legacy.New(w.store, legacy.WithRequireOwner(ro))
				for _, c := range callers {
					for _, status := range []*string{nil, new("working"), new("completed")} {
						for _, limit := range limits {
							for _, filter := range ownerFilters(c, q) {
								opts := legacy.ListOptions{Status: status, Limit: limit, Owner: filter}
								input := fmt.Sprintf("facade List(%s, %s) with %s over %s", battery.ShowOpts(opts), c, battery.SettingName(ro), w.name)
								rec.set(nil)
								got, err := fac.List(e.Ctx, opts, c)
								if !e.CheckErr(err, nil, input) {
									continue
								}
								// The facade's answer: the store's rows the caller may see and
								// that match Status, in the store's order, cut at Limit.
								var want []string
								for _, r := range rec.get() {
									if limit != nil && len(want) >= *limit {
										break
									}
									if (status == nil || battery.StatusOf(r) == *status) && model.Visible(battery.RowOwner(r), c, ro) {
										want = append(want, r.ID())
									}
								}
								if limit != nil && *limit <= 0 {
									want = nil
								}
								var gotIDs []string
								for _, r := range got {
									gotIDs = append(gotIDs, r.ID())
								}
								if strings.Join(gotIDs, "\x00") != strings.Join(want, "\x00") {
									e.Check(false, input, fmt.Sprintf("the store's rows the caller may see, in the store's order, at most the limit: %q", want), fmt.Sprintf("%q", gotIDs))
									continue
								}
								// And against this spec's own rows: nothing foreign, nothing starved.
								visible := 0
								for id, owner := range rows {
									if (status == nil || statuses[id] == *status) && model.Visible(owner, c, ro) {
										visible++
									}
								}
								n := len(battery.RowIDs(got, mine))
								if limit == nil {
									e.Check(n == visible, input, fmt.Sprintf("all %d of this spec's tasks the caller may see", visible), fmt.Sprintf("%d", n))
								} else if *limit > 0 {
									e.Check(len(got) >= min(*limit, visible), input, fmt.Sprintf("at least %d rows", min(*limit, visible)), fmt.Sprintf("%d", len(got)))
								}
							}
						}
					}
				}
			}
		}
	})

	s.It("L-F-CANCEL-1", "facade Cancel uses the store's Cancel when the store has one", func(e *battery.Env) {
		if e.ForeignFacade() {
			foreignFacadeCancel(e)
			return
		}
		st := e.Legacy()
		c := battery.RequireCanceler(st)
		log := &callLog{}
		base := cancelRecorder{recordingStore{st, log}, c}
		stores := []struct {
			name  string
			store legacy.Store
		}{{"a store with Cancel", base}}
		if cu, ok := st.(legacy.ConditionalUpdater); ok {
			stores = append(stores, struct {
				name  string
				store legacy.Store
			}{"a store with Cancel and UpdateIf", cancelCondRecorder{base, cu}})
		}
		for _, w := range stores {
			fac := legacy.New(w.store)
			id := e.ID("fcancel")
			battery.MustCreate(e, st, id, legacy.Task{"job": "queued"})
			input := fmt.Sprintf("facade Cancel(%s, system) over %s", battery.Literal(id), w.name)
			checkCancel(e, st, fac, id, input)
			e.Check(log.Has(fmt.Sprintf("Cancel(%q)", id)), input, "a call of the store's Cancel("+battery.Literal(id)+")", fmt.Sprintf("store calls %q", log.All()))
		}
	})

	s.It("L-F-CANCEL-1", "facade Cancel falls back to Update(id, {status: cancelled}) for a store without Cancel", func(e *battery.Env) {
		e.ReferenceFacadeOnly("the fallback to Update over a store without Cancel")
		st := e.Legacy()
		log := &callLog{}
		fac := legacy.New(recordingStore{st, log})
		id := e.ID("fallback")
		battery.MustCreate(e, st, id, legacy.Task{"job": "queued", "n": json.Number("1")})
		input := fmt.Sprintf("facade Cancel(%s, system) over the store without its optional interfaces", battery.Literal(id))
		checkCancel(e, st, fac, id, input)
		call := fmt.Sprintf("Update(%q, %s)", id, `{"status":"cancelled"}`)
		e.Check(log.Has(call), input, "the store call "+call, fmt.Sprintf("store calls %q", log.All()))
		checkCancelMissing(e, st, fac, "facade Cancel(%s, system) of a missing id, without store Cancel")
	})

	s.It("L-F-FIN-1", "facade refuses status changes of terminal tasks with ErrTerminal and unknown statuses with ErrInvalidTransition, writing nothing", func(e *battery.Env) {
		for _, st := range facadeStores(e) {
			fac := battery.LegacyFacade(e, st, false)
			over := "the store"
			if e.ForeignFacade() {
				over = "the store's own facade"
			}
			if _, plain := st.(battery.PlainStore); plain {
				over = "the store without its optional interfaces"
			}
			statuses := append(reference.Statuses(), "bogus", "Completed", "")
			for _, from := range reference.Statuses() {
				for _, to := range statuses {
					if from == to && from.Terminal() {
						continue // not a change of status
					}
					id := e.ID("fin")
					battery.MustCreate(e, st, id, legacy.Task{"job": "j"})
					if from != reference.StatusWorking {
						if _, err := fac.Update(e.Ctx, id, legacy.Task{legacy.KeyStatus: string(from)}); err != nil {
							e.Fatalf("setup: facade Update(%q, {status: %q}) of a working task over %s: %s", id, from, over, battery.DescribeErr(err))
						}
					}
					before, _ := battery.Stored(e, st, id)
					changes := legacy.Task{legacy.KeyStatus: string(to), "result": "r"}
					input := fmt.Sprintf("facade Update(%s, %s) of a %s task over %s", battery.Literal(id), battery.Literal(changes), from, over)
					got, err := fac.Update(e.Ctx, id, changes)
					switch {
					case from.Terminal():
						e.CheckErr(err, reference.ErrTerminal, input)
						battery.CheckStored(e, st, id, before, input+" (refused: nothing written)")
					case !to.Known():
						e.CheckErr(err, reference.ErrInvalidTransition, input)
						battery.CheckStored(e, st, id, before, input+" (refused: nothing written)")
					default:
						want := legacy.Merge(before, changes)
						if e.CheckErr(err, nil, input+": the transition table allows it") {
							battery.CheckTask(e, input+" returned", want, got)
						}
						battery.CheckStored(e, st, id, want, input)
					}
				}
				if !from.Terminal() {
					continue
				}
				// Cancel of a terminal task is refused; a write without status is not checked.
				id := e.ID("fin")
				battery.MustCreate(e, st, id, legacy.Task{"job": "j"})
				if _, err := fac.Update(e.Ctx, id, legacy.Task{legacy.KeyStatus: string(from)}); err != nil {
					e.Fatalf("setup: facade Update(%q, {status: %q}) over %s: %s", id, from, over, battery.DescribeErr(err))
				}
				before, _ := battery.Stored(e, st, id)
				input := fmt.Sprintf("facade Cancel(%s, system) of a %s task over %s", battery.Literal(id), from, over)
				_, err := fac.Cancel(e.Ctx, id, reference.System())
				e.CheckErr(err, reference.ErrTerminal, input)
				battery.CheckStored(e, st, id, before, input+" (refused: nothing written)")
				changes := legacy.Task{"note": "after the end"}
				input = fmt.Sprintf("facade Update(%s, %s) without status of a %s task over %s", battery.Literal(id), battery.Literal(changes), from, over)
				_, err = fac.Update(e.Ctx, id, changes)
				e.CheckErr(err, nil, input)
				battery.CheckStored(e, st, id, legacy.Merge(before, changes), input)
			}
		}
	})

	s.It("L-F-FIN-2", "the store's UpdateIf is atomic: it applies only while the status is allowed, else ErrConflict and nothing written", func(e *battery.Env) {
		e.ReferenceFacadeOnly("UpdateIf is how storecheck's reference facade keeps finality under races")
		st := e.Legacy()
		cu := battery.RequireConditional(st)
		live := []reference.Status{reference.StatusWorking, reference.StatusInputRequired}
		id := e.ID("cas")
		cur := battery.MustCreate(e, st, id, legacy.Task{"a": json.Number("1")})
		changes := legacy.Task{"b": json.Number("2")}
		input := fmt.Sprintf("UpdateIf(%s, %v, %s) of a working task", battery.Literal(id), live, battery.Literal(changes))
		got, err := cu.UpdateIf(e.Ctx, id, live, changes)
		want := legacy.Merge(cur, changes)
		if e.CheckErr(err, nil, input) {
			battery.CheckTask(e, input+" returned", want, got)
		}
		battery.CheckStored(e, st, id, want, input)

		cur = battery.MustStatus(e, st, id, "completed")
		changes = legacy.Task{legacy.KeyStatus: "cancelled"}
		input = fmt.Sprintf("UpdateIf(%s, %v, %s) of a completed task", battery.Literal(id), live, battery.Literal(changes))
		_, err = cu.UpdateIf(e.Ctx, id, live, changes)
		e.CheckErr(err, reference.ErrConflict, input)
		battery.CheckStored(e, st, id, cur, input+" (refused: nothing written)")

		// A task whose status is null counts as working.
		nul := e.ID("cas-null")
		battery.MustCreate(e, st, nul, legacy.Task{})
		cur = battery.MustUpdate(e, st, nul, legacy.Task{legacy.KeyStatus: nil})
		changes = legacy.Task{"c": true}
		input = fmt.Sprintf("UpdateIf(%s, [working], %s) of a task whose status is null", battery.Literal(nul), battery.Literal(changes))
		_, err = cu.UpdateIf(e.Ctx, nul, []reference.Status{reference.StatusWorking}, changes)
		e.CheckErr(err, nil, input)
		battery.CheckStored(e, st, nul, legacy.Merge(cur, changes), input)
		input = fmt.Sprintf("UpdateIf(%s, [completed], %s) of a task whose status is null", battery.Literal(nul), battery.Literal(changes))
		before, _ := battery.Stored(e, st, nul)
		_, err = cu.UpdateIf(e.Ctx, nul, []reference.Status{reference.StatusCompleted}, legacy.Task{"d": true})
		e.CheckErr(err, reference.ErrConflict, input)
		battery.CheckStored(e, st, nul, before, input+" (refused: nothing written)")

		missing := e.ID("missing")
		input = fmt.Sprintf("UpdateIf(%s, %v, {}) of a missing id", battery.Literal(missing), live)
		_, err = cu.UpdateIf(e.Ctx, missing, live, legacy.Task{"a": true})
		e.CheckErr(err, reference.ErrNotFound, input)
		battery.CheckGone(e, st, missing, input)

		// Racing claims: of 8 UpdateIf(working -> completed) exactly one wins.
		racers, rounds := e.RaceClients(), e.RaceRounds()
		meter := e.Meter()
		defer meter.Done()
		for r := range meter.Rounds(rounds) {
			// Two tasks per round; each racer claims both, half of them in the other order.
			ids := []string{e.ID("claim"), e.ID("claim")}
			for _, id := range ids {
				battery.MustCreate(e, st, id, legacy.Task{})
			}
			var mu sync.Mutex
			wins := make([][]int, len(ids))
			tl := battery.NewTimeline()
			battery.Together(racers, func(i int) {
				for k := range ids {
					j := (k + i) % len(ids)
					var err error
					tl.Do(i, ids[j], func() {
						_, err = cu.UpdateIf(e.Ctx, ids[j], live, legacy.Task{legacy.KeyStatus: "completed", "winner": json.Number(fmt.Sprint(i))})
					})
					if err == nil {
						mu.Lock()
						wins[j] = append(wins[j], i)
						mu.Unlock()
					}
				}
			})
			meter.Add(tl.Take())
			for j, id := range ids {
				if !e.Check(len(wins[j]) == 1, fmt.Sprintf("%d concurrent UpdateIf(%s, %v, {status: completed, winner: i}) (round %d)", racers, battery.Literal(id), live, r),
					"exactly one success", fmt.Sprintf("%d successes: %v\n  %s", len(wins[j]), wins[j], e.Rerun())) {
					return
				}
			}
		}
	})

	s.It("L-F-FIN-2", "a facade Cancel racing a completion leaves exactly one terminal status", func(e *battery.Env) {
		st := e.Legacy()
		if _, ok := st.(legacy.ConditionalUpdater); !ok && !e.ForeignFacade() {
			e.Errorf("the store does not implement legacy.ConditionalUpdater: the facade's status check and write are two steps, so a racing Cancel and completion can both succeed")
		}
		fac := battery.LegacyFacade(e, st, false)
		clients, rounds := e.RaceClients(), e.RaceRounds()
		meter := e.Meter()
		defer meter.Done()
		for r := range meter.Rounds(rounds) {
			id := e.ID("race")
			battery.MustCreate(e, st, id, legacy.Task{})
			// Half the clients cancel, half complete (each with its own result): the
			// first terminal write wins, every other call answers ErrTerminal.
			errs := make([]error, clients)
			tl := battery.NewTimeline()
			battery.Together(clients, func(i int) {
				tl.Do(i, id, func() {
					if i%2 == 0 {
						_, errs[i] = fac.Cancel(e.Ctx, id, reference.System())
					} else {
						_, errs[i] = fac.Update(e.Ctx, id, legacy.Task{legacy.KeyStatus: "completed", "result": json.Number(fmt.Sprint(i))})
					}
				})
			})
			meter.Add(tl.Take())
			got, _ := battery.Stored(e, st, id)
			input := fmt.Sprintf("round %d: %d facade Cancel(%s) released together with %d facade Update(%s, {status: completed, result: N})", r, (clients+1)/2, battery.Literal(id), clients/2, battery.Literal(id))
			winner, wins := -1, 0
			var answers []string
			ok := true
			for i, err := range errs {
				answers = append(answers, fmt.Sprintf("%d: %s", i, battery.Outcome(err)))
				switch {
				case err == nil:
					winner, wins = i, wins+1
				case !errors.Is(err, reference.ErrTerminal):
					ok = false
				}
			}
			switch {
			case wins != 1:
				ok = false
			case winner%2 == 0:
				ok = ok && battery.StatusOf(got) == "cancelled" && got["result"] == nil
			default:
				ok = ok && battery.StatusOf(got) == "completed" && legacy.Equal(legacy.Task{"r": got["result"]}, legacy.Task{"r": json.Number(fmt.Sprint(winner))})
			}
			if !e.Check(ok, input, "exactly one call succeeds, every other answers ErrTerminal, and the task holds the winner's status (and result)",
				fmt.Sprintf("answers %v; task: %s\n  %s", answers, battery.Show(got), e.Rerun())) {
				break
			}
		}
	})

	s.It("L-F-CLEAN-1", "facade Cleanup uses the store's Cleanup and returns its count", func(e *battery.Env) {
		if e.ForeignFacade() {
			foreignFacadeCleanup(e)
			return
		}
		st := e.Legacy()
		cl := battery.RequireCleaner(st)
		log := &callLog{}
		fac := legacy.New(cleanRecorder{recordingStore{st, log}, cl})
		id := e.ID("fclean")
		battery.MustCreate(e, st, id, legacy.Task{})
		battery.MustStatus(e, st, id, "completed")
		e.Age(50*time.Millisecond, 50*time.Millisecond)
		input := "facade Cleanup(10ms) over a store with Cleanup"
		n, err := fac.Cleanup(e.Ctx, 10*time.Millisecond)
		if e.CheckErr(err, nil, input) {
			call := fmt.Sprintf("Cleanup(10ms) = %d, <nil>", n)
			e.Check(log.Has(call), input, "the store's Cleanup called, and its count returned: "+call, fmt.Sprintf("store calls %q", log.All()))
			e.Check(n >= 1, input, "at least the one old completed task removed", fmt.Sprint(n))
		}
		battery.CheckGone(e, st, id, input)
	})

	s.It("L-F-CLEAN-1", "facade Cleanup returns 0 and removes nothing for a store without Cleanup", func(e *battery.Env) {
		e.ReferenceFacadeOnly("the answer 0 over a store without Cleanup")
		st := e.Legacy()
		fac := legacy.New(battery.PlainStore{Store: st})
		id := e.ID("fclean")
		battery.MustCreate(e, st, id, legacy.Task{})
		want := battery.MustStatus(e, st, id, "completed")
		e.Age(time.Hour, 10*time.Millisecond)
		input := "facade Cleanup(1ms) over a store without Cleanup"
		n, err := fac.Cleanup(e.Ctx, time.Millisecond)
		if e.CheckErr(err, nil, input) {
			e.Check(n == 0, input, "0", fmt.Sprint(n))
		}
		battery.CheckStored(e, st, id, want, input)
	})
}

// callLog records the calls a wrapper saw, for specs that check which store method the
// facade used.
type callLog struct{ battery.Lines }

// Has reports whether a call starting with prefix was made.
func (l *callLog) Has(prefix string) bool {
	for _, c := range l.All() {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// recordingStore forwards the five required methods and logs the writes. It hides the
// optional interfaces; cancelRecorder and cleanRecorder add them back one at a time.
type recordingStore struct {
	legacy.Store
	log *callLog
}

func (r recordingStore) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	r.log.Add("Update(%q, %s)", id, battery.Show(changes))
	return r.Store.Update(ctx, id, changes)
}

// cancelRecorder is a recordingStore with the inner store's Cancel.
type cancelRecorder struct {
	recordingStore
	c legacy.Canceler
}

func (r cancelRecorder) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	r.log.Add("Cancel(%q)", id)
	return r.c.Cancel(ctx, id)
}

// cancelCondRecorder is a cancelRecorder with the inner store's UpdateIf as well: the
// facade then claims the task with UpdateIf and calls Cancel for its side effects.
type cancelCondRecorder struct {
	cancelRecorder
	cu legacy.ConditionalUpdater
}

func (r cancelCondRecorder) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	r.log.Add("UpdateIf(%q, %v, %s)", id, allowed, battery.Show(changes))
	return r.cu.UpdateIf(ctx, id, allowed, changes)
}

// cleanRecorder is a recordingStore with the inner store's Cleanup; it logs the count
// the store returned, so that a spec can compare it with the facade's.
type cleanRecorder struct {
	recordingStore
	c legacy.Cleaner
}

func (r cleanRecorder) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	n, err := r.c.Cleanup(ctx, ttl)
	r.log.Add("Cleanup(%v) = %d, %v", ttl, n, err)
	return n, err
}
