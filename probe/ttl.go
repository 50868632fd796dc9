package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
)

const (
	// ttlAsked is the ttl the probe asks for: short enough to watch run out.
	ttlAsked = 1500 * time.Millisecond
	// ttlWatch is the longest kept ttl the probe waits out; a longer one is checked only
	// as far as ttlAsked.
	ttlWatch = 5 * time.Second
	// ttlSlack allows for the time between the probe's clock and the server's createdAt.
	ttlSlack = 300 * time.Millisecond
)

// checkTTL asks for a short ttl and judges what the server reports and keeps (V-TTL-1):
// the ttl of the CreateTaskResult is the one tasks/get reports; the task is found until
// that ttl has run from its creation, and once it has, found still or -32602.
func checkTTL(ctx context.Context, r *eraRun) error {
	if r.era == conformance.EraModern {
		return checkTTLModern(ctx, r)
	}
	if err := checkOddTTLs(ctx, r); err != nil {
		return err
	}
	p := r.owner
	sent := time.Now()
	id, res, err := p.createWith(ctx, r.tools.Quick, r.tools.QuickArgs, map[string]any{"ttl": ttlAsked.Milliseconds()})
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	answered := time.Now()
	var created struct {
		Task map[string]any `json:"task"`
	}
	_ = json.Unmarshal(res.Result, &created)
	t, rpcErr, err := p.task(ctx, id)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("task %s made with task.ttl %d", id, ttlAsked.Milliseconds())
	if rpcErr != nil {
		return faultf("tasks/get at once of "+in, "the task", rpcErr)
	}
	reported, ok := t["ttl"]
	if !ok {
		return faultf("tasks/get of "+in, `the ttl kept ("Receivers MUST include the actual ttl duration (or null for unlimited) in tasks/get responses")`, fmt.Sprintf("no ttl in %v", t))
	}
	if c, ok := created.Task["ttl"]; ok && c != reported {
		return faultf("tasks/get of "+in, fmt.Sprintf("the ttl its CreateTaskResult reported (%v): the one kept", c), fmt.Sprintf("ttl %v", reported))
	}
	var kept time.Duration
	switch v := reported.(type) {
	case nil:
		r.note(fmt.Sprintf("asked for a ttl of %v, the server keeps the task without limit (ttl null)", ttlAsked))
		kept = -1
	case float64:
		kept = time.Duration(v) * time.Millisecond
		if kept != ttlAsked {
			r.note(fmt.Sprintf("asked for a ttl of %v, the server keeps %v (receivers MAY override it)", ttlAsked, kept))
		}
	default:
		return faultf("tasks/get of "+in, "ttl in milliseconds, or null", fmt.Sprintf("ttl %#v", reported))
	}
	// Not early: found until its ttl has run from the creation (which came after sent).
	watch := kept
	if kept < 0 || kept > ttlWatch {
		watch = ttlAsked // longer than the probe waits: held at least as long as asked
	}
	if watch > ttlSlack {
		at := sent.Add(watch - ttlSlack)
		if err := sleepUntil(ctx, at); err != nil {
			return err
		}
		_, rpcErr, err := p.task(ctx, id)
		if err != nil {
			return err
		}
		if rpcErr != nil {
			return faultf(fmt.Sprintf("tasks/get %v after the creation of %s, whose ttl is %v", time.Since(sent).Round(time.Millisecond), in, reported),
				"the task: its ttl has not run (ttl: \"Time in milliseconds from creation before task may be deleted\")", fmt.Sprintf("error %d %q", rpcErr.Code, rpcErr.Message))
		}
	} else {
		r.note(fmt.Sprintf("the ttl kept (%v) is too short to check that the task is not removed early", kept))
	}
	if kept < 0 || kept > ttlWatch {
		return nil
	}
	// Past its ttl: found still (deleting is a MAY), or the missing-task answer.
	return afterTTL(ctx, r, p, id, answered.Add(kept+ttlSlack),
		fmt.Sprintf("the task was still there %v after its ttl ran out (receivers MAY delete it)", ttlSlack),
		fmt.Sprintf("tasks/get of %s after its ttl (%v) ran out", in, reported), "the task, or -32602 for a task no longer there")
}

func sleepUntil(ctx context.Context, at time.Time) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(at)):
		return nil
	}
}

// oddTTLs are ttls a server cannot keep as asked: negative, centuries, past any integer.
var oddTTLs = []any{-1000, 1e13, 1e300}

// checkOddTTLs asks for each odd ttl: refused with -32602, or clamped to a ttl the
// server reports alike in the CreateTaskResult and tasks/get, not negative, and never
// expiring the task at once (unless the ttl reported is 0).
func checkOddTTLs(ctx context.Context, r *eraRun) error {
	p := r.owner
	for _, asked := range oddTTLs {
		in := fmt.Sprintf("tools/call %s as a task with task.ttl %v", r.tools.Quick, asked)
		id, res, err := p.createWith(ctx, r.tools.Quick, r.tools.QuickArgs, map[string]any{"ttl": asked})
		switch {
		case res != nil && res.Error != nil && res.Error.Code == jsonrpc.CodeInvalidParams:
			continue // refused
		case res != nil && res.Error != nil:
			return faultf(in, "-32602 (refused), or a task with the ttl the server keeps", answer(res))
		case err != nil:
			return err
		}
		var created struct {
			Task map[string]any `json:"task"`
		}
		_ = json.Unmarshal(res.Result, &created)
		reported, ok := created.Task["ttl"]
		t, rpcErr, err := p.task(ctx, id)
		if err != nil {
			return err
		}
		if rpcErr != nil {
			if reported == float64(0) {
				r.note(fmt.Sprintf("task.ttl %v was clamped to 0 and the task was gone at once", asked))
				continue
			}
			return faultf("tasks/get at once after "+in+fmt.Sprintf(" (ttl reported: %v)", reported), "the task: an odd ttl is refused or clamped, never expires the task at once", fmt.Sprintf("error %d %q", rpcErr.Code, rpcErr.Message))
		}
		if n, isNum := reported.(float64); ok && (reported != nil && !isNum || isNum && n < 0) {
			return faultf(in, "-32602, or the ttl clamped to what the server keeps: milliseconds, not negative, or null", fmt.Sprintf("a task (there at once) with ttl %#v", reported))
		}
		if ok && t["ttl"] != reported {
			return faultf("tasks/get after "+in, fmt.Sprintf("ttl %v, as the CreateTaskResult reported", reported), fmt.Sprintf("ttl %#v", t["ttl"]))
		}
	}
	return nil
}

// checkTTLModern (V-TTL-1 in the extension, where the client asks no ttl): the ttlMs the
// server gives a task is honoured. The task is found until the ttlMs it reports (the
// least of the CreateTaskResult's and tasks/get's at once: "This value MAY change over
// the lifetime of a task") has run from its creation, and after it is found (in any
// status: "servers MAY mark a task as failed at any point after the TTL elapses") or
// -32602. ttlMs null (unlimited) or 0 leaves nothing to watch: not exercised.
func checkTTLModern(ctx context.Context, r *eraRun) error {
	p := r.owner
	sent := time.Now()
	id, res, err := p.createWith(ctx, r.tools.Quick, r.tools.QuickArgs, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	answered := time.Now()
	var created map[string]any
	_ = json.Unmarshal(res.Result, &created)
	t, rpcErr, err := p.task(ctx, id)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("task %s (tool %s)", id, r.tools.Quick)
	if rpcErr != nil {
		return faultf("tasks/get at once of "+in, "the task (\"A server MUST NOT return CreateTaskResult until the task is durably created\")", rpcErr)
	}
	var kept time.Duration = -1
	for _, v := range []any{created["ttlMs"], t["ttlMs"]} {
		switch n := v.(type) {
		case nil:
		case float64:
			if d := time.Duration(n) * time.Millisecond; kept < 0 || d < kept {
				kept = d
			}
		default:
			return faultf("tools/call and tasks/get of "+in, "ttlMs in integer milliseconds, or null", fmt.Sprintf("ttlMs %#v", v))
		}
	}
	switch {
	case kept < 0:
		return fmt.Errorf("%w: the server keeps %s without limit (ttlMs null): no ttl to honour", errNone, in)
	case kept <= ttlSlack:
		return fmt.Errorf("%w: the ttlMs of %s (%v) is too short to tell from a task removed at once", errNone, in, kept)
	}
	watch := kept
	if kept > ttlWatch {
		watch = ttlAsked
		r.note(fmt.Sprintf("ttlMs %v is longer than the probe waits: the task was watched for %v", kept, watch))
	}
	if err := sleepUntil(ctx, sent.Add(watch-ttlSlack)); err != nil {
		return err
	}
	if _, rpcErr, err := p.task(ctx, id); err != nil {
		return err
	} else if rpcErr != nil {
		return faultf(fmt.Sprintf("tasks/get %v after the creation of %s, whose ttlMs is %v", time.Since(sent).Round(time.Millisecond), in, kept.Milliseconds()),
			"the task: its ttlMs has not run (\"Time-to-live duration from creation in integer milliseconds\"; \"The server may discard the task after the TTL elapses\")", fmt.Sprintf("error %d %q", rpcErr.Code, rpcErr.Message))
	}
	if kept > ttlWatch {
		return nil
	}
	return afterTTL(ctx, r, p, id, answered.Add(kept+ttlSlack),
		fmt.Sprintf("the task was still there %v after its ttlMs ran out (the server may discard it)", ttlSlack),
		fmt.Sprintf("tasks/get of %s after its ttlMs (%v) ran out", in, kept.Milliseconds()), "the task, or -32602 for a task no longer there (\"Task has expired\" is -32602)")
}

// afterTTL reads the task at past, once its ttl has run out: found still is noted
// (deleting is allowed, not required), -32602 is the missing-task answer, any other
// error a fault of the call input.
func afterTTL(ctx context.Context, r *eraRun, p *peer, id string, past time.Time, still, input, want string) error {
	if err := sleepUntil(ctx, past); err != nil {
		return err
	}
	_, rpcErr, err := p.task(ctx, id)
	switch {
	case err != nil:
		return err
	case rpcErr == nil:
		r.note(still)
	case rpcErr.Code != jsonrpc.CodeInvalidParams:
		return faultf(input, want, fmt.Sprintf("error %d %q", rpcErr.Code, rpcErr.Message))
	}
	return nil
}
