package server

import (
	"context"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
)

// Task support of a tool (2025-11-25 tools/list execution.taskSupport).
const (
	supportForbidden = "forbidden"
	supportOptional  = "optional"
	supportRequired  = "required"
)

// tool is one tool the server offers. run does its work; a non-nil *Error is a protocol
// error of the call (the task fails), a result with isError true a tool error. Arguments
// are open to the server: each tool reads its own.
type tool struct {
	name, description string
	schema            map[string]any // a JSON Schema
	support           string
	// needsInput: the tool asks the client for input while its task runs, which only a
	// task can carry here; in 2025-11-25 it is listed as taskSupport required.
	needsInput bool
	// before, when set, gathers input before the tool's work starts and returns the
	// arguments run gets: in 2026-07-28 by multi round-trip requests on the tools/call
	// itself, before any task exists; in 2025-11-25 inside the task, as any input.
	before func(ctx context.Context, w work, args map[string]any) (map[string]any, *Error)
	run    func(ctx context.Context, w work, args map[string]any) (callToolResult, *Error)
}

// runAll is the tool's whole run: its input before, then its work.
func (t tool) runAll(ctx context.Context, w work, args map[string]any) (callToolResult, *Error) {
	if t.before != nil {
		var e *Error
		if args, e = t.before(ctx, w, args); e != nil {
			return callToolResult{}, e
		}
	}
	return t.run(ctx, w, args)
}

// work is what a running tool may ask of its task.
type work interface {
	// cancelled reports whether the task was cancelled.
	cancelled(ctx context.Context) bool
	// input asks the client for input (the task goes to input_required) and waits for
	// the answers, keyed as asked: each the client's result, open to the server (see
	// elicited).
	input(ctx context.Context, requests map[string]inputRequest) (map[string]any, error)
}

func text(s string) callToolResult {
	return callToolResult{Content: []textContent{{Type: "text", Text: s}}}
}

// ask is a form-mode elicitation of message with the schema's fields.
func ask(message string, schema map[string]any) inputRequest {
	return inputRequest{Method: "elicitation/create", Params: elicitParams{Mode: "form", Message: message, RequestedSchema: schema}}
}

// elicited reads a client's answer to an elicitation (zero when it is not one).
func elicited(answer any) elicitResult {
	var r elicitResult
	decodeParams(answer, &r)
	return r
}

// schema is an object's JSON Schema whose properties have the types given, by name.
func schema(props map[string]string, required ...string) map[string]any {
	properties := map[string]any{}
	for name, typ := range props {
		properties[name] = map[string]any{"type": typ}
	}
	s := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// seconds reads a duration argument in seconds (default d).
func seconds(args map[string]any, key string, d float64) time.Duration {
	if v, ok := number(args[key]); ok && v >= 0 {
		d = v
	}
	return time.Duration(d * float64(time.Second))
}

// sleep waits d, or until ctx ends or the task is cancelled; it reports whether the wait
// ran its course.
func sleep(ctx context.Context, w work, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if w != nil && w.cancelled(ctx) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(min(50*time.Millisecond, time.Until(deadline))):
		}
	}
	return true
}

// sleepThenAnswer is the run of tool name that works for its "seconds" argument (def when
// absent) and then answers done with the seconds, or fails when stopped before its end.
func sleepThenAnswer(name string, def float64, done string) func(context.Context, work, map[string]any) (callToolResult, *Error) {
	return func(ctx context.Context, w work, args map[string]any) (callToolResult, *Error) {
		d := seconds(args, "seconds", def)
		if !sleep(ctx, w, d) {
			return callToolResult{}, errorf(jsonrpc.CodeInternal, "%s stopped before its end", name)
		}
		return text(fmt.Sprintf(done, d.Seconds())), nil
	}
}

// tools are the tools the official conformance suite's tasks scenarios call (greet,
// slow_compute, failing_job, protocol_error_job, confirm_delete, multi_input,
// test_tool_with_task) and the ones every task path needs (long_job, to cancel).
var tools = []tool{
	{name: "greet", description: "Says hello at once (no task).", support: supportForbidden,
		schema: schema(map[string]string{"name": "string"}, "name"),
		run: func(ctx context.Context, _ work, args map[string]any) (callToolResult, *Error) {
			name, _ := args["name"].(string)
			return text(fmt.Sprintf("Hello, %s!", name)), nil
		}},
	{name: "slow_compute", description: "Works for `seconds` seconds, then answers.", support: supportOptional,
		schema: schema(map[string]string{"seconds": "number"}),
		run:    sleepThenAnswer("slow_compute", 1, "Computed in %v seconds")},
	{name: "failing_job", description: "Ends with a tool error (isError).", support: supportRequired,
		schema: schema(map[string]string{"seconds": "number"}),
		run: func(ctx context.Context, w work, args map[string]any) (callToolResult, *Error) {
			sleep(ctx, w, seconds(args, "seconds", 0))
			r := text("The job failed: nothing to do")
			r.IsError = true
			return r, nil
		}},
	{name: "protocol_error_job", description: "Ends with a JSON-RPC error.", support: supportOptional,
		schema: schema(map[string]string{"seconds": "number"}),
		run: func(ctx context.Context, w work, args map[string]any) (callToolResult, *Error) {
			sleep(ctx, w, seconds(args, "seconds", 1))
			return callToolResult{}, errorf(jsonrpc.CodeInternal, "protocol_error_job: internal error")
		}},
	{name: "confirm_delete", description: "Asks the client to confirm through tasks/update, then answers.", support: supportOptional, needsInput: true,
		schema: schema(map[string]string{"item": "string"}),
		run: func(ctx context.Context, w work, args map[string]any) (callToolResult, *Error) {
			item, _ := args["item"].(string)
			answers, err := w.input(ctx, map[string]inputRequest{"confirm": ask(fmt.Sprintf("Delete %q?", item),
				schema(map[string]string{"confirm": "boolean"}, "confirm"))})
			if err != nil {
				return callToolResult{}, errorf(jsonrpc.CodeInternal, "confirm_delete: %v", err)
			}
			// Deleted only when accepted with the form's confirm checked: an accepted form
			// that says no keeps the item.
			if answer := elicited(answers["confirm"]); answer.Action == "accept" && answer.Content["confirm"] == true {
				return text(fmt.Sprintf("Deleted %q", item)), nil
			}
			return text(fmt.Sprintf("Kept %q", item)), nil
		}},
	{name: "multi_input", description: "Asks two questions at once through tasks/update, then answers with both.", support: supportOptional, needsInput: true,
		schema: schema(map[string]string{}),
		run: func(ctx context.Context, w work, args map[string]any) (callToolResult, *Error) {
			question := func(q string) inputRequest {
				return ask(q, schema(map[string]string{"answer": "string"}, "answer"))
			}
			answers, err := w.input(ctx, map[string]inputRequest{"first": question("First question?"), "second": question("Second question?")})
			if err != nil {
				return callToolResult{}, errorf(jsonrpc.CodeInternal, "multi_input: %v", err)
			}
			return text(fmt.Sprintf("first: %v; second: %v", answers["first"], answers["second"])), nil
		}},
	{name: "test_tool_with_task", description: "Asks the client's name before any task exists (multi round-trip), then greets it from a task.",
		support: supportRequired, needsInput: true, schema: schema(map[string]string{"seconds": "number"}),
		before: func(ctx context.Context, w work, args map[string]any) (map[string]any, *Error) {
			answers, err := w.input(ctx, map[string]inputRequest{"user_name": ask("What is your name?",
				schema(map[string]string{"name": "string"}, "name"))})
			if err != nil {
				return nil, errorf(jsonrpc.CodeInternal, "test_tool_with_task: %v", err)
			}
			out := map[string]any{}
			for k, v := range args {
				out[k] = v
			}
			out["name"] = "" // the name is the client's answer, never an argument
			answer := elicited(answers["user_name"])
			if name, ok := answer.Content["name"].(string); ok && answer.Action == "accept" {
				out["name"] = name
			}
			return out, nil
		},
		run: func(ctx context.Context, w work, args map[string]any) (callToolResult, *Error) {
			if !sleep(ctx, w, seconds(args, "seconds", 0)) {
				return callToolResult{}, errorf(jsonrpc.CodeInternal, "test_tool_with_task stopped before its end")
			}
			if name, _ := args["name"].(string); name != "" {
				return text(fmt.Sprintf("Hello, %s!", name)), nil
			}
			return text("Hello! (no name was given)"), nil
		}},
	{name: "long_job", description: "Works for `seconds` seconds (default 60) unless cancelled.", support: supportOptional,
		schema: schema(map[string]string{"seconds": "number"}),
		run:    sleepThenAnswer("long_job", 60, "Worked %v seconds")},
}

// calledTool reads a tools/call's params and finds the tool they name. An unknown name
// is -32602.
func calledTool(r *Request) (tool, callParams, *Error) {
	var p callParams
	decodeParams(r.params, &p)
	if e := nonEmpty(p.Name, "name"); e != nil {
		return tool{}, p, e
	}
	t, ok := findTool(p.Name)
	if !ok {
		return tool{}, p, errorf(jsonrpc.CodeInvalidParams, "unknown tool %q", p.Name)
	}
	return t, p, nil
}

func findTool(name string) (tool, bool) {
	for _, t := range tools {
		if t.name == name {
			return t, true
		}
	}
	return tool{}, false
}

// legacySupport is the tool's taskSupport in 2025-11-25: a tool that needs input runs
// only as a task (its input goes through tasks/result).
func (t tool) legacySupport() string {
	if t.needsInput {
		return supportRequired
	}
	return t.support
}

// taskSupport is the taskSupport a call of the tool is held to (Config.TaskSupport).
func (s *Server) taskSupport(r *Request, name, declared string) string {
	if s.cfg.TaskSupport != nil {
		return s.cfg.TaskSupport(r, name, declared)
	}
	return declared
}

// toolList is tools/list's answer for an era.
func toolList(modernEra bool) []toolInfo {
	var out []toolInfo
	for _, t := range tools {
		info := toolInfo{Name: t.name, Description: t.description, InputSchema: t.schema}
		info.Execution.TaskSupport = t.support
		if !modernEra {
			info.Execution.TaskSupport = t.legacySupport()
		}
		out = append(out, info)
	}
	return out
}

// number reads a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
