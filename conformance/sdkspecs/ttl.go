package sdkspecs

import (
	"errors"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// keptTTL creates a task requesting ttl and returns it with the ttl the store keeps,
// which the spec's arithmetic then counts with: P-CREATE-1 lets a store keep another ttl
// than the one asked for, and the rule holds for the kept one. A kept ttl with no
// retention to count (null: unlimited; 0 or less: P-TTL-3 and P-CREATE-1 judge those),
// or one too long to wait for on the real clock, leaves the rule partly verified: the
// store's own answer never turns a MUST rule into a skip.
func keptTTL(e *battery.Env, st sdk.Store, session string, ttl int64) (sdk.Task, int64) {
	t := create(e, st, session, params(i64(ttl)))
	switch {
	case t.TTL == nil:
		partlyStop(e, fmt.Sprintf("the store keeps ttl null (unlimited) when %d ms is requested: no retention to count (P-TTL-3 checks null)", ttl))
	case *t.TTL <= 0:
		partlyStop(e, fmt.Sprintf("the store keeps ttl %d when %d ms is requested: no retention to count (P-TTL-3 checks 0, P-CREATE-1 a negative ttl)", *t.TTL, ttl))
	case *t.TTL != ttl && !e.HasClock() && *t.TTL > maxRealTTL:
		partlyStop(e, fmt.Sprintf("no clock control: the store keeps ttl %d ms when %d ms is requested, too long to wait for (over %d ms)", *t.TTL, ttl, maxRealTTL))
	case *t.TTL != ttl:
		e.Note("the store keeps ttl %d ms when %d ms is requested: the spec counts the kept one", *t.TTL, ttl)
	}
	return t, *t.TTL
}

// maxRealTTL is the longest kept ttl a spec waits for on the real clock.
const maxRealTTL = 10_000

// partlyStop stops the spec as partly verified (faults recorded before still fail
// it): what the rule needs could not be provoked on this store.
func partlyStop(e *battery.Env, reason string) {
	e.StopIfFaults("then stopped: " + reason)
	e.PartlyVerified(reason)
	ginkgo.Skip("partly verified: "+reason, 1)
}

func TTL(s *battery.Suite) {
	s.It("P-TTL-1", "a task that is not terminal is never removed by its ttl, and can still be completed", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "ttl-working")
		ttl := ttl(e)
		w, wTTL := keptTTL(e, st, session, ttl)
		ir, irTTL := keptTTL(e, st, session, ttl)
		e.RequireErr(st.UpdateTaskStatus(e.Ctx, session, ir.TaskID, reference.StatusInputRequired, "waiting"), nil, "setup: UpdateTaskStatus(input_required)")
		kept := max(wTTL, irTTL)
		pass(e, 2*kept)
		after := fmt.Sprintf("twice their ttl of %d ms passed", kept)
		if wTTL != irTTL {
			after = fmt.Sprintf("twice the longer of their ttl (%d and %d ms) passed", wTTL, irTTL)
		}
		if cl, ok := st.(sdk.Cleaner); ok {
			_, err := cl.Cleanup(e.Ctx)
			e.CheckErr(err, nil, "Cleanup() once "+after)
			after += " and Cleanup ran"
		}
		for _, t := range []sdk.Task{w, ir} {
			got, ok := stored(e, st, session, t.TaskID)
			if !e.Check(ok, fmt.Sprintf("GetTask(%s, %s) of a task still at work after %s", whoOf(session), battery.Literal(t.TaskID), after), "the task: it is not terminal", "ErrNotFound: the ttl removed a task still at work") {
				continue
			}
			e.Check(!got.Status.Terminal(), fmt.Sprintf("GetTask(%s, %s) after %s", whoOf(session), battery.Literal(t.TaskID), after), "still working or input_required", string(got.Status))
			r := sampleResult("late but done")
			in := fmt.Sprintf("StoreTaskResult(%s, %s, completed) after %s", whoOf(session), battery.Literal(t.TaskID), after)
			// Its retention ended long ago, so once terminal it may go at once (P-TTL-2);
			// but the worker's result must be accepted.
			e.CheckErr(st.StoreTaskResult(e.Ctx, session, t.TaskID, reference.StatusCompleted, r), nil, in)
		}
	})

	s.It("P-TTL-2", "a terminal task is kept for its ttl counted as the store declares, and not after", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "ttl-count")
		from := st.Policy().TTLFrom
		// Completed at a quarter of its ttl (the one the store keeps): creation counting
		// ends at ttl, completion counting at a quarter past it. A count restarted at
		// completion, or at any write, keeps the task past the declared end.
		t, ttl := keptTTL(e, st, session, ttl(e))
		quarter := ttl / 4
		created, ok := millis(e, "CreateTask", "createdAt", t.CreatedAt)
		if !ok {
			return
		}
		pass(e, quarter)
		done := e.NowMillis()
		complete(e, st, session, t.TaskID, sampleResult("kept"))
		end := created + ttl
		if from == sdk.TTLFromCompletion {
			end = done + ttl
		}
		decl := fmt.Sprintf("ttl %d ms counted from %s (declared), created %s, completed %s", ttl, from, sdk.FormatTime(created), sdk.FormatTime(done))
		if e.HasClock() {
			e.Manual.SetMillis(end - 1)
			_, found := stored(e, st, session, t.TaskID)
			e.Check(found, fmt.Sprintf("GetTask at %s, 1 ms before its retention ends; %s", sdk.FormatTime(end-1), decl), "the task", "ErrNotFound")
			e.Manual.SetMillis(end)
			checkGone(e, st, session, t.TaskID, fmt.Sprintf("its retention ended at %s; %s", sdk.FormatTime(end), decl))
		} else {
			pass(e, end-quarter/2-e.NowMillis())
			_, found := stored(e, st, session, t.TaskID)
			e.Check(found, fmt.Sprintf("GetTask %d ms before its retention ends; %s", quarter/2, decl), "the task", "ErrNotFound")
			pass(e, end+quarter/2-e.NowMillis())
			checkGone(e, st, session, t.TaskID, fmt.Sprintf("%d ms after its retention ended; %s", quarter/2, decl))
		}
		// A task that becomes terminal after its retention ended goes at once under
		// creation counting.
		if from == sdk.TTLFromCreation {
			late, lateTTL := keptTTL(e, st, session, ttl)
			lc, _ := sdk.ParseTime(late.CreatedAt)
			pass(e, lc+lateTTL+lateTTL/4-e.NowMillis())
			err := st.StoreTaskResult(e.Ctx, session, late.TaskID, reference.StatusCompleted, sampleResult("late"))
			if errors.Is(err, reference.ErrNotFound) {
				e.Inconclusive(fmt.Sprintf("the task %s was removed while still working, past its ttl (P-TTL-1 judges that): its end after completion could not be seen", battery.Literal(late.TaskID)))
				return
			}
			e.RequireErr(err, nil, fmt.Sprintf("setup: StoreTaskResult(%s, %s, completed) past its ttl", whoOf(session), battery.Literal(late.TaskID)))
			checkGone(e, st, session, late.TaskID, fmt.Sprintf("it completed after its retention (created %s + ttl %d ms, counted from creation) had ended", late.CreatedAt, lateTTL))
		}
	})

	s.It("P-TTL-3", "the reported ttl is the one kept: null never expires, and ttl 0 is gone once terminal", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "ttl-edge")
		zero := create(e, st, session, params(i64(0)))
		none := create(e, st, session, params(nil))
		zeroErr := st.StoreTaskResult(e.Ctx, session, zero.TaskID, reference.StatusCompleted, sampleResult("zero"))
		complete(e, st, session, none.TaskID, sampleResult("none"))
		switch {
		case errors.Is(zeroErr, reference.ErrNotFound):
			e.Inconclusive("the task created with ttl 0 was removed while still working (P-TTL-1 judges that): whether ttl 0 is kept once terminal could not be seen")
		case !e.CheckErr(zeroErr, nil, fmt.Sprintf("setup: StoreTaskResult(%s, %s, completed) of the ttl 0 task", whoOf(session), battery.Literal(zero.TaskID))):
		case zero.TTL == nil:
			e.Note("a requested ttl of 0 is kept as null (unlimited)")
		case *zero.TTL == 0:
			pass(e, 1)
			checkGone(e, st, session, zero.TaskID, "it reported ttl 0 and then completed")
		}
		if none.TTL != nil {
			e.Note("a task created without a ttl keeps ttl %d", *none.TTL)
		} else {
			long := int64(10 * 365 * 24 * 3600 * 1000)
			if !e.HasClock() {
				long = 2 * ttl(e)
				e.PartlyVerified(fmt.Sprintf("no clock control: ttl null checked for %d ms, not years", long))
			}
			pass(e, long)
			_, found := stored(e, st, session, none.TaskID)
			e.Check(found, fmt.Sprintf("GetTask(%s, %s) of a completed task reporting ttl null, %d ms later", whoOf(session), battery.Literal(none.TaskID), long), "the task (null never expires)", "ErrNotFound")
		}
	})

	s.It("P-TTL-4", "the store counts ttl from creation, as MCP 2025-11-25 defines it", func(e *battery.Env) {
		p := e.SDK().Policy()
		e.Check(p.TTLFrom == sdk.TTLFromCreation, "Policy()", `ttlFrom "creation"`, fmt.Sprintf("ttlFrom %q", p.TTLFrom))
	})
}
