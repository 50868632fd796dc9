package sdkspecs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

func Optional(s *battery.Suite) {
	s.It("P-DELETE-1", "after DeleteTask the task is found by no call; deleting a missing task is ErrNotFound", func(e *battery.Env) {
		st := e.SDK()
		del := battery.RequireOptional[sdk.Deleter](st, "sdk.Deleter")
		session := newSession(e, "delete")
		keep := create(e, st, session, params(nil))
		for _, end := range []reference.Status{reference.StatusWorking, reference.StatusCompleted} {
			t := create(e, st, session, params(nil))
			if end == reference.StatusCompleted {
				complete(e, st, session, t.TaskID, sampleResult("deleted"))
			}
			in := fmt.Sprintf("DeleteTask(%s, %s) of a %s task", whoOf(session), battery.Literal(t.TaskID), end)
			if !e.CheckErr(del.DeleteTask(e.Ctx, session, t.TaskID), nil, in) {
				continue
			}
			checkGone(e, st, session, t.TaskID, in)
			_, err := st.GetTaskResult(e.Ctx, session, t.TaskID)
			e.CheckErr(err, reference.ErrNotFound, "GetTaskResult after "+in)
			e.CheckErr(st.UpdateTaskStatus(e.Ctx, session, t.TaskID, reference.StatusCancelled, ""), reference.ErrNotFound, "UpdateTaskStatus(cancelled) after "+in)
			listed, _ := listAll(e, st, session, 10_000)
			e.Check(count(listed)[t.TaskID] == 0, "ListTasks after "+in, "the deleted task not listed", fmt.Sprintf("listed %d times", count(listed)[t.TaskID]))
			e.CheckErr(del.DeleteTask(e.Ctx, session, t.TaskID), reference.ErrNotFound, "a second "+in)
		}
		never := e.ID("never-created")
		e.CheckErr(del.DeleteTask(e.Ctx, session, never), reference.ErrNotFound, fmt.Sprintf("DeleteTask(%s, %s) of a task never created", whoOf(session), battery.Literal(never)))
		checkUnchanged(e, st, session, keep, "deleting other tasks")
	})

	s.It("P-CLEAN-1", "Cleanup removes every expired task, and only those, and returns the count", func(e *battery.Env) {
		st := e.SDK()
		cl := battery.RequireOptional[sdk.Cleaner](st, "sdk.Cleaner")
		session := newSession(e, "cleanup")
		ttl := ttl(e)
		from := st.Policy().TTLFrom
		// The ttl the store keeps is the one counted (P-CREATE-1 lets it keep another).
		expiring, expTTL := keptTTL(e, st, session, ttl)
		complete(e, st, session, expiring.TaskID, sampleResult("expiring"))
		kept, keptTTL := keptTTL(e, st, session, 20*ttl)
		complete(e, st, session, kept.TaskID, sampleResult("kept"))
		forever := create(e, st, session, params(nil))
		complete(e, st, session, forever.TaskID, sampleResult("forever"))
		working := create(e, st, session, params(nil))
		wait := expTTL + expTTL/4
		within, expired := []sdk.Task{forever, working}, []sdk.Task{expiring}
		maxN, later := 1, 0 // later: how many may expire between the two Cleanup calls
		switch {
		case keptTTL >= 2*wait:
			within = append(within, kept)
		case keptTTL <= expTTL:
			expired = append(expired, kept) // the store keeps the longer ttl no longer
			maxN = 2
		default:
			e.PartlyVerified(fmt.Sprintf("the store keeps ttl %d ms when %d ms is requested and %d ms when %d ms is: too close to tell whether the longer one has passed", expTTL, ttl, keptTTL, 20*ttl))
			maxN, later = 2, 1
		}
		minN := len(expired)
		pass(e, wait)
		decl := fmt.Sprintf("ttl counted from %s", from)
		n, err := cl.Cleanup(e.Ctx)
		in := fmt.Sprintf("Cleanup() once the completed task %s's ttl of %d ms passed (%s); the other tasks are within theirs, without one, or working", battery.Literal(expiring.TaskID), expTTL, decl)
		if e.CheckErr(err, nil, in) {
			want := fmt.Sprint(minN)
			if maxN > minN {
				want = fmt.Sprintf("%d or %d", minN, maxN)
			}
			e.Check(n >= minN && n <= maxN, in, want+" (the expired tasks)", n)
		}
		for _, t := range expired {
			checkGone(e, st, session, t.TaskID, in)
		}
		for _, t := range within {
			_, found := stored(e, st, session, t.TaskID)
			e.Check(found, fmt.Sprintf("GetTask(%s, %s) after %s", whoOf(session), battery.Literal(t.TaskID), in), "the task (not expired)", "ErrNotFound: Cleanup removed it")
		}
		n, err = cl.Cleanup(e.Ctx)
		if e.CheckErr(err, nil, "a second Cleanup()") {
			e.Check(n <= later, "a second Cleanup() with nothing newly expired", later, n)
		}
	})

	s.It("P-WAIT-1", "WaitForUpdate returns after a status change, waits while none, and is ErrNotFound for a task it cannot see", func(e *battery.Env) {
		st := e.SDK()
		w := battery.RequireOptional[sdk.Waiter](st, "sdk.Waiter")
		session := newSession(e, "wait")
		t := create(e, st, session, params(nil))
		done := make(chan error, 1)
		ctx, cancel := context.WithTimeout(e.Ctx, 10*time.Second)
		defer cancel()
		// The waiting call runs as a client of the battery's (clients.run): a store that
		// panics in it fails this spec with the panic, re-raised here by cs.wait once
		// the call has ended, instead of killing the run. The call's end is sent on done
		// however it ends, so the spec never waits for a call that panicked.
		var cs battery.Clients
		cs.Run(0, func() {
			var err error
			defer func() { done <- err }()
			err = w.WaitForUpdate(ctx, session, t.TaskID)
		})
		ended := func(err error) error { cs.Wait(); return err }
		in := fmt.Sprintf("WaitForUpdate(%s, %s)", whoOf(session), battery.Literal(t.TaskID))
		select {
		case err := <-done:
			e.Check(false, in+" while nothing changed the task for 200 ms", "still waiting", "returned "+battery.DescribeErr(ended(err)))
			return
		case <-time.After(200 * time.Millisecond):
		}
		if err := st.UpdateTaskStatus(e.Ctx, session, t.TaskID, reference.StatusInputRequired, "wake up"); err != nil {
			cancel()
			cs.Wait() // the cancelled call's own end is no finding
			e.RequireErr(err, nil, "UpdateTaskStatus(input_required)")
		}
		select {
		case err := <-done:
			e.CheckErr(ended(err), nil, in+" after UpdateTaskStatus(input_required)")
		case <-time.After(time.Second):
			e.Check(false, in+" after UpdateTaskStatus(input_required)", "returns within 1 s of the change", "still waiting after 1 s")
			cancel()
			cs.Wait() // the cancelled call's own end is no finding
		}
		short, stop := context.WithTimeout(e.Ctx, 150*time.Millisecond)
		defer stop()
		err := w.WaitForUpdate(short, session, t.TaskID)
		e.Check(errors.Is(err, context.DeadlineExceeded), in+" with a 150 ms context and no change", "the context's error (deadline exceeded)", battery.DescribeErr(err))
		other := newSession(e, "stranger")
		quick, stop2 := context.WithTimeout(e.Ctx, 2*time.Second)
		defer stop2()
		err = w.WaitForUpdate(quick, other, t.TaskID)
		e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("WaitForUpdate(%s, %s) of another session's task", whoOf(other), battery.Literal(t.TaskID)))
	})
}
