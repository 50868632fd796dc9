package probe

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/storecheck/storecheck/conformance"
)

// checkError (V-ERROR-1): a tool that ends with a result whose isError is true, and one
// that ends with a JSON-RPC error, each run as a task; the status each task ends with is
// the one its era gives it. 2025-11-25: the isError task is failed and tasks/result
// returns the tool's result (isError true), the other failed with tasks/result the
// JSON-RPC error; the extension: the isError task completed with the result inlined, the
// other failed with the error inlined.
func checkError(ctx context.Context, r *eraRun) error {
	legacy := r.era == conformance.EraLegacy
	for _, c := range []struct {
		kind, tool string
		args       map[string]any
		isError    bool // the tool ends with a result whose isError is true; else a JSON-RPC error
	}{
		{"ends with a result whose isError is true", r.tools.Failing, r.tools.FailingArgs, true},
		{"ends with a JSON-RPC error", r.tools.Erring, r.tools.ErringArgs, false},
	} {
		id, err := r.owner.create(ctx, c.tool, c.args)
		if err != nil {
			return fmt.Errorf("%w: %w", errSetup, err)
		}
		t, err := r.owner.terminal(ctx, id)
		if err != nil {
			return fmt.Errorf("%w: %w", errSetup, err)
		}
		if err := cutShort(id, c.tool, t); err != nil {
			return err
		}
		in := fmt.Sprintf("tasks/get of the ended task %s of the tool %s, which %s", id, c.tool, c.kind)
		var want, why string
		switch {
		case c.isError && legacy:
			want, why = "failed", `2025-11-25: "For tool calls specifically, this includes cases where the tool call result has isError set to true"`
		case c.isError:
			want, why = "completed", `the extension: "The failed status MUST NOT be used to represent non-JSON-RPC errors, such as a tool result that completed with isError: true"`
		default:
			want, why = "failed", `"When the underlying request encounters a JSON-RPC protocol error during execution, the task moves to the failed status"`
		}
		if t["status"] != want {
			return faultf(in, fmt.Sprintf("status %s (%s)", want, why), fmt.Sprintf("status %v: %s", t["status"], clip(fmt.Sprint(t), 300)))
		}
		if !legacy {
			res, _ := t["result"].(map[string]any)
			rerr, _ := t["error"].(map[string]any)
			switch {
			case c.isError && (res == nil || res["isError"] != true):
				return faultf(in, `the tool's result inlined, with isError true ("Errors within the context of a protocol method result MUST use the completed status with the error details in the result field")`, clip(fmt.Sprint(t), 300))
			case !c.isError && rerr == nil:
				return faultf(in, `the JSON-RPC error inlined ("MUST include the error field with the JSON-RPC error")`, clip(fmt.Sprint(t), 300))
			}
			continue
		}
		res, err := r.owner.call(ctx, "tasks/result", map[string]any{"taskId": id}, true)
		if err != nil {
			return err
		}
		in = fmt.Sprintf("tasks/result of the failed task %s of the tool %s, which %s", id, c.tool, c.kind)
		var out struct {
			IsError bool `json:"isError"`
		}
		switch {
		case c.isError && (res.Error != nil || json.Unmarshal(res.Result, &out) != nil || !out.IsError):
			return faultf(in, `the tool's result, isError true ("If the request completed with a JSON-RPC response, tasks/result MUST return a successful JSON-RPC response containing that result")`, answer(res))
		case !c.isError && res.Error == nil:
			return faultf(in, `the JSON-RPC error the call ended with ("If the underlying request resulted in a JSON-RPC error, tasks/result MUST return that same JSON-RPC error")`, answer(res))
		}
	}
	return nil
}
