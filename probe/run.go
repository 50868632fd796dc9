package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

// Why a task nobody cancelled must not end cancelled, or failed while its tool succeeds.
const runWhy = `"cancelled: The request was cancelled before completion", and a task is cancelled by tasks/cancel; "failed: The associated request did not complete successfully" (the extension: "The request failed due to a JSON-RPC error during execution")`

// checkRun (V-RUN-1): a task of the quick tool and one of the slow tool, which nobody
// cancels, run to their end: neither ends cancelled, and neither ends failed while the
// same call made without a task succeeds. The time of the end is told from the
// creating tools/call's answer, as the probe's reads of the task saw it.
func checkRun(ctx context.Context, r *eraRun) error {
	for _, c := range []struct {
		role, tool string
		args       map[string]any
	}{{"quick", r.tools.Quick, r.tools.QuickArgs}, {"slow", r.tools.Slow, r.tools.SlowArgs}} {
		id, err := r.owner.create(ctx, c.tool, c.args)
		if err != nil {
			return fmt.Errorf("%w: %w", errSetup, err)
		}
		answered := time.Now()
		end, when, err := r.owner.watchEnd(ctx, id, answered)
		if err != nil {
			return err
		}
		in := fmt.Sprintf("tasks/get of the task %s of the %s tool %s, which nobody cancelled (no tasks/cancel sent)", id, c.role, c.tool)
		switch end["status"] {
		case "cancelled":
			return faultf(in, "the task run to its end: completed, or failed by its tool ("+runWhy+")",
				fmt.Sprintf("ended cancelled %s: %s", when, clip(fmt.Sprint(end), 300)))
		case "failed":
			plain, err := r.plainCall(ctx, c.tool, c.args)
			if err != nil {
				r.note(fmt.Sprintf("the task %s of %s ended failed %s; the same call without a task could not be made to tell whether the tool failed: %v", id, c.tool, when, err))
				continue
			}
			if plain.Error == nil && !isErrorResult(plain.Result) {
				return faultf(in, "the task run to its end: failed only when its tool fails ("+runWhy+")",
					fmt.Sprintf("ended failed %s, while the same call without a task succeeds (%s): %s", when, answer(plain), clip(fmt.Sprint(end), 300)))
			}
			r.note(fmt.Sprintf("the task %s of %s ended failed, and the same call without a task fails too (%s)", id, c.tool, answer(plain)))
		}
	}
	return nil
}

// cutShort is the cause of a check left not exercised because its own task ended
// cancelled though the check never cancelled it: the server cuts tasks short, which
// V-RUN-1 judges, and nothing the check asks can be seen on such a task. nil for a task
// in any other status.
func cutShort(id, tool string, t map[string]any) error {
	if t["status"] != "cancelled" {
		return nil
	}
	return fmt.Errorf("%w: the task %s of %s ended cancelled though nobody cancelled it: the server cuts tasks short (V-RUN-1 judges that)", errNone, id, tool)
}

// watchEnd polls task id until it is terminal and says when it ended: between the last
// read that found it running and the first that found it ended, counted from answered
// (the creating tools/call's answer).
func (p *peer) watchEnd(ctx context.Context, id string, answered time.Time) (map[string]any, string, error) {
	var end map[string]any
	last := int64(-1)
	var when string
	err := p.poll(ctx, id, p.wait, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		at := time.Since(answered).Milliseconds()
		switch {
		case rpcErr != nil:
			return true, fmt.Errorf("%w: tasks/get %s by its creator: %w", errSetup, id, rpcErr)
		case terminalStatus(t["status"]):
			end = t
			when = fmt.Sprintf("by the tasks/get answered %d ms after tools/call was answered (no read before it)", at)
			if last >= 0 {
				when = fmt.Sprintf("by the tasks/get answered %d ms after tools/call was answered (the read before, at %d ms, found it running)", at, last)
			}
			return true, nil
		case late:
			return true, fmt.Errorf("%w: the task %s still %v after %v", errSetup, id, t["status"], p.wait)
		}
		last = at
		return false, nil
	})
	return end, when, err
}

// plainCall calls tool without a task: 2025-11-25 without params.task, the extension
// without its capability (the call then answers at once).
func (r *eraRun) plainCall(ctx context.Context, tool string, args map[string]any) (*client.Response, error) {
	res, err := r.owner.call(ctx, "tools/call", map[string]any{"name": tool, "arguments": args}, false)
	if err != nil {
		return nil, err
	}
	if res.Error != nil && r.era == conformance.EraLegacy {
		return nil, fmt.Errorf("tools/call %s without a task: %s", tool, answer(res))
	}
	return res, nil
}

// isErrorResult reports whether a tool's result says isError true.
func isErrorResult(raw json.RawMessage) bool {
	var out struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &out) == nil && out.IsError
}
