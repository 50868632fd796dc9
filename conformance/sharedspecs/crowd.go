package sharedspecs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// S-CTX-1 on a harness that cannot hold its backend (no harness.Blocker): the store's
// own waits are made to happen instead. A crowd of clients calls one task without pause
// while probe calls with a short deadline go in among them; a store whose calls queue
// (a lock held across I/O, a channel to a single worker, a pool) makes the probes wait,
// and each must then answer within 1 s of its deadline. A probe still in the store when
// its deadline passed was held; with none held, nothing was cancelled while waiting.

// NoBlocker is why the harness's hold cannot be used.
const NoBlocker = "the harness cannot hold its backend busy (it implements no harness.Blocker)"

const (
	// crowdClients call the task without pause while the probes run.
	crowdClients = 16
	// crowdDeadline is each probe's deadline: far above an in-memory call's time, far
	// below a queue behind a crowd of slow calls.
	crowdDeadline = 5 * time.Millisecond
	// crowdProbes and crowdBudget bound the probes: the first to run out ends them.
	crowdProbes = 64
	crowdBudget = 2 * time.Second
)

// crowdProbe is one call of the probe side: what it is, and the call.
type crowdProbe struct {
	input string
	call  func(ctx context.Context) error
}

// crowdHeld runs the crowd check of S-CTX-1: crowd loops one call each on the task
// without pause, probes are tried in turn with a crowdDeadline context.
func crowdHeld(e *battery.Env, crowd func(i int) error, probes []crowdProbe) {
	e.NotExercisedRemote("the store is behind the wire protocol: storecheck's client stops waiting for a call whose context has ended, so the store's own waits cannot be judged")
	var stop atomic.Bool
	var cs battery.Clients
	var crowdErr error
	var errOnce sync.Once
	for i := range crowdClients {
		cs.Run(i, func() {
			for !stop.Load() {
				if err := crowd(i); err != nil {
					errOnce.Do(func() { crowdErr = err })
					return
				}
			}
		})
	}
	time.Sleep(crowdDeadline) // let the crowd form

	var held, excused int
	var excuse string
	faulted := false
	stalls := battery.WatchStalls()
	defer stalls.Stop()
	started := time.Now()
	for k := 0; k < crowdProbes && time.Since(started) < crowdBudget; k++ {
		p := probes[k%len(probes)]
		input := fmt.Sprintf("%s among %d clients calling the same task, its context past its %v deadline", p.input, crowdClients, crowdDeadline)
		late, err, answered := crowdProbeOnce(e.Ctx, p)
		stalled := stalls.Stalled()
		switch {
		case late <= 0:
			continue // answered before its context ended: not held
		case !answered:
			faulted = true
			e.Check(false, input, "an answer within 1 s of the context's end", fmt.Sprintf("no answer %v after the context's end", late.Round(time.Millisecond)))
		case late <= modernspecs.Prompt:
			held++
			continue
		case battery.LateOnItsOwn(late, stalled, modernspecs.Prompt):
			faulted = true
			e.Check(false, input, "an answer within 1 s of the context's end", fmt.Sprintf("%s %v after the context's end (storecheck's own process stalled %v of it)",
				battery.DescribeErr(err), late.Round(time.Millisecond), stalled.Round(time.Millisecond)))
		default:
			// Late, but no later than storecheck's own stall: the store is not judged by it.
			excused++
			excuse = fmt.Sprintf("%s: answered %v after the context's end while storecheck's own process stalled for %v (a starved machine), so the lateness cannot be laid on the store",
				input, late.Round(time.Millisecond), stalled.Round(time.Millisecond))
			continue
		}
		break
	}
	stop.Store(true)
	if !battery.Finishes(10*time.Second, cs.Wait) {
		e.Fatalf("the crowd of %d clients calling one task still had calls in the store 10 s after it was told to stop", crowdClients)
	}
	if crowdErr != nil {
		e.Fatalf("setup: a call of the crowd failed: %v", crowdErr)
	}
	if held > 0 || faulted {
		return // each held probe answered within 1 s of its context's end, or a fault is recorded
	}
	if excused > 0 {
		e.Inconclusive(fmt.Sprintf("%d probe calls answered late only by as long as storecheck itself stalled, and none held answered in time; %s", excused, excuse))
		return
	}
	why := fmt.Sprintf(NoBlocker+", and among %d clients calling one task no probe call was still in the store when its %v deadline passed", crowdClients, crowdDeadline)
	if e.Caps.SelfContained {
		// Nothing to cancel: the store declares no waits outside its process, and the
		// crowd made none happen inside it.
		e.NotExercised(why + "; the store declares itself self-contained (harness.Capabilities.SelfContained): nothing to hold")
	}
	e.NotReached(why)
}

// crowdProbeOnce makes one probe call with a crowdDeadline context and returns how late
// after the context's end it answered (at most 0: before it), with its error. A call
// still unanswered 1 s past its deadline is waited for 10 s more, so that its lateness
// can be set against the process's own stalls; answered is false when even that ran out
// (the call's error is then not read: the call still runs).
func crowdProbeOnce(parent context.Context, p crowdProbe) (late time.Duration, err error, answered bool) {
	ctx, cancel := context.WithTimeout(parent, crowdDeadline)
	defer cancel()
	deadline, _ := ctx.Deadline()
	var callErr error // read only once done is closed
	done := make(chan struct{})
	go func() { defer close(done); callErr = p.call(ctx) }()
	for _, wait := range []time.Duration{time.Until(deadline) + modernspecs.Prompt, 10 * time.Second} {
		select {
		case <-done:
			return time.Since(deadline), callErr, true
		case <-time.After(wait):
		}
	}
	return time.Since(deadline), nil, false
}

// legacyCrowdHeld is S-CTX-1's crowd check in the legacy era: the crowd updates the task,
// the probes get and update it.
func legacyCrowdHeld(e *battery.Env) {
	st := e.Legacy()
	id := e.ID("crowd")
	battery.MustCreate(e, st, id, legacy.Task{"n": 0})
	crowd := func(i int) error {
		_, err := st.Update(e.Ctx, id, legacy.Task{"crowd": i})
		return err
	}
	changes := legacy.Task{"probe": true}
	crowdHeld(e, crowd, []crowdProbe{
		{fmt.Sprintf("Get(%s)", battery.Literal(id)), func(ctx context.Context) error {
			_, err := st.Get(ctx, id)
			return err
		}},
		{fmt.Sprintf("Update(%s, %s)", battery.Literal(id), battery.Literal(changes)), func(ctx context.Context) error {
			_, err := st.Update(ctx, id, changes)
			return err
		}},
	})
	later := legacy.Task{"later": true}
	input := fmt.Sprintf("Update(%s, %s) after the crowd", battery.Literal(id), battery.Literal(later))
	got, err := st.Update(e.Ctx, id, later)
	if e.CheckErr(err, nil, input) {
		e.Check(got["later"] == true, input, `a task with "later": true`, got)
	}
}

// modernCrowdHeld is S-CTX-1's crowd check in the modern era: the crowd reads and swaps
// the task (conflicts are expected), the probes get and swap it.
func modernCrowdHeld(e *battery.Env) {
	st := e.Modern()
	cur := modernspecs.CreateTask(e, st, modernspecs.Owned(e, e.ID("crowd"), "alice"))
	id := cur.TaskID
	swapOnce := func(ctx context.Context, msg string) error {
		t, err := st.Get(ctx, id, reference.System())
		if err != nil {
			return err
		}
		_, err = st.Swap(ctx, reference.System(), t.Version, modernspecs.Next(t, msg))
		if errors.Is(err, reference.ErrConflict) {
			return nil
		}
		return err
	}
	crowd := func(i int) error { return swapOnce(e.Ctx, fmt.Sprintf("crowd %d", i)) }
	crowdHeld(e, crowd, []crowdProbe{
		{fmt.Sprintf("Get(%s, principal \"alice\")", battery.Literal(id)), func(ctx context.Context) error {
			_, err := st.Get(ctx, id, reference.Principal("alice"))
			return err
		}},
		{fmt.Sprintf("Get then Swap of %s by the system caller", battery.Literal(id)), func(ctx context.Context) error {
			return swapOnce(ctx, "probe")
		}},
	})
	input := fmt.Sprintf("Get then Swap of %s after the crowd", battery.Literal(id))
	e.CheckErr(swapOnce(e.Ctx, "after the crowd"), nil, input)
}

// crowdOrHeld picks S-CTX-1's held-call check: the harness's hold when it has one, the
// crowd otherwise.
func crowdOrHeld(e *battery.Env, era harness.Era) (*blocked, bool) {
	b, ok := e.Namespace.(harness.Blocker)
	if !ok {
		if era == harness.EraLegacy {
			legacyCrowdHeld(e)
		} else {
			modernCrowdHeld(e)
		}
		return nil, false
	}
	return &blocked{e: e, b: b, era: era}, true
}
