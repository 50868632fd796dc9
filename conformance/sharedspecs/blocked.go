package sharedspecs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// S-CTX-1 on calls the backend holds back (harness.Blocker): the context ends while the
// call waits on a lock, a paused server or a store process that sleeps. The call must
// return within 1 s of the context's end with the context's error, and once the backend
// serves again the store must hold the state before the call or its whole effect, and
// serve later calls.

// heldWait is how long a held call runs before its context ends: time to reach the
// backend and wait on the hold.
const heldWait = 100 * time.Millisecond

// heldSettle is how long after a held write was let through the battery reads the task
// again: a statement the server had already received may still commit after the caller
// gave up (docs/spec.md, readings: nothing or everything).
const heldSettle = 100 * time.Millisecond

// blocked is one held-call spec's bookkeeping: which holds ran and which the harness
// could not make.
type blocked struct {
	e       *battery.Env
	b       harness.Blocker
	era     harness.Era
	ran     int
	refused []string
}

// hold holds the backend for the next call on id; ok is false when the harness cannot
// make that hold (that part is then not exercised).
func (bl *blocked) hold(id string, reads bool, what string) (harness.Hold, bool) {
	h, err := bl.b.Block(bl.e.Ctx, bl.era, id, reads)
	if errors.Is(err, reference.ErrUnsupported) {
		bl.refused = append(bl.refused, fmt.Sprintf("%s: %v", what, err))
		return harness.Hold{}, false
	}
	bl.e.BringUp("hold on the backend for "+what, err)
	if h.Release == nil {
		bl.e.BringUp("hold on the backend for "+what, errors.New("the harness returned a hold without Release"))
	}
	bl.ran++
	return h, true
}

// done reports what could not run: nothing at all is not exercised, a part is partly
// verified.
func (bl *blocked) done() {
	if len(bl.refused) == 0 {
		return
	}
	why := "the harness could not hold the backend for " + strings.Join(bl.refused, "; ")
	if bl.ran == 0 {
		bl.e.NotReached(why)
	}
	bl.e.PartlyVerified(why)
}

// heldCall is one call run while the backend holds it back.
type heldCall struct {
	e     *battery.Env
	input string
	done  chan error
	cs    battery.Clients
}

// callHeld runs call with a context that ends heldWait after the call started, by
// cancel or, with deadline, by its deadline passing; h holds the call back meanwhile.
// It checks that the call returns within 1 s of the context's end with an error wrapping
// the context's. It then releases h; wait must be called before the store is used again.
func callHeld(e *battery.Env, h harness.Hold, input string, deadline bool, call func(ctx context.Context) error) *heldCall {
	want := context.Canceled
	ctx, cancel := context.WithCancel(e.Ctx)
	if deadline {
		want = context.DeadlineExceeded
		ctx, cancel = context.WithTimeout(e.Ctx, heldWait)
	}
	defer cancel()
	input = fmt.Sprintf("%s held back by %s, its context %s after %v", input, h.How, map[bool]string{false: "cancelled", true: "past its deadline"}[deadline], heldWait)
	hc := &heldCall{e: e, input: input, done: make(chan error, 1)}
	start := time.Now()
	hc.cs.Run(0, func() { hc.done <- call(ctx) })

	var timer <-chan time.Time // the cancel; with deadline, the context ends by itself
	if !deadline {
		t := time.NewTimer(heldWait)
		defer t.Stop()
		timer = t.C
	}
	var (
		err      error
		answered bool
		// raced: the answer came as the context ended, before the battery saw the end; a
		// call that finished its work then may report it (nothing or everything).
		raced bool
	)
	select {
	case err = <-hc.done:
		answered, raced = true, true
		if dl, ok := ctx.Deadline(); ctx.Err() == nil && (!ok || time.Now().Before(dl)) {
			// Answered while the backend held it: the hold did not hold this call (a cache?).
			hc.release(h)
			e.Inconclusive(fmt.Sprintf("%s: answered %s after %v, before its context ended: the hold did not hold it back, so nothing was cancelled while waiting",
				input, battery.DescribeErr(err), time.Since(start).Round(time.Millisecond)))
			return hc
		}
	case <-ctx.Done():
	case <-timer:
	}
	cancel()
	ended := time.Now()
	if !answered {
		select {
		case err = <-hc.done:
			answered = true
		case <-time.After(modernspecs.Prompt):
		}
	}
	took := time.Since(ended).Round(time.Millisecond)
	if e.Check(answered, input, "an answer within 1 s of the context's end", fmt.Sprintf("no answer %v after the context's end", took)) {
		e.Check((raced && err == nil) || errors.Is(err, want), input, "an error wrapping "+battery.DescribeErr(want)+" within 1 s of the context's end",
			fmt.Sprintf("%s, %v after the context's end", battery.DescribeErr(err), took))
	}
	hc.release(h)
	return hc
}

func (hc *heldCall) release(h harness.Hold) {
	ctx, cancel := context.WithTimeout(hc.e.Ctx, 10*time.Second)
	defer cancel()
	hc.e.BringUp("release of the hold on the backend ("+h.How+")", h.Release(ctx))
}

// wait waits, after the release, for the held call to have returned, so that nothing of
// it is still running when the store is judged.
func (hc *heldCall) wait() {
	if !battery.Finishes(10*time.Second, hc.cs.Wait) {
		hc.e.Fatalf("%s: still no answer 10 s after the backend was let go", hc.input)
	}
}

// settled reads what a held write left: the state before it (before) or its whole
// effect (after), now and again heldSettle later (a statement the server already had
// may commit after the caller gave up, but never half, and never undone). get reads the
// task; same compares.
func settled[T any](e *battery.Env, input string, before, after T, get func() (T, bool), same func(a, b T) bool, describe func(any) string) T {
	check := func(when string) (T, bool) {
		got, ok := get()
		what := fmt.Sprintf("Get %s %s", when, input)
		if !e.Check(ok, what, "the task, unchanged or wholly changed", "ErrNotFound") {
			var zero T
			return zero, false
		}
		if same(got, before) || same(got, after) {
			return got, true
		}
		e.Check(false, what, fmt.Sprintf("nothing changed, %s, or everything, %s", describe(before), describe(after)), describe(got))
		return got, false
	}
	first, ok := check("right after the backend served again, following")
	if !ok {
		panic(battery.ErrFatal)
	}
	time.Sleep(heldSettle)
	second, ok := check(fmt.Sprintf("%v after the backend served again, following", heldSettle))
	if !ok {
		panic(battery.ErrFatal)
	}
	if same(first, after) && !same(second, after) {
		e.Fatalf("input:    %s\n  the whole effect was read, then the state before it: the write was undone", input)
	}
	return second
}

func LegacyBlocked(s *battery.Suite) {
	s.It("S-CTX-1", "a legacy Get or Update held back by the backend (a lock, a paused server, a sleeping store process), or without a hold made to wait behind a crowd of calls on its task, returns within 1 s of its context's end with the context's error; afterwards the task is unchanged or wholly changed, and later calls work", func(e *battery.Env) {
		bl, ok := crowdOrHeld(e, harness.EraLegacy)
		if !ok {
			return
		}
		st := e.Legacy()
		for _, deadline := range []bool{false, true} {
			id := e.ID("held")
			task := battery.MustCreate(e, st, id, legacy.Task{"a": "b", "n": json.Number("1")})

			if h, ok := bl.hold(id, true, "Get"); ok {
				input := fmt.Sprintf("Get(%s)", battery.Literal(id))
				callHeld(e, h, input, deadline, func(ctx context.Context) error {
					_, err := st.Get(ctx, id)
					return err
				}).wait()
				battery.CheckStored(e, st, id, task, input+" held back")
			}

			if h, ok := bl.hold(id, false, "Update"); ok {
				changes := legacy.Task{"a": "changed", "c": map[string]any{"new": true}}
				input := fmt.Sprintf("Update(%s, %s)", battery.Literal(id), battery.Literal(changes))
				hc := callHeld(e, h, input, deadline, func(ctx context.Context) error {
					_, err := st.Update(ctx, id, changes)
					return err
				})
				hc.wait()
				task = settled(e, hc.input, task, legacy.Merge(task, changes),
					func() (legacy.Task, bool) { return battery.Stored(e, st, id) }, legacy.Equal, battery.Show)
				// Later calls work.
				later := legacy.Task{"later": true}
				input = fmt.Sprintf("Update(%s, %s) after a held Update", battery.Literal(id), battery.Literal(later))
				got, err := st.Update(e.Ctx, id, later)
				if e.CheckErr(err, nil, input) {
					battery.CheckTask(e, input+" returned", legacy.Merge(task, later), got)
					battery.CheckStored(e, st, id, legacy.Merge(task, later), input)
				}
			}
		}
		bl.done()
	})
}

func ModernBlocked(s *battery.Suite) {
	s.It("S-CTX-1", "a modern Get or Swap held back by the backend (a lock, a paused server, a sleeping store process), or without a hold made to wait behind a crowd of calls on its task, returns within 1 s of its context's end with the context's error; afterwards the task is the old one or the whole new one, and later calls work", func(e *battery.Env) {
		bl, ok := crowdOrHeld(e, harness.EraModern)
		if !ok {
			return
		}
		st := e.Modern()
		for _, deadline := range []bool{false, true} {
			cur := modernspecs.CreateTask(e, st, modernspecs.Owned(e, e.ID("held"), "alice"))
			id := cur.TaskID

			if h, ok := bl.hold(id, true, "Get"); ok {
				input := fmt.Sprintf("Get(%s, principal \"alice\")", battery.Literal(id))
				callHeld(e, h, input, deadline, func(ctx context.Context) error {
					_, err := st.Get(ctx, id, reference.Principal("alice"))
					return err
				}).wait()
				modernspecs.CheckStored(e, st, cur, input+" held back")
			}

			if h, ok := bl.hold(id, false, "Swap"); ok {
				next := modernspecs.Next(cur, "swapped while held back")
				next.Result = map[string]any{"held": true}
				input := modernspecs.SwapCall(reference.System(), cur.Version, next)
				hc := callHeld(e, h, input, deadline, func(ctx context.Context) error {
					_, err := st.Swap(ctx, reference.System(), cur.Version, next)
					return err
				})
				hc.wait()
				cur = settled(e, hc.input, cur, modernspecs.WithVersion(next, cur.Version+1),
					func() (modern.Task, bool) { return modernspecs.Stored(e, st, id) }, modern.Equal, battery.Show)
				// Later calls work.
				later := modernspecs.Next(cur, "after a held Swap")
				input = modernspecs.SwapCall(reference.System(), cur.Version, later) + " after a held Swap"
				got, err := st.Swap(e.Ctx, reference.System(), cur.Version, later)
				if e.CheckErr(err, nil, input) {
					modernspecs.CheckTask(e, input+" returned", modernspecs.WithVersion(later, cur.Version+1), got)
				}
			}
		}
		bl.done()
	})
}
