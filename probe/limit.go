package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance"
)

// checkLimit (V-LIMIT-1): the first principal makes tasks of the long tool until the
// server refuses one or the probe's bound (LimitTasks) is reached. Never refused: the
// rule is not exercised. Refused: the refusal must be a JSON-RPC error, every task the
// first principal was given must still be there (a limit met by dropping work is a
// silent refusal), and another principal's task must be made. Every task made is
// cancelled after.
func checkLimit(ctx context.Context, r *eraRun) error {
	if len(r.others) == 0 {
		return fmt.Errorf("%w: one principal only: nobody else's work to refuse", errNone)
	}
	a, b := r.owner, r.others[0]
	tool, args := r.tools.Long, r.tools.LongArgs
	made := map[*peer][]string{}
	defer cancelAll(ctx, made)
	params := func(p *peer) map[string]any {
		params := map[string]any{"name": tool, "arguments": args}
		if p.era == conformance.EraLegacy {
			params["task"] = map[string]any{}
		}
		return params
	}
	var refused string
	for len(made[a]) < r.cfg.LimitTasks {
		res, err := a.call(ctx, "tools/call", params(a), true)
		if err != nil {
			return err
		}
		if res.Error != nil {
			if len(made[a]) == 0 {
				return fmt.Errorf("%w: the first task of %s, %s's, was refused: %s", errSetup, tool, a.name, answer(res))
			}
			refused = answer(res)
			break
		}
		id, err := createdID(a.era, tool, res)
		if err != nil {
			in := fmt.Sprintf("%s's tools/call %s as a task, its task %d", a.name, tool, len(made[a])+1)
			if len(made[a]) == 0 {
				return fmt.Errorf("%w: %w", errSetup, err)
			}
			return faultf(in, "a task, or a JSON-RPC error refusing it", answer(res))
		}
		made[a] = append(made[a], id)
	}
	// Every task the server answered for must be there, refused or not: a task dropped
	// (never made, or cancelled or failed to make room) is work refused in silence.
	after := "none refused"
	if refused != "" {
		after = fmt.Sprintf("its task %d refused (%s)", len(made[a])+1, clip(refused, 160))
	}
	for i, id := range made[a] {
		t, rpcErr, err := a.task(ctx, id)
		if err != nil {
			return err
		}
		if refused == "" && rpcErr == nil {
			if err := cutShort(id, tool, t); err != nil {
				return err
			}
		}
		if rpcErr != nil || t["status"] == "cancelled" || t["status"] == "failed" {
			return faultf(fmt.Sprintf("tasks/get of %s's task %d of %s (%s), after it made %d, %s", a.name, i+1, tool, id, len(made[a]), after),
				"the task still there, neither cancelled nor failed: a limit refuses new work with an error, it does not drop work it took",
				fmt.Sprint(t["status"], " ", rpcErr))
		}
	}
	if refused == "" {
		return fmt.Errorf("%w: no limit met in %d tasks of %s made by %s", errNone, len(made[a]), tool, a.name)
	}
	r.note(fmt.Sprintf("%s was refused its task %d of %s: %s", a.name, len(made[a])+1, tool, clip(refused, 160)))
	res, err := b.call(ctx, "tools/call", params(b), true)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("%s's tools/call %s as a task, while %s has %d tasks of it and was refused the next (%s)", b.name, tool, a.name, len(made[a]), clip(refused, 160))
	if res.Error != nil {
		return faultf(in, `a task: a limit is per requestor (2025-11-25, Resource Management: "Enforce limits on concurrent tasks per requestor"), so another principal's work is not refused`, answer(res))
	}
	id, err := createdID(b.era, tool, res)
	if err != nil {
		return faultf(in, "a task (a CreateTaskResult)", answer(res))
	}
	made[b] = append(made[b], id)
	if r.stdio {
		r.note("over stdio every principal is a child process of its own: a limit counted in one child cannot meet another's work")
	}
	return nil
}

// cancelAll cancels each peer's tasks, as their creator, so that the tasks the limit
// check made hold no place after it; it stops at the first call that gets no answer.
func cancelAll(ctx context.Context, made map[*peer][]string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for p, ids := range made {
		for _, id := range ids {
			if _, err := p.call(ctx, "tasks/cancel", map[string]any{"taskId": id}, true); err != nil {
				break
			}
		}
	}
}
