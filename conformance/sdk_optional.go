package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

func init() { register(EraSDK, sdkOptionalSpecs) }

func sdkOptionalSpecs(s *suite) {
	s.It("P-DELETE-1", "after DeleteTask the task is found by no call; deleting a missing task is ErrNotFound", func(e *Env) {
		st := e.SDK()
		del, ok := st.(sdk.Deleter)
		if !ok {
			skipOptional("sdk.Deleter")
		}
		session := sdkSession(e, "delete")
		keep := sdkCreate(e, st, session, sdkParams(nil))
		for _, end := range []reference.Status{reference.StatusWorking, reference.StatusCompleted} {
			t := sdkCreate(e, st, session, sdkParams(nil))
			if end == reference.StatusCompleted {
				sdkComplete(e, st, session, t.TaskID, sdkResult("deleted"))
			}
			in := fmt.Sprintf("DeleteTask(%s, %s) of a %s task", sdkWho(session), Q(t.TaskID), end)
			if !e.CheckErr(del.DeleteTask(e.Ctx, session, t.TaskID), nil, in) {
				continue
			}
			sdkCheckGone(e, st, session, t.TaskID, in)
			_, err := st.GetTaskResult(e.Ctx, session, t.TaskID)
			e.CheckErr(err, reference.ErrNotFound, "GetTaskResult after "+in)
			e.CheckErr(st.UpdateTaskStatus(e.Ctx, session, t.TaskID, reference.StatusCancelled, ""), reference.ErrNotFound, "UpdateTaskStatus(cancelled) after "+in)
			listed, _ := sdkListAll(e, st, session, 10_000)
			e.Check(sdkCount(listed)[t.TaskID] == 0, "ListTasks after "+in, "the deleted task not listed", fmt.Sprintf("listed %d times", sdkCount(listed)[t.TaskID]))
			e.CheckErr(del.DeleteTask(e.Ctx, session, t.TaskID), reference.ErrNotFound, "a second "+in)
		}
		never := e.ID("never-created")
		e.CheckErr(del.DeleteTask(e.Ctx, session, never), reference.ErrNotFound, fmt.Sprintf("DeleteTask(%s, %s) of a task never created", sdkWho(session), Q(never)))
		sdkCheckUnchanged(e, st, session, keep, "deleting other tasks")
	})

	s.It("P-CLEAN-1", "Cleanup removes every expired task, and only those, and returns the count", func(e *Env) {
		st := e.SDK()
		cl, ok := st.(sdk.Cleaner)
		if !ok {
			skipOptional("sdk.Cleaner")
		}
		session := sdkSession(e, "cleanup")
		ttl := sdkTTL(e)
		from := st.Policy().TTLFrom
		expiring := sdkKeptTTL(e, st, session, ttl)
		sdkComplete(e, st, session, expiring.TaskID, sdkResult("expiring"))
		kept := sdkKeptTTL(e, st, session, 20*ttl)
		sdkComplete(e, st, session, kept.TaskID, sdkResult("kept"))
		forever := sdkCreate(e, st, session, sdkParams(nil))
		sdkComplete(e, st, session, forever.TaskID, sdkResult("forever"))
		working := sdkCreate(e, st, session, sdkParams(nil))
		sdkPass(e, ttl+ttl/4)
		decl := fmt.Sprintf("ttl counted from %s", from)
		n, err := cl.Cleanup(e.Ctx)
		in := fmt.Sprintf("Cleanup() once the completed task %s's ttl of %d ms passed (%s); the other tasks are within theirs, without one, or working", Q(expiring.TaskID), ttl, decl)
		if e.CheckErr(err, nil, in) {
			e.Check(n == 1, in, "1 (the expired task)", n)
		}
		sdkCheckGone(e, st, session, expiring.TaskID, in)
		for _, t := range []sdk.Task{kept, forever, working} {
			_, found := sdkStored(e, st, session, t.TaskID)
			e.Check(found, fmt.Sprintf("GetTask(%s, %s) after %s", sdkWho(session), Q(t.TaskID), in), "the task (not expired)", "ErrNotFound: Cleanup removed it")
		}
		n, err = cl.Cleanup(e.Ctx)
		if e.CheckErr(err, nil, "a second Cleanup()") {
			e.Check(n == 0, "a second Cleanup() with nothing newly expired", 0, n)
		}
	})

	s.It("P-WAIT-1", "WaitForUpdate returns after a status change, waits while none, and is ErrNotFound for a task it cannot see", func(e *Env) {
		st := e.SDK()
		w, ok := st.(sdk.Waiter)
		if !ok {
			skipOptional("sdk.Waiter")
		}
		session := sdkSession(e, "wait")
		t := sdkCreate(e, st, session, sdkParams(nil))
		done := make(chan error, 1)
		ctx, cancel := context.WithTimeout(e.Ctx, 10*time.Second)
		defer cancel()
		go func() { done <- w.WaitForUpdate(ctx, session, t.TaskID) }()
		in := fmt.Sprintf("WaitForUpdate(%s, %s)", sdkWho(session), Q(t.TaskID))
		select {
		case err := <-done:
			e.Check(false, in+" while nothing changed the task for 200 ms", "still waiting", "returned "+describeErr(err))
			return
		case <-time.After(200 * time.Millisecond):
		}
		e.RequireErr(st.UpdateTaskStatus(e.Ctx, session, t.TaskID, reference.StatusInputRequired, "wake up"), nil, "UpdateTaskStatus(input_required)")
		select {
		case err := <-done:
			e.CheckErr(err, nil, in+" after UpdateTaskStatus(input_required)")
		case <-time.After(time.Second):
			e.Check(false, in+" after UpdateTaskStatus(input_required)", "returns within 1 s of the change", "still waiting after 1 s")
			cancel()
			<-done
		}
		short, stop := context.WithTimeout(e.Ctx, 150*time.Millisecond)
		defer stop()
		err := w.WaitForUpdate(short, session, t.TaskID)
		e.Check(errors.Is(err, context.DeadlineExceeded), in+" with a 150 ms context and no change", "the context's error (deadline exceeded)", describeErr(err))
		other := sdkSession(e, "stranger")
		quick, stop2 := context.WithTimeout(e.Ctx, 2*time.Second)
		defer stop2()
		err = w.WaitForUpdate(quick, other, t.TaskID)
		e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("WaitForUpdate(%s, %s) of another session's task", sdkWho(other), Q(t.TaskID)))
	})
}
