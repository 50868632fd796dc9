package mutants

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Facade mutants: the honest store under a facade with one defect, the layer that
// enforces scoping and finality in a real server. Their harness declares its own facade
// (harness.FacadeOwn), so the facade rules judge the broken facade, in process and over
// the wire (`storecheck serve` serves it as the facade layer of protocol 2).
const (
	facadeCancelOverwrites defect = 1000 + iota
	facadeListSkipsRecheck
	facadeUpdateUnissued
)

func init() {
	catalogue = append(catalogue,
		Mutant{"facade-cancel-overwrites-finished", []string{"L-F-FIN-1", "M-F-FIN-1", "L-F-FIN-2", "M-F-FIN-2"}, "the facade's Cancel overwrites a completed, failed or cancelled task (ConduitMCP's cancel)", both, facadeCancelOverwrites},
		Mutant{"facade-list-skips-recheck", []string{"L-F-LIST-1", "L-F-SCOPE-1", "S-OWN-1"}, "the facade's List scopes by the request's owner filter and re-checks no row the store returns", legacyOnly, facadeListSkipsRecheck},
		Mutant{"facade-update-accepts-unissued", []string{"M-F-INPUT-2"}, "the facade's tasks/update stages answers for input keys never issued", modernOnly, facadeUpdateUnissued},
	)
}

func isFacadeDefect(d defect) bool { return d >= facadeCancelOverwrites }

func facadeMode(d defect) harness.FacadeMode {
	if isFacadeDefect(d) {
		return harness.FacadeOwn
	}
	return harness.FacadeReference
}

// LegacyFacade is the reference facade over the namespace's store, with the mutant's
// facade defect.
func (n *namespace) LegacyFacade(ctx context.Context, cfg harness.FacadeConfig) (legacy.Facade, error) {
	st := legacyStore{n.instance()}
	ref := legacy.New(st, legacy.WithRequireOwner(cfg.RequireOwner))
	switch n.d {
	case facadeCancelOverwrites:
		return legacyCancelOverwrites{ref, st}, nil
	case facadeListSkipsRecheck:
		return legacyListTrusting{ref, st, cfg.RequireOwner}, nil
	}
	return ref, nil
}

// ModernFacade is LegacyFacade for the modern era.
func (n *namespace) ModernFacade(ctx context.Context, cfg harness.FacadeConfig) (modern.Facade, error) {
	inst := n.instance()
	st := modernStore{inst}
	ref := modern.New(modern.Config{Store: st, Clock: inst.b.clock, RequireOwner: cfg.RequireOwner, DefaultTTL: cfg.DefaultTTL, MaxTTL: cfg.MaxTTL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	m := modernBroken{Tasks: ref, st: st, clock: inst.b.clock}
	switch n.d {
	case facadeCancelOverwrites:
		m.cancelOverwrites = true
	case facadeUpdateUnissued:
		m.updateUnissued = true
	default:
		return ref, nil
	}
	return m, nil
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

	cancelOverwrites, updateUnissued bool
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

func (f modernBroken) Cancel(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if !f.cancelOverwrites {
		return f.Tasks.Cancel(ctx, id, caller)
	}
	return f.swapLoop(ctx, id, caller, func(t *modern.Task) bool {
		t.Status = reference.StatusCancelled
		return true
	})
}

func (f modernBroken) Update(ctx context.Context, id string, caller reference.Caller, responses map[string]any) (modern.Task, error) {
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
