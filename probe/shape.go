package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// statuses are the task statuses of 2025-11-25.
var statuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

// checkShape reads one task as tools/call (the CreateTaskResult), tasks/get and
// tasks/list show it, working and once terminal, and judges every field 2025-11-25 asks
// for (V-SHAPE-1).
func checkShape(ctx context.Context, r *eraRun) error {
	p := r.owner
	id, res, err := p.createWith(ctx, r.tools.Slow, r.tools.SlowArgs, map[string]any{})
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	var created struct {
		Task map[string]any `json:"task"`
	}
	if err := json.Unmarshal(res.Result, &created); err != nil {
		return faultf("tools/call "+r.tools.Slow+" as a task", "a CreateTaskResult: {task: {...}}", answer(res))
	}
	first, err := shapeOf(created.Task, id, "the CreateTaskResult's task", false)
	if err != nil {
		return err
	}
	working, rpcErr, err := p.task(ctx, id)
	if err != nil {
		return err
	}
	if rpcErr != nil {
		return fmt.Errorf("%w: tasks/get %s: %w", errSetup, id, rpcErr)
	}
	if _, err := shapeOf(working, id, "tasks/get of the new task", true, first); err != nil {
		return err
	}
	done, err := p.terminal(ctx, id)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	last, err := shapeOf(done, id, "tasks/get of the ended task", true, first)
	if err != nil {
		return err
	}
	if last.updated.Before(first.updated) {
		return faultf("tasks/get of the ended task "+id, fmt.Sprintf("lastUpdatedAt no earlier than when it was created (%s)", first.updated.Format(time.RFC3339Nano)), done["lastUpdatedAt"])
	}
	listed, err := findListed(ctx, p, id)
	if err != nil || listed == nil {
		return err
	}
	_, err = shapeOf(listed, id, "the task's entry in tasks/list", false, first)
	return err
}

// shape is what checkShape keeps of a task to compare it with later readings.
type shape struct{ created, updated time.Time }

// shapeOf judges one task object; where says where it came from. get: it is a tasks/get
// answer, which must carry ttl. Against before (a reading of the same task), createdAt
// must not have changed.
func shapeOf(t map[string]any, id, where string, get bool, before ...shape) (shape, error) {
	in := where + " of task " + id
	var out shape
	if t["taskId"] != id {
		return out, faultf(in, fmt.Sprintf("taskId %q (\"Task IDs MUST be a string value\")", id), fmt.Sprintf("taskId %v in %v", t["taskId"], t))
	}
	if s, _ := t["status"].(string); !slices.Contains(statuses, s) {
		return out, faultf(in, fmt.Sprintf("status one of %v", statuses), fmt.Sprintf("status %v", t["status"]))
	}
	var err error
	for _, f := range []struct {
		key string
		dst *time.Time
	}{{"createdAt", &out.created}, {"lastUpdatedAt", &out.updated}} {
		s, ok := t[f.key].(string)
		if ok {
			*f.dst, err = time.Parse(time.RFC3339Nano, s)
		}
		if !ok || err != nil {
			return out, faultf(in, f.key+` an ISO 8601 (RFC 3339) timestamp ("Receivers MUST include a `+f.key+` ISO 8601-formatted timestamp in all task responses")`, fmt.Sprintf("%s %#v", f.key, t[f.key]))
		}
	}
	if out.updated.Before(out.created) {
		return out, faultf(in, "lastUpdatedAt no earlier than createdAt", fmt.Sprintf("createdAt %v, lastUpdatedAt %v", t["createdAt"], t["lastUpdatedAt"]))
	}
	for _, b := range before {
		if !out.created.Equal(b.created) {
			return out, faultf(in, "createdAt "+b.created.Format(time.RFC3339Nano)+", as the task was first shown", t["createdAt"])
		}
	}
	ttl, hasTTL := t["ttl"]
	switch {
	case get && !hasTTL:
		return out, faultf(in, `a ttl: milliseconds, or null for unlimited ("Receivers MUST include the actual ttl duration (or null for unlimited) in tasks/get responses")`, fmt.Sprintf("no ttl in %v", t))
	case hasTTL && ttl != nil && !wholeMillis(ttl):
		return out, faultf(in, "ttl a whole number of milliseconds, not negative, or null", fmt.Sprintf("ttl %#v", ttl))
	}
	if pi, ok := t["pollInterval"]; ok && pi != nil && !wholeMillis(pi) {
		return out, faultf(in, "pollInterval a whole number of milliseconds, not negative", fmt.Sprintf("pollInterval %#v", pi))
	}
	return out, nil
}

func wholeMillis(v any) bool {
	f, ok := v.(float64)
	return ok && f >= 0 && f == math.Trunc(f)
}

// findListed pages tasks/list for the task id and returns its entry (nil, nil when the
// server lists nothing: another rule judges listing).
func findListed(ctx context.Context, p *peer, id string) (map[string]any, error) {
	params := map[string]any{}
	for page := 0; page < 1000; page++ {
		res, err := p.call(ctx, "tasks/list", params, true)
		if err != nil {
			return nil, err
		}
		var out struct {
			Tasks      []map[string]any `json:"tasks"`
			NextCursor string           `json:"nextCursor"`
		}
		if res.Error != nil || json.Unmarshal(res.Result, &out) != nil {
			return nil, nil
		}
		for _, t := range out.Tasks {
			if t["taskId"] == id {
				return t, nil
			}
		}
		if out.NextCursor == "" {
			return nil, nil
		}
		params = map[string]any{"cursor": out.NextCursor}
	}
	return nil, nil
}
