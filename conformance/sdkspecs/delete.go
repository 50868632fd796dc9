package sdkspecs

import (
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// P-DELETE-1 at its edges: a task in each status, the first, middle and last of a
// session's tasks, a task the caller cannot see, an expired task, and the tasks created
// after a delete.

// deleteCall renders a DeleteTask call for an input line.
func deleteCall(session, id, what string) string {
	return fmt.Sprintf("DeleteTask(%s, %s) of %s", whoOf(session), battery.Literal(id), what)
}

// inStatus creates a task of session and brings it to status as setup: input_required
// and cancelled by UpdateTaskStatus, completed and failed by StoreTaskResult.
func inStatus(e *battery.Env, st sdk.Store, session string, p sdk.CreateParams, status reference.Status) sdk.Task {
	t := create(e, st, session, p)
	var err error
	switch status {
	case reference.StatusWorking:
		return t
	case reference.StatusCompleted, reference.StatusFailed:
		err = st.StoreTaskResult(e.Ctx, session, t.TaskID, status, sampleResult(string(status)))
	default:
		err = st.UpdateTaskStatus(e.Ctx, session, t.TaskID, status, "")
	}
	e.RequireErr(err, nil, fmt.Sprintf("setup: bring %s of %s to %s", battery.Literal(t.TaskID), whoOf(session), status))
	return t
}

func deleteEdges(s *battery.Suite) {
	s.It("P-DELETE-1", "a task in each of the five statuses, the first, middle and last of a session's tasks down to none, is deleted alone: no call finds it, the rest list exactly once", func(e *battery.Env) {
		st := e.SDK()
		del := battery.RequireOptional[sdk.Deleter](st, "sdk.Deleter")
		session := newSession(e, "delete-each")
		statuses := []reference.Status{reference.StatusWorking, reference.StatusInputRequired, reference.StatusCompleted, reference.StatusFailed, reference.StatusCancelled}
		var tasks []sdk.Task
		for _, status := range statuses {
			tasks = append(tasks, inStatus(e, st, session, params(nil), status))
		}
		// The first, a middle and the last of the session's tasks in creation order,
		// then the rest down to none: an index kept apart from the tasks is cut at each
		// end.
		order := []int{0, 2, len(statuses) - 1, 1, 3}
		remaining := map[string]bool{}
		for _, t := range tasks {
			remaining[t.TaskID] = true
		}
		for _, i := range order {
			t := tasks[i]
			in := deleteCall(session, t.TaskID, fmt.Sprintf("a %s task (task %d of %d in creation order, %d left)", statuses[i], i+1, len(tasks), len(remaining)))
			if !e.CheckErr(del.DeleteTask(e.Ctx, session, t.TaskID), nil, in) {
				continue
			}
			delete(remaining, t.TaskID)
			checkGone(e, st, session, t.TaskID, in)
			_, err := st.GetTaskResult(e.Ctx, session, t.TaskID)
			e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("GetTaskResult(%s, %s) after %s", whoOf(session), battery.Literal(t.TaskID), in))
			err = st.StoreTaskResult(e.Ctx, session, t.TaskID, reference.StatusCompleted, sampleResult("after delete"))
			e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("StoreTaskResult(%s, %s, completed) after %s", whoOf(session), battery.Literal(t.TaskID), in))
			listed, _ := listAll(e, st, session, 10_000)
			n := count(listed)
			for id := range n {
				if !remaining[id] {
					e.Check(false, fmt.Sprintf("ListTasks(%s) to the last page after %s", whoOf(session), in), "only the tasks not deleted", "the deleted task "+battery.Literal(id))
				}
			}
			for id := range remaining {
				e.Check(n[id] == 1, fmt.Sprintf("ListTasks(%s) to the last page after %s", whoOf(session), in),
					fmt.Sprintf("%s, not deleted, listed once", battery.Literal(id)), fmt.Sprintf("listed %d times", n[id]))
			}
		}
	})

	s.It("P-DELETE-1", "DeleteTask of a task the caller cannot see (another session's, or a session's by a caller without one) fails and deletes nothing", func(e *battery.Env) {
		st := e.SDK()
		del := battery.RequireOptional[sdk.Deleter](st, "sdk.Deleter")
		p := st.Policy()
		owner := newSession(e, "owner")
		sc := scopedTasks(e, st, owner)
		callers := map[string]error{newSession(e, "stranger"): reference.ErrNotFound}
		switch p.Sessionless {
		case sdk.SessionlessIsolated:
			callers[sdk.NoSession] = reference.ErrNotFound
		case sdk.SessionlessRefused:
			callers[sdk.NoSession] = reference.ErrInvalid
		}
		// A delete that removed the task reached another session's task: that is the
		// sessions' rule's (P-SESS-1, or P-SESS-2 for a caller without a session). A
		// success that left it in place is this rule's: the answer for a missing task.
		reached := map[string]bool{}
		for caller, want := range callers {
			for _, t := range []sdk.Task{sc.working, sc.done} {
				if reached[t.TaskID] {
					continue
				}
				in := deleteCall(caller, t.TaskID, fmt.Sprintf("%s's %s task (sessionless callers %q)", whoOf(owner), t.Status, p.Sessionless))
				err := del.DeleteTask(e.Ctx, caller, t.TaskID)
				if _, still := stored(e, st, owner, t.TaskID); !still {
					reached[t.TaskID] = true
					rule := "P-SESS-1"
					if caller == sdk.NoSession {
						rule = "P-SESS-2"
					}
					e.FaultOf(rule, fmt.Sprintf("%s\n  expected: %s, nothing deleted\n  got: %s, and the task is gone", in, battery.DescribeErr(want), battery.DescribeErr(err)))
					continue
				}
				if err == nil {
					e.Check(false, in, battery.DescribeErr(want)+" (the answer for a task the caller cannot reach)", "success, the task left in place")
				} else {
					e.CheckErr(err, want, in)
				}
				checkUnchanged(e, st, owner, t, in)
			}
		}
		if p.Sessionless == sdk.SessionlessIsolated {
			// The other way round: a sessionless task is no session's to delete.
			u, err := st.CreateTask(e.Ctx, sdk.NoSession, params(nil))
			if e.CheckErr(err, nil, "setup: CreateTask(no session) (sessionless callers \"isolated\")") {
				in := deleteCall(owner, u.TaskID, "a task created without a session (sessionless callers \"isolated\")")
				err := del.DeleteTask(e.Ctx, owner, u.TaskID)
				if _, still := stored(e, st, sdk.NoSession, u.TaskID); !still {
					e.FaultOf("P-SESS-2", fmt.Sprintf("%s\n  expected: ErrNotFound, nothing deleted\n  got: %s, and the task is gone", in, battery.DescribeErr(err)))
				} else {
					e.CheckErr(err, reference.ErrNotFound, in)
					checkUnchanged(e, st, sdk.NoSession, u, in)
				}
			}
		}
		// The refusals left the tasks the owner's to delete.
		for _, t := range []sdk.Task{sc.working, sc.done} {
			if reached[t.TaskID] {
				continue
			}
			in := deleteCall(owner, t.TaskID, "its own task after the refused deletes of others")
			if e.CheckErr(del.DeleteTask(e.Ctx, owner, t.TaskID), nil, in) {
				checkGone(e, st, owner, t.TaskID, in)
			}
		}
	})

	s.It("P-DELETE-1", "DeleteTask of a terminal task whose ttl has passed fails with ErrNotFound", func(e *battery.Env) {
		st := e.SDK()
		del := battery.RequireOptional[sdk.Deleter](st, "sdk.Deleter")
		session := newSession(e, "delete-expired")
		ttl := ttl(e)
		// Two alike: the first is deleted, the second read, so that a store that drops
		// an expired task when it is read has not dropped the first before the delete.
		a, kept := keptTTL(e, st, session, ttl)
		b, keptB := keptTTL(e, st, session, ttl)
		complete(e, st, session, a.TaskID, sampleResult("expiring"))
		complete(e, st, session, b.TaskID, sampleResult("expiring"))
		pass(e, max(kept, keptB)+max(kept, keptB)/4)
		in := deleteCall(session, a.TaskID, fmt.Sprintf("a completed task whose ttl of %d ms has passed (ttl counted from %s)", kept, st.Policy().TTLFrom))
		err := del.DeleteTask(e.Ctx, session, a.TaskID)
		if err != nil {
			e.CheckErr(err, reference.ErrNotFound, in)
			return
		}
		// A success is a fault only if the store counts the task expired: its twin, read
		// now, is gone.
		if _, found := stored(e, st, session, b.TaskID); found {
			e.PartlyVerified(fmt.Sprintf("%s succeeded, and GetTask(%s, %s) still finds its twin, completed alike with ttl %d ms (P-TTL-2's to judge): the store did not count them expired", in, whoOf(session), battery.Literal(b.TaskID), keptB))
			return
		}
		e.Check(false, in, fmt.Sprintf("ErrNotFound: the task is missing (GetTask no longer finds its twin %s)", battery.Literal(b.TaskID)), "success")
	})

	s.It("P-DELETE-1", "a task created after a DeleteTask, in the same session or another, never gets the deleted id and starts fresh", func(e *battery.Env) {
		st := e.SDK()
		del := battery.RequireOptional[sdk.Deleter](st, "sdk.Deleter")
		owner, other := newSession(e, "deleter"), newSession(e, "next")
		gone := map[string]string{} // deleted id -> what it was
		for _, status := range []reference.Status{reference.StatusWorking, reference.StatusCompleted, reference.StatusCancelled} {
			t := inStatus(e, st, owner, params(i64(10*ttl(e))), status)
			in := deleteCall(owner, t.TaskID, fmt.Sprintf("a %s task", status))
			if e.CheckErr(del.DeleteTask(e.Ctx, owner, t.TaskID), nil, in) {
				gone[t.TaskID] = fmt.Sprintf("the %s task deleted by %s", status, in)
			}
		}
		for i := range 2 * len(gone) {
			session := owner
			if i%2 == 1 {
				session = other
			}
			p := params(nil)
			in := fmt.Sprintf("%s #%d after the deletes", createCall(session, p), i+1)
			t, err := st.CreateTask(e.Ctx, session, p)
			if !e.CheckErr(err, nil, in) {
				continue
			}
			if was, reused := gone[t.TaskID]; reused {
				e.Check(false, in, "a new id (a client holding a deleted id must never reach another task)", fmt.Sprintf("the id %s of %s", battery.Literal(t.TaskID), was))
			}
			got, ok := stored(e, st, session, t.TaskID)
			if !e.Check(ok, "GetTask after "+in, "the new task", "ErrNotFound") {
				continue
			}
			e.Check(got.Status == reference.StatusWorking && got.StatusMessage == "", "GetTask after "+in,
				"a fresh task: working, no status message", show(got))
			checkTask(e, "GetTask after "+in+" (as CreateTask returned it)", t, got)
			// Which error a working task's result answers is P-RESULT-2's; here only that
			// there is none.
			res, err := st.GetTaskResult(e.Ctx, session, t.TaskID)
			e.Check(err != nil, fmt.Sprintf("GetTaskResult(%s, %s) of the new working task", whoOf(session), battery.Literal(t.TaskID)), "no result", battery.Literal(res))
		}
		for id, was := range gone {
			_, err := st.GetTask(e.Ctx, owner, id)
			e.Check(errors.Is(err, reference.ErrNotFound), fmt.Sprintf("GetTask(%s, %s) after new tasks were created", whoOf(owner), battery.Literal(id)),
				"ErrNotFound: "+was, battery.DescribeErr(err))
		}
	})
}
