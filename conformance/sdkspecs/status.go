package sdkspecs

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// unknownStatuses are statuses outside the five: near misses and other protocols'.
var unknownStatuses = []reference.Status{"bogus", "", "Working", "WORKING", "working ", "submitted", "unknown", "canceled", "complete", "input-required"}

// terminate brings a task to a terminal status as setup: completed and failed
// through StoreTaskResult, cancelled through UpdateTaskStatus. It returns the result
// stored (nil for cancelled).
func terminate(e *battery.Env, st sdk.Store, session, id string, status reference.Status) sdk.Result {
	if status == reference.StatusCancelled {
		err := st.UpdateTaskStatus(e.Ctx, session, id, status, "cancelled by the requestor")
		e.RequireErr(err, nil, fmt.Sprintf("setup: UpdateTaskStatus(%s, %s, cancelled)", whoOf(session), battery.Literal(id)))
		return nil
	}
	r := sampleResult(string(status))
	err := st.StoreTaskResult(e.Ctx, session, id, status, r)
	e.RequireErr(err, nil, fmt.Sprintf("setup: StoreTaskResult(%s, %s, %s)", whoOf(session), battery.Literal(id), status))
	return r
}

func Status(s *battery.Suite) {
	s.It("P-STATUS-1", "UpdateTaskStatus refuses unknown statuses and stores moves between working and input_required", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "status")
		t := create(e, st, session, params(nil))
		for _, bad := range unknownStatuses {
			in := fmt.Sprintf("UpdateTaskStatus(%s, %s, %s)", whoOf(session), battery.Literal(t.TaskID), battery.Literal(string(bad)))
			e.CheckErr(st.UpdateTaskStatus(e.Ctx, session, t.TaskID, bad, "unknown"), reference.ErrInvalid, in)
			checkUnchanged(e, st, session, t, in)
		}
		pass(e, 1500)
		steps := []struct {
			status  reference.Status
			message string
		}{{reference.StatusInputRequired, "needs an answer"}, {reference.StatusWorking, "working again"}, {reference.StatusWorking, ""}, {reference.StatusInputRequired, "twice"}}
		want := t
		for _, step := range steps {
			in := fmt.Sprintf("UpdateTaskStatus(%s, %s, %s, %s)", whoOf(session), battery.Literal(t.TaskID), step.status, battery.Literal(step.message))
			now := e.NowMillis()
			if !e.CheckErr(st.UpdateTaskStatus(e.Ctx, session, t.TaskID, step.status, step.message), nil, in) {
				return
			}
			got, ok := stored(e, st, session, t.TaskID)
			if !e.Check(ok, "GetTask after "+in, "the task", "ErrNotFound") {
				return
			}
			want.Status = step.status
			if step.message != "" {
				want.StatusMessage = step.message
			}
			e.Check(got.Status == want.Status, "GetTask after "+in+": status", string(want.Status), string(got.Status))
			e.Check(got.StatusMessage == want.StatusMessage, "GetTask after "+in+": statusMessage", battery.Literal(want.StatusMessage), battery.Literal(got.StatusMessage))
			e.Check(got.CreatedAt == t.CreatedAt, "GetTask after "+in+": createdAt", battery.Literal(t.CreatedAt), battery.Literal(got.CreatedAt))
			if ms, ok := millis(e, "GetTask after "+in, "lastUpdatedAt", got.LastUpdatedAt); ok && e.HasClock() {
				e.Check(ms == now, "GetTask after "+in+": lastUpdatedAt", sdk.FormatTime(now)+" (the clock at the write)", battery.Literal(got.LastUpdatedAt))
			}
			pass(e, 10)
		}
	})

	s.It("P-FIN-1", "a terminal task is final: every write fails with ErrTerminal and changes nothing", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "fin")
		for _, end := range []reference.Status{reference.StatusCompleted, reference.StatusFailed, reference.StatusCancelled} {
			t := create(e, st, session, params(nil))
			result := terminate(e, st, session, t.TaskID, end)
			before, ok := stored(e, st, session, t.TaskID)
			e.Require(ok, fmt.Sprintf("setup: GetTask(%s, %s) once %s", whoOf(session), battery.Literal(t.TaskID), end), "the task", "ErrNotFound")
			pass(e, 1000)
			for _, to := range []reference.Status{reference.StatusWorking, reference.StatusInputRequired, reference.StatusCancelled} {
				in := fmt.Sprintf("UpdateTaskStatus(%s, %s, %s) of a %s task", whoOf(session), battery.Literal(t.TaskID), to, end)
				e.CheckErr(st.UpdateTaskStatus(e.Ctx, session, t.TaskID, to, "after the end"), reference.ErrTerminal, in)
				checkUnchanged(e, st, session, before, in)
			}
			for _, to := range []reference.Status{reference.StatusCompleted, reference.StatusFailed} {
				in := fmt.Sprintf("StoreTaskResult(%s, %s, %s) of a %s task", whoOf(session), battery.Literal(t.TaskID), to, end)
				e.CheckErr(st.StoreTaskResult(e.Ctx, session, t.TaskID, to, sampleResult("late")), reference.ErrTerminal, in)
				checkUnchanged(e, st, session, before, in)
				if result != nil {
					checkResult(e, st, session, t.TaskID, result, in)
				}
			}
		}
	})

	s.It("P-FIN-2", "of concurrent terminal writes on one task exactly one wins, and the task ends with its status and result", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "race")
		clients := max(e.RaceClients(), 3)
		rounds := max(e.RaceRounds()/4, 8)
		m := e.Meter()
		defer m.Done()
		for r := range m.Rounds(rounds) {
			if e.Ctx.Err() != nil {
				return
			}
			t := create(e, st, session, params(nil))
			type write struct {
				what   string
				status reference.Status
				result sdk.Result
				err    error
			}
			writes := make([]write, clients)
			tl := battery.NewTimeline()
			battery.Together(clients, func(c int) {
				w := &writes[c]
				switch c % 3 {
				case 0:
					w.what, w.status, w.result = "StoreTaskResult(completed)", reference.StatusCompleted, sampleResult(fmt.Sprintf("client %d", c))
					tl.Do(c, t.TaskID, func() { w.err = st.StoreTaskResult(e.Ctx, session, t.TaskID, w.status, w.result) })
				case 1:
					w.what, w.status, w.result = "StoreTaskResult(failed)", reference.StatusFailed, sdk.Result{"isError": true, "client": fmt.Sprint(c)}
					tl.Do(c, t.TaskID, func() { w.err = st.StoreTaskResult(e.Ctx, session, t.TaskID, w.status, w.result) })
				default:
					w.what, w.status = "UpdateTaskStatus(cancelled)", reference.StatusCancelled
					tl.Do(c, t.TaskID, func() {
						w.err = st.UpdateTaskStatus(e.Ctx, session, t.TaskID, w.status, fmt.Sprintf("cancelled by client %d", c))
					})
				}
			})
			m.Add(tl.Take())
			var won []int
			var calls []string
			for c, w := range writes {
				calls = append(calls, fmt.Sprintf("client %d %s -> %s", c, w.what, outcomeSDK(w.err)))
				switch {
				case w.err == nil:
					won = append(won, c)
				case !errors.Is(w.err, reference.ErrTerminal):
					e.Check(false, fmt.Sprintf("round %d: client %d %s racing %d terminal writes on %s", r, c, w.what, clients-1, battery.Literal(t.TaskID)),
						"success or ErrTerminal", battery.DescribeErr(w.err))
				}
			}
			sort.Strings(calls)
			in := fmt.Sprintf("round %d: %d terminal writes released together on %s", r, clients, battery.Literal(t.TaskID))
			if !e.Check(len(won) == 1, in, "exactly one success, every other ErrTerminal", fmt.Sprintf("%d successes: %s", len(won), strings.Join(calls, "; "))) {
				return
			}
			w := writes[won[0]]
			got, ok := stored(e, st, session, t.TaskID)
			if !e.Check(ok, "GetTask after "+in, "the task", "ErrNotFound") {
				return
			}
			if !e.Check(got.Status == w.status, "GetTask after "+in, fmt.Sprintf("the winner's (client %d) status %s", won[0], w.status), fmt.Sprintf("status %s; calls: %s", got.Status, strings.Join(calls, "; "))) {
				return
			}
			if w.result != nil && !checkResult(e, st, session, t.TaskID, w.result, in+fmt.Sprintf(" (the winner, client %d, stored this result)", won[0])) {
				return
			}
		}
	})
}

func outcomeSDK(err error) string {
	if err == nil {
		return "ok"
	}
	for _, s := range []error{reference.ErrTerminal, reference.ErrNotFound, reference.ErrInvalid, reference.ErrNoResult} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return err.Error()
}
