package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
)

// The race check (V-RACE-1): tasks/cancel sent at the moment a task finishes on its own.
// From outside, the moment is found by bisection: a first task of the race tool is timed
// to its end, then each trial cancels a fresh task after a delay, halving the interval
// between a delay at which the cancel won (answered cancelled) and one at which it lost
// (answered -32602: already terminal). The race overlapped once both outcomes were seen
// with delays at most raceGap apart; without that the check is inconclusive, never
// passed. A won cancel later than a lost one is the race's own jitter: met too. In the
// extension the cancel is an acknowledgement either way, and the status the task ends
// with says which won.
const (
	raceTrials = 12
	raceGap    = 20 * time.Millisecond
	// raceSettle is how long a task is watched after its cancel was answered and after
	// the tool's own end, for a late write to change its terminal status.
	raceSettle = 150 * time.Millisecond
)

// errInconclusive marks a check that found no fault but could not tell.
var errInconclusive = errors.New("inconclusive")

// raceTrial is one cancel and what came of it.
type raceTrial struct {
	delay time.Duration
	won   bool // the cancel was answered cancelled; else -32602 (already terminal)
}

func checkRace(ctx context.Context, r *eraRun) error {
	p := r.owner
	// Time the tool's own run.
	start := time.Now()
	id, err := p.create(ctx, r.tools.Race, r.tools.RaceArgs)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	timed, err := p.terminal(ctx, id)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	if err := cutShort(id, r.tools.Race, timed); err != nil {
		return err
	}
	natural := time.Since(start)
	// maxWon is the latest delay at which a cancel won, minLost the earliest at which one
	// lost; -1 while there is none.
	maxWon, minLost := time.Duration(-1), time.Duration(-1)
	met := func() bool { return maxWon >= 0 && minLost >= 0 && minLost-maxWon <= raceGap }
	for trial := 0; trial < raceTrials && !met(); trial++ {
		var delay time.Duration
		switch {
		case maxWon < 0 && minLost < 0:
			delay = natural / 2
		case maxWon < 0: // every cancel so far came too late
			delay = minLost / 2
		case minLost < 0: // every cancel so far came too early
			delay = max(maxWon*2, natural*3/2)
		default:
			delay = (maxWon + minLost) / 2
		}
		t, err := raceOnce(ctx, r, delay, natural)
		if err != nil {
			return err
		}
		if t.won {
			maxWon = max(maxWon, delay)
		} else if minLost < 0 || delay < minLost {
			minLost = delay
		}
	}
	if !met() {
		return fmt.Errorf("%w: the cancel and the task's own end never met in %d trials: the latest cancel that won came %v after the creation, the earliest that lost %v (-1ns: none); the tool's first run took %v",
			errInconclusive, raceTrials, maxWon.Round(time.Millisecond), minLost.Round(time.Millisecond), natural.Round(time.Millisecond))
	}
	r.note(fmt.Sprintf("the race met: cancels %v and %v after the creation won and lost (the tool's first run took %v)",
		maxWon.Round(time.Millisecond), minLost.Round(time.Millisecond), natural.Round(time.Millisecond)))
	return nil
}

// raceOnce creates a task, cancels it after delay, and judges what follows.
func raceOnce(ctx context.Context, r *eraRun, delay, natural time.Duration) (raceTrial, error) {
	p := r.owner
	id, err := p.create(ctx, r.tools.Race, r.tools.RaceArgs)
	if err != nil {
		return raceTrial{}, fmt.Errorf("%w: %w", errSetup, err)
	}
	created := time.Now()
	select {
	case <-ctx.Done():
		return raceTrial{}, ctx.Err()
	case <-time.After(delay):
	}
	res, err := p.call(ctx, "tasks/cancel", map[string]any{"taskId": id}, true)
	if err != nil {
		return raceTrial{}, err
	}
	in := fmt.Sprintf("tasks/cancel of task %s (tool %s, which ends on its own after about %v) sent %v after its creation",
		id, r.tools.Race, natural.Round(time.Millisecond), delay.Round(time.Millisecond))
	t := raceTrial{delay: delay}
	var answered string
	legacy := r.era == conformance.EraLegacy
	switch {
	case !legacy && res.Error != nil:
		return t, faultf(in, "an acknowledgement (the extension: on success the server MUST acknowledge with an empty result)", answer(res))
	case !legacy:
		// The extension's cancel is cooperative: the task ends as it ends, and its
		// status says which won.
		ended, err := p.terminal(ctx, id)
		if err != nil {
			return t, err
		}
		t.won = ended["status"] == "cancelled"
		answered = fmt.Sprintf("acknowledged; the task ended %v", ended["status"])
	case res.Error != nil && res.Error.Code == jsonrpc.CodeInvalidParams:
		answered = "answered -32602 (already terminal)"
	case res.Error != nil:
		return t, faultf(in, "the task, cancelled, or -32602 (already terminal)", answer(res))
	default:
		var task struct{ Status string }
		if json.Unmarshal(res.Result, &task) != nil || task.Status != "cancelled" {
			return t, faultf(in, `the task with status "cancelled" (2025-11-25: "MUST transition the task to cancelled status before sending the response"), or -32602`, answer(res))
		}
		t.won, answered = true, "answered cancelled"
	}
	// Watch the status until the tool's own end has passed and a while after.
	var first string
	deadline := created.Add(max(natural, delay) + raceSettle)
	for reads := 0; reads < 3 || time.Now().Before(deadline); reads++ {
		task, rpcErr, err := p.task(ctx, id)
		if err != nil {
			return t, err
		}
		status := fmt.Sprint(task["status"])
		if rpcErr != nil {
			status = rpcErr.Error()
		}
		switch {
		case !terminalStatus(task["status"]):
			return t, faultf("tasks/get after "+in+", "+answered, "a terminal status: the task was terminal already", status)
		case !legacy && !inlineMatches(task):
			return t, faultf("tasks/get after "+in+", "+answered, `a completed task with its result, a failed one with its error, a cancelled one with neither ("cancelled: The request was cancelled before completion")`, clip(fmt.Sprint(task), 300))
		case reads == 0 && legacy && t.won && status != "cancelled":
			return t, faultf("tasks/get after "+in+", answered cancelled", `status "cancelled" ("Once a task is cancelled, it MUST remain in cancelled status even if execution continues to completion or fails")`, status)
		case reads == 0 && legacy && !t.won && status == "cancelled":
			return t, faultf("tasks/get after "+in+", answered -32602 (already terminal)", "the terminal status the cancel found, not cancelled", status)
		case reads == 0:
			first = status
		case status != first:
			return t, faultf(fmt.Sprintf("tasks/get %v after the creation, after %s, %s", time.Since(created).Round(time.Millisecond), in, answered),
				fmt.Sprintf("status %s, as read before (\"Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status\")", first), status)
		}
		select {
		case <-ctx.Done():
			return t, ctx.Err()
		case <-time.After(15 * time.Millisecond):
		}
	}
	if err := raceResult(ctx, p, id, first, in+", "+answered); err != nil {
		return t, err
	}
	return t, nil
}

// raceResult asks tasks/result of the settled task: it must tell the status tasks/get
// tells (completed: the tool's result; cancelled or failed: never a successful result),
// and tasks/get must still tell the same after it.
func raceResult(ctx context.Context, p *peer, id, status, in string) error {
	if p.era != conformance.EraLegacy {
		return nil // the extension has no tasks/result
	}
	res, err := p.call(ctx, "tasks/result", map[string]any{"taskId": id}, true)
	if err != nil {
		return err
	}
	var out struct {
		IsError bool `json:"isError"`
	}
	success := res.Error == nil && json.Unmarshal(res.Result, &out) == nil && !out.IsError
	switch {
	case status == "completed" && !success:
		return faultf("tasks/result of the task "+id+" that tasks/get reads completed, after "+in, "the tool's result, as tasks/get tells", answer(res))
	case status != "completed" && success:
		return faultf(fmt.Sprintf("tasks/result of the task %s that tasks/get reads %s, after %s", id, status, in),
			fmt.Sprintf("no successful result: the task is %s, not completed", status), answer(res))
	}
	task, rpcErr, err := p.task(ctx, id)
	if err != nil {
		return err
	}
	if rpcErr != nil || task["status"] != status {
		return faultf("tasks/get of the task "+id+" after its tasks/result", "status "+status+", as before", fmt.Sprint(task["status"], rpcErr))
	}
	return nil
}

// inlineMatches: the extension's tasks/get of an ended task inlines what it ended with,
// and a cancelled task has neither a result nor an error.
func inlineMatches(task map[string]any) bool {
	_, hasResult := task["result"].(map[string]any)
	_, hasError := task["error"].(map[string]any)
	switch task["status"] {
	case "completed":
		return hasResult && !hasError
	case "failed":
		return hasError && !hasResult
	case "cancelled":
		return !hasResult && !hasError
	}
	return true
}
