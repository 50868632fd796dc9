package property

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Linearizability checks (S-CONC-1, L-CONC-1, M-SWAP-4): several goroutines issue seeded
// random operations against one store while every call and return is recorded; then
// porcupine searches for an order of the calls, consistent with real time, that the
// sequential model accepts. Histories are partitioned per task (operations on different
// tasks commute); List and Cleanup, which span tasks, get their own short histories.

func LegacyLinearizable(s *battery.Suite) {
	s.It("L-CONC-1", "concurrent Create, Get, Update, Delete (and Cancel, UpdateIf when offered) on a few tasks form a linearizable history, per task", func(e *battery.Env) {
		CheckHistories(e, "legacy-per-task", func(i int, seed uint64) History { return LegacyTaskHistory(e, i, seed) })
	})
	s.It("S-CONC-1", "List and Cleanup racing status writes, creates and deletes see each task as it was at one instant within the call (per-task linearizability)", func(e *battery.Env) {
		CheckHistories(e, "legacy-cross-task", func(i int, seed uint64) History { return LegacyCrossHistory(e, i, seed) })
	})
}

func ModernLinearizable(s *battery.Suite) {
	s.It("M-SWAP-4", "concurrent CAS loops (Get, Swap), stale Swaps, Creates and Deletes on a few tasks form a linearizable history, per task", func(e *battery.Env) {
		CheckHistories(e, "modern-per-task", func(i int, seed uint64) History { return ModernTaskHistory(e, i, seed) })
	})
}

// linOut is a recorded result: the task (legacy or modern) and the error's kind.
type linOut struct {
	Task    any    `json:"task,omitempty"`
	N       int    `json:"n,omitempty"`
	Err     string `json:"err"`
	errKind error
}

func newOut(task any, err error) linOut {
	return linOut{Task: task, Err: battery.Outcome(err), errKind: model.Kind(err)}
}

func (o linOut) is(sentinel error) bool { return o.errKind == sentinel }
func (o linOut) ok() bool               { return o.errKind == nil }

// linIn is one call: Op names the method; the other fields are its arguments.
type linIn struct {
	Op       string        `json:"op"`
	ID       string        `json:"id,omitempty"`
	Meta     legacy.Task   `json:"meta,omitempty"`
	Changes  legacy.Task   `json:"changes,omitempty"`
	Allowed  []string      `json:"allowed,omitempty"`
	Expected int64         `json:"expected,omitempty"`
	Next     *modern.Task  `json:"next,omitempty"`
	List     *listArgs     `json:"list,omitempty"`
	TTL      time.Duration `json:"ttl,omitempty"`
	Caller   string        `json:"caller,omitempty"`
	caller   reference.Caller
}

type listArgs struct {
	Status *string `json:"status,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
	opts   legacy.ListOptions
}

// recorder collects a history from concurrent clients.
type recorder struct {
	mu    sync.Mutex
	start time.Time
	ops   []porcupine.Operation
}

func newRecorder() *recorder { return &recorder{start: time.Now()} }

func (r *recorder) do(client int, in linIn, call func() linOut) linOut {
	c := time.Since(r.start).Nanoseconds()
	out := call()
	ret := time.Since(r.start).Nanoseconds()
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Call: c, Output: out, Return: ret})
	r.mu.Unlock()
	return out
}

// fanOut records one call that spans tasks as one operation per task, with the call's
// times: view tells what the call answered about each task.
func (r *recorder) fanOut(client int, ids []string, call func() (view func(id string) (linIn, linOut))) {
	c := time.Since(r.start).Nanoseconds()
	view := call()
	ret := time.Since(r.start).Nanoseconds()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		in, out := view(id)
		r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Call: c, Output: out, Return: ret})
	}
}

// roundOps is how many operations each client makes in one round of a history: the
// clients wait for each other at a barrier before every round, so that the calls of
// different clients overlap all through the history rather than only at its start.
const roundOps = 4

// History is what one randomised run produced: the model to check it with, the
// operations and the scripts the clients followed (for B-REPRO-1).
type History struct {
	model   porcupine.Model
	ops     []porcupine.Operation
	scripts []string
}

// historyFunc runs history number i from rng seeds derived from seed.
type historyFunc func(i int, seed uint64) History

// CheckHistories runs Budget.Histories histories and checks each for linearizability.
// A failure writes porcupine's visualisation and the history as JSON to a directory
// named in the fault. A history porcupine cannot decide in time makes the check
// inconclusive (never passed), as does too little overlap between the clients.
func CheckHistories(e *battery.Env, name string, run historyFunc) {
	seed := subSeed(e.RunSeed(), name)
	timeout := 20 * time.Second
	m := e.Meter()
	defer m.Done()
	for i := range m.Rounds(e.Opts.Budget.Histories) {
		if e.Ctx.Err() != nil {
			return
		}
		h := run(i, seed)
		m.Add(spansOf(h.ops))
		res, info := porcupine.CheckOperationsVerbose(h.model, h.ops, timeout)
		switch res {
		case porcupine.Ok:
			continue
		case porcupine.Unknown:
			e.Inconclusive(fmt.Sprintf("%s: history %d of %d operations: the linearizability search did not finish within %v, so it neither found an order nor proved there is none", name, i, len(h.ops), timeout))
			continue
		}
		dir := writeHistory(name, i, h, info)
		e.Errorf("history %d (%d operations, %d clients) is not linearizable against the sequential model: %s\n  the operations on the failing task and porcupine's visualisation (history.html) are in %s\n  %s",
			i, len(h.ops), e.Opts.Budget.Goroutines, nonLinearSummary(e, h, info), dir, e.Rerun())
		return
	}
}

// nonLinearSummary names the task whose calls porcupine could not order and the calls
// it could not place after the longest order it found, so that the fault reads without
// the visualisation.
func nonLinearSummary(e *battery.Env, h History, info porcupine.LinearizationInfo) string {
	parts := info.PartialLinearizationsOperations()
	partitions := [][]porcupine.Operation{h.ops}
	if h.model.Partition != nil {
		partitions = h.model.Partition(h.ops)
	}
	for i, p := range parts {
		if i >= len(partitions) {
			break
		}
		ops := partitions[i]
		var longest []porcupine.Operation
		for _, l := range p {
			if len(l) > len(longest) {
				longest = l
			}
		}
		if len(longest) >= len(ops) {
			continue // this partition is linearizable
		}
		what := "the history"
		if in, ok := ops[0].Input.(linIn); ok && in.ID != "" && h.model.Partition != nil {
			what = fmt.Sprintf("task %q", in.ID)
		}
		placed := map[string]bool{}
		for _, op := range longest {
			placed[opKey(op)] = true
		}
		// The calls left over, earliest first: the first of them is where every order
		// the search tried broke down.
		var left []porcupine.Operation
		for _, op := range ops {
			if !placed[opKey(op)] {
				left = append(left, op)
			}
		}
		sort.Slice(left, func(a, b int) bool { return left[a].Call < left[b].Call })
		var b strings.Builder
		fmt.Fprintf(&b, "no order of the %d calls on %s is accepted: at most %d could be ordered; the calls it could not place (client, call–return in µs from the history's start):", len(ops), what, len(longest))
		for k, op := range left {
			if k == 6 {
				fmt.Fprintf(&b, "\n      … and %d more", len(left)-k)
				break
			}
			fmt.Fprintf(&b, "\n      client %d, %d–%d µs: %s", op.ClientId, op.Call/1000, op.Return/1000, describeLin(op.Input, op.Output))
		}
		if len(longest) > 0 {
			last := longest[len(longest)-1]
			fmt.Fprintf(&b, "\n    the longest accepted order ended with: %s", describeLin(last.Input, last.Output))
		}
		return b.String()
	}
	return "no order of the calls is accepted"
}

// opKey identifies an operation of a history (client, call and return times).
func opKey(op porcupine.Operation) string {
	return fmt.Sprintf("%d/%d/%d", op.ClientId, op.Call, op.Return)
}

// writeHistory keeps porcupine's visualisation and the history as JSON, and says where
// (battery/artifacts.go decides where and for how long).
func writeHistory(name string, i int, h History, info porcupine.LinearizationInfo) string {
	dir, where, err := battery.NewArtifactDir(fmt.Sprintf("%s-%d", name, i))
	if err != nil {
		return "(could not write the history: " + err.Error() + ")"
	}
	if err := porcupine.VisualizePath(h.model, info, filepath.Join(dir, "history.html")); err != nil {
		_ = os.WriteFile(filepath.Join(dir, "visualize-error.txt"), []byte(err.Error()), 0o644)
	}
	ops := append([]porcupine.Operation(nil), h.ops...)
	sort.Slice(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
	if b, err := json.MarshalIndent(map[string]any{"scripts": h.scripts, "operations": ops}, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "history.json"), b, 0o644)
	}
	return where
}

// runPlans runs the clients of history i: Budget.Goroutines of them, client c with the
// plan draw makes from its random stream for per (Budget.Ops / clients, at least 1) ops,
// which also returns the plan's script (what a replay compares). run makes step n of
// c's plan; the clients start every round steps together, and stop when the spec's
// context ends. It returns the scripts, one per client.
func runPlans[S any](e *battery.Env, i int, seed uint64, round int, draw func(c int, r *rand.Rand, per int) ([]S, string), run func(c, n int, s S)) []string {
	g := e.Opts.Budget.Goroutines
	per := max(e.Opts.Budget.Ops/g, 1)
	scripts := make([]string, g)
	var cs battery.Clients
	b := battery.NewBarrier(g) // clients start each round together
	for c := range g {
		plan, script := draw(c, clientRand(seed, i, c), per)
		scripts[c] = script
		cs.Run(c, func() {
			defer b.Leave()
			for n, s := range plan {
				if n%round == 0 {
					b.Wait()
				}
				if e.Ctx.Err() != nil {
					return
				}
				run(c, n, s)
			}
		})
	}
	cs.Wait()
	return scripts
}

// clientRand is the random stream of client c in history i.
func clientRand(seed uint64, i, c int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)<<16|uint64(c)))
}

func describeLin(in any, out any) string {
	i := in.(linIn)
	o := out.(linOut)
	var args []string
	if i.ID != "" {
		args = append(args, fmt.Sprintf("%q", i.ID))
	}
	if i.Caller != "" {
		args = append(args, i.Caller)
	}
	if i.Meta != nil {
		args = append(args, jsonvalue.Describe(map[string]any(i.Meta)))
	}
	if i.Changes != nil {
		args = append(args, jsonvalue.Describe(map[string]any(i.Changes)))
	}
	if i.Allowed != nil {
		args = append(args, fmt.Sprint(i.Allowed))
	}
	if i.Next != nil {
		args = append(args, fmt.Sprintf("v%d", i.Expected), fmt.Sprintf("{msg %q, result %s}", i.Next.StatusMessage, jsonvalue.Describe(i.Next.Result)))
	}
	if i.List != nil {
		args = append(args, describeList(i.List.opts))
	}
	if i.Op == "CleanupView" {
		args = append(args, i.TTL.String())
	}
	res := o.Err
	switch t := o.Task.(type) {
	case legacy.Task:
		if t != nil {
			res += " " + jsonvalue.Describe(map[string]any(t))
		}
	case modern.Task:
		if t.TaskID != "" {
			res += fmt.Sprintf(" v%d {msg %q, result %s}", t.Version, t.StatusMessage, jsonvalue.Describe(t.Result))
		}
	}
	if i.List != nil {
		res += fmt.Sprintf(" (of %d rows)", o.N)
	}
	if i.Op == "CleanupView" {
		res += fmt.Sprintf(" (%d removed in all)", o.N)
	}
	return fmt.Sprintf("%s(%s) -> %s", i.Op, strings.Join(args, ", "), res)
}

func partitionByID(ops []porcupine.Operation) [][]porcupine.Operation {
	by := map[string][]porcupine.Operation{}
	var order []string
	for _, op := range ops {
		id := op.Input.(linIn).ID
		if _, ok := by[id]; !ok {
			order = append(order, id)
		}
		by[id] = append(by[id], op)
	}
	out := make([][]porcupine.Operation, 0, len(order))
	for _, id := range order {
		out = append(out, by[id])
	}
	return out
}

// perTaskModel is the porcupine model of one era's per-task histories: partitioned by
// task id, its state a cell C (the zero C: absent), step judging each call with the
// task T the call returned (nil or zero when it returned none).
func perTaskModel[C, T any](step func(s C, in linIn, out linOut, got T) (bool, any), equal func(x, y C) bool, describe func(C) string) porcupine.Model {
	return porcupine.Model{
		Partition: partitionByID,
		Init:      func() any { var absent C; return absent },
		Step: func(state, input, output any) (bool, any) {
			out := output.(linOut)
			got, _ := out.Task.(T)
			return step(state.(C), input.(linIn), out, got)
		},
		Equal:             func(a, b any) bool { return equal(a.(C), b.(C)) },
		DescribeOperation: describeLin,
		DescribeState:     func(s any) string { return describe(s.(C)) },
	}
}

// --- legacy, per task ---

// legacyCell is the state of one legacy task in a history: absent, or the task.
type legacyCell struct {
	task legacy.Task // nil: absent
}

// legacyTaskModel is the per-task model. List and Cleanup calls appear in a task's
// partition as views of that task (ListView, CleanupView): S-CONC-1 asks each task's
// history to be linearizable, not a List to be a snapshot of all tasks at one instant.
// now is the store's (frozen) time for Cleanup.
func legacyTaskModel(now int64) porcupine.Model {
	return perTaskModel(
		func(s legacyCell, in linIn, out linOut, got legacy.Task) (bool, any) {
			m := model.NewLegacy()
			if s.task != nil {
				m.Put(in.ID, s.task)
			}
			var want legacy.Task
			var err error
			switch in.Op {
			case "ListView":
				o := in.List.opts
				match := s.task != nil && (o.Status == nil || string(model.LegacyStatus(s.task)) == *o.Status)
				if !out.ok() {
					return false, s
				}
				if got != nil {
					return match && legacy.Equal(got, s.task), s
				}
				// Absent from the rows: filtered out, missing, or crowded out by Limit.
				return !match || (o.Limit != nil && out.N >= *o.Limit), s
			case "CleanupView":
				if !out.ok() {
					return false, s
				}
				if s.task != nil && model.CleanupDue(s.task, in.TTL, now) {
					return true, legacyCell{}
				}
				return true, s
			case "Create":
				if out.is(reference.ErrExists) {
					return s.task != nil, s
				}
				at, ok := battery.CreatedAtOf(got)
				if !out.ok() || !ok {
					return false, s
				}
				// An overwrite is allowed (L-CREATE-2 is a SHOULD) with exactly the new task.
				want = model.Stamped(in.ID, in.Meta, at)
				return legacy.Equal(want, got), legacyCell{want}
			case "Get":
				want, err = m.Get(in.ID)
			case "Update":
				want, err = m.Update(in.ID, in.Changes)
			case "UpdateIf":
				allowed := make([]reference.Status, len(in.Allowed))
				for i, a := range in.Allowed {
					allowed[i] = reference.Status(a)
				}
				want, err = m.UpdateIf(in.ID, allowed, in.Changes)
			case "Cancel":
				want, err = m.Cancel(in.ID)
			case "Delete":
				return out.ok(), legacyCell{}
			}
			return judgeStep(s, err, out.errKindOr(), want, got, legacy.Equal, func() any {
				t, _ := m.Task(in.ID)
				return legacyCell{t}
			})
		},
		func(x, y legacyCell) bool {
			return (x.task == nil) == (y.task == nil) && (x.task == nil || legacy.Equal(x.task, y.task))
		},
		func(c legacyCell) string {
			if c.task != nil {
				return jsonvalue.Describe(map[string]any(c.task))
			}
			return "(absent)"
		},
	)
}

// errKindOr returns an error of the recorded kind, for SameKind.
func (o linOut) errKindOr() error { return o.errKind }

// LegacyTaskHistory: Goroutines clients, Ops operations in all, on two tasks created
// before the clients start. Each client writes its own keys (L-CONC-1: disjoint keys
// must all survive) with values that never repeat.
func LegacyTaskHistory(e *battery.Env, i int, seed uint64) History {
	st := e.Legacy()
	cu, _ := st.(legacy.ConditionalUpdater)
	canc, _ := st.(legacy.Canceler)
	rec := newRecorder()
	ids := []string{e.ID("lin"), e.ID("lin")}
	for _, id := range ids {
		in := linIn{Op: "Create", ID: id, Meta: legacy.Task{"seed": json.Number("0")}}
		rec.do(0, in, func() linOut { t, err := st.Create(e.Ctx, id, in.Meta); return newOut(t, err) })
	}
	scripts := runPlans(e, i, seed, roundOps, func(c int, r *rand.Rand, per int) ([]linIn, string) {
		var plan []linIn
		var sb strings.Builder
		for n := range per {
			id := ids[r.IntN(len(ids))]
			key := fmt.Sprintf("c%d", c)
			val := json.Number(fmt.Sprint(n + 1))
			var in linIn
			switch p := r.IntN(100); {
			case p < 45:
				in = linIn{Op: "Update", ID: id, Changes: legacy.Task{key: val}}
			case p < 65:
				in = linIn{Op: "Get", ID: id}
			case p < 78 && cu != nil:
				status := []string{"working", "input_required", "completed"}[r.IntN(3)]
				in = linIn{Op: "UpdateIf", ID: id, Allowed: []string{"working", "input_required"}, Changes: legacy.Task{key: val, legacy.KeyStatus: status}}
			case p < 84 && canc != nil:
				in = linIn{Op: "Cancel", ID: id}
			case p < 89:
				in = linIn{Op: "Delete", ID: id}
			default:
				in = linIn{Op: "Create", ID: id, Meta: legacy.Task{key: val}}
			}
			plan = append(plan, in)
			fmt.Fprintf(&sb, "%s %d %s %s|", in.Op, slicesIndex(ids, id), jsonvalue.Describe(map[string]any(in.Changes)), jsonvalue.Describe(map[string]any(in.Meta)))
		}
		return plan, sb.String()
	}, func(c, _ int, in linIn) {
		rec.do(c, in, func() linOut { return legacyCall(e, st, cu, canc, in) })
	})
	// A final read of each task pins down the end state.
	for _, id := range ids {
		in := linIn{Op: "Get", ID: id}
		rec.do(0, in, func() linOut { return legacyCall(e, st, cu, canc, in) })
	}
	return History{model: legacyTaskModel(0), ops: rec.ops, scripts: scripts}
}

func legacyCall(e *battery.Env, st legacy.Store, cu legacy.ConditionalUpdater, canc legacy.Canceler, in linIn) linOut {
	ctx := e.Ctx
	switch in.Op {
	case "Create":
		t, err := st.Create(ctx, in.ID, in.Meta)
		return newOut(t, err)
	case "Get":
		t, err := st.Get(ctx, in.ID)
		return newOut(t, err)
	case "Update":
		t, err := st.Update(ctx, in.ID, in.Changes)
		return newOut(t, err)
	case "UpdateIf":
		allowed := make([]reference.Status, len(in.Allowed))
		for i, a := range in.Allowed {
			allowed[i] = reference.Status(a)
		}
		t, err := cu.UpdateIf(ctx, in.ID, allowed, in.Changes)
		return newOut(t, err)
	case "Cancel":
		t, err := canc.Cancel(ctx, in.ID)
		return newOut(t, err)
	case "Delete":
		return newOut(nil, st.Delete(ctx, in.ID))
	}
	panic("conformance: unknown legacy op " + in.Op)
}

// --- legacy, across tasks (List, Cleanup) ---

// LegacyCrossHistory: writers move three tasks between statuses, delete and recreate
// them, while a reader lists (with and without status filter and limit) and, when the
// battery controls the clock, cleans up. Short: the model is not partitioned.
func LegacyCrossHistory(e *battery.Env, i int, seed uint64) History {
	st := e.Legacy()
	clean, _ := st.(legacy.Cleaner)
	clock := (*reference.ManualClock)(nil)
	if e.HasClock() {
		clock = e.ManualClock()
	}
	prefix := e.ID("linx") + "/"
	ids := []string{prefix + "a", prefix + "b", prefix + "c"}
	rec := newRecorder()
	for _, id := range ids {
		in := linIn{Op: "Create", ID: id, Meta: legacy.Task{}}
		rec.do(0, in, func() linOut { t, err := st.Create(e.Ctx, id, in.Meta); return newOut(t, err) })
	}
	now := func() int64 { return time.Now().UnixMilli() }
	if clock != nil {
		// The tasks made so far are an hour old for the whole history; tasks created in
		// it are new: Cleanup(30 min) tells them apart.
		clock.Advance(time.Hour)
		fixed := clock.Now().UnixMilli()
		now = func() int64 { return fixed }
	}
	writers := max(e.Opts.Budget.Goroutines-1, 1)
	per := max(min(e.Opts.Budget.Ops, 40)/(writers+1), 2)
	scripts := make([]string, writers+1)
	var cs battery.Clients
	b := battery.NewBarrier(writers + 1) // clients start each round together
	for c := range writers + 1 {
		r := clientRand(seed, i, c)
		plan := make([]linIn, per)
		for k := range plan {
			if c == writers {
				plan[k] = crossReaderOp(r, clean != nil && clock != nil)
			} else {
				plan[k] = crossWriterOp(r, ids)
			}
		}
		scripts[c] = scrub(fmt.Sprint(plan), prefix)
		cs.Run(c, func() {
			defer b.Leave()
			for n, in := range plan {
				if n%roundOps == 0 {
					b.Wait()
				}
				crossCall(e, st, clean, rec, c, ids, in)
			}
		})
	}
	cs.Wait()
	return History{model: legacyTaskModel(now()), ops: rec.ops, scripts: scripts}
}

// crossReaderOp draws one op of LegacyCrossHistory's reader: a Cleanup(30 min) when
// the store can clean up on the battery's clock, one time in four; else a List, with
// and without a status filter and a limit.
func crossReaderOp(r *rand.Rand, cleans bool) linIn {
	if cleans && r.IntN(4) == 0 {
		return linIn{Op: "Cleanup", TTL: 30 * time.Minute}
	}
	la := &listArgs{}
	if r.IntN(2) == 0 {
		la.Status = new([]string{"working", "completed", "cancelled"}[r.IntN(3)])
	}
	if r.IntN(3) == 0 {
		la.Limit = new(1 + r.IntN(3))
	}
	la.opts = legacy.ListOptions{Status: la.Status, Limit: la.Limit}
	return linIn{Op: "List", List: la}
}

// crossWriterOp draws one op of a LegacyCrossHistory writer on one of ids: a status
// Update, a Delete or a Create (of a task deleted, or one that still exists).
func crossWriterOp(r *rand.Rand, ids []string) linIn {
	id := ids[r.IntN(len(ids))]
	switch p := r.IntN(10); {
	case p < 6:
		return linIn{Op: "Update", ID: id, Changes: legacy.Task{legacy.KeyStatus: []string{"working", "completed", "cancelled", "input_required"}[r.IntN(4)]}}
	case p < 8:
		return linIn{Op: "Delete", ID: id}
	}
	return linIn{Op: "Create", ID: id, Meta: legacy.Task{}}
}

// crossCall runs one op of client c in LegacyCrossHistory: a List or a Cleanup, which
// read every task at once, is recorded as a view of each of ids; any other op as itself.
func crossCall(e *battery.Env, st legacy.Store, clean legacy.Cleaner, rec *recorder, c int, ids []string, in linIn) {
	switch in.Op {
	case "List":
		rec.fanOut(c, ids, func() func(id string) (linIn, linOut) {
			rows, err := st.List(e.Ctx, in.List.opts)
			return func(id string) (linIn, linOut) {
				o := newOut(nil, err)
				o.N = len(rows)
				for _, r := range rows {
					if r.ID() == id {
						o.Task = r
					}
				}
				return linIn{Op: "ListView", ID: id, List: in.List}, o
			}
		})
	case "Cleanup":
		rec.fanOut(c, ids, func() func(id string) (linIn, linOut) {
			n, err := clean.Cleanup(e.Ctx, in.TTL)
			return func(id string) (linIn, linOut) {
				o := newOut(nil, err)
				o.N = n
				return linIn{Op: "CleanupView", ID: id, TTL: in.TTL}, o
			}
		})
	default:
		rec.do(c, in, func() linOut { return legacyCall(e, st, nil, nil, in) })
	}
}

// judgeStep is the end of a model step that called the model: the call is explained
// when it answered the model's error kind and, on success, the model's task; state s
// is unchanged by a refused call, and next is the cell after a successful one.
func judgeStep[T any](s any, err, gotErr error, want, got T, equal func(a, b T) bool, next func() any) (bool, any) {
	if !model.SameKind(err, gotErr) {
		return false, s
	}
	if err != nil {
		return true, s
	}
	if !equal(want, got) {
		return false, s
	}
	return true, next()
}

// --- modern, per task ---

type modernCell struct {
	task modern.Task
	ok   bool
}

func modernTaskModel() porcupine.Model {
	return perTaskModel(
		func(s modernCell, in linIn, out linOut, got modern.Task) (bool, any) {
			m := model.NewModern()
			if s.ok {
				m.Put(s.task)
			}
			var want modern.Task
			var err error
			switch in.Op {
			case "Create":
				want, err = m.Create(*in.Next)
			case "Get":
				want, err = m.Get(in.ID, in.caller, 0)
			case "Swap":
				want, err = m.Swap(in.caller, in.Expected, *in.Next, 0)
			case "Delete":
				return out.ok(), modernCell{}
			}
			return judgeStep(s, err, out.errKind, want, got, modern.Equal, func() any {
				t, ok := m.Task(in.ID)
				return modernCell{t, ok}
			})
		},
		func(x, y modernCell) bool {
			return x.ok == y.ok && (!x.ok || modern.Equal(x.task, y.task))
		},
		func(c modernCell) string {
			if !c.ok {
				return "(absent)"
			}
			return fmt.Sprintf("v%d {msg %q, result %s}", c.task.Version, c.task.StatusMessage, jsonvalue.Describe(c.task.Result))
		},
	)
}

// ModernTaskHistory: clients run CAS increment loops (Get, then Swap with the version
// read and a counter bumped in result), stale Swaps, Gets by other principals, and
// rarely Delete and Create, on two tasks without ttl (time plays no part).
func ModernTaskHistory(e *battery.Env, i int, seed uint64) History {
	st := e.Modern()
	rec := newRecorder()
	now := e.NowMillis()
	ids := []string{e.ID("lin"), e.ID("lin")}
	fresh := func(id string) modern.Task {
		return modern.Task{TaskID: id, Owner: "alice", Status: reference.StatusWorking, CreatedAt: now, LastUpdatedAt: now,
			Result: map[string]any{"n": json.Number("0")}}
	}
	for _, id := range ids {
		t := fresh(id)
		in := linIn{Op: "Create", ID: id, Next: &t}
		rec.do(0, in, func() linOut { got, err := st.Create(e.Ctx, t); return newOut(got, err) })
	}
	type step struct {
		op    string
		id    string
		skew  int64
		other bool
	}
	// A CAS step is two calls (Get, Swap): half as many steps make a round.
	scripts := runPlans(e, i, seed, roundOps/2, func(c int, r *rand.Rand, per int) ([]step, string) {
		var plan []step
		var sb strings.Builder
		for range per / 2 {
			s := step{id: ids[r.IntN(len(ids))]}
			switch p := r.IntN(100); {
			case p < 75:
				s.op = "CAS"
				if r.IntN(6) == 0 {
					s.skew = -1 // a stale version: must conflict
				}
			case p < 88:
				s.op = "Get"
				s.other = r.IntN(2) == 0
			case p < 94:
				s.op = "Delete"
			default:
				s.op = "Create"
			}
			plan = append(plan, s)
			fmt.Fprintf(&sb, "%s %d %d %v|", s.op, slicesIndex(ids, s.id), s.skew, s.other)
		}
		return plan, sb.String()
	}, func(c, n int, s step) {
		switch s.op {
		case "Get":
			caller := reference.System()
			if s.other {
				caller = reference.Principal([]string{"alice", "Alice"}[n%2])
			}
			in := linIn{Op: "Get", ID: s.id, Caller: caller.String(), caller: caller}
			rec.do(c, in, func() linOut { t, err := st.Get(e.Ctx, s.id, caller); return newOut(t, err) })
		case "Delete":
			in := linIn{Op: "Delete", ID: s.id}
			rec.do(c, in, func() linOut { return newOut(nil, st.Delete(e.Ctx, s.id)) })
		case "Create":
			t := fresh(s.id)
			in := linIn{Op: "Create", ID: s.id, Next: &t}
			rec.do(c, in, func() linOut { got, err := st.Create(e.Ctx, t); return newOut(got, err) })
		case "CAS":
			in := linIn{Op: "Get", ID: s.id, Caller: "system", caller: reference.System()}
			out := rec.do(c, in, func() linOut { t, err := st.Get(e.Ctx, s.id, reference.System()); return newOut(t, err) })
			cur, _ := out.Task.(modern.Task)
			if !out.ok() {
				return // on to the next step
			}
			runtime.Gosched() // widen the read-to-write window, as a network would
			next := cur.Clone()
			count, _ := next.Result["n"].(json.Number).Int64()
			next.Result = map[string]any{"n": json.Number(fmt.Sprint(count + 1))}
			next.StatusMessage = fmt.Sprintf("c%d-%d", c, n)
			ev := cur.Version + s.skew
			sin := linIn{Op: "Swap", ID: s.id, Expected: ev, Next: &next, Caller: "system", caller: reference.System()}
			rec.do(c, sin, func() linOut { t, err := st.Swap(e.Ctx, reference.System(), ev, next); return newOut(t, err) })
		}
	})
	for _, id := range ids {
		in := linIn{Op: "Get", ID: id, Caller: "system", caller: reference.System()}
		rec.do(0, in, func() linOut { t, err := st.Get(e.Ctx, id, reference.System()); return newOut(t, err) })
	}
	return History{model: modernTaskModel(), ops: rec.ops, scripts: scripts}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// spansOf turns a porcupine history into spans (a call that spans tasks, such as
// List, appears once per task it reported on).
func spansOf(ops []porcupine.Operation) []battery.Span {
	out := make([]battery.Span, 0, len(ops))
	for _, op := range ops {
		id := ""
		if in, ok := op.Input.(linIn); ok {
			id = in.ID
		}
		out = append(out, battery.Span{Client: op.ClientId, Task: id, Call: op.Call, Ret: op.Return})
	}
	return out
}
