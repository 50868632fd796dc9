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

// expiredEverywhere checks that every facade call on id answers ErrNotFound.
func expiredEverywhere(e *battery.Env, f modern.Facade, id, when string) {
	alice := reference.Principal("alice")
	calls := []struct {
		name string
		run  func() error
	}{
		{"Get(alice)", func() error { _, err := f.Get(e.Ctx, id, alice); return err }},
		{"Get(system)", func() error { _, err := f.Get(e.Ctx, id, reference.System()); return err }},
		{"Status", func() error { _, err := f.Status(e.Ctx, id); return err }},
		{"Cancelled", func() error { _, err := f.Cancelled(e.Ctx, id); return err }},
		{"Progress", func() error { _, err := f.Progress(e.Ctx, id, "late"); return err }},
		{"RequireInput", func() error { _, err := f.RequireInput(e.Ctx, id, map[string]any{"late": "?"}); return err }},
		{"Update(alice)", func() error { _, err := f.Update(e.Ctx, id, alice, map[string]any{"k": "late"}); return err }},
		{"Complete", func() error { _, err := f.Complete(e.Ctx, id, map[string]any{"late": true}); return err }},
		{"Fail", func() error { _, err := f.Fail(e.Ctx, id, modern.RPCError(-1, "late", nil)); return err }},
		{"Cancel(alice)", func() error { _, err := f.Cancel(e.Ctx, id, alice); return err }},
		{"Cancel(system)", func() error { _, err := f.Cancel(e.Ctx, id, reference.System()); return err }},
	}
	for _, c := range calls {
		err := c.run()
		e.Check(errors.Is(err, reference.ErrNotFound), fmt.Sprintf("facade %s of expired task %s, %s", c.name, battery.Q(id), when), "ErrNotFound", err)
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
		keep := createThrough(e, f, modern.CreateOptions{Owner: "alice"})
		expiry := t.CreatedAt + *t.TTL
		e.NoClockDrops("the task still visible 1 ms before expiry")
		if e.HasClock() {
			e.ManualClock().SetMillis(expiry - 1)
			_, err := f.Status(e.Ctx, t.TaskID)
			e.CheckErr(err, nil, fmt.Sprintf("facade Status(%s) 1 ms before expiry", battery.Q(t.TaskID)))
		}
		modernspecs.TimeTo(e, expiry)
		expiredEverywhere(e, f, t.TaskID, "before Sweep")
		n, err := st.Sweep(e.Ctx)
		if e.CheckErr(err, nil, "Sweep()") {
			e.Check(n == 1, "Sweep() after one task expired (fresh namespace)", "1", fmt.Sprint(n))
		}
		expiredEverywhere(e, f, t.TaskID, "after Sweep")
		_, err = f.Status(e.Ctx, keep.TaskID)
		e.CheckErr(err, nil, "facade Status of a task without ttl after the Sweep")
	})
}
