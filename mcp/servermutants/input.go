package servermutants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
)

// inputMutants are the defects of input requests and a task's own run.
var inputMutants = []mutant.Mutant[Build]{
	{Name: "elicit-unrelated-standalone", Breaks: []string{"V-INPUT-2"},
		Defect: "2025-11-25: a task's input requests go out on its session's standalone (GET) stream without the related-task _meta, as soon as it asks, while tasks/get shows it working",
		Build:  Build{Wrap: elicitStandalone(false)}},
	{Name: "elicit-working", Breaks: []string{"V-INPUT-2"},
		Defect: "2025-11-25: a task's input requests go out on its session's standalone (GET) stream with the related-task _meta, while tasks/get shows it working (a SHOULD: failed under strict)",
		Build:  Build{Wrap: elicitStandalone(true)}},
	{Name: "input-any-session", Breaks: []string{"V-INPUT-3"},
		Defect: "2025-11-25: tasks/result of an input_required task is served to any caller, who is sent the task's input requests and whose answers the task takes",
		Build:  Build{Wrap: inputAnySession}},
	{Name: "input-hidden", Breaks: []string{"V-INPUT-1"},
		Defect: "2026-07-28 tasks/get of an input_required task omits its inputRequests",
		Build:  Build{Wrap: inputHidden}},
	{Name: "input-unrelated", Breaks: []string{"V-INPUT-2"},
		Defect: "2025-11-25 input requests are sent without the related-task _meta",
		Build:  Build{Wrap: inputUnrelated}},
	{Name: "elicit-undeclared", Breaks: []string{"V-INPUT-2"},
		Defect: "2025-11-25: a session that declared no elicitation is given an input task and sent its form",
		Build:  Build{Wrap: elicitUndeclared}},
	{Name: "input-any-principal", Breaks: []string{"V-INPUT-3"},
		Defect: "input answers are matched to the outstanding request by task and key (2026-07-28 tasks/update) or by JSON-RPC id (2025-11-25) alone: another principal's are taken",
		Build:  Build{Setup: inputAnyPrincipal}},
	{Name: "input-foreign-kept", Breaks: []string{"V-INPUT-3"},
		Defect: "another principal's input answers are refused (tasks/update: not found) or ignored (a response), but kept aside: once the owner answers, a kept answer takes the owner's place; the task stays input_required until then, so only its result tells",
		Build:  Build{Setup: inputForeignKept}},
	{Name: "cancel-on-answer", Breaks: []string{"V-RUN-1"},
		Defect: "both eras: a task is cancelled as its creating tools/call is answered, though nobody asked",
		Build:  Build{Wrap: cancelOnAnswer}},
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

func inputHidden(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		if t, _ := res.(map[string]any); is(r, true, "tasks/get") && t != nil {
			delete(t, "inputRequests")
		}
		return res, e
	}
}

// inputUnrelated drops the _meta of the input requests a tasks/result stream carries.
func inputUnrelated(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if send := r.Stream(); is(r, false, "tasks/result") && send != nil {
			r.SetStream(func(v any) error {
				if msg, _ := v.(map[string]any); msg["method"] != nil {
					if params, _ := msg["params"].(map[string]any); params != nil {
						delete(params, "_meta")
					}
				}
				return send(v)
			})
		}
		return next(ctx, r)
	}
}

// elicitUndeclared has every 2025-11-25 client declare form-mode elicitation.
func elicitUndeclared(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if is(r, false, "initialize") {
			object(r.Params(), "capabilities")["elicitation"] = map[string]any{}
		}
		return next(ctx, r)
	}
}

func inputAnyPrincipal(cfg server.Config, _ func()) server.Config {
	around(&cfg, func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			if is(r, true, "tasks/update") {
				if t, e := getTask(ctx, next, r, &system); e == nil && t["status"] == string(reference.StatusInputRequired) {
					r.SetCaller(system) // the outstanding keys are found by task id alone
				}
			}
			return next(ctx, r)
		}
	})
	// 2025-11-25: a response is taken as from the principal and session asked.
	return answeredInputs(cfg, func(req *http.Request, asked sentInput, _ map[string]any) bool {
		setHeader(req.Header, "Authorization", asked.auth)
		setHeader(req.Header, "Mcp-Session-Id", asked.session)
		return false
	})
}

func inputForeignKept(cfg server.Config, _ func()) server.Config {
	var mu sync.Mutex
	kept := map[string]any{} // answers of a principal not the owner's, by task and key
	// keep keeps a foreign answer to slot aside, or gives the owner's answer the one
	// kept.
	keep := func(slot string, foreign bool, answer any) any {
		mu.Lock()
		defer mu.Unlock()
		k, ok := kept[slot]
		switch {
		case foreign && !ok:
			kept[slot] = answer
		case !foreign && ok:
			delete(kept, slot)
			return k
		}
		return answer
	}
	around(&cfg, func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			resp, ok := r.Params()["inputResponses"].(map[string]any)
			if !is(r, true, "tasks/update") || !ok {
				return next(ctx, r)
			}
			_, mine := getTask(ctx, next, r, nil)
			if t, e := getTask(ctx, next, r, &system); e == nil && t["status"] == string(reference.StatusInputRequired) {
				out := map[string]any{}
				for k, v := range resp {
					out[k] = keep(taskOf(r)+"\x00"+k, notFound(mine), v)
				}
				r.Params()["inputResponses"] = out
			}
			return next(ctx, r)
		}
	})
	return answeredInputs(cfg, func(req *http.Request, asked sentInput, msg map[string]any) bool {
		answer := map[string]any{}
		for _, k := range []string{"result", "error"} {
			if v, ok := msg[k]; ok {
				answer[k] = v
			}
		}
		got := keep(asked.slot, req.Header.Get("Authorization") != asked.auth, answer).(map[string]any)
		delete(msg, "result")
		delete(msg, "error")
		for k, v := range got {
			msg[k] = v
		}
		return true
	})
}

func setHeader(h http.Header, key, value string) {
	if value == "" {
		h.Del(key)
		return
	}
	h.Set(key, value)
}

// sentInput is a 2025-11-25 input request the server sent on a tasks/result stream: to
// whom (the credentials and session of the tasks/result) and what it asks (its task and
// params).
type sentInput struct{ auth, session, slot string }

// answeredInputs records the input requests the server sends on 2025-11-25 tasks/result
// streams over HTTP, and passes each response to one of them (a POST of a JSON-RPC
// response with its id) to answered before the server reads it; answered may change the
// request's headers, and the message, which is sent on when it returns true.
func answeredInputs(cfg server.Config, answered func(req *http.Request, asked sentInput, msg map[string]any) bool) server.Config {
	var sent sync.Map // JSON-RPC id -> sentInput
	around(&cfg, func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			send := r.Stream()
			if !is(r, false, "tasks/result") || send == nil || r.Header() == nil {
				return next(ctx, r)
			}
			auth, session := r.Header().Get("Authorization"), r.SessionID()
			r.SetStream(func(v any) error {
				if msg, _ := v.(map[string]any); msg["method"] != nil {
					if id, ok := msg["id"].(string); ok {
						sent.Store(id, sentInput{auth: auth, session: session, slot: slotOf(msg)})
					}
				}
				return send(v)
			})
			return next(ctx, r)
		}
	})
	middleware(&cfg, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method != http.MethodPost {
				next.ServeHTTP(w, req)
				return
			}
			body, err := io.ReadAll(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var msg map[string]any
			if json.Unmarshal(body, &msg) == nil && msg["method"] == nil {
				id, _ := msg["id"].(string)
				if asked, ok := sent.Load(id); ok && answered(req, asked.(sentInput), msg) {
					body, _ = json.Marshal(msg)
				}
			}
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			next.ServeHTTP(w, req)
		})
	})
	return cfg
}

// slotOf names what an input request asks: its task and its params but their _meta.
func slotOf(msg map[string]any) string {
	params, _ := msg["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	related, _ := meta["io.modelcontextprotocol/related-task"].(map[string]any)
	task, _ := related["taskId"].(string)
	rest := map[string]any{}
	for k, v := range params {
		if k != "_meta" {
			rest[k] = v
		}
	}
	b, _ := json.Marshal(rest)
	return task + "\x00" + string(b)
}
