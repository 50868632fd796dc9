package servermutants

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
)

// inputMutants are the defects of input requests and a task's own run.
var inputMutants = []Mutant{
	{Name: "elicit-unrelated-standalone", Breaks: []string{"V-INPUT-2"}, Wrap: elicitStandalone(false),
		Doc: "2025-11-25: a task's input requests go out on its session's standalone (GET) stream without the related-task _meta, as soon as it asks, while tasks/get shows it working"},
	{Name: "elicit-working", Breaks: []string{"V-INPUT-2"}, Wrap: elicitStandalone(true),
		Doc: "2025-11-25: a task's input requests go out on its session's standalone (GET) stream with the related-task _meta, while tasks/get shows it working (a SHOULD: failed under strict)"},
	{Name: "input-any-session", Breaks: []string{"V-INPUT-3"}, Wrap: inputAnySession,
		Doc: "2025-11-25: tasks/result of an input_required task is served to any caller, who is sent the task's input requests and whose answers the task takes"},
	{Name: "cancel-on-answer", Breaks: []string{"V-RUN-1"}, Wrap: cancelOnAnswer,
		Doc: "both eras: a task is cancelled as its creating tools/call is answered, though nobody asked"},
}

// hiddenWait bounds how long the elicit-unrelated-standalone defect keeps a task's
// input requests for a standalone stream to open.
const hiddenWait = 2 * time.Minute

var errNoStream = errors.New("no standalone stream opened in time")

// createdID is the task id of a tools/call's CreateTaskResult ("" for any other answer).
func createdID(modern bool, res any) string {
	out, _ := res.(map[string]any)
	if !modern {
		out, _ = out["task"].(map[string]any)
	}
	id, _ := out["taskId"].(string)
	return id
}

// elicitStandalone sends a task's input requests on the standalone stream as soon as it
// asks, keeping their related-task _meta only when related, and shows the task working.
func elicitStandalone(related bool) func(server.Handler, func()) server.Handler {
	return func(next server.Handler, _ func()) server.Handler { return standalone(next, related) }
}

func standalone(next server.Handler, related bool) server.Handler {
	var asking sync.Map // ids of the tasks whose input goes out on the standalone stream
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		if r.Modern() || e != nil {
			return res, e
		}
		switch id := createdID(false, res); {
		case r.Method() == "tools/call" && id != "":
			asking.Store(id, true)
			// The server's own tasks/result, whose requests go out unrelated on the
			// standalone stream: the answers come back as to any input request.
			q := server.NewRequest(r, "tasks/result", map[string]any{"taskId": id})
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hiddenWait)
			q.SetStream(func(v any) error {
				msg, _ := v.(map[string]any)
				if params, ok := msg["params"].(map[string]any); ok && !related {
					delete(params, "_meta")
				}
				for !r.Standalone(msg) {
					select {
					case <-wctx.Done():
						return errNoStream
					case <-time.After(50 * time.Millisecond):
					}
				}
				return nil
			})
			go func() {
				defer cancel()
				_, _ = next(wctx, q)
			}()
		case r.Method() == "tasks/get":
			t, _ := res.(map[string]any)
			if id, _ := t["taskId"].(string); t["status"] == "input_required" {
				if _, ok := asking.Load(id); ok {
					shown := map[string]any{}
					for k, v := range t {
						shown[k] = v
					}
					shown["status"] = "working"
					return shown, nil
				}
			}
		}
		return res, e
	}
}

func inputAnySession(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if !r.Modern() && r.Method() == "tasks/result" {
			id, _ := r.Params()["taskId"].(string)
			q := server.NewRequest(r, "tasks/get", map[string]any{"taskId": id})
			q.SetCaller(reference.System())
			if t, e := next(ctx, q); e == nil {
				if m, _ := t.(map[string]any); m["status"] == "input_required" {
					// The task's owner is not asked: the caller is served as if it were.
					r.SetCaller(reference.System())
				}
			}
		}
		return next(ctx, r)
	}
}

func cancelOnAnswer(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		if r.Method() != "tools/call" || e != nil {
			return res, e
		}
		if id := createdID(r.Modern(), res); id != "" {
			params := map[string]any{"taskId": id}
			if meta, ok := r.Params()["_meta"]; ok {
				params["_meta"] = meta // the extension's per-request capabilities
			}
			_, _ = next(ctx, server.NewRequest(r, "tasks/cancel", params))
		}
		return res, e
	}
}
