package property

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"pgregory.net/rapid"
)

func LegacyStateMachine(s *battery.Suite) { machineSpec(s, "legacy", newLegacyMachine) }

// legacyMachine is one rapid case: random store and facade operations on one legacy
// store, each checked against model.Legacy, and the whole state compared after every
// step.
type legacyMachine struct {
	ctx    context.Context
	st     legacy.Store
	canc   legacy.Canceler
	clean  legacy.Cleaner
	cu     legacy.ConditionalUpdater
	fac    [2]*legacy.Tasks // require_owner off, on
	clock  *reference.ManualClock
	m      *model.Legacy
	prefix string
	ids    []string
	bad    []string
	caseLog
}

// RunLegacyMachine runs the legacy state machine for checks cases. trace, when set,
// receives every step of every case with the id prefix scrubbed (B-REPRO-1).
func RunLegacyMachine(e *battery.Env, checks int, trace func(string)) RapidRun {
	return newLegacyMachine(e, checks, trace, false, false)
}

// newLegacyMachine is RunLegacyMachine; with validOnly its cases never draw an invalid id, and
// timed keeps it inside the spec's time (runRapid).
func newLegacyMachine(e *battery.Env, checks int, trace func(string), validOnly, timed bool) RapidRun {
	st := e.Legacy()
	var clock *reference.ManualClock
	if e.HasClock() {
		clock = e.ManualClock()
	}
	seed := subSeed(e.RunSeed(), "legacy-machine")
	return runRapid("storecheck-legacy-machine", seed, checks, specTime(e, timed), func(t *rapid.T) {
		if clock != nil {
			// Every case starts at Epoch, so that a replay (while shrinking, or under
			// B-REPRO-1) sees the same times.
			clock.Set(battery.Epoch)
		}
		lm := &legacyMachine{ctx: e.Ctx, st: st, clock: clock, m: model.NewLegacy(), caseLog: caseLog{trace: trace, last: "S-CONC-1"}}
		lm.scrub = func(s string) string { return scrub(s, lm.prefix) }
		lm.canc, _ = st.(legacy.Canceler)
		lm.clean, _ = st.(legacy.Cleaner)
		lm.cu, _ = st.(legacy.ConditionalUpdater)
		lm.fac = [2]*legacy.Tasks{legacy.New(st), legacy.New(st, legacy.WithRequireOwner(true))}
		lm.prefix = fixedPrefix(e.ID("lsm"))
		lm.ids, lm.bad = idPool(lm.prefix)
		if validOnly {
			lm.bad = nil
		}
		if trace != nil {
			trace("case")
		}
		t.Cleanup(func() {
			// Invalid ids too: a store that wrongly took one (Create("")) must not
			// carry it into the next case, or replays of one case differ.
			for _, id := range append(lm.ids, lm.bad...) {
				_ = st.Delete(context.WithoutCancel(e.Ctx), id)
			}
		})
		t.Repeat(lm.actions())
	})
}

func (lm *legacyMachine) actions() map[string]func(*rapid.T) {
	a := map[string]func(*rapid.T){
		"":        lm.check,
		"Create":  lm.create,
		"Get":     lm.get,
		"Update":  lm.update,
		"Delete":  lm.delete,
		"List":    lm.list,
		"FCreate": lm.fCreate,
		"FGet":    lm.fGet,
		"FUpdate": lm.fUpdate,
		"FCancel": lm.fCancel,
		"FList":   lm.fList,
		"FClean":  lm.fCleanup,
	}
	if lm.canc != nil {
		a["Cancel"] = lm.cancel
	}
	if lm.clean != nil {
		a["Cleanup"] = lm.cleanup
	}
	if lm.cu != nil {
		a["UpdateIf"] = lm.updateIf
	}
	if lm.clock != nil {
		a["Clock"] = lm.moveClock
	}
	return a
}

// drawID picks an id that exists two times in three, else one of the pool (which
// may exist, or be invalid).
func (lm *legacyMachine) drawID(t *rapid.T) string {
	if ids := lm.m.IDs(); len(ids) > 0 && rapid.IntRange(0, 2).Draw(t, "existing id?") > 0 {
		return rapid.SampledFrom(ids).Draw(t, "existing id")
	}
	return drawID(t, lm.ids, lm.bad)
}

func (lm *legacyMachine) ours(id string) bool {
	return len(id) >= len(lm.prefix) && id[:len(lm.prefix)] == lm.prefix
}

// now is the store's time in milliseconds when the battery controls the clock.
func (lm *legacyMachine) now() int64 {
	if lm.clock != nil {
		return lm.clock.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// createdAt is the created_at the model stamps: the battery's clock, or without clock
// control the store's own if it lies within the call (else the call's start, which
// then fails the comparison).
func (lm *legacyMachine) createdAt(got legacy.Task, before, after int64) int64 {
	if lm.clock != nil {
		return before
	}
	if n, ok := got[legacy.KeyCreatedAt].(json.Number); ok {
		if v, err := n.Int64(); err == nil && v >= before && v <= after {
			return v
		}
	}
	return before
}

// judge compares a call's outcome with the model's. An invalid id (S-ID-2) may be
// answered ErrNotFound or ErrInvalid by any call but Create.
func (lm *legacyMachine) judge(t *rapid.T, rule, input, id string, want legacy.Task, wantErr error, got legacy.Task, gotErr error) {
	if !model.ValidID(id) {
		if wantErr != nil && refusedInvalid(id, gotErr) {
			return
		}
		rule = "S-ID-2"
	}
	switch {
	case !model.SameKind(wantErr, gotErr):
		lm.fatal(t, rule, input, errWant(wantErr, want), errGot(gotErr, got))
	case wantErr == nil && !legacy.Equal(want, got):
		lm.fatal(t, rule, input, want, got)
	}
}

func errWant(err error, v any) any {
	if err != nil {
		return "an error wrapping " + battery.DescribeErr(model.Kind(err))
	}
	return v
}

func errGot(err error, v any) any {
	if err != nil {
		return err
	}
	return v
}

func drawMeta(t *rapid.T) legacy.Task {
	meta := legacy.Task(drawObject(t, 0, 3))
	switch rapid.IntRange(0, 3).Draw(t, "owner in meta") {
	case 1:
		meta[legacy.KeyOwner] = drawOwner(t)
	case 2:
		meta[legacy.KeyOwner] = nil
	}
	if rapid.IntRange(0, 4).Draw(t, "framework keys in meta") == 4 {
		// Create must override these (L-CREATE-1).
		meta[legacy.KeyStatus] = "completed"
		meta[legacy.KeyCreatedAt] = json.Number("5")
		meta[legacy.KeyTaskID] = "not-the-id"
	}
	return meta
}

func drawChanges(t *rapid.T) legacy.Task {
	c := legacy.Task(drawObject(t, 1, 3))
	if rapid.Bool().Draw(t, "status change?") {
		c[legacy.KeyStatus] = string(rapid.SampledFrom(statuses()).Draw(t, "status"))
	}
	if rapid.IntRange(0, 5).Draw(t, "owner change?") == 5 {
		c[legacy.KeyOwner] = drawOwner(t)
	}
	return c
}

func (lm *legacyMachine) create(t *rapid.T) {
	id := drawID(t, lm.ids, lm.bad)
	meta := drawMeta(t)
	lm.createStep(t, "L-CREATE-1", id, fmt.Sprintf("Create(%q, %s)", id, battery.Literal(meta)), meta,
		func() (legacy.Task, error) { return lm.st.Create(lm.ctx, id, meta) },
		func(now int64) (legacy.Task, error) { return lm.m.Create(id, meta, now) })
}

// createStep makes a Create of id (run, described by call) and judges it under rule
// against the model's (sim, at the created_at the store stamped). An overwrite of an
// existing id is allowed, L-CREATE-2 being a SHOULD (its own spec warns), but only with
// exactly the new task, meta as stored (L-CREATE-3).
func (lm *legacyMachine) createStep(t *rapid.T, rule, id, call string, meta legacy.Task, run func() (legacy.Task, error), sim func(now int64) (legacy.Task, error)) {
	before := lm.now()
	got, err := run()
	in := lm.step(t, rule, "%s -> %s", call, battery.Outcome(err))
	now := lm.createdAt(got, before, lm.now())
	want, wantErr := sim(now)
	if errors.Is(wantErr, reference.ErrExists) && err == nil {
		want = model.Stamped(id, meta, now)
		if !legacy.Equal(want, got) {
			lm.fatal(t, "L-CREATE-3", in, want, got)
		}
		lm.m.Put(id, want)
		return
	}
	lm.judge(t, rule, in, id, want, wantErr, got, err)
}

func (lm *legacyMachine) get(t *rapid.T) { lm.byID(t, "L-GET-1", "Get", lm.st.Get, lm.m.Get) }

// byID makes the store call op (run) of a drawn id and judges it under rule against the
// model's twin (sim).
func (lm *legacyMachine) byID(t *rapid.T, rule, op string, run func(context.Context, string) (legacy.Task, error), sim func(string) (legacy.Task, error)) {
	id := lm.drawID(t)
	got, err := run(lm.ctx, id)
	in := lm.step(t, rule, "%s(%q) -> %s", op, id, battery.Outcome(err))
	want, wantErr := sim(id)
	lm.judge(t, rule, in, id, want, wantErr, got, err)
}

func (lm *legacyMachine) update(t *rapid.T) {
	id := lm.drawID(t)
	changes := drawChanges(t)
	got, err := lm.st.Update(lm.ctx, id, changes)
	in := lm.step(t, "L-UPDATE-1", "Update(%q, %s) -> %s", id, battery.Literal(changes), battery.Outcome(err))
	want, wantErr := lm.m.Update(id, changes)
	rule := "L-UPDATE-1"
	if wantErr != nil {
		rule = "L-UPDATE-2"
	}
	lm.judge(t, rule, in, id, want, wantErr, got, err)
}

func (lm *legacyMachine) updateIf(t *rapid.T) {
	id := lm.drawID(t)
	allowed := rapid.SliceOfNDistinct(rapid.SampledFrom(statuses()), 0, 3, rapid.ID[reference.Status]).Draw(t, "allowed")
	changes := drawChanges(t)
	got, err := lm.cu.UpdateIf(lm.ctx, id, allowed, changes)
	in := lm.step(t, "L-F-FIN-2", "UpdateIf(%q, %v, %s) -> %s", id, allowed, battery.Literal(changes), battery.Outcome(err))
	want, wantErr := lm.m.UpdateIf(id, allowed, changes)
	lm.judge(t, "L-F-FIN-2", in, id, want, wantErr, got, err)
}

func (lm *legacyMachine) delete(t *rapid.T) {
	id := lm.drawID(t)
	err := lm.st.Delete(lm.ctx, id)
	lm.m.Delete(id)
	lm.deleted(t, "L-DELETE-1", fmt.Sprintf("%q", id), id, err)
}

func (lm *legacyMachine) cancel(t *rapid.T) {
	lm.byID(t, "L-CANCEL-1", "Cancel", lm.canc.Cancel, lm.m.Cancel)
}

var ttls = []time.Duration{0, time.Millisecond, 999 * time.Millisecond, time.Second, time.Minute, time.Hour}

func (lm *legacyMachine) drawTTL(t *rapid.T) time.Duration {
	if lm.clock == nil {
		return time.Hour // real time moves: only a ttl nothing reaches is predictable
	}
	return rapid.SampledFrom(ttls).Draw(t, "ttl")
}

func (lm *legacyMachine) cleanup(t *rapid.T) {
	ttl := lm.drawTTL(t)
	n, err := lm.clean.Cleanup(lm.ctx, ttl)
	in := lm.step(t, "L-CLEAN-1", "Cleanup(%v) -> %s", ttl, battery.Outcome(err))
	gone := lm.m.Cleanup(ttl, lm.now())
	if err != nil {
		lm.fatal(t, "L-CLEAN-1", in, "success", err)
	}
	// The namespace may hold rows of other cases' leftovers, never fewer (B-ISO-1); which
	// rows went is checked by the state comparison after this step.
	if n < len(gone) {
		lm.fatal(t, "L-CLEAN-1", in, fmt.Sprintf("at least %d removed (%q)", len(gone), gone), n)
	}
}

func (lm *legacyMachine) drawListOptions(t *rapid.T) legacy.ListOptions {
	var o legacy.ListOptions
	if rapid.Bool().Draw(t, "status filter?") {
		o.Status = new(rapid.SampledFrom(statusNames).Draw(t, "status filter"))
	}
	if rapid.Bool().Draw(t, "limit?") {
		o.Limit = new(rapid.SampledFrom([]int{1, 2, 0, -1, 3, 10}).Draw(t, "limit"))
	}
	switch rapid.IntRange(0, 2).Draw(t, "scope") {
	case 1:
		o.Owner = legacy.AnonymousOwner()
	case 2:
		o.Owner = legacy.PrincipalOwner(drawOwner(t))
	}
	o.RequireOwner = rapid.Bool().Draw(t, "require owner")
	return o
}

func describeList(o legacy.ListOptions) string {
	s := "{"
	if o.Status != nil {
		s += fmt.Sprintf("Status: %q, ", *o.Status)
	}
	if o.Limit != nil {
		s += fmt.Sprintf("Limit: %d, ", *o.Limit)
	}
	return s + fmt.Sprintf("Owner: %s, RequireOwner: %v}", o.Owner, o.RequireOwner)
}

func (lm *legacyMachine) list(t *rapid.T) {
	o := lm.drawListOptions(t)
	rows, err := lm.st.List(lm.ctx, o)
	sortRows(rows)
	in := lm.step(t, "L-LIST-1", "List(%s) -> %s", describeList(o), battery.Outcome(err))
	if err != nil {
		lm.fatal(t, "L-LIST-1", in, "success", err)
	}
	if rule, why := lm.m.CheckList(o, rows, lm.ours); why != nil {
		lm.fatal(t, rule, in, "rows as the model has them", fmt.Sprintf("%v; rows: %s", why, battery.Show(rows)))
	}
}

func (lm *legacyMachine) drawFacade(t *rapid.T) (*legacy.Tasks, bool) {
	ro := rapid.IntRange(0, 3).Draw(t, "require_owner facade?") == 3
	if ro {
		return lm.fac[1], true
	}
	return lm.fac[0], false
}

func (lm *legacyMachine) fCreate(t *rapid.T) {
	id := drawID(t, lm.ids, lm.bad)
	meta := drawMeta(t)
	owner := ""
	if rapid.Bool().Draw(t, "owner?") {
		owner = drawOwner(t)
	}
	stored := legacy.Task(jsonvalue.CloneObject(meta))
	if owner != "" {
		stored[legacy.KeyOwner] = owner
	}
	lm.createStep(t, "L-F-CREATE-1", id, fmt.Sprintf("Tasks.Create(%q, %s, %q)", id, battery.Literal(meta), owner), stored,
		func() (legacy.Task, error) { return lm.fac[0].Create(lm.ctx, id, meta, owner) },
		func(now int64) (legacy.Task, error) { return lm.m.FacadeCreate(id, meta, owner, now) })
}

func (lm *legacyMachine) fGet(t *rapid.T) {
	lm.scoped(t, "S-OWN-1", "Get", (*legacy.Tasks).Get, lm.m.FacadeGet, nil)
}

// scoped makes the call op (run) of a drawn id, as a drawn caller, through a drawn facade
// and judges it against the model's twin (sim) under rule, or under the rule refine
// gives for the model's error when set; a not-found answer must not tell (S-OWN-2).
func (lm *legacyMachine) scoped(t *rapid.T, rule, op string, run func(*legacy.Tasks, context.Context, string, reference.Caller) (legacy.Task, error),
	sim func(id string, c reference.Caller, ro bool) (legacy.Task, error), refine func(id string, wantErr error) string) {
	id := lm.drawID(t)
	c := drawCaller(t)
	f, ro := lm.drawFacade(t)
	got, err := run(f, lm.ctx, id, c)
	in := lm.step(t, rule, "Tasks[require_owner=%v].%s(%q, %s) -> %s", ro, op, id, c, battery.Outcome(err))
	want, wantErr := sim(id, c, ro)
	if refine != nil {
		rule = refine(id, wantErr)
	}
	lm.judge(t, rule, in, id, want, wantErr, got, err)
	lm.sameNotFound(t, in, id, err)
}

func (lm *legacyMachine) fUpdate(t *rapid.T) {
	id := lm.drawID(t)
	changes := drawChanges(t)
	if rapid.IntRange(0, 5).Draw(t, "bogus status?") == 5 {
		changes[legacy.KeyStatus] = rapid.SampledFrom([]any{"Working", "done", json.Number("1")}).Draw(t, "bogus status")
	}
	got, err := lm.fac[0].Update(lm.ctx, id, changes)
	in := lm.step(t, "L-F-FIN-1", "Tasks.Update(%q, %s) -> %s", id, battery.Literal(changes), battery.Outcome(err))
	want, wantErr := lm.m.FacadeUpdate(id, changes)
	lm.judge(t, "L-F-FIN-1", in, id, want, wantErr, got, err)
}

func (lm *legacyMachine) fCancel(t *rapid.T) {
	lm.scoped(t, "L-F-CANCEL-1", "Cancel", (*legacy.Tasks).Cancel, lm.m.FacadeCancel, func(id string, wantErr error) string {
		switch {
		case errors.Is(wantErr, reference.ErrNotFound) && model.ValidID(id):
			return "L-F-SCOPE-1"
		case errors.Is(wantErr, reference.ErrTerminal):
			return "L-F-FIN-1"
		}
		return "L-F-CANCEL-1"
	})
}

func (lm *legacyMachine) fList(t *rapid.T) {
	o := lm.drawListOptions(t)
	c := drawCaller(t)
	f, ro := lm.drawFacade(t)
	rows, err := f.List(lm.ctx, o, c)
	sortRows(rows)
	in := lm.step(t, "L-F-LIST-1", "Tasks[require_owner=%v].List(%s, %s) -> %s", ro, describeList(o), c, battery.Outcome(err))
	if err != nil {
		lm.fatal(t, "L-F-LIST-1", in, "success", err)
	}
	if rule, why := lm.m.CheckFList(o, c, ro, rows, lm.ours); why != nil {
		lm.fatal(t, rule, in, "the caller's visible rows as the model has them", fmt.Sprintf("%v; rows: %s", why, battery.Show(rows)))
	}
}

func (lm *legacyMachine) fCleanup(t *rapid.T) {
	ttl := lm.drawTTL(t)
	n, err := lm.fac[0].Cleanup(lm.ctx, ttl)
	in := lm.step(t, "L-F-CLEAN-1", "Tasks.Cleanup(%v) -> %s", ttl, battery.Outcome(err))
	want := lm.m.FacadeCleanup(ttl, lm.now(), lm.clean != nil)
	switch {
	case err != nil:
		lm.fatal(t, "L-F-CLEAN-1", in, "success", err)
	case lm.clean == nil && n != 0:
		lm.fatal(t, "L-F-CLEAN-1", in, 0, n)
	case n < want:
		lm.fatal(t, "L-CLEAN-1", in, fmt.Sprintf("at least %d", want), n)
	}
}

var clockSteps = []time.Duration{time.Millisecond, 0, 999 * time.Millisecond, time.Second, time.Second + time.Millisecond, time.Minute, time.Hour + time.Millisecond}

func (lm *legacyMachine) moveClock(t *rapid.T) {
	d := rapid.SampledFrom(clockSteps).Draw(t, "advance")
	lm.clock.Advance(d)
	lm.step(t, "L-CLEAN-1", "clock += %v", d)
}

// sortRows orders List rows by task id, so that a failure quotes them, and the model
// judges them, the same way on every replay whatever order the store keeps
// (B-REPRO-1).
func sortRows(rows []legacy.Task) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID() < rows[j].ID() })
}

// check compares every valid id of the case with the model after each step.
func (lm *legacyMachine) check(t *rapid.T) {
	gots, errs := readAll(lm.ids, func(id string) (legacy.Task, error) { return lm.st.Get(lm.ctx, id) })
	for i, id := range lm.ids {
		got, err := gots[i], errs[i]
		want, wantErr := lm.m.Get(id)
		if !model.SameKind(wantErr, err) || (err == nil && !legacy.Equal(want, got)) {
			lm.fatal(t, lm.last, fmt.Sprintf("state after step %d: Get(%q)", lm.n, id), errWant(wantErr, want), errGot(err, got))
		}
	}
}
