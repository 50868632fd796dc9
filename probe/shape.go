package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/storecheck/storecheck/conformance"
)

// statuses are the task statuses of 2025-11-25.
var statuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

// checkShape reads one task as tools/call (the CreateTaskResult), tasks/get (working and
// once ended) and, in 2025-11-25, tasks/list show it, and judges every field its era asks
// for (V-SHAPE-1).
func checkShape(ctx context.Context, r *eraRun) error {
	p := r.owner
	id, res, err := p.createWith(ctx, r.tools.Slow, r.tools.SlowArgs, map[string]any{})
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	f := fieldsOf(r.era)
	var created map[string]any
	if r.era == conformance.EraLegacy {
		var out struct {
			Task map[string]any `json:"task"`
		}
		if err := json.Unmarshal(res.Result, &out); err != nil || out.Task == nil {
			return faultf("tools/call "+r.tools.Slow+" as a task", "a CreateTaskResult: {task: {...}}", answer(res))
		}
		created = out.Task
	} else if err := json.Unmarshal(res.Result, &created); err != nil {
		return faultf("tools/call "+r.tools.Slow+" as a task", "a CreateTaskResult", answer(res))
	}
	first, err := f.judge(created, id, "the CreateTaskResult", f.ttlInCreate)
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
	if _, err := f.judge(working, id, "tasks/get of the new task", true, first); err != nil {
		return err
	}
	done, err := p.terminal(ctx, id)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	last, err := f.judge(done, id, "tasks/get of the ended task", true, first)
	if err != nil {
		return err
	}
	if last.updated.Before(first.updated) {
		return faultf("tasks/get of the ended task "+id, fmt.Sprintf("lastUpdatedAt no earlier than when it was created (%s)", first.updated.Format(time.RFC3339Nano)), done["lastUpdatedAt"])
	}
	if r.era == conformance.EraModern {
		// The extension's tasks/get inlines what the task ended with.
		inline := map[string]string{"completed": "result", "failed": "error"}[fmt.Sprint(done["status"])]
		if _, ok := done[inline].(map[string]any); inline != "" && !ok {
			return faultf("tasks/get of the ended task "+id, fmt.Sprintf("a %s object inlined in the %v task (the extension: \"a Task object with status %v and a %s field\")", inline, done["status"], done["status"], inline), clip(fmt.Sprint(done), 300))
		}
		if done["resultType"] != "complete" {
			return faultf("tasks/get of the ended task "+id, `resultType "complete" ("The resultType field MUST be set to \"complete\" on this object")`, fmt.Sprintf("resultType %#v", done["resultType"]))
		}
		return nil
	}
	listed, err := findListed(ctx, p, id)
	if err != nil || listed == nil {
		return err
	}
	_, err = f.judge(listed, id, "the task's entry in tasks/list", false, first)
	return err
}

// fields are an era's names for a task's durations.
type fields struct {
	ttl, poll   string
	ttlInCreate bool // the CreateTaskResult must carry the ttl too
}

func fieldsOf(era conformance.Era) fields {
	if era == conformance.EraModern {
		// The extension's Task: "ttlMs: number | null" (required), "pollIntervalMs?".
		return fields{ttl: "ttlMs", poll: "pollIntervalMs", ttlInCreate: true}
	}
	return fields{ttl: "ttl", poll: "pollInterval"}
}

// shape is what checkShape keeps of a task to compare it with later readings.
type shape struct{ created, updated time.Time }

// judge judges one task object; where says where it came from. needTTL: it must carry
// its ttl. Against before (a reading of the same task), createdAt must not have changed.
func (f fields) judge(t map[string]any, id, where string, needTTL bool, before ...shape) (shape, error) {
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
			return out, faultf(in, f.key+` an ISO 8601 (RFC 3339) timestamp (2025-11-25: "Receivers MUST include a `+f.key+` ISO 8601-formatted timestamp in all task responses"; the extension's Task: "ISO 8601 timestamp")`, fmt.Sprintf("%s %#v", f.key, t[f.key]))
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
	ttl, hasTTL := t[f.ttl]
	switch {
	case needTTL && !hasTTL:
		return out, faultf(in, f.ttl+` in milliseconds, or null for unlimited ("Receivers MUST include the actual ttl duration (or null for unlimited) in tasks/get responses"; the extension's Task: "ttlMs: number | null")`, fmt.Sprintf("no %s in %v", f.ttl, t))
	case hasTTL && ttl != nil && !wholeMillis(ttl):
		return out, faultf(in, f.ttl+" a whole number of milliseconds, not negative, or null", fmt.Sprintf("%s %#v", f.ttl, ttl))
	}
	if pi, ok := t[f.poll]; ok && pi != nil && !wholeMillis(pi) {
		return out, faultf(in, f.poll+" a whole number of milliseconds, not negative", fmt.Sprintf("%s %#v", f.poll, pi))
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
