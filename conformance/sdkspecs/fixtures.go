package sdkspecs

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Helpers of the SDK task-store profile's specs (docs/spec.md section 6).

// newSession returns a session unique to this spec and run (B-ISO-1).
func newSession(e *battery.Env, name string) string { return e.ID("session-" + name + "-") }

// whoOf renders a session for an input line.
func whoOf(session string) string {
	if session == sdk.NoSession {
		return "no session"
	}
	return "session " + battery.Literal(session)
}

// ttl is the ttl the time-dependent specs give tasks: long on the battery's clock,
// a second on the real one (P-TTL-2 checks a quarter of it on either side).
func ttl(e *battery.Env) int64 {
	if e.HasClock() {
		return 60_000
	}
	return 1_000
}

// pass lets ms milliseconds pass for the store: the battery's clock moves, or the
// spec sleeps on the real one.
func pass(e *battery.Env, ms int64) {
	if e.HasClock() {
		e.Manual.Advance(time.Duration(ms) * time.Millisecond)
		return
	}
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
	case <-e.Ctx.Done():
	}
}

func i64(v int64) *int64 { return &v }

func params(ttl *int64) sdk.CreateParams {
	return sdk.CreateParams{TTL: ttl, RequestID: "req-1", Request: map[string]any{
		"method": "tools/call", "params": map[string]any{"name": "storecheck", "arguments": map[string]any{}},
	}}
}

func createCall(session string, p sdk.CreateParams) string {
	ttl := "none"
	if p.TTL != nil {
		ttl = fmt.Sprint(*p.TTL)
	}
	return fmt.Sprintf("CreateTask(%s, ttl %s)", whoOf(session), ttl)
}

// create creates a task as setup: a failure stops the spec.
func create(e *battery.Env, st sdk.Store, session string, p sdk.CreateParams) sdk.Task {
	t, err := st.CreateTask(e.Ctx, session, p)
	e.RequireErr(err, nil, "setup: "+createCall(session, p))
	e.Require(t.TaskID != "", "setup: "+createCall(session, p), "a task with an id", show(t))
	made.Store(e.Tag+"\x00"+t.TaskID, session)
	return t
}

// made records the session each task create made was created in, by spec (Env.Tag) and
// id, so that a listing that does not end can say whose tasks fill it.
var made sync.Map

// complete stores a result as setup.
func complete(e *battery.Env, st sdk.Store, session, id string, result sdk.Result) {
	err := st.StoreTaskResult(e.Ctx, session, id, reference.StatusCompleted, result)
	e.RequireErr(err, nil, fmt.Sprintf("setup: StoreTaskResult(%s, %s, completed, %s)", whoOf(session), battery.Literal(id), battery.Literal(result)))
}

// stored reads a task back; ok is false when the store answers ErrNotFound, and any
// other error is a fault.
func stored(e *battery.Env, st sdk.Store, session, id string) (sdk.Task, bool) {
	t, err := st.GetTask(e.Ctx, session, id)
	if err != nil {
		e.CheckErr(err, reference.ErrNotFound, fmt.Sprintf("GetTask(%s, %s)", whoOf(session), battery.Literal(id)))
		return sdk.Task{}, false
	}
	return t, true
}

// checkTask checks that got is want, field by field.
func checkTask(e *battery.Env, input string, want, got sdk.Task) bool {
	return e.Check(reflect.DeepEqual(want, got), input, show(want), show(got))
}

// checkUnchanged checks that the task still reads as before.
func checkUnchanged(e *battery.Env, st sdk.Store, session string, before sdk.Task, after string) bool {
	got, err := st.GetTask(e.Ctx, session, before.TaskID)
	in := fmt.Sprintf("GetTask(%s, %s) after %s", whoOf(session), battery.Literal(before.TaskID), after)
	if !e.CheckErr(err, nil, in) {
		return false
	}
	return checkTask(e, in+" (nothing may have changed)", before, got)
}

// checkGone checks that the task is not found.
func checkGone(e *battery.Env, st sdk.Store, session, id, after string) bool {
	got, err := st.GetTask(e.Ctx, session, id)
	in := fmt.Sprintf("GetTask(%s, %s) after %s", whoOf(session), battery.Literal(id), after)
	if err == nil {
		return e.Check(false, in, "ErrNotFound", "the task: "+show(got))
	}
	if !e.CheckErr(err, reference.ErrNotFound, in) {
		return false
	}
	checkUnlisted(e, st, session, id, after)
	return true
}

// checkUnlisted files a P-LIST-1 fault when the session's listing still holds a task
// GetTask does not find: a listing returns only the tasks the caller can see.
func checkUnlisted(e *battery.Env, st sdk.Store, session, id, after string) {
	tasks, _ := listAll(e, st, session, maxListed)
	for _, t := range tasks {
		if t.TaskID == id {
			e.FaultOf("P-LIST-1", fmt.Sprintf("ListTasks(%s) to the last page after %s\n  expected: no %s (GetTask does not find it)\n  got: %s", whoOf(session), after, battery.Literal(id), show(t)))
			return
		}
	}
}

// checkResult checks that GetTaskResult returns want exactly.
func checkResult(e *battery.Env, st sdk.Store, session, id string, want sdk.Result, after string) bool {
	got, err := st.GetTaskResult(e.Ctx, session, id)
	in := fmt.Sprintf("GetTaskResult(%s, %s) after %s", whoOf(session), battery.Literal(id), after)
	if !e.CheckErr(err, nil, in) {
		return false
	}
	return e.Check(jsonvalue.Equal(map[string]any(want), map[string]any(got)), in, battery.Literal(want), battery.Literal(got))
}

// listAll follows nextCursor from the first page until the last and returns every
// task listed, in order, with the number of pages. A store that keeps handing out
// cursors past limit pages is a fault that stops the spec.
func listAll(e *battery.Env, st sdk.Store, session string, limit int) ([]sdk.Task, int) {
	var all []sdk.Task
	cursor := ""
	for pages := 1; ; pages++ {
		page, err := st.ListTasks(e.Ctx, session, cursor)
		in := fmt.Sprintf("ListTasks(%s, cursor %s) (page %d)", whoOf(session), battery.Literal(cursor), pages)
		e.RequireErr(err, nil, in)
		all = append(all, page.Tasks...)
		if page.NextCursor == "" {
			return all, pages
		}
		if pages >= limit {
			e.Fatalf("%s: still a nextCursor after %d pages: %s", in, pages, endlessCause(e, session, all))
		}
		cursor = page.NextCursor
	}
}

// endlessCause says why a listing ran past the pages its tasks need, from what the
// pages hold: tasks of the spec's other sessions or tasks it never created (the store
// does not scope the listing to the caller's session), the same tasks again (the cursor
// does not move on), or neither.
func endlessCause(e *battery.Env, session string, listed []sdk.Task) string {
	var others, strangers []string
	repeats := 0
	for id, n := range count(listed) {
		repeats += n - 1
		switch s, ok := made.Load(e.Tag + "\x00" + id); {
		case !ok:
			strangers = append(strangers, id)
		case s != session:
			others = append(others, id)
		}
	}
	sort.Strings(others)
	sort.Strings(strangers)
	switch {
	case len(others)+len(strangers) > 0:
		return fmt.Sprintf("of the %d tasks listed, %d were created by this spec in other sessions and %d not by this spec at all (e.g. %s): "+
			"other sessions' tasks fill the pages, so the listing is not scoped to the caller's session", len(listed), len(others), len(strangers), battery.Literal(slices.Concat(others, strangers)[0]))
	case repeats > 0:
		return fmt.Sprintf("%d of the %d rows listed repeat an earlier one: the cursor does not move on", repeats, len(listed))
	}
	return fmt.Sprintf("%d distinct tasks of the caller listed, and still a nextCursor: the listing never ends", len(listed))
}

// count counts how often each id is listed.
func count(tasks []sdk.Task) map[string]int {
	n := map[string]int{}
	for _, t := range tasks {
		n[t.TaskID]++
	}
	return n
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// sampleResult is a result with the values of S-VAL-1 in it: a CallToolResult whose
// structured content holds them.
func sampleResult(tag string) sdk.Result {
	return sdk.Result{
		"content":           []any{map[string]any{"type": "text", "text": "result " + tag}},
		"structuredContent": map[string]any(battery.JSONValues()),
		"isError":           false,
	}
}

// millis parses a task timestamp, recording a fault when it is not ISO 8601.
func millis(e *battery.Env, input, field, s string) (int64, bool) {
	ms, err := sdk.ParseTime(s)
	if err != nil {
		e.Check(false, input, field+" an ISO 8601 timestamp", battery.Literal(s))
		return 0, false
	}
	return ms, true
}
