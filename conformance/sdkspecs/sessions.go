package sdkspecs

import (
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// scoped is a spec's pair of tasks in one session: one working, one completed with
// a result.
type scoped struct {
	session       string
	working, done sdk.Task
	result        sdk.Result
}

func scopedTasks(e *battery.Env, st sdk.Store, session string) scoped {
	sc := scoped{session: session, result: sampleResult("scoped")}
	sc.working = create(e, st, session, params(nil))
	done := create(e, st, session, params(nil))
	complete(e, st, session, done.TaskID, sc.result)
	got, err := st.GetTask(e.Ctx, session, done.TaskID)
	e.RequireErr(err, nil, fmt.Sprintf("setup: GetTask(%s, %s) after StoreTaskResult", whoOf(session), battery.Literal(done.TaskID)))
	sc.done = got
	return sc
}

// checkUntouched checks that the owning session still sees both tasks as they were.
func (sc scoped) checkUntouched(e *battery.Env, st sdk.Store, after string) {
	checkUnchanged(e, st, sc.session, sc.working, after)
	checkUnchanged(e, st, sc.session, sc.done, after)
	checkResult(e, st, sc.session, sc.done.TaskID, sc.result, after)
}

// denyAll makes every call of the profile as caller on the scoped tasks and wants each
// to fail with want, then the tasks untouched and the caller's listing without them.
func (sc scoped) denyAll(e *battery.Env, st sdk.Store, caller string, want error) {
	who := whoOf(caller)
	w, d := sc.working.TaskID, sc.done.TaskID
	_, err := st.GetTask(e.Ctx, caller, w)
	e.CheckErr(err, want, fmt.Sprintf("GetTask(%s, %s) of %s's task", who, battery.Literal(w), whoOf(sc.session)))
	_, err = st.GetTaskResult(e.Ctx, caller, d)
	e.CheckErr(err, want, fmt.Sprintf("GetTaskResult(%s, %s) of %s's completed task", who, battery.Literal(d), whoOf(sc.session)))
	err = st.StoreTaskResult(e.Ctx, caller, w, reference.StatusCompleted, sampleResult("intruder"))
	e.CheckErr(err, want, fmt.Sprintf("StoreTaskResult(%s, %s, completed)", who, battery.Literal(w)))
	err = st.UpdateTaskStatus(e.Ctx, caller, w, reference.StatusInputRequired, "written by "+who)
	e.CheckErr(err, want, fmt.Sprintf("UpdateTaskStatus(%s, %s, input_required)", who, battery.Literal(w)))
	err = st.UpdateTaskStatus(e.Ctx, caller, w, reference.StatusCancelled, "")
	e.CheckErr(err, want, fmt.Sprintf("UpdateTaskStatus(%s, %s, cancelled)", who, battery.Literal(w)))
	if del, ok := st.(sdk.Deleter); ok {
		// A success that deleted nothing is P-DELETE-1's to judge (a missing task's
		// answer); the task must still be there, which checkUntouched sees.
		if err = del.DeleteTask(e.Ctx, caller, w); err != nil || want != reference.ErrNotFound {
			e.CheckErr(err, want, fmt.Sprintf("DeleteTask(%s, %s)", who, battery.Literal(w)))
		}
	}
	sc.checkUntouched(e, st, "the calls of "+who)
	if want == reference.ErrNotFound {
		listed, _ := listAll(e, st, caller, 10_000)
		n := count(listed)
		e.Check(n[w] == 0 && n[d] == 0, fmt.Sprintf("ListTasks(%s) to the last page", who),
			fmt.Sprintf("neither of %s's tasks %s, %s", whoOf(sc.session), battery.Literal(w), battery.Literal(d)), fmt.Sprintf("listed %d and %d times", n[w], n[d]))
	}
}

func Sessions(s *battery.Suite) {
	s.It("P-SESS-1", "a cursor from another session's listing shows that session none of the other's tasks", func(e *battery.Env) {
		st := e.SDK()
		a, b := newSession(e, "cursor-owner"), newSession(e, "cursor-reader")
		theirs, _, ok := paged(e, st, a, nil)
		if !ok {
			return // paged said why: the store lists everything on one page
		}
		first, err := st.ListTasks(e.Ctx, a, "")
		e.RequireErr(err, nil, fmt.Sprintf("ListTasks(%s) (first page)", whoOf(a)))
		create(e, st, b, params(nil)) // the reader has a task of its own
		in := fmt.Sprintf("ListTasks(%s, cursor %s) with the cursor of %s's first page", whoOf(b), battery.Literal(first.NextCursor), whoOf(a))
		listed := []sdk.Task{}
		cursor := first.NextCursor
		for pages := 1; cursor != ""; pages++ {
			page, err := st.ListTasks(e.Ctx, b, cursor)
			if err != nil {
				// Refusing another session's cursor is as good as reading it as its own.
				e.CheckErr(err, reference.ErrInvalid, in)
				return
			}
			listed = append(listed, page.Tasks...)
			if pages > len(theirs)+2 {
				e.Fatalf("%s: still a nextCursor after %d pages", in, pages)
			}
			cursor = page.NextCursor
		}
		checkExactlyOnce(e, in+" and on", listed, nil, theirs)
	})

	s.It("P-SESS-1", "another session's task is not found by any call, is left unchanged, and is never listed", func(e *battery.Env) {
		st := e.SDK()
		a := newSession(e, "Alice")
		sc := scopedTasks(e, st, a)
		others := []string{newSession(e, "other"), strings.ToUpper(a), strings.ToLower(a), a + " ", " " + a, a[:len(a)-1], a + "\x00"}
		for _, caller := range others {
			sc.denyAll(e, st, caller, reference.ErrNotFound)
		}
	})

	s.It("P-SESS-2", "a caller without a session is treated as the store's declared policy says", func(e *battery.Env) {
		st := e.SDK()
		p := st.Policy()
		if err := p.Validate(); err != nil {
			e.Fatalf("Policy() = %s: %v (want sessionless isolated, refused or unrestricted; ttlFrom creation or completion)", show(p), err)
		}
		a := newSession(e, "owner")
		sc := scopedTasks(e, st, a)
		decl := fmt.Sprintf(" (declared sessionless policy %q)", p.Sessionless)
		switch p.Sessionless {
		case sdk.SessionlessIsolated:
			sc.denyAll(e, st, sdk.NoSession, reference.ErrNotFound)
			u, err := st.CreateTask(e.Ctx, sdk.NoSession, params(nil))
			if !e.CheckErr(err, nil, "CreateTask(no session)"+decl) {
				return
			}
			_, err = st.GetTask(e.Ctx, sdk.NoSession, u.TaskID)
			e.CheckErr(err, nil, fmt.Sprintf("GetTask(no session, %s) of a sessionless task%s", battery.Literal(u.TaskID), decl))
			_, err = st.GetTask(e.Ctx, a, u.TaskID)
			e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("GetTask(%s, %s) of a task created without a session%s", whoOf(a), battery.Literal(u.TaskID), decl))
			err = st.UpdateTaskStatus(e.Ctx, a, u.TaskID, reference.StatusCancelled, "")
			e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("UpdateTaskStatus(%s, %s, cancelled) of a sessionless task%s", whoOf(a), battery.Literal(u.TaskID), decl))
			listed, _ := listAll(e, st, a, 10_000)
			e.Check(count(listed)[u.TaskID] == 0, fmt.Sprintf("ListTasks(%s)%s", whoOf(a), decl), "no task created without a session", "the sessionless task "+battery.Literal(u.TaskID))
			listed, _ = listAll(e, st, sdk.NoSession, 10_000)
			e.Check(count(listed)[u.TaskID] == 1, "ListTasks(no session)"+decl, "the sessionless task "+battery.Literal(u.TaskID)+" once", fmt.Sprintf("listed %d times", count(listed)[u.TaskID]))
		case sdk.SessionlessRefused:
			_, err := st.CreateTask(e.Ctx, sdk.NoSession, params(nil))
			e.CheckErr(err, reference.ErrInvalid, "CreateTask(no session)"+decl)
			_, err = st.ListTasks(e.Ctx, sdk.NoSession, "")
			e.CheckErr(err, reference.ErrInvalid, "ListTasks(no session)"+decl)
			sc.denyAll(e, st, sdk.NoSession, reference.ErrInvalid)
		case sdk.SessionlessUnrestricted:
			w, d := sc.working.TaskID, sc.done.TaskID
			if got, err := st.GetTask(e.Ctx, sdk.NoSession, w); e.CheckErr(err, nil, fmt.Sprintf("GetTask(no session, %s) of %s's task%s", battery.Literal(w), whoOf(a), decl)) {
				checkTask(e, fmt.Sprintf("GetTask(no session, %s)%s", battery.Literal(w), decl), sc.working, got)
			}
			checkResult(e, st, sdk.NoSession, d, sc.result, "StoreTaskResult by the owning session"+decl)
			listed, _ := listAll(e, st, sdk.NoSession, 100_000)
			n := count(listed)
			e.Check(n[w] == 1 && n[d] == 1, "ListTasks(no session) to the last page"+decl, "both of "+whoOf(a)+"'s tasks once", fmt.Sprintf("listed %d and %d times", n[w], n[d]))
			err := st.UpdateTaskStatus(e.Ctx, sdk.NoSession, w, reference.StatusInputRequired, "written without a session")
			if e.CheckErr(err, nil, fmt.Sprintf("UpdateTaskStatus(no session, %s, input_required)%s", battery.Literal(w), decl)) {
				got, err := st.GetTask(e.Ctx, a, w)
				if e.CheckErr(err, nil, fmt.Sprintf("GetTask(%s, %s) after the sessionless write", whoOf(a), battery.Literal(w))) {
					e.Check(got.Status == reference.StatusInputRequired, fmt.Sprintf("GetTask(%s, %s) after the sessionless write", whoOf(a), battery.Literal(w)), "status input_required", string(got.Status))
				}
			}
		}
	})

	s.It("P-SESS-3", "the declared sessionless policy fails closed", func(e *battery.Env) {
		p := e.SDK().Policy()
		e.Check(p.Sessionless.FailsClosed(), "Policy()", `sessionless "isolated" or "refused": a caller that lost its session never reaches another session's task`,
			fmt.Sprintf("sessionless %q", p.Sessionless))
	})
}
