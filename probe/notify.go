package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

const (
	// notifyWait bounds the wait for the owner's notification once its task has ended.
	notifyWait = 2 * time.Second
	// notifySettle is how long the others' streams are watched after the owner heard:
	// a notification sent to every stream at once has arrived by then.
	notifySettle = 200 * time.Millisecond
)

// strangers are the callers that must not see the owner's tasks: the other principals
// and the caller without credentials.
func (r *eraRun) strangers() []*peer {
	out := append([]*peer(nil), r.others...)
	if r.anon != nil {
		out = append(out, r.anon)
	}
	return out
}

// checkNotify (V-NOTIFY-1): while the owner's task runs and ends, every caller listens as
// a client would (2025-11-25: the session's GET stream; the extension: subscriptions/listen
// naming the task's id, which the others know too); the owner hears of the task, nobody
// else does. An owner that hears nothing leaves nothing to check: notifications are
// optional ("receivers MAY send", "Servers MAY push"), so the rule is not exercised.
func checkNotify(ctx context.Context, r *eraRun) error {
	if r.stdio {
		r.note("over stdio every principal is a child process of its own: children that share no store keep their notifications apart by construction")
	}
	lctx, stop := context.WithCancel(ctx)
	var listens sync.WaitGroup
	defer func() { stop(); listens.Wait() }()
	method := "notifications/tasks/status"
	var id string
	if r.era == conformance.EraLegacy {
		for _, p := range append([]*peer{r.owner}, r.strangers()...) {
			if err := p.conn.Listen(lctx); err != nil {
				// It hears only on the streams of its own POSTs.
				r.note(fmt.Sprintf("%s could not open a GET stream: %v", who(p.name), clip(err.Error(), 120)))
			}
		}
		var err error
		if id, err = r.owner.create(ctx, r.tools.Slow, r.tools.SlowArgs); err != nil {
			return fmt.Errorf("%w: %w", errSetup, err)
		}
	} else {
		method = "notifications/tasks"
		var err error
		if id, err = r.owner.create(ctx, r.tools.Slow, r.tools.SlowArgs); err != nil {
			return fmt.Errorf("%w: %w", errSetup, err)
		}
		ended := make(chan listenEnd, 1+len(r.strangers()))
		for _, p := range append([]*peer{r.owner}, r.strangers()...) {
			listens.Add(1)
			go func() {
				defer listens.Done()
				params, hdr := p.request("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id}}}, true)
				res, err := p.conn.Call(lctx, "subscriptions/listen", params, hdr)
				ended <- listenEnd{p, res, err}
			}()
		}
		// The owner's subscription acknowledged, or refused: nothing to hear then.
		wctx, cancel := context.WithTimeout(ctx, r.owner.timeout)
		acked := r.owner.conn.WaitInbox(wctx, func(in []client.Inbound) bool { return find(in, ackMethod, "") != nil })
		cancel()
		if !acked {
			select {
			case e := <-ended:
				if e.p == r.owner {
					return fmt.Errorf("%w: subscriptions/listen naming its own task %s as %s: %s", errNone, id, who(e.p.name), answerOr(e.res, e.err))
				}
				ended <- e
			default:
			}
		}
	}
	end, err := r.owner.terminal(ctx, id)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	if err := cutShort(id, r.tools.Slow, end); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, notifyWait)
	heard := r.owner.conn.WaitInbox(wctx, func(in []client.Inbound) bool { return find(in, method, id) != nil })
	cancel()
	if !heard {
		return fmt.Errorf("%w: %s heard no %s about its task %s within %v of its end (notifications are optional): nothing to keep from the others",
			errNone, r.owner.name, method, id, notifyWait)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(notifySettle):
	}
	for _, s := range r.strangers() {
		if m := find(s.conn.Inbox(), "", id); m != nil {
			return faultf(fmt.Sprintf("%s listening while %s's task %s (tool %s) ran and ended", who(s.name), r.owner.name, id, r.tools.Slow),
				fmt.Sprintf("nothing about the task: %s heard %s about it, nobody else may (\"When an authorization context is provided, receivers MUST bind tasks to said context\")", r.owner.name, method),
				fmt.Sprintf("%s on its %s stream: %s", m.Method, m.Via, clip(string(m.Params), 300)))
		}
	}
	return nil
}

const ackMethod = "notifications/subscriptions/acknowledged"

// listenEnd is how a subscriptions/listen call ended.
type listenEnd struct {
	p   *peer
	res *client.Response
	err error
}

// find returns the first message of in with method (any but the acknowledgement, which
// echoes the ids the caller named, when "") that is about task id (any, when "").
func find(in []client.Inbound, method, id string) *client.Inbound {
	for i, m := range in {
		if method == "" && m.Method == ackMethod || method != "" && m.Method != method {
			continue
		}
		if id == "" || mentions(m.Message, id) {
			return &in[i]
		}
	}
	return nil
}

// mentions reports whether a message carries the task id anywhere in it.
func mentions(m client.Message, id string) bool {
	b, _ := json.Marshal(m)
	return strings.Contains(string(b), id)
}
