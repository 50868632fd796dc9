package sdkspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/sdk"
)

func Results(s *battery.Suite) {
	s.It("P-RESULT-1", "StoreTaskResult takes completed or failed, sets status and result in one step, once, and GetTaskResult returns it exactly", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "result")
		t := create(e, st, session, params(nil))
		for _, bad := range append([]reference.Status{reference.StatusWorking, reference.StatusInputRequired, reference.StatusCancelled}, unknownStatuses[:3]...) {
			in := fmt.Sprintf("StoreTaskResult(%s, %s, %s, result)", whoOf(session), battery.Literal(t.TaskID), battery.Literal(string(bad)))
			e.CheckErr(st.StoreTaskResult(e.Ctx, session, t.TaskID, bad, sampleResult("wrong status")), reference.ErrInvalid, in)
			checkUnchanged(e, st, session, t, in)
			if r, err := st.GetTaskResult(e.Ctx, session, t.TaskID); err == nil {
				e.Check(false, "GetTaskResult after the refused "+in, "no result (P-RESULT-2 judges which error)", battery.Literal(r))
			}
		}
		for _, end := range []reference.Status{reference.StatusCompleted, reference.StatusFailed} {
			t := create(e, st, session, params(nil))
			pass(e, 1000)
			result := sampleResult(string(end))
			now := e.NowMillis()
			in := fmt.Sprintf("StoreTaskResult(%s, %s, %s, %s)", whoOf(session), battery.Literal(t.TaskID), end, battery.Literal(result))
			if !e.CheckErr(st.StoreTaskResult(e.Ctx, session, t.TaskID, end, result), nil, in) {
				continue
			}
			got, ok := stored(e, st, session, t.TaskID)
			if e.Check(ok, "GetTask after "+in, "the task", "ErrNotFound") {
				e.Check(got.Status == end, "GetTask after "+in+": status", string(end), string(got.Status))
				e.Check(got.CreatedAt == t.CreatedAt, "GetTask after "+in+": createdAt", battery.Literal(t.CreatedAt), battery.Literal(got.CreatedAt))
				if ms, ok := millis(e, "GetTask after "+in, "lastUpdatedAt", got.LastUpdatedAt); ok && e.HasClock() {
					e.Check(ms == now, "GetTask after "+in+": lastUpdatedAt", sdk.FormatTime(now), battery.Literal(got.LastUpdatedAt))
				}
			}
			checkResult(e, st, session, t.TaskID, result, in)
			second := fmt.Sprintf("a second StoreTaskResult(%s, %s, completed)", whoOf(session), battery.Literal(t.TaskID))
			e.CheckErr(st.StoreTaskResult(e.Ctx, session, t.TaskID, reference.StatusCompleted, sampleResult("second")), reference.ErrTerminal, second)
			checkResult(e, st, session, t.TaskID, result, second+" (the result is stored once)")
		}
	})

	s.It("P-RESULT-2", "GetTaskResult answers only for a terminal task with a result, and ErrNoResult otherwise", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "noresult")
		t := create(e, st, session, params(nil))
		_, err := st.GetTaskResult(e.Ctx, session, t.TaskID)
		e.CheckErr(err, reference.ErrNoResult, fmt.Sprintf("GetTaskResult(%s, %s) of a working task", whoOf(session), battery.Literal(t.TaskID)))
		if e.CheckErr(st.UpdateTaskStatus(e.Ctx, session, t.TaskID, reference.StatusInputRequired, "waiting"), nil, "UpdateTaskStatus(input_required)") {
			_, err = st.GetTaskResult(e.Ctx, session, t.TaskID)
			e.CheckErr(err, reference.ErrNoResult, fmt.Sprintf("GetTaskResult(%s, %s) of an input_required task", whoOf(session), battery.Literal(t.TaskID)))
		}
		terminate(e, st, session, t.TaskID, reference.StatusCancelled)
		_, err = st.GetTaskResult(e.Ctx, session, t.TaskID)
		e.CheckErr(err, reference.ErrNoResult, fmt.Sprintf("GetTaskResult(%s, %s) of a task cancelled without a result", whoOf(session), battery.Literal(t.TaskID)))
		missing := e.ID("never-created")
		_, err = st.GetTaskResult(e.Ctx, session, missing)
		e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("GetTaskResult(%s, %s) of a task never created", whoOf(session), battery.Literal(missing)))
	})

	s.It("P-RESULT-3", "values are copies: mutating a task or result passed to or returned by the store changes nothing stored", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "alias")
		if mut, ok := st.(sdk.CallerMutator); ok {
			aliasRemote(e, st, mut, session)
			return
		}
		if e.Caps.Remote {
			e.NotExercisedRemote("values cross the wire as copies and the store's client offers no sdk.CallerMutator to mutate them where the store is")
		}
		// The task CreateTask returned.
		t := create(e, st, session, params(i64(ttl(e))))
		p := params(i64(ttl(e)))
		p.PollInterval = i64(500)
		t2 := create(e, st, session, p)
		before := t2.Clone()
		*t2.TTL, *t2.PollInterval = 1, 1
		checkUnchanged(e, st, session, before, "the caller set *ttl and *pollInterval of the task CreateTask returned to 1")
		// The task GetTask returned.
		got, ok := stored(e, st, session, t2.TaskID)
		if ok {
			*got.TTL, *got.PollInterval = 2, 2
			checkUnchanged(e, st, session, before, "the caller set *ttl and *pollInterval of the task GetTask returned to 2")
		}
		// The tasks ListTasks returned.
		listed, _ := listAll(e, st, session, 10_000)
		for _, l := range listed {
			if l.TTL != nil {
				*l.TTL = 3
			}
			if l.PollInterval != nil {
				*l.PollInterval = 3
			}
		}
		checkUnchanged(e, st, session, before, "the caller set *ttl and *pollInterval of every task ListTasks returned to 3")
		// The result passed in, and the one handed out.
		in := sampleResult("alias")
		want := jsonvalue.CloneObject(in)
		if !e.CheckErr(st.StoreTaskResult(e.Ctx, session, t.TaskID, reference.StatusCompleted, in), nil, "StoreTaskResult(completed)") {
			return
		}
		in["storecheck_mutated"] = true
		in["content"].([]any)[0].(map[string]any)["text"] = "changed by the caller"
		checkResult(e, st, session, t.TaskID, want, "the caller changed the result it had passed to StoreTaskResult")
		out, err := st.GetTaskResult(e.Ctx, session, t.TaskID)
		if e.CheckErr(err, nil, "GetTaskResult") {
			out["storecheck_mutated"] = true
			if c, ok := out["content"].([]any); ok && len(c) > 0 {
				if m, ok := c[0].(map[string]any); ok {
					m["text"] = "changed by the caller"
				}
			}
			checkResult(e, st, session, t.TaskID, want, "the caller changed the result GetTaskResult had returned")
		}
	})

	s.It("P-RESULT-4", "no task is completed or failed without a result: UpdateTaskStatus to either is refused, or a result is kept", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "noresult")
		for _, end := range []reference.Status{reference.StatusCompleted, reference.StatusFailed} {
			t := create(e, st, session, params(nil))
			in := fmt.Sprintf("UpdateTaskStatus(%s, %s, %s) (no result given)", whoOf(session), battery.Literal(t.TaskID), end)
			err := st.UpdateTaskStatus(e.Ctx, session, t.TaskID, end, "finished")
			if err != nil {
				e.CheckErr(err, reference.ErrInvalid, in)
				checkUnchanged(e, st, session, t, "the refused "+in)
				continue
			}
			got, ok := stored(e, st, session, t.TaskID)
			if !e.Check(ok, "GetTask after "+in, "the task", "ErrNotFound") {
				continue
			}
			if got.Status != end {
				continue // the store took the call without finishing the task: nothing lost
			}
			_, rerr := st.GetTaskResult(e.Ctx, session, t.TaskID)
			e.Check(rerr == nil, "GetTaskResult after "+in,
				"a result (the store accepted the status, so it must answer tasks/result), or the update refused with ErrInvalid",
				fmt.Sprintf("%s: the task is %s and can never answer a result (StoreTaskResult is now refused: terminal)", battery.DescribeErr(rerr), end))
		}
	})
}

// aliasRemote is P-RESULT-3 where the store is behind a process boundary: the values
// a caller holds are mutated on the store's side through sdk.CallerMutator.
func aliasRemote(e *battery.Env, st sdk.Store, mut sdk.CallerMutator, session string) {
	// Each held value on a task of its own, so that one aliasing (a created task
	// mutated to failed) does not hide the next.
	t := create(e, st, session, params(nil))
	e.RequireErr(mut.MutateHeld(e.Ctx, t.TaskID, sdk.HeldCreatedTask), nil, "MutateHeld(created_task)")
	checkUnchanged(e, st, session, t, "the caller mutated the task CreateTask returned (status failed, a status message)")
	want := sampleResult("alias")
	for _, held := range []struct {
		what  sdk.Held
		after string
	}{
		{sdk.HeldStoredResult, "the caller mutated the result it had passed to StoreTaskResult"},
		{sdk.HeldReturnedResult, "the caller mutated the result GetTaskResult had returned"},
	} {
		t := create(e, st, session, params(nil))
		if !e.CheckErr(st.StoreTaskResult(e.Ctx, session, t.TaskID, reference.StatusCompleted, want), nil, "StoreTaskResult(completed)") {
			continue
		}
		if held.what == sdk.HeldReturnedResult {
			_, err := st.GetTaskResult(e.Ctx, session, t.TaskID)
			e.RequireErr(err, nil, "GetTaskResult (the value the caller then holds)")
		}
		e.RequireErr(mut.MutateHeld(e.Ctx, t.TaskID, held.what), nil, "MutateHeld("+string(held.what)+")")
		checkResult(e, st, session, t.TaskID, want, held.after)
	}
}
