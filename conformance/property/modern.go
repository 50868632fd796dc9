package property

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
	"pgregory.net/rapid"
)

func ModernStateMachine(s *battery.Suite) { machineSpec(s, "modern", newModernMachine) }

// modernMachine is one rapid case of the modern era: random store and facade operations,
// each checked against model.Modern, the state and the notifications compared after
// every step.
type modernMachine struct {
	ctx        context.Context
	st         modern.Store
	clock      *reference.ManualClock // the battery's, or a frozen one for the facade
	controlled bool                   // the store obeys clock
	fac        [2]*modern.Tasks       // require_owner off, on
	cfg        [2]model.Facade
	m          *model.Modern
	notesMu    sync.Mutex
	notes      []modern.Task
	prefix     string
	ids, bad   []string
	gen        []string          // ids the facade generated
	names      map[string]string // generated id -> F1, F2, ... for traces
	caseLog
}

func RunModernMachine(e *battery.Env, checks int, trace func(string)) RapidRun {
	return newModernMachine(e, checks, trace, false, false)
}

// newModernMachine is RunModernMachine; with validOnly its cases never draw an invalid id, and
// timed keeps it inside the spec's time (runRapid).
func newModernMachine(e *battery.Env, checks int, trace func(string), validOnly, timed bool) RapidRun {
	st := e.Modern()
	clock, controlled := clockOrFrozen(e)
	seed := subSeed(e.RunSeed(), "modern-machine")
	cases := 0
	return runRapid("storecheck-modern-machine", seed, checks, specTime(e, timed), func(t *rapid.T) {
		cases++
		caseNo := cases
		if controlled {
			clock.Set(battery.Epoch) // every case starts at Epoch: replays see the same times
		}
		mm := &modernMachine{ctx: e.Ctx, st: st, clock: clock, controlled: controlled, m: model.NewModern(),
			names: map[string]string{}, caseLog: caseLog{trace: trace, last: "S-CONC-1"}}
		mm.caseLog.scrub = mm.scrub
		mm.prefix = fixedPrefix(e.ID("msm"))
		mm.ids, mm.bad = idPool(mm.prefix)
		if validOnly {
			mm.bad = nil
		}
		ttls := []time.Duration{0, time.Second, time.Hour}
		caps := []time.Duration{0, time.Hour, 2 * time.Second}
		if !controlled {
			ttls, caps = []time.Duration{0, time.Hour}, []time.Duration{0, 2 * time.Hour}
		}
		def := rapid.SampledFrom(ttls).Draw(t, "default ttl")
		maxTTL := rapid.SampledFrom(caps).Draw(t, "max ttl")
		notify := modern.NotifierFunc(func(task modern.Task) {
			mm.notesMu.Lock()
			mm.notes = append(mm.notes, task)
			mm.notesMu.Unlock()
		})
		// The facade's ids are derived from the seed and the case, not random: a store
		// that treats an id by its bytes (one with "_" refused, say) must meet the same
		// ids on every replay of the case (B-REPRO-1). They have GenerateID's form.
		made := 0
		newID := func() string {
			made++
			sum := sha256.Sum256(fmt.Appendf(nil, "%d/%d/%d", seed, caseNo, made))
			return base64.RawURLEncoding.EncodeToString(sum[:16])
		}
		for i, ro := range []bool{false, true} {
			mm.cfg[i] = model.Facade{RequireOwner: ro, DefaultTTL: def, MaxTTL: maxTTL}
			mm.fac[i] = modern.New(modern.Config{Store: st, Notifier: notify, RequireOwner: ro, Clock: clock, DefaultTTL: def, MaxTTL: maxTTL, NewID: newID})
		}
		if trace != nil {
			trace(fmt.Sprintf("case default ttl %v, max ttl %v", def, maxTTL))
		}
		t.Cleanup(func() {
			// Invalid ids too: a store that wrongly took one (Create("")) must not
			// carry it into the next case, or replays of one case differ.
			for _, id := range append(append(mm.ids, mm.gen...), mm.bad...) {
				_ = st.Delete(context.WithoutCancel(e.Ctx), id)
			}
		})
		t.Repeat(mm.actions())
	})
}

// clockOrFrozen is the battery's clock when the store obeys it; otherwise a clock frozen
// at the real now for the facade, so that its timestamps are predictable (such runs
// draw only ttls nothing reaches while they last).
func clockOrFrozen(e *battery.Env) (*reference.ManualClock, bool) {
	if e.HasClock() {
		return e.ManualClock(), true
	}
	return reference.NewManualClock(time.Now()), false
}

func (mm *modernMachine) actions() map[string]func(*rapid.T) {
	a := map[string]func(*rapid.T){
		"":              mm.check,
		"Create":        mm.create,
		"Get":           mm.get,
		"Swap":          mm.swap,
		"Delete":        mm.delete,
		"Sweep":         mm.sweep,
		"FCreate":       mm.fCreate,
		"FGet":          mm.fGet,
		"FStatus":       mm.fStatus,
		"FProgress":     mm.fProgress,
		"FRequireInput": mm.fRequireInput,
		"FUpdate":       mm.fUpdate,
		"FComplete":     mm.fComplete,
		"FFail":         mm.fFail,
		"FCancel":       mm.fCancel,
		"FCancelled":    mm.fCancelled,
	}
	if mm.controlled {
		a["Clock"] = mm.moveClock
	}
	return a
}

func (mm *modernMachine) now() int64 { return mm.clock.Now().UnixMilli() }

func (mm *modernMachine) name(id string) string {
	if n, ok := mm.names[id]; ok {
		return n
	}
	return fmt.Sprintf("%q", id)
}

// scrub writes the case's id prefix as P/ and generated ids by name (F1, ...), so that
// messages and traces are the same on every replay of a case.
func (mm *modernMachine) scrub(s string) string {
	s = scrub(s, mm.prefix)
	for id, n := range mm.names {
		s = strings.ReplaceAll(s, id, n)
	}
	return s
}

func (mm *modernMachine) drawID(t *rapid.T) string {
	if ids := mm.m.IDs(); len(ids) > 0 && rapid.IntRange(0, 2).Draw(t, "existing id?") > 0 {
		// Ordered by what replays share (P/..., F1...), not by the random ids.
		slices.SortFunc(ids, func(a, b string) int { return strings.Compare(mm.scrub(a), mm.scrub(b)) })
		return rapid.SampledFrom(ids).Draw(t, "existing id")
	}
	if len(mm.gen) > 0 && rapid.Bool().Draw(t, "generated id?") {
		return mm.gen[rapid.IntRange(0, len(mm.gen)-1).Draw(t, "generated id")]
	}
	return drawID(t, mm.ids, mm.bad)
}

// judge compares a call's outcome with the model's: the error's kind and the task
// (also the one answered with ErrTerminal or ErrKeyReused).
func (mm *modernMachine) judge(t *rapid.T, rule, input, id string, want modern.Task, wantErr error, got modern.Task, gotErr error) {
	if wantErr != nil && refusedInvalid(id, gotErr) {
		return
	}
	if !model.ValidID(id) {
		rule = "S-ID-2"
	}
	switch {
	case !model.SameKind(wantErr, gotErr):
		mm.fatal(t, rule, input, errWant(wantErr, want), errGot(gotErr, got))
	case !modern.Equal(want, got):
		mm.fatal(t, rule, input, want, fmt.Sprintf("%s (%s)", battery.Show(got), battery.Outcome(gotErr)))
	}
}

// missRule refines a rule for a not-found answer: expired tasks fall under M-F-TTL-1,
// invisible ones under M-F-SCOPE-1.
func (mm *modernMachine) missRule(id, rule string, wantErr error, c reference.Caller, ro bool) string {
	if !errors.Is(wantErr, reference.ErrNotFound) {
		return rule
	}
	cur, ok := mm.m.Task(id)
	switch {
	case !ok:
		return rule
	case cur.TTL != nil && mm.now() >= cur.CreatedAt+*cur.TTL:
		return "M-F-TTL-1"
	case !model.Visible(cur.Owner, c, ro):
		return "M-F-SCOPE-1"
	}
	return rule
}

var (
	messages = []string{"", "step 1", strings.Repeat("long ", 400), "\u05e9\u05dc\u05d5\u05dd \U0001F600"}
	offsets  = []int64{0, 1000, 3_600_000}
	ttlMs    = []int64{1000, 1, 3_600_000, 2000}
)

func (mm *modernMachine) drawTTLms(t *rapid.T) *int64 {
	if !rapid.Bool().Draw(t, "ttl?") {
		return nil
	}
	if !mm.controlled {
		return new(int64(24 * 3_600_000))
	}
	return new(rapid.SampledFrom(ttlMs).Draw(t, "ttl ms"))
}

func drawKeysObject(t *rapid.T, label string, names []string, min, max int) map[string]any {
	n := rapid.IntRange(min, max).Draw(t, label+" size")
	out := map[string]any{}
	for range n {
		out[rapid.SampledFrom(names).Draw(t, label+" key")] = drawValue(t)
	}
	return out
}

var inputKeys = []string{"k1", "k2", "k3", "k4"}

func (mm *modernMachine) drawTask(t *rapid.T, id string) modern.Task {
	created := mm.now() - rapid.SampledFrom(offsets).Draw(t, "age")
	task := modern.Task{
		TaskID: id, Status: rapid.SampledFrom(statuses()).Draw(t, "status"),
		StatusMessage: rapid.SampledFrom(messages).Draw(t, "message"),
		CreatedAt:     created, LastUpdatedAt: created, TTL: mm.drawTTLms(t),
		Version: rapid.Int64Range(0, 3).Draw(t, "version given"),
	}
	if rapid.Bool().Draw(t, "owned?") {
		task.Owner = drawOwner(t)
	}
	if rapid.Bool().Draw(t, "poll?") {
		task.PollInterval = new(int64(5000))
	}
	if rapid.Bool().Draw(t, "result?") {
		task.Result = drawObject(t, 0, 2)
	}
	if rapid.IntRange(0, 3).Draw(t, "error?") == 3 {
		task.Error = modern.RPCError(-32000, "boom", drawValue(t))
	}
	task.InputRequests = drawKeysObject(t, "requests", inputKeys, 0, 2)
	task.StagedResponses = drawKeysObject(t, "staged", inputKeys, 0, 1)
	task.InputResponses = drawKeysObject(t, "responses", inputKeys, 0, 1)
	task.IssuedKeys = slices.Sorted(maps.Keys(task.InputRequests)) // not map order: replays must match
	return task
}

func (mm *modernMachine) create(t *rapid.T) {
	id := drawID(t, mm.ids, mm.bad)
	task := mm.drawTask(t, id)
	got, err := mm.st.Create(mm.ctx, task)
	in := mm.step(t, "M-CREATE-1", "Create(%s) -> %s", battery.Literal(task), battery.Outcome(err))
	want, wantErr := mm.m.Create(task)
	mm.judge(t, "M-CREATE-1", in, id, want, wantErr, got, err)
}

func (mm *modernMachine) get(t *rapid.T) {
	id := mm.drawID(t)
	c := drawCaller(t)
	got, err := mm.st.Get(mm.ctx, id, c)
	in := mm.step(t, "M-GET-1", "Get(%s, %s) -> %s", mm.name(id), c, battery.Outcome(err))
	want, wantErr := mm.m.Get(id, c, mm.now())
	mm.judge(t, "M-GET-1", in, id, want, wantErr, got, err)
}

func (mm *modernMachine) swap(t *rapid.T) {
	id := mm.drawID(t)
	c := reference.System() // the facade's caller; others half the time
	if rapid.Bool().Draw(t, "scoped caller?") {
		c = drawCaller(t)
	}
	base, ok := mm.m.Task(id)
	if !ok {
		base = mm.drawTask(t, id)
		base.Version = 1
	}
	next := base.Clone()
	ev := base.Version + rapid.SampledFrom([]int64{0, -1, 1}).Draw(t, "version skew")
	next.Version = rapid.Int64Range(0, 9).Draw(t, "version given")
	next.StatusMessage = rapid.SampledFrom(messages).Draw(t, "message")
	next.Status = rapid.SampledFrom(statuses()).Draw(t, "status")
	next.LastUpdatedAt++
	if rapid.Bool().Draw(t, "new result?") {
		next.Result = drawObject(t, 0, 2)
	}
	if rapid.Bool().Draw(t, "new requests?") {
		next.InputRequests = drawKeysObject(t, "requests", inputKeys, 0, 2)
	}
	// An immutable field changes only with the right version, so that one refusal
	// applies (M-SWAP-3 against M-SWAP-2).
	rule := "M-SWAP-1"
	if ev == base.Version && ok {
		switch rapid.IntRange(0, 7).Draw(t, "immutable change") {
		case 6:
			next.Owner = rapid.SampledFrom(append([]string{""}, owners...)).Draw(t, "new owner")
			rule = "M-SWAP-3"
		case 7:
			next.CreatedAt++
			rule = "M-SWAP-3"
		}
	} else {
		rule = "M-SWAP-2"
	}
	got, err := mm.st.Swap(mm.ctx, c, ev, next)
	in := mm.step(t, rule, "Swap(%s, %d, %s) -> %s", c, ev, battery.Literal(next), battery.Outcome(err))
	want, wantErr := mm.m.Swap(c, ev, next, mm.now())
	if errors.Is(wantErr, reference.ErrNotFound) {
		rule = "M-SWAP-2"
	}
	mm.judge(t, rule, in, id, want, wantErr, got, err)
}

func (mm *modernMachine) delete(t *rapid.T) {
	id := mm.drawID(t)
	err := mm.st.Delete(mm.ctx, id)
	mm.m.Delete(id)
	mm.deleted(t, "M-DELETE-1", mm.name(id), id, err)
}

func (mm *modernMachine) sweep(t *rapid.T) {
	n, err := mm.st.Sweep(mm.ctx)
	in := mm.step(t, "M-SWEEP-1", "Sweep() -> %s", battery.Outcome(err))
	want := mm.m.Sweep(mm.now())
	// Other cases' leftovers may be swept too, never fewer than ours (B-ISO-1); which
	// went is checked by the state comparison after this step.
	if err != nil || n < want {
		mm.fatal(t, "M-SWEEP-1", in, fmt.Sprintf("at least %d swept", want), errGot(err, n))
	}
}

// facade draws a call through the facade: an id, a caller, and the facade, which requires
// owners (ro) one time in four.
func (mm *modernMachine) facade(t *rapid.T) (id string, c reference.Caller, f *modern.Tasks, cfg model.Facade, ro bool) {
	id, c = mm.drawID(t), drawCaller(t)
	if rapid.IntRange(0, 3).Draw(t, "require_owner facade?") == 3 {
		return id, c, mm.fac[1], mm.cfg[1], true
	}
	return id, c, mm.fac[0], mm.cfg[0], false
}

var (
	createTTLs  = []time.Duration{time.Second, time.Hour, 1500 * time.Microsecond, 0, -time.Second, 3 * time.Second}
	createPolls = []time.Duration{time.Second, 0, 1500 * time.Microsecond}
	errHook     = errors.New("start hook failed")
)

func (mm *modernMachine) fCreate(t *rapid.T) {
	var opts modern.CreateOptions
	if rapid.Bool().Draw(t, "owned?") {
		opts.Owner = drawOwner(t)
	}
	if rapid.Bool().Draw(t, "ttl?") {
		d := time.Hour
		if mm.controlled {
			d = rapid.SampledFrom(createTTLs).Draw(t, "ttl")
		}
		opts.TTL = &d
	}
	if rapid.IntRange(0, 2).Draw(t, "poll?") == 2 {
		opts.PollInterval = new(rapid.SampledFrom(createPolls).Draw(t, "poll"))
	}
	opts.StatusMessage = rapid.SampledFrom(messages).Draw(t, "message")
	fails := rapid.IntRange(0, 4).Draw(t, "hook fails?") == 4
	var hookSaw error
	start := func(ctx context.Context, id string) error {
		// M-F-CREATE-1: the worker started here finds its task.
		if _, err := mm.fac[0].Status(ctx, id); err != nil {
			hookSaw = err
		}
		if fails {
			return errHook
		}
		return nil
	}
	now := mm.now()
	got, err := mm.fac[0].Create(mm.ctx, opts, start)
	id := got.TaskID
	if id != "" {
		if _, seen := mm.names[id]; !seen {
			mm.gen = append(mm.gen, id)
			mm.names[id] = fmt.Sprintf("F%d", len(mm.gen))
		}
	}
	in := mm.step(t, "M-F-CREATE-1", "Tasks.Create(%s, hook fails %v) -> %s %s", describeCreate(opts), fails, mm.name(id), battery.Outcome(err))
	if hookSaw != nil {
		mm.fatal(t, "M-F-CREATE-1", in, "the start hook finds the task", hookSaw)
	}
	want, wantErr := mm.m.FacadeCreate(mm.cfg[0], id, opts, now, map[bool]error{true: errHook}[fails])
	if wantErr != nil && id == "" {
		want = modern.Task{}
	}
	mm.judge(t, "M-F-CREATE-1", in, "created", want, wantErr, got, err)
	mm.checkNotes(t, in)
}

func describeCreate(o modern.CreateOptions) string {
	s := fmt.Sprintf("{Owner: %q", o.Owner)
	if o.TTL != nil {
		s += fmt.Sprintf(", TTL: %v", *o.TTL)
	}
	if o.PollInterval != nil {
		s += fmt.Sprintf(", PollInterval: %v", *o.PollInterval)
	}
	if len(o.StatusMessage) > 40 {
		return s + fmt.Sprintf(", StatusMessage: %d bytes}", len(o.StatusMessage))
	}
	return s + fmt.Sprintf(", StatusMessage: %q}", o.StatusMessage)
}

func (mm *modernMachine) fGet(t *rapid.T) {
	id, c, f, cfg, ro := mm.facade(t)
	got, err := f.Get(mm.ctx, id, c)
	in := mm.step(t, "M-F-SCOPE-1", "Tasks[require_owner=%v].Get(%s, %s) -> %s", ro, mm.name(id), c, battery.Outcome(err))
	want, wantErr := mm.m.FacadeGet(cfg, id, c, mm.now())
	mm.judge(t, mm.missRule(id, "M-F-SCOPE-1", wantErr, c, ro), in, id, want, wantErr, got, err)
	mm.sameNotFound(t, in, id, err)
}

func (mm *modernMachine) fStatus(t *rapid.T) {
	id := mm.drawID(t)
	got, err := mm.fac[0].Status(mm.ctx, id)
	in := mm.step(t, "M-F-TTL-1", "Tasks.Status(%s) -> %s", mm.name(id), battery.Outcome(err))
	want, wantErr := mm.m.FacadeStatus(mm.cfg[0], id, mm.now())
	mm.judge(t, "M-F-TTL-1", in, id, want, wantErr, got, err)
}

func (mm *modernMachine) fCancelled(t *rapid.T) {
	id := mm.drawID(t)
	got, err := mm.fac[0].Cancelled(mm.ctx, id)
	in := mm.step(t, "M-F-FIN-1", "Tasks.Cancelled(%s) -> %v %s", mm.name(id), got, battery.Outcome(err))
	want, wantErr := mm.m.FacadeCancelled(mm.cfg[0], id, mm.now())
	if !model.SameKind(wantErr, err) && !(!model.ValidID(id) && err != nil) || got != want {
		mm.fatal(t, mm.missRule(id, "M-F-FIN-1", wantErr, reference.System(), false), in, errWant(wantErr, want), errGot(err, got))
	}
}

// write makes one write of id through the facade as caller c, ro telling whether the
// facade requires owners (run, described by call), and judges it against the model's
// twin (sim, at the time taken before the call); rule is the rule of the write, refined
// for a not-found answer (missRule) and a refusal on a terminal task (M-F-FIN-1).
func (mm *modernMachine) write(t *rapid.T, rule, id string, c reference.Caller, ro bool, call string, run func() (modern.Task, error), sim func(now int64) (modern.Task, error)) {
	now := mm.now()
	got, err := run()
	in := mm.step(t, rule, "%s -> %s", call, battery.Outcome(err))
	want, wantErr := sim(now)
	if errors.Is(wantErr, reference.ErrTerminal) {
		rule = "M-F-FIN-1"
	}
	mm.judge(t, mm.missRule(id, rule, wantErr, c, ro), in, id, want, wantErr, got, err)
	mm.checkNotes(t, in)
}

func (mm *modernMachine) fProgress(t *rapid.T) {
	id := mm.drawID(t)
	msg := rapid.SampledFrom(messages).Draw(t, "message")
	mm.write(t, "S-CONC-1", id, reference.System(), false, fmt.Sprintf("Tasks.Progress(%s, %d-byte message)", mm.name(id), len(msg)),
		func() (modern.Task, error) { return mm.fac[0].Progress(mm.ctx, id, msg) },
		func(now int64) (modern.Task, error) { return mm.m.FacadeProgress(mm.cfg[0], id, msg, now) })
}

func (mm *modernMachine) fRequireInput(t *rapid.T) {
	id := mm.drawID(t)
	reqs := drawKeysObject(t, "requests", inputKeys, 0, 2)
	mm.write(t, "M-F-INPUT-1", id, reference.System(), false, fmt.Sprintf("Tasks.RequireInput(%s, %s)", mm.name(id), battery.Literal(reqs)),
		func() (modern.Task, error) { return mm.fac[0].RequireInput(mm.ctx, id, reqs) },
		func(now int64) (modern.Task, error) { return mm.m.FacadeRequireInput(mm.cfg[0], id, reqs, now) })
}

func (mm *modernMachine) fUpdate(t *rapid.T) {
	id, c, f, cfg, ro := mm.facade(t)
	resps := drawKeysObject(t, "responses", append(inputKeys, "never"), 0, 2)
	mm.write(t, "M-F-INPUT-2", id, c, ro, fmt.Sprintf("Tasks[require_owner=%v].Update(%s, %s, %s)", ro, mm.name(id), c, battery.Literal(resps)),
		func() (modern.Task, error) { return f.Update(mm.ctx, id, c, resps) },
		func(now int64) (modern.Task, error) { return mm.m.FacadeUpdate(cfg, id, c, resps, now) })
}

func (mm *modernMachine) fComplete(t *rapid.T) {
	id := mm.drawID(t)
	var result map[string]any
	if rapid.IntRange(0, 3).Draw(t, "result?") < 3 {
		result = drawObject(t, 0, 2)
	}
	mm.write(t, "M-F-FIN-1", id, reference.System(), false, fmt.Sprintf("Tasks.Complete(%s, %s)", mm.name(id), battery.Literal(result)),
		func() (modern.Task, error) { return mm.fac[0].Complete(mm.ctx, id, result) },
		func(now int64) (modern.Task, error) { return mm.m.FacadeComplete(mm.cfg[0], id, result, now) })
}

func (mm *modernMachine) fFail(t *rapid.T) {
	id := mm.drawID(t)
	var e map[string]any
	if rapid.IntRange(0, 4).Draw(t, "error object?") < 4 {
		e = modern.RPCError(-32001, "worker failed", drawValue(t))
	}
	mm.write(t, "M-F-FIN-1", id, reference.System(), false, fmt.Sprintf("Tasks.Fail(%s, %s)", mm.name(id), battery.Literal(e)),
		func() (modern.Task, error) { return mm.fac[0].Fail(mm.ctx, id, e) },
		func(now int64) (modern.Task, error) { return mm.m.FacadeFail(mm.cfg[0], id, e, now) })
}

func (mm *modernMachine) fCancel(t *rapid.T) {
	id, c, f, cfg, ro := mm.facade(t)
	mm.write(t, "M-F-FIN-1", id, c, ro, fmt.Sprintf("Tasks[require_owner=%v].Cancel(%s, %s)", ro, mm.name(id), c),
		func() (modern.Task, error) { return f.Cancel(mm.ctx, id, c) },
		func(now int64) (modern.Task, error) { return mm.m.FacadeCancel(cfg, id, c, now) })
}

func (mm *modernMachine) moveClock(t *rapid.T) {
	d := rapid.SampledFrom(clockSteps).Draw(t, "advance")
	mm.clock.Advance(d)
	mm.step(t, "M-GET-1", "clock += %v", d)
}

// checkNotes compares what the notifier heard with the facade writes of the model
// (M-F-NOTIFY-1).
func (mm *modernMachine) checkNotes(t *rapid.T, in string) {
	mm.notesMu.Lock()
	got := append([]modern.Task(nil), mm.notes...)
	mm.notesMu.Unlock()
	want := mm.m.Notes
	if len(got) != len(want) {
		mm.fatal(t, "M-F-NOTIFY-1", in, fmt.Sprintf("%d notifications so far", len(want)), fmt.Sprintf("%d", len(got)))
	}
	for i := range want {
		if !modern.Equal(want[i], got[i]) {
			mm.fatal(t, "M-F-NOTIFY-1", in, fmt.Sprintf("notification %d: %s", i+1, battery.Show(want[i])), got[i])
		}
	}
}

// check compares every id of the case with the model after each step.
func (mm *modernMachine) check(t *rapid.T) {
	now := mm.now()
	ids := append(append([]string(nil), mm.ids...), mm.gen...)
	gots, errs := readAll(ids, func(id string) (modern.Task, error) { return mm.st.Get(mm.ctx, id, reference.System()) })
	for i, id := range ids {
		got, err := gots[i], errs[i]
		want, wantErr := mm.m.Get(id, reference.System(), now)
		if !model.SameKind(wantErr, err) || !modern.Equal(want, got) {
			mm.fatal(t, mm.last, fmt.Sprintf("state after step %d: Get(%s, system)", mm.n, mm.name(id)), errWant(wantErr, want), errGot(err, got))
		}
	}
}
