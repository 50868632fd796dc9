package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

// crossWait bounds how long a change made through one instance (a cancel, an answer)
// may take to show through another: the deployment's signals between instances, or
// their polling fallback, must carry it by then.
const crossWait = 5 * time.Second

// Why each cross-instance rule holds, quoted where the check's messages need it.
const (
	readWhy   = `"A server MUST NOT return CreateTaskResult until the task is durably created — that is, until a tasks/get for the returned taskId would resolve. In eventually-consistent environments, the server MUST wait for consistency before responding"`
	cancelWhy = `a cancel acknowledged by any instance takes effect as one acknowledged by the instance that runs the task (2025-11-25: "MUST transition the task to cancelled status before sending the response"; the extension: the acknowledgement is "eventually consistent")`
	inputWhy  = `an answer acknowledged by any instance reaches the task as one acknowledged by the instance that runs it (the extension: "The acknowledgement is eventually consistent: the server MAY accept the responses and return the ack before the task's observable status ... reflects them")`
)

// member is the first principal's connection to one instance of a deployment.
type member struct {
	p    *peer
	name string // "instance 2", or "the router (to instance 2)"
}

// spread is the first principal's connection to every instance, dialled once an era:
// direct (ShapeAny), or each through the router (ShapeRouted). errNone, saying why,
// when there is nothing to spread across.
func (r *eraRun) spread(ctx context.Context) ([]member, error) {
	d := r.cfg.deploy
	switch {
	case r.stdio:
		return nil, fmt.Errorf("%w: a server on stdio is one process per principal: no other instance to spread calls across (give its instances' URLs, or --instances N with its command)", errNone)
	case d == nil:
		return nil, fmt.Errorf("%w: one endpoint: no other instance to spread calls across (give several URLs, or --instances N with the server's command)", errNone)
	case len(d.instances) < 2:
		return nil, fmt.Errorf("%w: a deployment of one instance: no other instance to spread calls across", errNone)
	}
	if r.members != nil {
		return r.members, nil
	}
	var ms []member
	for i, in := range d.instances {
		c := r.cfg
		c.URL = in.url
		name := fmt.Sprintf("instance %d", i+1)
		if d.router != nil {
			c.URL, name = d.router.url, "the router"
		}
		p, err := dial(ctx, c, r.cfg.Principals[0], r.era)
		if err != nil {
			return nil, fmt.Errorf("%w: connecting to %s (%s): %w", errSetup, name, c.URL, err)
		}
		ms = append(ms, member{p, name})
	}
	r.members = ms
	return ms, nil
}

// pair is where a cross-instance check makes its task (a) and where it reads, cancels
// or answers it (b): two instances (ShapeAny), or two connections through the router
// (ShapeRouted); the k-th check of a run takes the k-th pair, so that the checks
// together use every instance. A 2025-11-25 check through the router stays in the
// session that made the task: routing by session is what a routed deployment offers.
func (r *eraRun) pair(ctx context.Context, k int) (a, b member, err error) {
	ms, err := r.spread(ctx)
	if err != nil {
		return a, b, err
	}
	a, b = ms[k%len(ms)], ms[(k+1)%len(ms)]
	if r.cfg.deploy.router != nil && r.era == conformance.EraLegacy {
		b = a
		if why := "through the probe's router a 2025-11-25 session stays on the instance that made it, so the check reads in that session"; !slices.Contains(r.notes, why) {
			r.note(why)
		}
	}
	return a, b, nil
}

// where names the instance that answered task id through member m: behind the router,
// the instance the router sent the task's creation to.
func (r *eraRun) where(m member, id string) string {
	if rt := r.cfg.deploy.router; rt != nil {
		if i := rt.holder(id); i >= 0 {
			return fmt.Sprintf("the router (to instance %d)", i+1)
		}
	}
	return m.name
}

// checkCrossRead (V-XREAD-1): a task created through one instance is found by tasks/get
// on every other at once, then to its end.
func checkCrossRead(ctx context.Context, r *eraRun) error {
	a, _, err := r.pair(ctx, 0)
	if err != nil {
		return err
	}
	id, err := a.p.create(ctx, r.tools.Quick, r.tools.QuickArgs)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	for _, b := range r.readers(a) {
		t, rpcErr, err := b.p.task(ctx, id)
		if err != nil {
			return err
		}
		in := fmt.Sprintf("tasks/get on %s of the task %s (tool %s), sent as soon as %s answered its CreateTaskResult", b.name, id, r.tools.Quick, r.where(a, id))
		if rpcErr != nil {
			return faultf(in, "the task ("+readWhy+")",
				fmt.Sprintf("created on %s, %s answered: %s", r.where(a, id), b.name, rpcText(rpcErr)))
		}
		if t["taskId"] != id {
			return faultf(in, "the task ("+readWhy+")", clip(fmt.Sprint(t), 300))
		}
		if _, err := b.p.terminal(ctx, id); err != nil {
			return faultf(fmt.Sprintf("tasks/get on %s of the task %s until it ended", b.name, id), "the task, to its end, through every instance", err)
		}
	}
	return nil
}

// readers are the members a task made through a is read through: every other
// instance, or, behind the router, one other connection (the router picks the
// instance).
func (r *eraRun) readers(a member) []member {
	if r.cfg.deploy.router != nil {
		_, b, _ := r.pair(context.Background(), 0)
		return []member{b}
	}
	var out []member
	for _, m := range r.members {
		if m.p != a.p {
			out = append(out, m)
		}
	}
	return out
}

// checkCrossCancel (V-XCANCEL-1): a task of the long tool made through one instance and
// cancelled through another ends cancelled, as one cancelled through its own instance
// does. The latter is tried first: a deployment that does not end a cancelled task even
// so leaves nothing to compare.
func checkCrossCancel(ctx context.Context, r *eraRun) error {
	a, b, err := r.pair(ctx, 1)
	if err != nil {
		return err
	}
	if err := cancelledVia(ctx, r, a, a); err != nil {
		var f *fault
		if errors.As(err, &f) {
			return fmt.Errorf("%w: a task of %s cancelled through the instance that made it does not end cancelled within %v (%s): nothing to compare a cancel through another instance with", errNone, r.tools.Long, crossWait, f.got)
		}
		return err
	}
	return cancelledVia(ctx, r, a, b)
}

// cancelledVia makes a task of the long tool through a, cancels it through b and waits
// for a to tell it cancelled: a fault when b refuses the cancel or the task is not
// cancelled within crossWait.
func cancelledVia(ctx context.Context, r *eraRun, a, b member) error {
	id, err := a.p.create(ctx, r.tools.Long, r.tools.LongArgs)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	defer func() {
		_, _ = a.p.call(context.WithoutCancel(ctx), "tasks/cancel", map[string]any{"taskId": id}, true)
	}()
	if a != b {
		if _, err := r.seen(ctx, a, b, id, "the working task "+id+" (tool "+r.tools.Long+")"); err != nil {
			return err
		}
	}
	res, err := b.p.call(ctx, "tasks/cancel", map[string]any{"taskId": id}, true)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("tasks/cancel on %s of the working task %s (tool %s) made on %s", b.name, id, r.tools.Long, r.where(a, id))
	if res.Error != nil {
		return faultf(in, "the cancel taken ("+cancelWhy+")", fmt.Sprintf("created on %s, %s answered: %s", r.where(a, id), b.name, rpcText(res.Error)))
	}
	if r.era == conformance.EraLegacy {
		var out struct{ Status string }
		if res.Decode(&out) != nil || out.Status != "cancelled" {
			return faultf(in, "the task, cancelled ("+cancelWhy+")", answer(res))
		}
	}
	var last map[string]any
	err = a.p.poll(ctx, id, crossWait, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		last = t
		switch {
		case rpcErr != nil:
			return true, faultf(fmt.Sprintf("tasks/get on %s of the task %s after %s took its cancel", a.name, id, b.name), "the task, cancelled", rpcText(rpcErr))
		case t["status"] == "cancelled":
			return true, nil
		case terminalStatus(t["status"]) || late:
			return true, faultf(fmt.Sprintf("tasks/get on %s, which runs the task %s, within %v of the cancel %s acknowledged", a.name, id, crossWait, b.name),
				"cancelled ("+cancelWhy+")", fmt.Sprintf("%v: %s", t["status"], clip(fmt.Sprint(last), 200)))
		}
		return false, nil
	})
	return err
}

// rpcText renders a JSON-RPC error answer.
func rpcText(e *client.Error) string { return fmt.Sprintf("error %d %q", e.Code, e.Message) }

// checkCrossInput (V-XINPUT-1, the extension): a task of the input tool made through one
// instance shows its inputRequests through another, takes the answers sent there, and
// leaves input_required within crossWait.
func checkCrossInput(ctx context.Context, r *eraRun) error {
	a, b, err := r.pair(ctx, 2)
	if err != nil {
		return err
	}
	id, err := a.p.create(ctx, r.tools.Input, r.tools.InputArgs)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	defer func() {
		_, _ = a.p.call(context.WithoutCancel(ctx), "tasks/cancel", map[string]any{"taskId": id}, true)
	}()
	if _, err := awaitInput(ctx, a.p, id, r.tools.Input, nil); err != nil {
		return err
	}
	t, err := r.seen(ctx, a, b, id, "the input_required task "+id+" (tool "+r.tools.Input+")")
	if err != nil {
		return err
	}
	in := fmt.Sprintf("tasks/get on %s of the input_required task %s (tool %s) made on %s", b.name, id, r.tools.Input, r.where(a, id))
	reqs, _ := t["inputRequests"].(map[string]any)
	if len(reqs) == 0 {
		return faultf(in, `the task input_required with its inputRequests, as the instance that runs it shows them ("The inputRequests field MUST contain all outstanding requests")`, clip(fmt.Sprint(t), 300))
	}
	answers := map[string]any{}
	for k, v := range reqs {
		req, _ := v.(map[string]any)
		answers[k] = answerFor(req)
	}
	res, err := b.p.call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": answers}, true)
	if err != nil {
		return err
	}
	if res.Error != nil {
		return faultf(fmt.Sprintf("tasks/update on %s answering every key of the task %s made on %s", b.name, id, r.where(a, id)), "an acknowledgement ("+inputWhy+")", answer(res))
	}
	return a.p.poll(ctx, id, crossWait, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		switch {
		case rpcErr != nil:
			return true, faultf(fmt.Sprintf("tasks/get on %s of the task %s after %s took its answers", a.name, id, b.name), "the task", rpcText(rpcErr))
		case t["status"] != "input_required":
			return true, nil
		case late:
			return true, faultf(fmt.Sprintf("tasks/get on %s, which runs the task %s, %v after %s acknowledged the answers to %v", a.name, id, crossWait, b.name, keys(reqs)),
				"the task working again or ended ("+inputWhy+")", "still input_required: "+clip(fmt.Sprint(t), 200))
		}
		return false, nil
	})
}

// seenWait bounds how long a check of a change made through another instance waits for
// that instance to find the task first.
const seenWait = time.Second

// seen waits up to seenWait for b to find task id (what), made through a, and returns
// it: a check of a change made through b waits for the task to reach b, so that a
// deployment slow to show a new task fails V-XREAD-1 alone. A task b never finds fails
// the check too: no change to it can be made through b.
func (r *eraRun) seen(ctx context.Context, a, b member, id, what string) (map[string]any, error) {
	var found map[string]any
	err := b.p.poll(ctx, id, seenWait, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		switch {
		case rpcErr == nil:
			found = t
			return true, nil
		case late:
			return true, faultf(fmt.Sprintf("tasks/get on %s of %s made on %s, for %v", b.name, what, r.where(a, id), seenWait),
				"the task, so that a change to it can be made through any instance ("+readWhy+")",
				fmt.Sprintf("created on %s, %s answered: %s", r.where(a, id), b.name, rpcText(rpcErr)))
		}
		return false, nil
	})
	return found, err
}
