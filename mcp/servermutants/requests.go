package servermutants

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// is reports whether r is a call of one of methods in its era (modern: 2026-07-28).
func is(r *server.Request, modern bool, methods ...string) bool {
	if r.Modern() != modern {
		return false
	}
	for _, m := range methods {
		if r.Method() == m {
			return true
		}
	}
	return false
}

// taskOf is the task a request names (params.taskId; "" for none).
func taskOf(r *server.Request) string {
	id, _ := r.Params()["taskId"].(string)
	return id
}

// getTask is the server's own tasks/get of the task r names, as caller (r's own when
// nil): the task as that caller's client would be shown it. The request's _meta (the
// extension's per-request capabilities) goes with it.
func getTask(ctx context.Context, next server.Handler, r *server.Request, caller *reference.Caller) (map[string]any, *server.Error) {
	params := map[string]any{"taskId": taskOf(r)}
	if meta, ok := r.Params()["_meta"]; ok {
		params["_meta"] = meta
	}
	q := server.NewRequest(r, "tasks/get", params)
	if caller != nil {
		q.SetCaller(*caller)
	}
	res, e := next(ctx, q)
	m, _ := res.(map[string]any)
	if e == nil && m == nil {
		return nil, &server.Error{Code: jsonrpc.CodeInternal, Message: "tasks/get answered nothing"}
	}
	return m, e
}

// system is the caller that sees every task.
var system = reference.System()

// notFound reports whether e is the server's answer for a task it will not show.
func notFound(e *server.Error) bool {
	return e != nil && e.Code == jsonrpc.CodeInvalidParams && strings.Contains(e.Message, "Task not found")
}

// taskNotFound is the server's answer for a task it will not show.
func taskNotFound(id string) *server.Error {
	return &server.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found: " + id}
}

// terminal reports whether a task as shown has ended.
func terminal(t map[string]any) bool {
	s, _ := t["status"].(string)
	return reference.Status(s).Terminal()
}

// millis reads a time the server shows (ISO 8601) as milliseconds since the epoch.
func millis(v any) (int64, bool) {
	s, _ := v.(string)
	ms, err := sdk.ParseTime(s)
	return ms, err == nil
}

// whole reads a whole number the server shows.
func whole(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), n == float64(int64(n))
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// object is m[key] as an object, made when absent.
func object(m map[string]any, key string) map[string]any {
	o, ok := m[key].(map[string]any)
	if !ok {
		o = map[string]any{}
		m[key] = o
	}
	return o
}
