package facadespecs

import (
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// expiredEverywhere checks that every facade call on id answers ErrNotFound: the
// worker's, and the client's as each of clients.
func expiredEverywhere(e *battery.Env, f modern.Facade, id, when string, clients ...reference.Caller) {
	type call struct {
		name string
		run  func() error
	}
	calls := []call{
		{"Status", func() error { _, err := f.Status(e.Ctx, id); return err }},
		{"Cancelled", func() error { _, err := f.Cancelled(e.Ctx, id); return err }},
		{"Progress", func() error { _, err := f.Progress(e.Ctx, id, "late"); return err }},
		{"RequireInput", func() error { _, err := f.RequireInput(e.Ctx, id, map[string]any{"late": "?"}); return err }},
		{"Complete", func() error { _, err := f.Complete(e.Ctx, id, map[string]any{"late": true}); return err }},
		{"Fail", func() error { _, err := f.Fail(e.Ctx, id, modern.RPCError(-1, "late", nil)); return err }},
	}
	for _, c := range clients {
		calls = append(calls,
			call{fmt.Sprintf("Get(%s)", c), func() error { _, err := f.Get(e.Ctx, id, c); return err }},
			call{fmt.Sprintf("Update(%s)", c), func() error { _, err := f.Update(e.Ctx, id, c, map[string]any{"k": "late"}); return err }},
			call{fmt.Sprintf("Cancel(%s)", c), func() error { _, err := f.Cancel(e.Ctx, id, c); return err }})
	}
	for _, c := range calls {
		err := c.run()
		e.Check(errors.Is(err, reference.ErrNotFound), fmt.Sprintf("facade %s of expired task %s, %s", c.name, battery.Literal(id), when), "ErrNotFound", err)
	}
}

func ModernTTL(s *battery.Suite) {
	s.It("M-F-TTL-1", "an expired task is not found for every caller, the worker included, before and after Sweep", func(e *battery.Env) {
		st := e.Modern()
		f := battery.ModernFacade(e)
		ttl := time.Duration(modernspecs.ShortTTL) * time.Millisecond
		if !e.HasClock() {
			ttl = 300 * time.Millisecond // the setup below must finish before it runs out
		}
		t, err := f.Create(e.Ctx, modern.CreateOptions{Owner: "alice", TTL: &ttl}, nil)
		e.RequireErr(err, nil, fmt.Sprintf("setup: facade Create({Owner: alice, TTL: %v})", ttl))
		_, err = f.RequireInput(e.Ctx, t.TaskID, map[string]any{"k": "?"})
		e.RequireErr(err, nil, "setup: facade RequireInput")
		// An unowned task, completed, expiring at the same instant: every caller could
		// see it while it lived, and a finished task's finality must not answer first.
		done, err := f.Create(e.Ctx, modern.CreateOptions{TTL: &ttl}, nil)
		e.RequireErr(err, nil, fmt.Sprintf("setup: facade Create({TTL: %v}) (unowned)", ttl))
		_, err = f.Complete(e.Ctx, done.TaskID, map[string]any{"content": []any{}})
		e.RequireErr(err, nil, "setup: facade Complete of the unowned task")
		keep := createThrough(e, f, modern.CreateOptions{Owner: "alice"})
		first, expiry := min(t.CreatedAt+*t.TTL, done.CreatedAt+*done.TTL), max(t.CreatedAt+*t.TTL, done.CreatedAt+*done.TTL)
		e.NoClockDrops("the tasks still visible 1 ms before expiry")
		if e.HasClock() {
			e.ManualClock().SetMillis(first - 1)
			_, err := f.Status(e.Ctx, t.TaskID)
			e.CheckErr(err, nil, fmt.Sprintf("facade Status(%s) 1 ms before expiry", battery.Literal(t.TaskID)))
			_, err = f.Status(e.Ctx, done.TaskID)
			e.CheckErr(err, nil, fmt.Sprintf("facade Status(%s) of the completed unowned task 1 ms before expiry", battery.Literal(done.TaskID)))
		}
		modernspecs.TimeTo(e, expiry)
		alice, bob := reference.Principal("alice"), reference.Principal("bob")
		expiredEverywhere(e, f, t.TaskID, "before Sweep", alice, reference.System())
		expiredEverywhere(e, f, done.TaskID, "completed, unowned, before Sweep", reference.Anonymous(), bob, reference.System())
		n, err := st.Sweep(e.Ctx)
		if e.CheckErr(err, nil, "Sweep()") {
			e.Check(n == 2, "Sweep() after two tasks expired (fresh namespace)", "2", fmt.Sprint(n))
		}
		expiredEverywhere(e, f, t.TaskID, "after Sweep", alice, reference.System())
		expiredEverywhere(e, f, done.TaskID, "completed, unowned, after Sweep", reference.Anonymous(), bob, reference.System())
		_, err = f.Status(e.Ctx, keep.TaskID)
		e.CheckErr(err, nil, "facade Status of a task without ttl after the Sweep")
	})
}
