package server

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Keys the server keeps in a legacy task's metadata, beside the store's own.
const (
	keyTTL          = "ttl_ms"
	keyPollInterval = "poll_interval_ms"
	keyMessage      = "status_message"
	keyUpdatedAt    = "last_updated_at"
	keyResult       = "result"
	keyError        = "error"
	keySession      = "mcp_session"
)

// handleLegacy answers a 2025-11-25 request.
func (s *Server) handleLegacy(ctx context.Context, r *Request) (any, *Error) {
	if s.legacy == nil && r.msg.Method != "initialize" {
		return nil, errorf(jsonrpc.CodeInvalidRequest, "protocol version %s is not served here", VersionLegacy)
	}
	switch r.msg.Method {
	case "initialize":
		if s.legacy == nil {
			return nil, errorf(jsonrpc.CodeInvalidRequest, "protocol version %s is not served here: use %s", VersionLegacy, VersionModern)
		}
		if r.session != nil {
			var p initializeParams
			decodeParams(r.params, &p)
			r.session.declare(p)
		}
		return initializeResult{ProtocolVersion: VersionLegacy, ServerInfo: serverInfo,
			Capabilities: serverCapabilities{Tasks: &taskCapability{}}}, nil
	case "ping":
		return emptyResult{}, nil
	case "tools/list":
		return toolsListResult{Tools: toolList(false)}, nil
	case "tools/call":
		return s.legacyCall(ctx, r)
	case "tasks/get":
		_, t, e := s.legacyNamed(ctx, r)
		if e != nil {
			return nil, e
		}
		return s.legacyJSON(t), nil
	case "tasks/list":
		return s.legacyList(ctx, r)
	case "tasks/cancel":
		return s.legacyCancel(ctx, r)
	case "tasks/result":
		return s.legacyResult(ctx, r)
	}
	return nil, errorf(jsonrpc.CodeMethodNotFound, "method %q not found", r.msg.Method)
}

// legacyCall runs a tool: as a task when the call asks for one, else at once.
func (s *Server) legacyCall(ctx context.Context, r *Request) (any, *Error) {
	t, p, e := calledTool(r)
	if e != nil {
		return nil, e
	}
	name, args, asTask := p.Name, p.Arguments, p.Task != nil
	support := s.taskSupport(r, name, t.legacySupport())
	switch {
	case asTask && support == supportForbidden:
		return nil, errorf(jsonrpc.CodeMethodNotFound, "tool %q does not run as a task", name)
	case !asTask && support == supportRequired:
		return nil, errorf(jsonrpc.CodeMethodNotFound, "tool %q runs only as a task: add params.task", name)
	case !asTask:
		res, rpcErr := t.run(ctx, nil, args)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return res, nil
	}
	if t.needsInput && !r.session.canElicit() {
		// "Servers MUST NOT send elicitation requests with modes that are not supported by
		// the client": a task whose questions could not be asked is refused at once.
		return nil, errorf(jsonrpc.CodeInvalidRequest, "tool %q asks for input by form-mode elicitation, which the client did not declare (capabilities.elicitation)", name)
	}
	ttl, e := s.legacyTTL(*p.Task)
	if e != nil {
		return nil, e
	}
	// No lastUpdatedAt yet: until the first change it is the store's createdAt (a time
	// read here could fall a millisecond before it).
	meta := legacy.Task{keyPollInterval: s.cfg.PollInterval.Milliseconds(), keyMessage: "The operation is in progress.", "tool": name}
	if ttl != nil {
		meta[keyTTL] = *ttl
	}
	if r.session != nil {
		meta[keySession] = r.session.id
	}
	if e := s.admit(r.owner); e != nil {
		return nil, e
	}
	id := reference.GenerateID()
	// Leased before it exists: an instance that dies after the write leaves no task
	// without a lease.
	unlease, err := s.lease(ctx, eraLegacy, id)
	var task legacy.Task
	if err == nil {
		if task, err = s.legacy.Create(ctx, id, meta, r.owner); err != nil {
			unlease()
		}
	}
	if err != nil {
		s.unreserve(r.owner)
		return nil, errorf(jsonrpc.CodeInternal, "create the task: %v", err)
	}
	s.hold(r.owner, id)
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		defer unlease()
		defer s.release(id)
		res, rpcErr := t.runAll(s.ctx, legacyWork{s, id}, args)
		changes := legacy.Task{keyUpdatedAt: reference.NowMillis(s.cfg.Clock)}
		switch {
		case rpcErr != nil:
			changes[legacy.KeyStatus], changes[keyMessage] = string(reference.StatusFailed), rpcErr.Message
			changes[keyError] = map[string]any{"code": int64(rpcErr.Code), "message": rpcErr.Message}
		case res.IsError:
			// 2025-11-25: a tool result with isError ends the task failed.
			changes[legacy.KeyStatus], changes[keyResult], changes[keyMessage] = string(reference.StatusFailed), jsonObject(res), "The tool reported an error."
		default:
			changes[legacy.KeyStatus], changes[keyResult], changes[keyMessage] = string(reference.StatusCompleted), jsonObject(res), "The operation completed."
		}
		if t, err := s.legacy.Update(context.WithoutCancel(s.ctx), id, changes); err == nil {
			s.legacyChanged(t)
		}
	}()
	return createTaskResult{Task: s.legacyJSON(task)}, nil
}

// legacyTTL is the ttl a task gets: the one asked for (params.task.ttl, ms), else the
// default, capped by MaxTTL; nil for none. A negative or fractional ttl is refused.
func (s *Server) legacyTTL(task taskMetadata) (*int64, *Error) {
	var ms int64
	switch raw := task.TTL; {
	case raw != nil:
		f, ok := number(raw)
		if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
			return nil, errorf(jsonrpc.CodeInvalidParams, "task.ttl must be a whole number of milliseconds, not negative: %v", raw)
		}
		ms = int64(f)
	case s.cfg.DefaultTTL > 0:
		ms = s.cfg.DefaultTTL.Milliseconds()
	default:
		if s.cfg.MaxTTL <= 0 {
			return nil, nil
		}
	}
	if s.cfg.MaxTTL > 0 && (ms == 0 || ms > s.cfg.MaxTTL.Milliseconds()) {
		ms = s.cfg.MaxTTL.Milliseconds()
	}
	if ms == 0 {
		ms = 1 // asked for 0: it may be deleted at once, never kept forever
	}
	return &ms, nil
}

// legacyWork is a running tool's view of its 2025-11-25 task.
type legacyWork struct {
	s  *Server
	id string
}

func (w legacyWork) cancelled(ctx context.Context) bool {
	t, err := w.s.legacy.Get(ctx, w.id, reference.System())
	return err == nil && t.Status() == reference.StatusCancelled
}

// legacyGet reads a task the caller may see and that has not expired.
// legacyNamed reads the task the request's params.taskId names, as its caller may see it.
func (s *Server) legacyNamed(ctx context.Context, r *Request) (string, legacy.Task, *Error) {
	id, e := taskID(r)
	if e != nil {
		return "", nil, e
	}
	t, e := s.legacyGet(ctx, id, r.caller)
	return id, t, e
}

func (s *Server) legacyGet(ctx context.Context, id string, caller reference.Caller) (legacy.Task, *Error) {
	t, err := s.legacy.Get(ctx, id, caller)
	if errors.Is(err, reference.ErrNotFound) {
		return nil, taskNotFound(id)
	}
	if err != nil {
		return nil, errorf(jsonrpc.CodeInternal, "read the task: %v", err)
	}
	if s.expired(t) {
		_ = s.legacy.Delete(ctx, id)
		return nil, taskNotFound(id)
	}
	return t, nil
}

// expired: past createdAt + ttl a task may be deleted (2025-11-25: "After a task's ttl
// lifetime has elapsed, receivers MAY delete the task"); this server always does.
func (s *Server) expired(t legacy.Task) bool {
	ttl, ok := intOf(t[keyTTL])
	created, _ := t.CreatedAt()
	return ok && reference.NowMillis(s.cfg.Clock) >= created+ttl
}

// legacyJSON is a task as 2025-11-25 shows it.
func (s *Server) legacyJSON(t legacy.Task) legacyTask {
	created, _ := t.CreatedAt()
	updated, ok := intOf(t[keyUpdatedAt])
	if !ok {
		updated = created
	}
	out := legacyTask{TaskID: t.ID(), Status: string(t.Status()), CreatedAt: sdk.FormatTime(created), LastUpdatedAt: sdk.FormatTime(updated)}
	if ttl, ok := intOf(t[keyTTL]); ok {
		out.TTL = &ttl
	}
	if p, ok := intOf(t[keyPollInterval]); ok {
		out.PollInterval = &p
	}
	out.StatusMessage, _ = t[keyMessage].(string)
	return out
}

// legacyChanged sends notifications/tasks/status to the task's sessions, on this
// instance and on the others over the store.
func (s *Server) legacyChanged(t legacy.Task) {
	s.legacyNotify(t)
	s.signal(eraLegacy, t.ID())
}

// legacyNotify sends notifications/tasks/status to the task's sessions on this instance.
func (s *Server) legacyNotify(t legacy.Task) {
	sid, _ := t[keySession].(string)
	s.deliver(t.Owner(), sid, notify("notifications/tasks/status", s.legacyJSON(t)))
}

func (s *Server) legacyCancel(ctx context.Context, r *Request) (any, *Error) {
	id, _, e := s.legacyNamed(ctx, r)
	if e != nil {
		return nil, e
	}
	// Cancel's task is read again below, once the cancellation's message is written.
	_, err := s.legacy.Cancel(ctx, id, r.caller)
	switch {
	case errors.Is(err, reference.ErrNotFound):
		return nil, taskNotFound(id)
	case errors.Is(err, reference.ErrTerminal):
		cur, _ := s.legacy.Get(ctx, id, r.caller)
		return nil, errorf(jsonrpc.CodeInvalidParams, "Cannot cancel task: already in terminal status '%s'", cur.Status())
	case err != nil:
		return nil, errorf(jsonrpc.CodeInternal, "cancel the task: %v", err)
	}
	s.release(id)
	t, err := s.legacy.Store().Update(ctx, id, legacy.Task{keyUpdatedAt: reference.NowMillis(s.cfg.Clock), keyMessage: "The task was cancelled by request."})
	if err != nil {
		return nil, errorf(jsonrpc.CodeInternal, "cancel the task: %v", err)
	}
	s.legacyChanged(t)
	return s.legacyJSON(t), nil
}

// legacyResult blocks until the task is terminal, then answers what the tool call would
// have: its result (with the related-task _meta) or its JSON-RPC error.
func (s *Server) legacyResult(ctx context.Context, r *Request) (any, *Error) {
	id, e := taskID(r)
	if e != nil {
		return nil, e
	}
	inputs := &inputSender{s: s, r: r, sent: map[string]bool{}}
	defer inputs.close()
	for {
		t, e := s.legacyGet(ctx, id, r.caller)
		if e != nil {
			return nil, e
		}
		if t.Status() == reference.StatusInputRequired && r.stream != nil {
			if err := inputs.send(t); err != nil {
				return nil, nil // the stream broke
			}
		}
		if t.Status().Terminal() {
			if raw, ok := t[keyError].(map[string]any); ok {
				code, _ := intOf(raw["code"])
				msg, _ := raw["message"].(string)
				return nil, &Error{Code: int(code), Message: msg, Data: raw["data"]}
			}
			res, ok := t[keyResult].(map[string]any)
			if !ok {
				// Cancelled before a result: the call ended without one.
				return nil, errorf(jsonrpc.CodeInternal, "Task %s was %s before it had a result", id, t.Status())
			}
			// The tool's result as the task keeps it (open to the server), related to its
			// task.
			out := map[string]any{}
			for k, v := range res {
				out[k] = v
			}
			out["_meta"] = relatedMeta{RelatedTask: taskParams{TaskID: id}}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, errorf(jsonrpc.CodeInternal, "request ended: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// legacyList answers tasks/list: the caller's tasks oldest first, a page at a time, with a
// signed cursor bound to the caller. The facade pages (legacy.Tasks.ListAfter); a task
// past its ttl is skipped here, and the page read on until it has one task more than it
// shows or the store has no more.
func (s *Server) legacyList(ctx context.Context, r *Request) (any, *Error) {
	var after *legacy.Position
	var p listParams
	decodeParams(r.params, &p)
	if p.Cursor.sent && !p.Cursor.null {
		pos, err := s.readCursor(p.Cursor.v, r.caller)
		if err != nil {
			return nil, errorf(jsonrpc.CodeInvalidParams, "Invalid cursor: %v", err)
		}
		after = &legacy.Position{CreatedAt: pos.Created, ID: pos.ID}
	}
	want := s.cfg.PageSize + 1
	var live []legacy.Task
	for len(live) < want {
		rows, err := s.legacy.ListAfter(ctx, legacy.ListOptions{Limit: &want}, after, r.caller)
		if err != nil {
			return nil, errorf(jsonrpc.CodeInternal, "list tasks: %v", err)
		}
		for _, t := range rows {
			if !s.expired(t) {
				live = append(live, t)
			}
		}
		if len(rows) < want {
			break
		}
		last := legacy.PositionOf(rows[len(rows)-1])
		after = &last
	}
	out := listTasksResult{Tasks: []legacyTask{}}
	for _, t := range live[:min(len(live), s.cfg.PageSize)] {
		out.Tasks = append(out.Tasks, s.legacyJSON(t))
	}
	if len(live) > s.cfg.PageSize {
		last := legacy.PositionOf(live[s.cfg.PageSize-1])
		out.NextCursor = s.writeCursor(cursorPos{Created: last.CreatedAt, ID: last.ID}, r.caller)
	}
	return out, nil
}

// intOf reads a whole number from a task's metadata.
func intOf(v any) (int64, bool) {
	if n, ok := v.(json.Number); ok {
		i, err := n.Int64()
		return i, err == nil
	}
	f, ok := number(v)
	return int64(f), ok && f == math.Trunc(f)
}
