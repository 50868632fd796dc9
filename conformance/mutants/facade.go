package mutants

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Facade mutants: the honest store under a facade with one defect, the layer that
// enforces scoping and finality in a real server. Their harness declares its own facade
// (harness.FacadeOwn), so the facade rules judge the broken facade, in process and over
// the wire (`storecheck serve` serves it as the facade layer of protocol 2).
// facadeMutants are the facade's defects: the store under them is honest.
var facadeMutants = []mutant.Mutant[Build]{
	{Name: "facade-cancel-overwrites-finished", Breaks: []string{"L-F-FIN-1", "M-F-FIN-1", "L-F-FIN-2", "M-F-FIN-2"}, Defect: "the facade's Cancel overwrites a completed, failed or cancelled task (ConduitMCP's cancel)", Build: Build{both, &wrapper{
		legacyFacade: func(ref *legacy.Tasks, st legacyStore, _ harness.FacadeConfig) legacy.Facade {
			return legacyCancelOverwrites{ref, st}
		},
		modernFacade: func(m modernBroken) modern.Facade { m.cancelOverwrites = true; return m }}}},
	{Name: "facade-list-skips-recheck", Breaks: []string{"L-F-LIST-1", "L-F-SCOPE-1", "S-OWN-1"}, Defect: "the facade's List scopes by the request's owner filter and re-checks no row the store returns", Build: Build{legacyOnly, legacyFacade(func(ref *legacy.Tasks, st legacyStore, cfg harness.FacadeConfig) legacy.Facade {
		return legacyListTrusting{ref, st, cfg.RequireOwner}
	})}},
	{Name: "facade-update-accepts-unissued", Breaks: []string{"M-F-INPUT-2"}, Defect: "the facade's tasks/update stages answers for input keys never issued", Build: Build{modernOnly, modernFacade(func(m modernBroken) modern.Facade { m.updateUnissued = true; return m })}},
	{Name: "facade-owner-empty-denied", Breaks: []string{"L-F-CREATE-1", "L-F-SCOPE-1", "L-F-LIST-1", "S-OWN-1", "M-F-SCOPE-1"}, Defect: `the facade takes owner "" for a real owner that no caller has: it stamps it, and shows such a task to the system caller only`, Build: Build{both, ownerEmpty(false)}},
	{Name: "facade-owner-empty-as-principal", Breaks: []string{"L-F-CREATE-1", "L-F-SCOPE-1", "L-F-LIST-1", "S-OWN-1", "M-F-SCOPE-1"}, Defect: `the facade takes owner "" for a real owner and shows such a task only to a caller whose principal id is "" (the anonymous caller, whatever require_owner says) and to the system caller`, Build: Build{both, ownerEmpty(true)}},
	{Name: "facade-cancel-terminal-first", Breaks: []string{"L-F-SCOPE-1"}, Defect: "the facade's Cancel answers a finished task with ErrTerminal before its owner check: a caller the truth table denies learns that the task exists", Build: Build{legacyOnly, legacyFacade(func(ref *legacy.Tasks, _ legacyStore, _ harness.FacadeConfig) legacy.Facade {
		return legacyTerminalFirst{ref}
	})}},
	{Name: "facade-update-terminal-first", Breaks: []string{"M-F-SCOPE-1"}, Defect: "the facade's tasks/update answers a finished task with ErrTerminal before its owner check: a caller the truth table denies learns that the task exists", Build: Build{modernOnly, modernFacade(func(m modernBroken) modern.Facade { m.terminalFirst = true; return m })}},
	{Name: "facade-cleanup-answers-zero", Breaks: []string{"L-F-CLEAN-1"}, Defect: "the facade's Cleanup answers 0 and removes nothing although its store has Cleanup (the reference facade's answer for a store without one)", Build: Build{legacyOnly, legacyFacade(func(ref *legacy.Tasks, _ legacyStore, _ harness.FacadeConfig) legacy.Facade {
		return legacyCleanupZero{ref}
	})}},
}

// legacyFacade is a wrapper over the reference legacy facade alone.
func legacyFacade(f func(ref *legacy.Tasks, st legacyStore, cfg harness.FacadeConfig) legacy.Facade) *wrapper {
	return &wrapper{legacyFacade: f}
}

// modernFacade is a wrapper over the reference modern facade alone.
func modernFacade(f func(m modernBroken) modern.Facade) *wrapper { return &wrapper{modernFacade: f} }

// ownerEmpty is the wrapper of a facade that takes owner "" for a real owner, in both
// eras; asPrincipal shows such a task to the anonymous caller too.
func ownerEmpty(asPrincipal bool) *wrapper {
	return &wrapper{
		legacyFacade: func(ref *legacy.Tasks, _ legacyStore, _ harness.FacadeConfig) legacy.Facade {
			return legacyOwnerEmpty{ref, emptyOwnerSeer(asPrincipal)}
		},
		modernFacade: func(m modernBroken) modern.Facade {
			m.emptyOwner = emptyOwnerSeer(asPrincipal)
			return m
		},
	}
}

// facadeMode: a mutant with a facade layer declares its own facade.
func (w *wrapper) facadeMode() harness.FacadeMode {
	if w.legacyFacade != nil || w.modernFacade != nil {
		return harness.FacadeOwn
	}
	return harness.FacadeReference
}

// LegacyFacade is the reference facade over the namespace's store, under the mutant's
// facade layer.
func (n *namespace) LegacyFacade(ctx context.Context, cfg harness.FacadeConfig) (legacy.Facade, error) {
	st := legacyStore{n.instance()}
	ref := legacy.New(st, legacy.WithRequireOwner(cfg.RequireOwner))
	if n.w.legacyFacade == nil {
		return ref, nil
	}
	return n.w.legacyFacade(ref, st, cfg), nil
}

// ModernFacade is LegacyFacade for the modern era.
func (n *namespace) ModernFacade(ctx context.Context, cfg harness.FacadeConfig) (modern.Facade, error) {
	inst := n.instance()
	st := modernStore{inst}
	ref := modern.New(modern.Config{Store: st, Clock: inst.b.clock, RequireOwner: cfg.RequireOwner, DefaultTTL: cfg.DefaultTTL, MaxTTL: cfg.MaxTTL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if n.w.modernFacade == nil {
		return ref, nil
	}
	return n.w.modernFacade(modernBroken{Tasks: ref, st: st, clock: inst.b.clock}), nil
}

// legacyCancelOverwrites cancels whatever the task's status: scope checked, finality not.
type legacyCancelOverwrites struct {
	*legacy.Tasks
	st legacy.Store
}

func (f legacyCancelOverwrites) Cancel(ctx context.Context, id string, caller reference.Caller) (legacy.Task, error) {
	if _, err := f.Tasks.Get(ctx, id, caller); err != nil {
		return nil, err
	}
	return f.st.Update(ctx, id, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

// legacyTerminalFirst answers a finished task's Cancel with ErrTerminal before it asks
// whether the caller may see the task.
type legacyTerminalFirst struct{ *legacy.Tasks }

func (f legacyTerminalFirst) Cancel(ctx context.Context, id string, caller reference.Caller) (legacy.Task, error) {
	t, err := f.Tasks.Get(ctx, id, reference.System())
	if err == nil && t.Status().Terminal() {
		return nil, reference.ErrorFor(reference.ErrTerminal, id)
	}
	return f.Tasks.Cancel(ctx, id, caller)
}

// legacyCleanupZero answers Cleanup as if its store had none.
type legacyCleanupZero struct{ *legacy.Tasks }

func (legacyCleanupZero) Cleanup(context.Context, time.Duration) (int, error) { return 0, nil }

// legacyListTrusting passes the request's owner filter to the store and returns what
// the store answers: no scope from the caller, no re-check.
type legacyListTrusting struct {
	*legacy.Tasks
	st           legacy.Store
	requireOwner bool
}

func (f legacyListTrusting) List(ctx context.Context, opts legacy.ListOptions, caller reference.Caller) ([]legacy.Task, error) {
	opts.RequireOwner = f.requireOwner
	return f.st.List(ctx, opts)
}

// modernBroken is the reference modern facade with one client operation replaced by a
// CAS loop of its own that has the defect.
type modernBroken struct {
	*modern.Tasks
	st    modern.Store
	clock reference.Clock

	cancelOverwrites, updateUnissued, terminalFirst bool
	// emptyOwner, when set, decides who sees a task whose owner is "".
	emptyOwner func(reference.Caller) bool
}

// swapLoop reads the task for caller, lets change compute the next state, and swaps
// it in, retrying on conflict. change returning false writes nothing.
func (f modernBroken) swapLoop(ctx context.Context, id string, caller reference.Caller, change func(t *modern.Task) bool) (modern.Task, error) {
	for {
		cur, err := f.Tasks.Get(ctx, id, caller)
		if err != nil {
			return modern.Task{}, err
		}
		next := cur.Clone()
		if !change(&next) {
			return cur, nil
		}
		next.LastUpdatedAt = max(reference.NowMillis(f.clock), cur.LastUpdatedAt)
		stored, err := f.st.Swap(ctx, reference.System(), cur.Version, next)
		if errors.Is(err, reference.ErrConflict) {
			continue
		}
		return stored, err
	}
}

// scoped is the caller the reference facade is asked as: the system caller once the
// mutant's own check of an owner "" task has let caller through.
func (f modernBroken) scoped(ctx context.Context, id string, caller reference.Caller) (reference.Caller, error) {
	if f.emptyOwner == nil {
		return caller, nil
	}
	cur, err := f.Tasks.Get(ctx, id, reference.System())
	return askAs(id, caller, err, cur.Owner == "", f.emptyOwner)
}

// askAs is the caller a facade that takes owner "" for a real owner asks the reference
// facade as, for task id read as the system (err that read's error, empty whether its
// owner is ""): the system caller once sees let c through, else c itself.
func askAs(id string, c reference.Caller, err error, empty bool, sees func(reference.Caller) bool) (reference.Caller, error) {
	switch {
	case err != nil:
		return c, err
	case !empty:
		return c, nil
	case !sees(c):
		return c, reference.NotFound(id)
	}
	return reference.System(), nil
}

func (f modernBroken) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	c, err := f.scoped(ctx, id, caller)
	if err != nil {
		return modern.Task{}, err
	}
	return f.Tasks.Get(ctx, id, c)
}

// finished is the update-terminal-first mutant's early answer: a finished task, read as
// the system, whatever the caller.
func (f modernBroken) finished(ctx context.Context, id string) (modern.Task, bool) {
	if !f.terminalFirst {
		return modern.Task{}, false
	}
	cur, err := f.Tasks.Get(ctx, id, reference.System())
	return cur, err == nil && cur.Status.Terminal()
}

func (f modernBroken) Cancel(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if f.emptyOwner != nil {
		c, err := f.scoped(ctx, id, caller)
		if err != nil {
			return modern.Task{}, err
		}
		return f.Tasks.Cancel(ctx, id, c)
	}
	if !f.cancelOverwrites {
		return f.Tasks.Cancel(ctx, id, caller)
	}
	return f.swapLoop(ctx, id, caller, func(t *modern.Task) bool {
		t.Status = reference.StatusCancelled
		return true
	})
}

func (f modernBroken) Update(ctx context.Context, id string, caller reference.Caller, responses map[string]any) (modern.Task, error) {
	if cur, done := f.finished(ctx, id); done {
		return cur, reference.ErrorFor(reference.ErrTerminal, id) // as the reference facade answers its owner
	}
	if f.emptyOwner != nil {
		c, err := f.scoped(ctx, id, caller)
		if err != nil {
			return modern.Task{}, err
		}
		return f.Tasks.Update(ctx, id, c, responses)
	}
	if !f.updateUnissued {
		return f.Tasks.Update(ctx, id, caller, responses)
	}
	// Stage the answers to keys that are not outstanding (never issued, or answered)
	// first, then let the reference facade apply the rest.
	_, err := f.swapLoop(ctx, id, caller, func(t *modern.Task) bool {
		if t.Status.Terminal() {
			return false
		}
		staged := false
		for k, v := range responses {
			if _, outstanding := t.InputRequests[k]; outstanding {
				continue
			}
			if t.StagedResponses == nil {
				t.StagedResponses = map[string]any{}
			}
			t.StagedResponses[k] = v
			staged = true
		}
		return staged
	})
	if err != nil {
		return modern.Task{}, err
	}
	return f.Tasks.Update(ctx, id, caller, responses)
}

// emptyOwnerSeer is who a facade that takes owner "" for a real owner shows such a task
// to: the system caller, and with asPrincipal also a caller whose principal id reads as
// "" (the anonymous caller: reference.Caller's id is "" for it).
func emptyOwnerSeer(asPrincipal bool) func(reference.Caller) bool {
	return func(c reference.Caller) bool {
		id, _ := c.PrincipalID()
		return c.IsSystem() || (asPrincipal && !c.IsSystem() && id == "")
	}
}

// legacyOwnerEmpty stamps the owner it is given even when it is "", and judges a task
// whose owner is "" with sees instead of the truth table (an absent or null owner is
// still no owner).
type legacyOwnerEmpty struct {
	*legacy.Tasks
	sees func(reference.Caller) bool
}

func emptyOwned(t legacy.Task) bool {
	o, ok := t[legacy.KeyOwner].(string)
	return ok && o == ""
}

func (f legacyOwnerEmpty) Create(ctx context.Context, id string, meta legacy.Task, owner string) (legacy.Task, error) {
	m := legacy.Task{}
	maps.Copy(m, meta)
	m[legacy.KeyOwner] = owner
	return f.Tasks.Create(ctx, id, m, "")
}

// caller is the caller the reference facade is asked as for task id.
func (f legacyOwnerEmpty) caller(ctx context.Context, id string, c reference.Caller) (reference.Caller, error) {
	t, err := f.Tasks.Get(ctx, id, reference.System())
	return askAs(id, c, err, emptyOwned(t), f.sees)
}

func (f legacyOwnerEmpty) Get(ctx context.Context, id string, caller reference.Caller) (legacy.Task, error) {
	c, err := f.caller(ctx, id, caller)
	if err != nil {
		return nil, err
	}
	return f.Tasks.Get(ctx, id, c)
}

func (f legacyOwnerEmpty) Cancel(ctx context.Context, id string, caller reference.Caller) (legacy.Task, error) {
	c, err := f.caller(ctx, id, caller)
	if err != nil {
		return nil, err
	}
	return f.Tasks.Cancel(ctx, id, c)
}

func (f legacyOwnerEmpty) List(ctx context.Context, opts legacy.ListOptions, caller reference.Caller) ([]legacy.Task, error) {
	limit := opts.Limit
	opts.Limit = nil
	all, err := f.Tasks.List(ctx, opts, reference.System())
	if err != nil {
		return nil, err
	}
	visible, err := f.Tasks.List(ctx, opts, caller)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, r := range visible {
		ids[r.ID()] = true
	}
	out := []legacy.Task{}
	for _, r := range all {
		if limit != nil && len(out) >= *limit {
			break
		}
		if (emptyOwned(r) && f.sees(caller)) || (!emptyOwned(r) && ids[r.ID()]) {
			out = append(out, r)
		}
	}
	return out, nil
}
