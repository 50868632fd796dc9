package load

import (
	"context"
	"encoding/json"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/probe/client"
)

// pollEvery spaces a client's tasks/get reads of its task.
const pollEvery = 10 * time.Millisecond

// follow makes a task of role's tool and reads it until it ends, cancelling it first
// when cancel, answering its input requests; the owner must find it (not lost), once
// (not duplicated), and cancelled only when it cancelled it.
func (s *session) follow(ctx context.Context, role probe.Role, cancel bool) {
	tool, args := s.run.cfg.Tools.Tool(role)
	params := map[string]any{"name": tool, "arguments": args}
	if s.era == conformance.EraLegacy {
		params["task"] = map[string]any{}
	}
	res, err := s.call(ctx, "tools/call", params)
	if err != nil {
		time.Sleep(pollEvery) // a server that refuses connections is not spun against
		return
	}
	if res.Error != nil {
		return // refused with an error: counted, and nothing acknowledged
	}
	id, err := probe.CreatedID(s.era, tool, res)
	if err != nil {
		s.count("tools/call", "no task")
		return
	}
	if s.run.judge.acknowledged(id, &task{owner: s.principal.Name, client: s.id}) {
		s.violate("V-RUN-1", "a task is acknowledged once: the server gave this id to an earlier task", "tools/call", map[string]any{"taskId": id}, res)
	}
	if s.listens() && (cancel || role == probe.RoleInput) {
		defer s.listenOn(ctx, id, cancel)()
	}
	if cancel {
		s.run.judge.cancelling(id)
		_, _ = s.call(ctx, "tasks/cancel", map[string]any{"taskId": id})
	}
	s.await(ctx, id, role, cancel)
}

// await reads the task id until it ends or the run's wait passes.
func (s *session) await(ctx context.Context, id string, role probe.Role, cancelled bool) {
	deadline := time.Now().Add(s.run.cfg.Wait)
	answered := map[string]bool{}
	resulted := false
	for ctx.Err() == nil {
		q := map[string]any{"taskId": id}
		res, err := s.call(ctx, "tasks/get", q)
		switch {
		case err != nil:
			return // counted; the task is not judged on a broken wire
		case notFound(res.Error):
			s.violate("V-RUN-1", "a task acknowledged to its creator is found by its owner until it ends (none lost)", "tasks/get", q, res)
			return
		case res.Error != nil:
			return
		}
		if got := taskIDOf(res.Result); got != id {
			s.violate("V-DENY-1", "tasks/get answers the task asked for, no other", "tasks/get", q, res)
			return
		}
		status := statusOf(res.Result)
		if terminal(status) {
			s.ended(ctx, id, status, role, cancelled, resulted, res)
			return
		}
		if status == "input_required" {
			resulted = s.answer(ctx, id, res.Result, answered) || resulted
		}
		if time.Now().After(deadline) {
			s.violate("V-RUN-1", "a task acknowledged to its creator ends within the run's wait of "+s.run.cfg.Wait.String(), "tasks/get", q, res)
			return
		}
		time.Sleep(pollEvery)
	}
}

// ended judges a task's terminal status and, now and then, reads its result.
func (s *session) ended(ctx context.Context, id, status string, role probe.Role, cancelled, resulted bool, res *client.Response) {
	s.run.ended.Add(1)
	s.run.timeline.ended(time.Now())
	if status == "cancelled" && !cancelled {
		s.violate("V-RUN-1", "a task nobody cancelled never ends cancelled", "tasks/get", map[string]any{"taskId": id}, res)
	}
	if s.era == conformance.EraLegacy && !resulted && role == probe.RoleQuick && s.rand.IntN(2) == 0 {
		q := map[string]any{"taskId": id}
		if r, err := s.call(ctx, "tasks/result", q); err == nil && notFound(r.Error) {
			s.violate("V-RUN-1", "a task's owner reads its result once it ended (none lost)", "tasks/result", q, r)
		}
	}
}

// answer answers an input_required task: 2025-11-25 by tasks/result, whose stream
// brings the elicitation (answered by elicited); 2026-07-28 by tasks/update answering
// each input request shown. It reports whether tasks/result was called.
func (s *session) answer(ctx context.Context, id string, raw json.RawMessage, answered map[string]bool) bool {
	if s.era == conformance.EraLegacy {
		_, _ = s.call(ctx, "tasks/result", map[string]any{"taskId": id})
		return true
	}
	var t struct {
		InputRequests map[string]map[string]any `json:"inputRequests"`
	}
	_ = json.Unmarshal(raw, &t)
	responses := map[string]any{}
	for k, req := range t.InputRequests {
		if !answered[k] {
			responses[k] = probe.AnswerFor(req)
			answered[k] = true
		}
	}
	if len(responses) > 0 {
		_, _ = s.call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": responses})
	}
	return false
}

// elicited answers a server's request on the 2025-11-25 wire: an elicitation about the
// caller's own task is accepted; about a task it may not see is a violation.
func (s *session) elicited(m client.Message) (any, *client.Error) {
	var p struct {
		Meta map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if id := p.Meta["io.modelcontextprotocol/related-task"].TaskID; id != "" {
		if t, ok := s.run.judge.lookup(id); ok && !mayRead(s.principal.Name, t) {
			s.violate("V-DENY-1", "nobody is asked for input about another's task", m.Method, map[string]any{"taskId": id},
				&client.Response{Message: m})
		}
	}
	var params map[string]any
	_ = json.Unmarshal(m.Params, &params)
	return probe.AnswerFor(map[string]any{"params": params}), nil
}

// list reads the first page of the caller's tasks: none may be another principal's.
func (s *session) list(ctx context.Context) {
	res, err := s.call(ctx, "tasks/list", map[string]any{})
	if err != nil || res.Error != nil {
		return
	}
	var page struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	}
	_ = json.Unmarshal(res.Result, &page)
	for _, t := range page.Tasks {
		if k, ok := s.run.judge.lookup(t.TaskID); ok && !mayRead(s.principal.Name, k) {
			s.violate("V-DENY-1", "tasks/list never shows another principal's task", "tasks/list", map[string]any{"taskId": t.TaskID}, res)
			return
		}
	}
}

// trespass reaches for another principal's task: reading it, its result, cancelling it
// must each be refused.
func (s *session) trespass(ctx context.Context) {
	id := s.run.judge.foreign(s.principal.Name, s.rand.IntN)
	if id == "" {
		return
	}
	methods := []string{"tasks/get"}
	switch n := s.rand.IntN(10); {
	case n < 3:
		methods = append(methods, "tasks/cancel")
	case n < 5 && s.era == conformance.EraLegacy:
		methods = append(methods, "tasks/result")
	}
	for _, m := range methods {
		q := map[string]any{"taskId": id}
		if res, err := s.callAs(ctx, m+" (another's)", m, q); err == nil && res.Error == nil {
			s.violate("V-DENY-1", "a principal's task is answered to no other caller as a missing one", m, q, res)
		}
	}
}

// hear judges the notifications that came since the last look: each about a task the
// caller may hear of. One about a task not yet acknowledged waits for the end.
func (s *session) hear() {
	inbox := s.conn.Inbox()
	for _, m := range inbox[s.heard:] {
		if m.Method == "notifications/tasks/status" || m.Method == modernNote {
			s.judgeNote(m, false)
		}
	}
	s.heard = len(inbox)
}

func (s *session) judgeNote(m client.Inbound, final bool) {
	id := taskIDOf(m.Params)
	t, ok := s.run.judge.lookup(id)
	modern := m.Method == modernNote
	if modern && !final {
		s.meter.listens.Heard++
	}
	switch {
	case !ok && !final:
		s.mu.Lock()
		s.pending = append(s.pending, m)
		s.mu.Unlock()
	case ok && modern && !mayRead(s.principal.Name, t):
		s.violate("V-NOTIFY-1", "a subscriptions/listen stream brings nothing about a task its caller may not see", s.listenRequest()+" heard "+m.Method+" about",
			map[string]any{"taskId": id}, &client.Response{Message: m.Message})
	case ok && !modern && !mayHear(s.principal.Name, s.id, t):
		s.violate("V-NOTIFY-1", "nobody hears about another's task", m.Method+" (on the GET stream)", map[string]any{"taskId": id},
			&client.Response{Message: m.Message})
	}
}
