package servermutants

import (
	"context"
	"sync"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// lifecycleMutants are the defects of a task's life: how it is made, runs, ends, is
// shown, expires and is told about.
var lifecycleMutants = []mutant.Mutant[Build]{
	{Name: "cancel-overwrites", Breaks: []string{"V-FIN-1", "V-RACE-1"},
		Defect: "2025-11-25 tasks/cancel of a terminal task cancels it",
		Build:  Build{Setup: cancelOverwrites}},
	{Name: "result-at-once", Breaks: []string{"V-RESULT-1", "V-INPUT-2"},
		Defect: "2025-11-25 tasks/result of a task not yet ended answers at once with an error (so input, asked on its stream, is never asked)",
		Build:  Build{Wrap: resultAtOnce}},
	{Name: "required-runs-plain", Breaks: []string{"V-SUPPORT-1"},
		Defect: "2025-11-25: a tool whose taskSupport is required runs without a task when called without one",
		Build:  Build{Setup: heldTo(supportRequired, supportOptional)}},
	{Name: "forbidden-as-task", Breaks: []string{"V-SUPPORT-2"},
		Defect: "2025-11-25: a tool whose taskSupport is forbidden runs as a task when asked for one",
		Build:  Build{Setup: heldTo(supportForbidden, supportOptional)}},
	{Name: "end-overwrites-cancel", Breaks: []string{"V-RACE-1"},
		Defect: "the end of a tool's run checks the task is working, then writes its status unguarded, so a cancel answered between the two is overwritten",
		Build:  Build{Setup: endOverwritesCancel}},
	{Name: "iserror-misread", Breaks: []string{"V-ERROR-1"},
		Defect: "a tool result with isError ends a 2025-11-25 task completed and a 2026-07-28 task failed: each era read as the other's",
		Build:  Build{Setup: isErrorMisread}},
	{Name: "dates-epoch", Breaks: []string{"V-SHAPE-1"},
		Defect: "tasks/get shows lastUpdatedAt in milliseconds since the epoch, not ISO 8601",
		Build:  Build{Wrap: datesEpoch}},
	{Name: "ttl-early", Breaks: []string{"V-TTL-1"},
		Defect: "tasks expire at half their ttl (2026-07-28: tasks/get)",
		Build:  Build{Setup: ttlEarly}},
	{Name: "ttl-negative-kept", Breaks: []string{"V-TTL-1"},
		Defect: "2025-11-25: a negative task.ttl is kept as asked: the task expires at once",
		Build:  Build{Wrap: ttlNegativeKept}},
	{Name: "notify-broadcast", Breaks: []string{"V-NOTIFY-1"},
		Defect: "status notifications go to every session's GET stream (2025-11-25), and a subscriptions/listen hears every task it names, whoever owns it (2026-07-28)",
		Build:  Build{Setup: notifyBroadcast}},
}

func cancelOverwrites(cfg server.Config, _ func()) server.Config {
	st := cfg.Legacy
	around(&cfg, func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			if st == nil || !is(r, false, "tasks/cancel") {
				return next(ctx, r)
			}
			if t, e := getTask(ctx, next, r, nil); e == nil && terminal(t) {
				// Written past the facade's terminal guard.
				if _, err := st.Update(ctx, taskOf(r), legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)}); err != nil {
					return nil, &server.Error{Code: jsonrpc.CodeInternal, Message: "cancel the task: " + err.Error()}
				}
				return getTask(ctx, next, r, nil)
			}
			return next(ctx, r)
		}
	})
	return cfg
}

func resultAtOnce(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if !is(r, false, "tasks/result") {
			return next(ctx, r)
		}
		t, e := getTask(ctx, next, r, nil)
		if e != nil {
			return nil, e
		}
		if !terminal(t) {
			return nil, &server.Error{Code: jsonrpc.CodeInternal, Message: "Task " + taskOf(r) + " has no result yet"}
		}
		return next(ctx, r)
	}
}

// Task support of a tool (2025-11-25 tools/list execution.taskSupport).
const (
	supportForbidden = "forbidden"
	supportOptional  = "optional"
	supportRequired  = "required"
)

// heldTo holds a 2025-11-25 call of a tool that declares one task support to another.
func heldTo(declared, held string) func(server.Config, func()) server.Config {
	return func(cfg server.Config, _ func()) server.Config {
		cfg.TaskSupport = func(r *server.Request, _, support string) string {
			if !r.Modern() && support == declared {
				return held
			}
			return support
		}
		return cfg
	}
}

// overwriteAfter is how long end-overwrites-cancel waits between its check and its
// write: long enough for a cancel sent as the run ends to land between.
const overwriteAfter = 40 * time.Millisecond

func endOverwritesCancel(cfg server.Config, _ func()) server.Config {
	wrapStores(&cfg, func(st legacy.Store) legacy.Store {
		return legacyWrites{Store: st, write: func(ctx context.Context, inner legacy.Store, id string, changes legacy.Task, asked func(legacy.Task) (legacy.Task, error)) (legacy.Task, error) {
			if !ending(changes) {
				return asked(changes)
			}
			cur, err := inner.Get(ctx, id)
			if err != nil {
				return nil, err
			}
			if cur.Status().Terminal() {
				return nil, reference.ErrorFor(reference.ErrConflict, id)
			}
			time.Sleep(overwriteAfter)
			return inner.Update(ctx, id, changes)
		}}
	}, func(st modern.Store) modern.Store {
		return modernSwaps{Store: st, swap: func(ctx context.Context, inner modern.Store, caller reference.Caller, version int64, next modern.Task) (modern.Task, error) {
			if next.Status != reference.StatusCompleted {
				return inner.Swap(ctx, caller, version, next)
			}
			// The facade checked the task was live; the latest version is written over.
			time.Sleep(overwriteAfter)
			cur, err := inner.Get(ctx, next.TaskID, system)
			if err != nil {
				return modern.Task{}, err
			}
			cur.Status, cur.Result, cur.LastUpdatedAt = next.Status, next.Result, next.LastUpdatedAt
			return inner.Swap(ctx, system, cur.Version, cur)
		}}
	})
	return cfg
}

func isErrorMisread(cfg server.Config, _ func()) server.Config {
	toolError := func(res any) bool {
		m, _ := res.(map[string]any)
		return m["isError"] == true
	}
	wrapStores(&cfg, func(st legacy.Store) legacy.Store {
		return legacyWrites{Store: st, write: func(_ context.Context, _ legacy.Store, _ string, changes legacy.Task, asked func(legacy.Task) (legacy.Task, error)) (legacy.Task, error) {
			if changes[legacy.KeyStatus] == string(reference.StatusFailed) && toolError(changes[keyResult]) {
				c := legacy.Task{}
				for k, v := range changes {
					c[k] = v
				}
				c[legacy.KeyStatus], c[keyMessage] = string(reference.StatusCompleted), "The operation completed."
				changes = c
			}
			return asked(changes)
		}}
	}, func(st modern.Store) modern.Store {
		return modernSwaps{Store: st, swap: func(ctx context.Context, inner modern.Store, caller reference.Caller, version int64, next modern.Task) (modern.Task, error) {
			if next.Status == reference.StatusCompleted && toolError(next.Result) {
				next.Status, next.Result = reference.StatusFailed, nil
				next.Error = modern.RPCError(jsonrpc.CodeInternal, "the tool reported an error", nil)
			}
			return inner.Swap(ctx, caller, version, next)
		}}
	})
	return cfg
}

func datesEpoch(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		res, e := next(ctx, r)
		if t, _ := res.(map[string]any); r.Method() == "tasks/get" && e == nil && t != nil {
			if ms, ok := millis(t["lastUpdatedAt"]); ok {
				t["lastUpdatedAt"] = ms
			}
		}
		return res, e
	}
}

func ttlEarly(cfg server.Config, _ func()) server.Config {
	clock := cfg.Clock
	if clock == nil {
		clock = reference.SystemClock{}
	}
	// early reports whether a task as shown is past half its ttl.
	early := func(t map[string]any) bool {
		created, ok := millis(t["createdAt"])
		ttl, set := whole(t["ttl"])
		if r, ok := whole(t["ttlMs"]); ok {
			ttl, set = r, true
		}
		return ok && set && reference.NowMillis(clock) >= created+ttl/2
	}
	around(&cfg, func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			switch {
			case is(r, false, "tasks/cancel", "tasks/result"):
				if t, e := getTask(ctx, next, r, nil); e == nil && early(t) {
					return nil, taskNotFound(taskOf(r))
				}
			case is(r, false, "tasks/list"):
				res, e := next(ctx, r)
				if m, _ := res.(map[string]any); e == nil && m != nil {
					tasks, _ := m["tasks"].([]any)
					live := []any{}
					for _, t := range tasks {
						if t, _ := t.(map[string]any); !early(t) {
							live = append(live, t)
						}
					}
					m["tasks"] = live
				}
				return res, e
			case r.Method() == "tasks/get":
				res, e := next(ctx, r)
				if t, _ := res.(map[string]any); e == nil && t != nil && early(t) {
					return nil, taskNotFound(taskOf(r))
				}
				return res, e
			}
			return next(ctx, r)
		}
	})
	return cfg
}

// ttlNegativeKept asks the server for the shortest ttl in place of a negative one and
// shows the one asked.
func ttlNegativeKept(next server.Handler, _ func()) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		task, _ := r.Params()["task"].(map[string]any)
		asked, ok := task["ttl"].(float64)
		if !is(r, false, "tools/call") || !ok || asked >= 0 {
			return next(ctx, r)
		}
		task["ttl"] = float64(1)
		res, e := next(ctx, r)
		if m, _ := res.(map[string]any); e == nil && m != nil {
			if t, _ := m["task"].(map[string]any); t != nil {
				t["ttl"] = int64(asked)
			}
		}
		return res, e
	}
}

// notifyBroadcast sends every status notification on the standalone streams of every
// session besides the task's own, and subscribes a listen as the system.
func notifyBroadcast(cfg server.Config, _ func()) server.Config {
	var mu sync.Mutex
	sessions := map[string]*server.Request{} // a request of each session seen, by id
	around(&cfg, func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			if id := r.SessionID(); id != "" {
				mu.Lock()
				if _, ok := sessions[id]; !ok {
					sessions[id] = server.NewRequest(r, "ping", nil) // a copy nobody changes after
				}
				mu.Unlock()
			}
			if is(r, true, "subscriptions/listen") {
				r.SetCaller(system)
			}
			return next(ctx, r)
		}
	})
	alsoNotify(&cfg, func(owner, sessionID string, note any) {
		mu.Lock()
		var others []*server.Request
		for id, s := range sessions {
			if owner != "" && s.Principal() != owner || owner == "" && id != sessionID {
				others = append(others, s)
			}
		}
		mu.Unlock()
		for _, s := range others {
			s.Standalone(note)
		}
	})
	return cfg
}
