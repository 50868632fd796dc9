package servermutants

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
)

// accessMutants are the defects of who may reach what: tasks, sessions, credentials, the
// extension's declaration and routing headers, the task limit.
var accessMutants = []mutant.Mutant[Build]{
	{Name: "foreign-sees-tasks", Breaks: []string{"V-DENY-1"},
		Defect: "tasks/get (and 2025-11-25 tasks/result) answers any caller, as the system sees the task",
		Build:  Build{Wrap: foreignSeesTasks}},
	{Name: "denied-differs", Breaks: []string{"V-DENY-1"},
		Defect: "another principal's task is \"access denied\", a missing one \"not found\": the answer tells which ids exist",
		Build:  Build{Wrap: deniedDiffers}},
	{Name: "ext-not-required", Breaks: []string{"V-EXT-1"},
		Defect: "2026-07-28 tasks/get, tasks/update and tasks/cancel without the tasks extension declared are served",
		Build:  Build{Wrap: extNotRequired}},
	{Name: "route-unchecked", Breaks: []string{"V-ROUTE-1"},
		Defect: "2026-07-28 requests are served whatever their Mcp-Method and Mcp-Name headers say",
		Build:  Build{Wrap: routeUnchecked}},
	{Name: "session-unbound", Breaks: []string{"V-SESSION-1"},
		Defect: "a 2025-11-25 session answers any principal's requests: one that sends another's Mcp-Session-Id is served in it, as the principal that made it",
		Build:  Build{Setup: sessionUnbound}},
	{Name: "unknown-token-anonymous", Breaks: []string{"V-AUTH-1"},
		Defect: "a bearer token not configured is served as anonymous instead of refused with 401",
		Build:  Build{Setup: unknownTokenAnonymous}},
	{Name: "limit-shared", Breaks: []string{"V-LIMIT-1"},
		Defect: "the task limit counts every principal's running tasks together: one principal at its limit refuses another's work",
		Build:  Build{Setup: limitShared}},
}

func foreignSeesTasks(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if is(r, false, "tasks/get", "tasks/result") || is(r, true, "tasks/get") {
			r.SetCaller(system)
		}
		return next(ctx, r)
	}
}

func deniedDiffers(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		if !is(r, false, "tasks/get", "tasks/cancel", "tasks/result") && !is(r, true, "tasks/get") || !notFound(e) {
			return res, e
		}
		if _, se := getTask(ctx, next, r, &system); se == nil {
			return nil, &server.Error{Code: jsonrpc.CodeInvalidParams, Message: "Access denied to task " + taskOf(r)}
		}
		return res, e
	}
}

// extNotRequired declares the extension for the client of a tasks/* request.
func extNotRequired(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if is(r, true, "tasks/get", "tasks/update", "tasks/cancel") {
			caps := object(object(r.Params(), "_meta"), "io.modelcontextprotocol/clientCapabilities")
			object(caps, "extensions")[server.TasksExtension] = map[string]any{}
		}
		return next(ctx, r)
	}
}

// routeUnchecked makes the routing headers say what the body says.
func routeUnchecked(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if h := r.Header(); h != nil && r.Modern() {
			h.Set("Mcp-Method", r.Method())
			if id, ok := r.Params()["taskId"].(string); ok && is(r, true, "tasks/get", "tasks/update", "tasks/cancel") {
				h.Set("Mcp-Name", id)
			}
		}
		return next(ctx, r)
	}
}

// sessionUnbound serves a request that names a session with the credentials of the
// principal that made it.
func sessionUnbound(cfg server.Config, _ func()) server.Config {
	var made sync.Map // session id -> the Authorization header of its initialize
	middleware(&cfg, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			sid := req.Header.Get("Mcp-Session-Id")
			if auth, ok := made.Load(sid); sid != "" && ok {
				req.Header.Set("Authorization", auth.(string))
				if auth == "" {
					req.Header.Del("Authorization")
				}
			}
			next.ServeHTTP(w, req)
			if issued := w.Header().Get("Mcp-Session-Id"); sid == "" && issued != "" {
				made.Store(issued, req.Header.Get("Authorization"))
			}
		})
	})
	return cfg
}

// unknownTokenAnonymous drops a bearer token the server does not know.
func unknownTokenAnonymous(cfg server.Config, _ func()) server.Config {
	known := cfg.Principals
	middleware(&cfg, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			token, bearer := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
			if _, ok := known[strings.TrimSpace(token)]; bearer && !ok {
				req.Header.Del("Authorization")
			}
			next.ServeHTTP(w, req)
		})
	})
	return cfg
}

func limitShared(cfg server.Config, _ func()) server.Config {
	cfg.LimitKey = func(string) string { return "" } // everybody's
	return cfg
}
