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
		return discoverResult{SupportedVersions: []string{VersionModern}, ServerInfo: serverInfo, CacheScope: "public", ResultType: resultComplete,
			Capabilities: serverCapabilities{Extensions: map[string]empty{TasksExtension: {}}}}, nil
	case "ping":
		return emptyResult{ResultType: resultComplete}, nil
	case "tools/list":
		return toolsListResult{Tools: toolList(true), ResultType: resultComplete}, nil
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

// modernCall runs a tool: as a task when the request declares the extension and the
// tool supports tasks, else at once. Input the call itself must carry (a tool's input
// before its task, or all of it when no task runs) is asked by multi round-trip
// requests (mrtr.go).
func (s *Server) modernCall(ctx context.Context, r *Request) (any, *Error) {
	t, p, e := calledTool(r)
	if e != nil {
		return nil, e
	}
	name, args := p.Name, p.Arguments
	support := s.taskSupport(r, name, t.support)
	asTask := r.declaresTasks() && support != supportForbidden
	if !asTask && support == supportRequired {
		// It cannot be served without a task: the extension's -32021.
		return nil, missingCapability()
	}
	if t.before != nil || (!asTask && t.needsInput) {
		w, e := s.callInput(r, p)
		if e != nil {
			return nil, e
		}
		var res callToolResult
		var given map[string]any
		var rpcErr *Error
		if asTask {
			// "SHOULD resolve all MRTR exchanges synchronously before responding with a
			// CreateTaskResult": the task is made once the input before it is in, and its
			// work gets what that input gave.
			given, rpcErr = t.before(ctx, w, args)
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
			res.ResultType = resultComplete
			return res, nil
		}
		args = given
	} else if !asTask {
		res, rpcErr := t.run(ctx, nil, args)
		if rpcErr != nil {
			return nil, rpcErr
		}
		res.ResultType = resultComplete
		return res, nil
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
	out.ResultType = resultTask
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
	_, _ = s.modern.Complete(ctx, id, jsonObject(res))
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

func (w modernWork) input(ctx context.Context, requests map[string]inputRequest) (map[string]any, error) {
	if _, err := w.s.modern.RequireInput(ctx, w.id, jsonObject(requests)); err != nil {
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
	id, e := taskID(r)
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
		out := modernJSON(t)
		out.ResultType = resultComplete
		return out, nil
	case "tasks/update":
		var p updateParams
		decodeParams(r.params, &p)
		if p.InputResponses == nil {
			return nil, errorf(jsonrpc.CodeInvalidParams, "params.inputResponses must be an object")
		}
		if _, err := s.modern.Update(ctx, id, r.caller, p.InputResponses); err != nil && !errors.Is(err, reference.ErrTerminal) {
			return nil, modernErr(id, err)
		}
		return emptyResult{ResultType: resultComplete}, nil
	default: // tasks/cancel: an acknowledgement; a terminal task stays as it is
		_, err := s.modern.Cancel(ctx, id, r.caller)
		if err != nil && !errors.Is(err, reference.ErrTerminal) {
			return nil, modernErr(id, err)
		}
		if err == nil {
			s.release(id) // cancelled: no longer counted against its owner's limit
		}
		return emptyResult{ResultType: resultComplete}, nil
	}
}

func modernErr(id string, err error) *Error {
	if errors.Is(err, reference.ErrNotFound) {
		return taskNotFound(id)
	}
	return errorf(jsonrpc.CodeInternal, "%v", err)
}

// modernJSON is a task as the extension's DetailedTask shows it.
func modernJSON(t modern.Task) detailedTask {
	out := detailedTask{TaskID: t.TaskID, Status: string(t.Status), CreatedAt: sdk.FormatTime(t.CreatedAt),
		LastUpdatedAt: sdk.FormatTime(t.LastUpdatedAt), TTLMs: reference.CloneMillis(t.TTL), PollIntervalMs: reference.CloneMillis(t.PollInterval)}
	// The message is the one the task was made with, which describes its work: a terminal
	// task shows none rather than a stale one ("Optional message describing the current
	// task state").
	if !t.Status.Terminal() {
		out.StatusMessage = t.StatusMessage
	}
	switch t.Status {
	case reference.StatusCompleted:
		out.Result = &t.Result
	case reference.StatusFailed:
		out.Error = &t.Error
	case reference.StatusInputRequired:
		out.InputRequests = &t.InputRequests
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
	var p listenParams
	decodeParams(r.params, &p)
	sub := s.hub.Subscribe(r.caller, p.Notifications.TaskIDs...)
	defer sub.Close()
	if err := r.stream(notify("notifications/subscriptions/acknowledged", p)); err != nil {
		return nil, nil
	}
	for {
		select {
		case <-ctx.Done():
			return emptyResult{ResultType: resultComplete}, nil
		case <-s.ctx.Done():
			return emptyResult{ResultType: resultComplete}, nil
		case t := <-sub.C():
			if err := r.stream(notify("notifications/tasks", modernJSON(t))); err != nil {
				return nil, nil
			}
		}
	}
}
