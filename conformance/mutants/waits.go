package mutants

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Stores that wait on their own queue while ignoring the context: the harness has no
// hold of theirs to use (no harness.Blocker) and declares them self-contained, as an
// author of an in-process store would. S-CTX-1's crowd check must still find the wait.

// slowIO is the time a waiting mutant's call spends in its simulated I/O when other calls
// are in the store with it: behind a crowd of 16 calls, far more than the 1 s the rule
// allows after a context's end. A call alone in the store takes fastIO, long enough for
// a crowd's calls to meet on any machine, short enough for the mutant's other specs.
const (
	slowIO = 100 * time.Millisecond
	fastIO = 2 * time.Millisecond
)

// slowly is a gate that makes the call wait its turn ignoring its context, after
// answering a context already ended: sleeps-holding-lock holds the store's I/O lock
// across a sleep, queues-on-channel hands the call to a single worker over an unbuffered
// channel and waits for its reply. The honest call runs with a context that never ends:
// the namespace offers no hold to wait on.
func slowly(wait func(x *wrapState, contended bool)) *wrapper {
	w := gated(func(ctx context.Context, x *wrapState) (context.Context, error) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("mutant store: %w", err)
		}
		contended := x.inStore.Add(1) > 1
		defer x.inStore.Add(-1)
		wait(x, contended)
		return context.WithoutCancel(ctx), nil
	}, "the protocol has no cancellation: the Go client stops waiting for a call whose context ended itself")
	w.slow = true
	return w
}

func sleepHoldingLock(x *wrapState, contended bool) {
	x.io.Lock()
	time.Sleep(ioTime(contended))
	x.io.Unlock()
}

func queueOnChannel(x *wrapState, contended bool) {
	j := ioJob{slow: contended, done: make(chan struct{})}
	x.worker().jobs <- j
	<-j.done
}

func ioTime(contended bool) time.Duration {
	if contended {
		return slowIO
	}
	return fastIO
}

// ioJob is one call handed to queues-on-channel's worker.
type ioJob struct {
	slow bool
	done chan struct{}
}

// ioWorker is queues-on-channel's single worker: one job at a time, slowIO each.
type ioWorker struct{ jobs chan ioJob }

// worker starts the namespace's worker on first use; it lives as long as the process.
func (x *wrapState) worker() *ioWorker {
	x.workerOnce.Do(func() {
		x.ioWorker = &ioWorker{jobs: make(chan ioJob)}
		go func() {
			for j := range x.ioWorker.jobs {
				time.Sleep(ioTime(j.slow))
				close(j.done)
			}
		}()
	})
	return x.ioWorker
}

// ioState is the part of wrapState the waiting mutants use.
type ioState struct {
	inStore    atomic.Int64
	io         sync.Mutex
	workerOnce sync.Once
	ioWorker   *ioWorker
}

// unheldHarness is a storeHarness whose namespaces offer no hold (no harness.Blocker)
// and whose capabilities say self-contained.
type unheldHarness struct{ storeHarness }

func (h *unheldHarness) Capabilities() harness.Capabilities {
	c := h.storeHarness.Capabilities()
	c.SelfContained = true
	return c
}

func (h *unheldHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	n, err := h.storeHarness.Open(ctx, clock)
	if err != nil {
		return nil, err
	}
	return unheld{n.(*namespace)}, nil
}

// unheld hides the namespace's Block.
type unheld struct{ n *namespace }

func (u unheld) Legacy(ctx context.Context) (legacy.Store, error) { return u.n.Legacy(ctx) }
func (u unheld) Modern(ctx context.Context) (modern.Store, error) { return u.n.Modern(ctx) }
func (u unheld) SDK(ctx context.Context) (sdk.Store, error)       { return u.n.SDK(ctx) }
func (u unheld) Close(ctx context.Context) error                  { return u.n.Close(ctx) }

// OnlyRules, when not empty, are the only rules the battery runs on the mutant m: its
// calls are too slow for the rest.
func OnlyRules(m mutant.Mutant[Build]) []string {
	if m.Build.spec().slow {
		return m.Breaks
	}
	return nil
}

// JudgedRules are the rules `storecheck mutants --declared` runs on the mutant m: the
// rules it breaks, which alone decide whether it is killed (Judge), S-CONC-1 for a
// defect that only its state machines find, and in the legacy and modern eras
// B-REPRO-1, whose replay must hold on every store.
func JudgedRules(m mutant.Mutant[Build]) []string {
	if only := OnlyRules(m); len(only) > 0 {
		return only
	}
	rules := append([]string(nil), m.Breaks...)
	add := func(id string) {
		if !slices.Contains(rules, id) {
			rules = append(rules, id)
		}
	}
	// A defect whose declared rule only the state machines of S-CONC-1 catch: they file
	// the fault under the rule broken (Env.FaultOf), and no spec of that rule meets it.
	if m.Build.spec().machines {
		add("S-CONC-1")
	}
	if slices.Contains(m.Build.Eras, conformance.EraLegacy) || slices.Contains(m.Build.Eras, conformance.EraModern) {
		add("B-REPRO-1")
	}
	return rules
}
