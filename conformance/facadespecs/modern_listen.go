package facadespecs

import (
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// drain collects what sub receives until want changes arrived or wait passed, then
// keeps listening for settle to catch extra deliveries. A closed channel ends it.
func drain(sub *modern.Subscription, want int, wait, settle time.Duration) []modern.Task {
	var got []modern.Task
	// receive appends what arrives until enough holds; it answers false when stop fired
	// or the channel closed first.
	receive := func(stop <-chan time.Time, enough func() bool) bool {
		for !enough() {
			select {
			case t, ok := <-sub.C():
				if !ok {
					return false
				}
				got = append(got, t)
			case <-stop:
				return false
			}
		}
		return true
	}
	if receive(time.After(wait), func() bool { return len(got) >= want }) {
		receive(time.After(settle), func() bool { return false })
	}
	return got
}

func ModernListen(s *battery.Suite) {
	s.It("M-F-LISTEN-1", "the hub delivers a change only to subscriptions naming the task whose caller may see it", func(e *battery.Env) {
		for _, requireOwner := range []bool{false, true} {
			hub := modern.NewHub(modern.HubOptions{RequireOwner: requireOwner})
			f := battery.ModernFacade(e, func(c *modern.Config) { c.Notifier = hub; c.RequireOwner = requireOwner })
			owned := createThrough(e, f, modern.CreateOptions{Owner: battery.OwnerY})
			unowned := createThrough(e, f, modern.CreateOptions{})
			other := createThrough(e, f, modern.CreateOptions{Owner: battery.OwnerY})

			type subscriber struct {
				caller reference.Caller
				sub    *modern.Subscription
				want   []modern.Task
			}
			var subs []*subscriber
			// One subscription per caller of the truth table, naming both tasks.
			seen := map[reference.Caller]bool{}
			for _, row := range battery.OwnerTable() {
				if seen[row.Caller] {
					continue
				}
				seen[row.Caller] = true
				sb := &subscriber{caller: row.Caller, sub: hub.Subscribe(row.Caller, owned.TaskID, unowned.TaskID, owned.TaskID)}
				subs = append(subs, sb)
				defer sb.sub.Close()
			}
			// Subscriptions that name other tasks, or none, hear nothing of these two.
			elsewhere := hub.Subscribe(reference.Principal(battery.OwnerY), other.TaskID)
			defer elsewhere.Close()
			nothing := hub.Subscribe(reference.System())
			defer nothing.Close()

			var writes []modern.Task
			for i, t := range []modern.Task{owned, unowned, owned} {
				w, err := f.Progress(e.Ctx, t.TaskID, fmt.Sprintf("step %d", i))
				e.RequireErr(err, nil, fmt.Sprintf("setup: facade Progress(%s)", battery.Literal(t.TaskID)))
				writes = append(writes, w)
			}
			for _, sb := range subs {
				for _, w := range writes {
					if model.Visible(w.Owner, sb.caller, requireOwner) { // a change reaches whoever may see the task
						sb.want = append(sb.want, w)
					}
				}
			}
			setting := battery.SettingName(requireOwner)
			for _, sb := range subs {
				got := drain(sb.sub, len(sb.want), time.Second, 30*time.Millisecond)
				input := fmt.Sprintf("[%s] %s subscribed to tasks %s (owned by %q) and %s (unowned); three Progress writes",
					setting, sb.caller, battery.Literal(owned.TaskID), battery.OwnerY, battery.Literal(unowned.TaskID))
				if !e.Check(len(got) == len(sb.want), input, fmt.Sprintf("%d deliveries: %s", len(sb.want), versions(sb.want)),
					fmt.Sprintf("%d deliveries: %s", len(got), versions(got))) {
					continue
				}
				for i := range got {
					modernspecs.CheckTask(e, fmt.Sprintf("%s: delivery %d", input, i+1), sb.want[i], got[i])
				}
			}
			for name, sub := range map[string]*modern.Subscription{"a subscription naming another task": elsewhere, "a subscription naming no task": nothing} {
				got := drain(sub, 0, 0, 30*time.Millisecond)
				e.Check(len(got) == 0, fmt.Sprintf("[%s] %s; three Progress writes to other tasks", setting, name), "no deliveries", versions(got))
			}
		}
	})

	s.It("M-F-LISTEN-1", "a slow subscriber loses changes, counted, and never blocks the writer", func(e *battery.Env) {
		hub := modern.NewHub(modern.HubOptions{Buffer: 2})
		f := battery.ModernFacade(e, func(c *modern.Config) { c.Notifier = hub })
		t := createThrough(e, f, modern.CreateOptions{Owner: "alice"})
		slow := hub.Subscribe(reference.Principal("alice"), t.TaskID)
		defer slow.Close()
		const writes = 10
		var werr error
		ok := battery.Finishes(5*time.Second, func() {
			for i := range writes {
				if _, err := f.Progress(e.Ctx, t.TaskID, fmt.Sprintf("step %d", i)); err != nil {
					werr = err
					return
				}
			}
		})
		input := fmt.Sprintf("%d facade Progress writes while a subscription with buffer 2 reads nothing", writes)
		if !e.Check(ok, input, "the writes finish within 5 s", "the writer is blocked by the subscriber") {
			// Unblock the writer so that Close (deferred) can take the hub.
			go func() {
				for range slow.C() {
				}
			}()
			return
		}
		e.RequireErr(werr, nil, input)
		got := drain(slow, writes, 200*time.Millisecond, 30*time.Millisecond)
		dropped := slow.Dropped()
		e.Check(len(got) <= 2 && uint64(len(got))+dropped == writes, input,
			"at most 2 delivered, the rest counted as dropped (delivered + dropped = 10)",
			fmt.Sprintf("%d delivered, %d dropped", len(got), dropped))

		// A subscriber that keeps up loses nothing and sees the writes in order.
		fast := hub.Subscribe(reference.System(), t.TaskID)
		defer fast.Close()
		for i := range 2 {
			w, err := f.Progress(e.Ctx, t.TaskID, fmt.Sprintf("fast %d", i))
			e.RequireErr(err, nil, "setup: facade Progress")
			got := drain(fast, 1, time.Second, 0)
			if e.Check(len(got) == 1, "a subscriber reading as the writes happen", "1 delivery per write", fmt.Sprint(len(got))) {
				modernspecs.CheckTask(e, "a subscriber reading as the writes happen", w, got[0])
			}
		}
		e.Check(fast.Dropped() == 0, "a subscriber reading as the writes happen", "0 dropped", fmt.Sprint(fast.Dropped()))
	})

	s.It("M-F-LISTEN-1", "a closed subscription receives nothing more and does not disturb writers", func(e *battery.Env) {
		hub := modern.NewHub(modern.HubOptions{})
		f := battery.ModernFacade(e, func(c *modern.Config) { c.Notifier = hub })
		t := createThrough(e, f, modern.CreateOptions{})
		sub := hub.Subscribe(reference.Anonymous(), t.TaskID)
		sub.Close()
		sub.Close() // idempotent
		ok := battery.Finishes(5*time.Second, func() {
			_, err := f.Progress(e.Ctx, t.TaskID, "after close")
			e.CheckErr(err, nil, "facade Progress after the only subscription closed")
		})
		e.Check(ok, "facade Progress after the only subscription closed", "the write finishes", "the writer is blocked")
		got := drain(sub, 0, 0, 30*time.Millisecond)
		e.Check(len(got) == 0, "a closed subscription, then a write", "no deliveries", versions(got))
	})
}

// versions renders deliveries as task@version for messages.
func versions(ts []modern.Task) string {
	if len(ts) == 0 {
		return "none"
	}
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s@%d", t.TaskID, t.Version)
	}
	return s
}
