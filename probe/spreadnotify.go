package probe

import (
	"context"
	"fmt"
	"sync"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

// notifyWhy is why a listener on any instance hears of a task changed on another.
const notifyWhy = `a listener hears of its task whichever instance it listens on, as it does on the instance that runs the task (2025-11-25: "receivers MAY send a notifications/tasks/status notification"; the extension: "Each notification carries a complete DetailedTask for the current status, identical to what tasks/get would have returned at that moment")`

// checkCrossNotify (V-XNOTIFY-1): while a task of the slow tool made through one
// instance runs and ends, the first principal listens on that instance and on another
// (2025-11-25: a session's GET stream; the extension: subscriptions/listen naming the
// task). When the instance that runs the task tells its listener, the other must tell
// its own; notifications are optional, so one that tells nobody leaves the rule not
// exercised.
func checkCrossNotify(ctx context.Context, r *eraRun) error {
	a, b, err := r.pair(ctx, 3)
	if err != nil {
		return err
	}
	if r.cfg.deploy.router != nil {
		return fmt.Errorf("%w: through the probe's router a listener goes where its request is routed, and a subscriptions/listen or GET stream names no task to route by: a routed deployment's notifications are each instance's own", errNone)
	}
	lctx, stop := context.WithCancel(ctx)
	var listens sync.WaitGroup
	defer func() { stop(); listens.Wait() }()
	method := "notifications/tasks"
	var id string
	if r.era == conformance.EraLegacy {
		method = "notifications/tasks/status"
		for _, m := range []member{a, b} {
			if err := m.p.conn.Listen(lctx); err != nil {
				return fmt.Errorf("%w: a GET stream on %s: %v", errNone, m.name, clip(err.Error(), 200))
			}
		}
	}
	if id, err = a.p.create(ctx, r.tools.Slow, r.tools.SlowArgs); err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	if _, err := r.seen(ctx, a, b, id, "the task "+id+" (tool "+r.tools.Slow+")"); err != nil {
		return err
	}
	if r.era == conformance.EraModern {
		for _, m := range []member{a, b} {
			listens.Add(1)
			go func() {
				defer listens.Done()
				params, hdr := m.p.request("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id}}}, true)
				_, _ = m.p.conn.Call(lctx, "subscriptions/listen", params, hdr)
			}()
		}
	}
	if _, err := a.p.terminal(ctx, id); err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	about := func(in []client.Inbound) bool { return find(in, method, id) != nil }
	wctx, cancel := context.WithTimeout(ctx, notifyWait)
	defer cancel()
	if !a.p.conn.WaitInbox(wctx, about) {
		return fmt.Errorf("%w: the listener on %s, which runs the task %s, heard no %s about it within %v of its end (notifications are optional): nothing to compare another instance's listener with",
			errNone, a.name, id, method, notifyWait)
	}
	if !b.p.conn.WaitInbox(wctx, about) {
		return faultf(fmt.Sprintf("the first principal listening on %s and on %s while its task %s (tool %s), made on %s, ran and ended", a.name, b.name, id, r.tools.Slow, a.name),
			fmt.Sprintf("%s on both (%s)", method, notifyWhy),
			fmt.Sprintf("%s told its listener; %s told its listener nothing about the task within %v: %s", a.name, b.name, notifyWait, inboxText(b.p.conn.Inbox())))
	}
	return nil
}

// inboxText sums up what a listener heard.
func inboxText(in []client.Inbound) string {
	if len(in) == 0 {
		return "no message at all"
	}
	var methods []string
	for _, m := range in {
		methods = append(methods, m.Method)
	}
	return fmt.Sprintf("%d messages (%v)", len(in), methods)
}
