package mutants

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Defects in how a call honours its context (S-CTX-1), and the stores outside the
// catalogue that die, refuse or panic: a gate every call of both eras passes before the
// honest call, which it may hand a context that never ends.

// contextMutants are the context defects.
var contextMutants = []mutant.Mutant[Build]{
	{Name: "ignores-context", Breaks: []string{"S-CTX-1"}, Defect: "a cancelled context is ignored and the call goes through", Build: Build{both, gated(ignoreContext, "the protocol has no cancellation: the Go client enforces contexts itself")}},
	{Name: "wait-ignores-context", Breaks: []string{"S-CTX-1"}, Defect: "the context is checked when a call starts, not while it waits on a lock someone else holds (a blocking call without the context)", Build: Build{both, gated(waitWithoutContext, "the protocol has no cancellation: the Go client stops waiting for a held call itself")}},
	{Name: "sleeps-holding-lock", Breaks: []string{"S-CTX-1"}, Defect: "a call checks its context on entry, then takes the store's I/O lock without it and holds it across its I/O (2 ms, 100 ms when other calls are in the store): callers queue, ignoring their contexts (no harness.Blocker; declared self-contained)", Build: Build{both, slowly(sleepHoldingLock)}},
	{Name: "queues-on-channel", Breaks: []string{"S-CTX-1"}, Defect: "a call checks its context on entry, then hands itself to a single worker over an unbuffered channel (2 ms a call, 100 ms when others are in the store) and waits for its reply, ignoring its context (no harness.Blocker; declared self-contained)", Build: Build{both, slowly(queueOnChannel)}},
}

// gate runs before every call: it answers the call's error, or the context the honest
// call runs with.
type gate func(ctx context.Context, x *wrapState) (context.Context, error)

func gated(g gate, inProcessOnly string) *wrapper {
	return &wrapper{
		legacy:        func(st legacyStore, x *wrapState) legacy.Store { return legacyGated{st, g, x} },
		modern:        func(st modernStore, x *wrapState) modern.Store { return modernGated{st, g, x} },
		inProcessOnly: inProcessOnly,
	}
}

// ignoreContext lets a cancelled context through, and waits on a held lock regardless.
func ignoreContext(ctx context.Context, _ *wrapState) (context.Context, error) {
	return context.WithoutCancel(ctx), nil
}

// waitWithoutContext checks the context when a call starts, not while it waits on a lock
// someone else holds.
func waitWithoutContext(ctx context.Context, _ *wrapState) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mutant store: %w", err)
	}
	return context.WithoutCancel(ctx), nil
}

// ops counts the operations of this process's dies-mid-run stores.
var ops atomic.Int64

// diesMidRunWrapper is the honest store whose process exits (status 3) on its
// diesAfter-th operation.
var diesMidRunWrapper = gated(func(ctx context.Context, _ *wrapState) (context.Context, error) {
	if ops.Add(1) == diesAfter {
		fmt.Fprintf(os.Stderr, "mutant %s: exiting on operation %d\n", DiesMidRunName, diesAfter)
		os.Exit(3)
	}
	return ctx, nil
}, "")

type legacyGated struct {
	legacyStore
	g gate
	x *wrapState
}

func (s legacyGated) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return nil, err
	}
	return s.legacyStore.Create(ctx, id, meta)
}

func (s legacyGated) Get(ctx context.Context, id string) (legacy.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return nil, err
	}
	return s.legacyStore.Get(ctx, id)
}

func (s legacyGated) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return nil, err
	}
	return s.legacyStore.Update(ctx, id, changes)
}

func (s legacyGated) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return nil, err
	}
	return s.legacyStore.UpdateIf(ctx, id, allowed, changes)
}

func (s legacyGated) Delete(ctx context.Context, id string) error {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return err
	}
	return s.legacyStore.Delete(ctx, id)
}

func (s legacyGated) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return nil, err
	}
	return s.legacyStore.List(ctx, opts)
}

func (s legacyGated) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return nil, err
	}
	return s.legacyStore.Cancel(ctx, id)
}

func (s legacyGated) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return 0, err
	}
	return s.legacyStore.Cleanup(ctx, ttl)
}

type modernGated struct {
	modernStore
	g gate
	x *wrapState
}

func (s modernGated) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return modern.Task{}, err
	}
	return s.modernStore.Create(ctx, task)
}

func (s modernGated) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return modern.Task{}, err
	}
	return s.modernStore.Get(ctx, id, caller)
}

func (s modernGated) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return modern.Task{}, err
	}
	return s.modernStore.Swap(ctx, caller, expected, next)
}

func (s modernGated) Delete(ctx context.Context, id string) error {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return err
	}
	return s.modernStore.Delete(ctx, id)
}

func (s modernGated) Sweep(ctx context.Context) (int, error) {
	ctx, err := s.g(ctx, s.x)
	if err != nil {
		return 0, err
	}
	return s.modernStore.Sweep(ctx)
}

// refusingUpdate answers the legacy Update with ErrUnsupported (refuses-update).
type refusingUpdate struct{ legacyStore }

func (s refusingUpdate) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return nil, fmt.Errorf("legacy Update of %q: %w", id, reference.ErrUnsupported)
}

// panicsInRaceWrapper's legacy Update panics when another Update is in flight.
var panicsInRaceWrapper = &wrapper{
	legacy:        func(st legacyStore, x *wrapState) legacy.Store { return panicking{st, x} },
	inProcessOnly: "a panic in the child process ends it: over the wire it is an aborted run, not a panic",
}

type panicking struct {
	legacyStore
	x *wrapState
}

func (s panicking) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	n := s.x.updating.Add(1)
	defer s.x.updating.Add(-1)
	if n > 1 {
		panic(fmt.Sprintf("mutant %s: Update of %q while %d other Updates are in flight", PanicsInRaceName, id, n-1))
	}
	return s.legacyStore.Update(ctx, id, changes)
}

// outsideMutants are defects of the deployment rather than of the code: a second
// instance of the store reading its own stale copy of the backend.
var outsideMutants = []mutant.Mutant[Build]{
	{Name: "stale-instance", Breaks: []string{"S-SHARE-1", "M-CREATE-2"}, Defect: "a second instance reads its own stale copy of the backend", Build: Build{both, &wrapper{staleAfterFirst: true, inProcessOnly: "one child process is one store instance"}}},
}
