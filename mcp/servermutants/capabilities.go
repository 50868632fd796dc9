package servermutants

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
)

// capabilityMutants are the defects of what the server declares and serves: capabilities, sessionless requests, cursors and pages.
var capabilityMutants = []mutant.Mutant[Build]{
	{Name: "tasks-without-list-cancel",
		Defect: "declares capabilities.tasks with requests.tools.call only, and answers 2025-11-25 tasks/list and tasks/cancel -32601: what it does not declare it need not serve",
		Build:  Build{Honest: true, Wrap: onlyToolsCall}},
	{Name: "no-tasks",
		Defect: "declares no tasks in either era (no capabilities.tasks, no tasks extension, no execution on its tools) and serves none: a task-augmented call runs plainly, tasks/* is -32601 (2025-11-25) or -32021 (2026-07-28); nothing is left to exercise",
		Build:  Build{Empty: true, Wrap: noTasks}},
	{Name: "sessionless-any-task", Breaks: []string{"V-DENY-1"},
		Defect: "a 2025-11-25 tasks/* request without Mcp-Session-Id is served as the last session seen, with every task in sight: a request that skipped initialize reads, cancels and lists any caller's tasks",
		Build:  Build{Wrap: sessionlessAnyTask}},
	{Name: "cursor-any-decoding", Breaks: []string{"V-LIST-1"},
		Defect: "a 2025-11-25 tasks/list cursor in the shape of the server's own (two base64url parts) that it did not issue is read as a position past every task: an empty page instead of -32602",
		Build:  Build{Wrap: cursorAnyDecoding}},
	{Name: "cursor-on-full-last-page", Breaks: []string{"V-LIST-1"},
		Defect: "a 2025-11-25 tasks/list page that is full and last carries a nextCursor, which leads back to the first page: a client that follows it lists every task again",
		Build:  Build{Wrap: cursorOnFullLastPage}},
}

// legacyTasksMethod reports whether r is a 2025-11-25 call of one of the tasks/* methods.
func legacyTasksMethod(r *server.Request) bool {
	return !r.Modern() && strings.HasPrefix(r.Method(), "tasks/")
}

func methodNotFound(r *server.Request) *server.Error {
	return &server.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method \"" + r.Method() + "\" not found"}
}

// declaredTasks rewrites an initialize result's capabilities.tasks (deleted when tasks
// is nil).
func declaredTasks(res any, tasks map[string]any) {
	m, _ := res.(map[string]any)
	caps, _ := m["capabilities"].(map[string]any)
	if caps == nil {
		return
	}
	if tasks == nil {
		delete(caps, "tasks")
		return
	}
	caps["tasks"] = tasks
}

func onlyToolsCall(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		switch {
		case r.Method() == "initialize":
			res, e := next(ctx, r)
			declaredTasks(res, map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}})
			return res, e
		case legacyTasksMethod(r) && (r.Method() == "tasks/list" || r.Method() == "tasks/cancel"):
			return nil, methodNotFound(r)
		}
		return next(ctx, r)
	}
}

func noTasks(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if r.Modern() {
			// The honest code answers as to a client without the extension.
			meta, _ := r.Params()["_meta"].(map[string]any)
			if caps, _ := meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any); caps != nil {
				delete(caps, "extensions")
			}
		}
		switch {
		case legacyTasksMethod(r):
			return nil, methodNotFound(r)
		case r.Method() == "tools/call" && !r.Modern():
			delete(r.Params(), "task")
		}
		res, e := next(ctx, r)
		switch r.Method() {
		case "initialize":
			declaredTasks(res, nil)
		case "server/discover":
			m, _ := res.(map[string]any)
			caps, _ := m["capabilities"].(map[string]any)
			delete(caps, "extensions")
		case "tools/list":
			m, _ := res.(map[string]any)
			tools, _ := m["tools"].([]any)
			for _, t := range tools {
				if t, ok := t.(map[string]any); ok {
					delete(t, "execution")
				}
			}
		}
		return res, e
	}
}

func sessionlessAnyTask(next server.Handler, _ func()) server.Handler {
	var mu sync.Mutex
	var seen *server.Request // a copy of the last request that had a session
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		switch {
		case r.SessionID() != "":
			c := server.NewRequest(r, "ping", nil) // a copy nobody changes after
			mu.Lock()
			seen = c
			mu.Unlock()
		case legacyTasksMethod(r):
			mu.Lock()
			like := seen
			mu.Unlock()
			if like != nil {
				c := server.NewRequest(like, r.Method(), r.Params())
				c.SetCaller(reference.System())
				return next(ctx, c)
			}
		}
		return next(ctx, r)
	}
}

// legacyList reports whether r is a 2025-11-25 tasks/list.
func legacyList(r *server.Request) bool { return !r.Modern() && r.Method() == "tasks/list" }

func cursorAnyDecoding(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		c, _ := r.Params()["cursor"].(string)
		if !legacyList(r) || e == nil || e.Code != jsonrpc.CodeInvalidParams || c == "" {
			return res, e
		}
		parts := strings.Split(c, ".")
		for _, p := range parts {
			if _, err := base64.RawURLEncoding.DecodeString(p); err != nil {
				return res, e
			}
		}
		if len(parts) != 2 {
			return res, e
		}
		return map[string]any{"tasks": []any{}}, nil
	}
}

// restartCursor is the cursor-on-full-last-page defect's nextCursor: the first page.
const restartCursor = "storecheck-mutant-restart"

func cursorOnFullLastPage(next server.Handler, _ func()) server.Handler {
	var mu sync.Mutex
	size := 0 // the page size, learned from a page with a nextCursor
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if !legacyList(r) {
			return next(ctx, r)
		}
		if r.Params()["cursor"] == restartCursor {
			delete(r.Params(), "cursor")
		}
		res, e := next(ctx, r)
		m, _ := res.(map[string]any)
		tasks, _ := m["tasks"].([]any)
		mu.Lock()
		defer mu.Unlock()
		switch _, more := m["nextCursor"]; {
		case e != nil:
		case more:
			size = len(tasks)
		case size > 0 && len(tasks) == size:
			m["nextCursor"] = restartCursor
		}
		return res, e
	}
}
