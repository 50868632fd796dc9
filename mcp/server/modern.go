package server

import (
	"context"
	"errors"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// handleModern answers a request of the 2026-07-28 wire (the tasks extension).
func (s *Server) handleModern(ctx context.Context, r *Request) (any, *Error) {
	if r.header != nil {
		if m := r.header.Get("Mcp-Method"); m != "" && m != r.msg.Method {
			return nil, errorf(jsonrpc.CodeHeaderMismatch, "HeaderMismatch: Mcp-Method %q, body method %q", m, r.msg.Method)
		}
	}
	switch r.msg.Method {
	case "server/discover":
		return complete(map[string]any{
			"supportedVersions": []any{VersionModern},
			"capabilities":      map[string]any{"tools": map[string]any{}, "extensions": map[string]any{TasksExtension: map[string]any{}}},
			"serverInfo":        map[string]any{"name": "storecheck", "version": "reference"},
			"ttlMs":             0,
			"cacheScope":        "public",
		}), nil
	case "ping":
		return complete(map[string]any{}), nil
	case "tools/list":
		return complete(map[string]any{"tools": toolList(true)}), nil
	case "tools/call":
		return s.modernCall(ctx, r)
	case "tasks/get", "tasks/update", "tasks/cancel":
		return s.modernTask(ctx, r)
	case "subscriptions/listen":
		return s.modernListen(ctx, r)
	case "tasks/list", "tasks/result":
		return nil, errorf(jsonrpc.CodeMethodNotFound, "method %q is not part of the tasks extension", r.msg.Method)
	}
	return nil, errorf(jsonrpc.CodeMethodNotFound, "method %q not found", r.msg.Method)
}

// complete marks a standard result.
func complete(m map[string]any) map[string]any {
	m["resultType"] = "complete"
	return m
}

// modernCall runs a tool: as a task when the request declares the extension and the
// tool supports tasks, else at once. Input the call itself must carry (a tool's input
// before its task, or all of it when no task runs) is asked by multi round-trip
// requests (mrtr.go).
func (s *Server) modernCall(ctx context.Context, r *Request) (any, *Error) {
	t, name, args, e := calledTool(r.params)
	if e != nil {
		return nil, e
	}
	support := s.taskSupport(r, name, t.support)
	asTask := r.declaresTasks() && support != supportForbidden
	if !asTask && support == supportRequired {
		// It cannot be served without a task: the extension's -32021.
		return nil, missingCapability()
	}
	if t.before != nil || (!asTask && t.needsInput) {
		w, e := s.callInput(r, name, args)
		if e != nil {
			return nil, e
		}
		var res map[string]any
		var rpcErr *Error
		if asTask {
			// "SHOULD resolve all MRTR exchanges synchronously before responding with a
			// CreateTaskResult": the task is made once the input before it is in, and its
			// work gets what that input gave.
			res, rpcErr = t.before(ctx, w, args)
		} else {
			res, rpcErr = t.runAll(ctx, w, args)
		}
		if w.asked != nil {
			return s.inputRequired(r, name, args, w)
		}
		if rpcErr != nil {
			return nil, rpcErr
		}
		if !asTask {
			return complete(res), nil
		}
		args = res
	} else if !asTask {
		res, rpcErr := t.run(ctx, nil, args)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return complete(res), nil
	}
	if e := s.admit(r.owner); e != nil {
		return nil, e
	}
	poll := s.cfg.PollInterval
	started := false
	task, err := s.modern.Create(ctx, modern.CreateOptions{Owner: r.owner, PollInterval: &poll, StatusMessage: "The operation is in progress."},
		func(ctx context.Context, id string) error {
			unlease, err := s.lease(ctx, eraModern, id)
			if err != nil {
				return err
			}
			started = true
			s.hold(r.owner, id)
			s.work.Add(1)
			go func() {
				defer unlease()
				defer s.release(id)
				s.modernRun(t, id, args)
			}()
			return nil
		})
	if !started {
		s.unreserve(r.owner)
	}
	if err != nil {
		return nil, errorf(jsonrpc.CodeInternal, "create the task: %v", err)
	}
	out := modernJSON(task)
	out["resultType"] = "task"
	return out, nil
}

// modernRun runs a tool for task id and ends the task with what it returned: a JSON-RPC
// error fails it, any result (isError or not) completes it.
func (s *Server) modernRun(t tool, id string, args map[string]any) {
	defer s.work.Done()
	res, rpcErr := t.run(s.ctx, modernWork{s, id}, args)
	ctx := context.WithoutCancel(s.ctx)
	if rpcErr != nil {
		_, _ = s.modern.Fail(ctx, id, modern.RPCError(int64(rpcErr.Code), rpcErr.Message, nil))
		return
	}
	_, _ = s.modern.Complete(ctx, id, res)
}

// modernWork is a running tool's view of its 2026-07-28 task.
type modernWork struct {
	s  *Server
	id string
}

func (w modernWork) cancelled(ctx context.Context) bool {
	c, err := w.s.modern.Cancelled(ctx, w.id)
	return err == nil && c
}

func (w modernWork) input(ctx context.Context, requests map[string]any) (map[string]any, error) {
	if _, err := w.s.modern.RequireInput(ctx, w.id, requests); err != nil {
		return nil, err
	}
	for {
		t, err := w.s.modern.Status(ctx, w.id)
		if err != nil {
			return nil, err
		}
		if t.Status.Terminal() {
			return nil, errors.New("the task ended while waiting for input")
		}
		if t.Status == reference.StatusWorking && t.InputResponses != nil {
			return t.InputResponses, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// modernTask answers tasks/get, tasks/update and tasks/cancel.
func (s *Server) modernTask(ctx context.Context, r *Request) (any, *Error) {
	if !r.declaresTasks() {
		return nil, missingCapability()
	}
	id, e := stringParam(r.params, "taskId")
	if e != nil {
		return nil, e
	}
	if r.header != nil && r.header.Get("Mcp-Name") != id {
		return nil, errorf(jsonrpc.CodeHeaderMismatch, "HeaderMismatch: Mcp-Name %q, params.taskId %q", r.header.Get("Mcp-Name"), id)
	}
	switch r.msg.Method {
	case "tasks/get":
		t, err := s.modern.Get(ctx, id, r.caller)
		if err != nil {
			return nil, modernErr(id, err)
		}
		return complete(modernJSON(t)), nil
	case "tasks/update":
		resp, ok := r.params["inputResponses"].(map[string]any)
		if !ok {
			return nil, errorf(jsonrpc.CodeInvalidParams, "params.inputResponses must be an object")
		}
		if _, err := s.modern.Update(ctx, id, r.caller, resp); err != nil && !errors.Is(err, reference.ErrTerminal) {
			return nil, modernErr(id, err)
		}
		return complete(map[string]any{}), nil
	default: // tasks/cancel: an acknowledgement; a terminal task stays as it is
		_, err := s.modern.Cancel(ctx, id, r.caller)
		if err != nil && !errors.Is(err, reference.ErrTerminal) {
			return nil, modernErr(id, err)
		}
		if err == nil {
			s.release(id) // cancelled: no longer counted against its owner's limit
		}
		return complete(map[string]any{}), nil
	}
}

func modernErr(id string, err error) *Error {
	if errors.Is(err, reference.ErrNotFound) {
		return taskNotFound(id)
	}
	return errorf(jsonrpc.CodeInternal, "%v", err)
}

// modernJSON is a task as the extension's DetailedTask shows it.
func modernJSON(t modern.Task) map[string]any {
	out := map[string]any{"taskId": t.TaskID, "status": string(t.Status), "createdAt": sdk.FormatTime(t.CreatedAt),
		"lastUpdatedAt": sdk.FormatTime(t.LastUpdatedAt), "ttlMs": nil}
	if t.TTL != nil {
		out["ttlMs"] = *t.TTL
	}
	if t.PollInterval != nil {
		out["pollIntervalMs"] = *t.PollInterval
	}
	// The message is the one the task was made with, which describes its work: a terminal
	// task shows none rather than a stale one ("Optional message describing the current
	// task state").
	if t.StatusMessage != "" && !t.Status.Terminal() {
		out["statusMessage"] = t.StatusMessage
	}
	switch t.Status {
	case reference.StatusCompleted:
		out["result"] = t.Result
	case reference.StatusFailed:
		out["error"] = t.Error
	case reference.StatusInputRequired:
		out["inputRequests"] = t.InputRequests
	}
	return out
}

// modernListen streams notifications/tasks about the tasks named until the client goes.
func (s *Server) modernListen(ctx context.Context, r *Request) (any, *Error) {
	if !r.declaresTasks() {
		return nil, missingCapability()
	}
	if r.stream == nil {
		return nil, errorf(jsonrpc.CodeInvalidRequest, "subscriptions/listen needs a stream: send Accept: text/event-stream")
	}
	notes, _ := r.params["notifications"].(map[string]any)
	raw, _ := notes["taskIds"].([]any)
	var ids []string
	for _, v := range raw {
		if id, ok := v.(string); ok {
			ids = append(ids, id)
		}
	}
	sub := s.hub.Subscribe(r.caller, ids...)
	defer sub.Close()
	if err := r.stream(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
		"params": map[string]any{"notifications": map[string]any{"taskIds": ids}}}); err != nil {
		return nil, nil
	}
	for {
		select {
		case <-ctx.Done():
			return complete(map[string]any{}), nil
		case <-s.ctx.Done():
			return complete(map[string]any{}), nil
		case t := <-sub.C():
			if err := r.stream(map[string]any{"jsonrpc": "2.0", "method": "notifications/tasks", "params": modernJSON(t)}); err != nil {
				return nil, nil
			}
		}
	}
}
