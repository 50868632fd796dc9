package modernspecs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Prompt is how soon a call with an ended context must return (S-CTX-1).
const Prompt = time.Second

func Context(s *battery.Suite) {
	s.It("S-CTX-1", "every modern store method returns promptly with the context's error when the context has ended", func(e *battery.Env) {
		e.NotExercisedRemote(battery.RemoteEndedCtx)
		st := e.Modern()
		for _, cc := range []struct {
			name string
			ctx  func() context.Context
			want error
		}{
			{"cancelled", battery.CancelledCtx, context.Canceled},
			{"expired", battery.ExpiredCtx, context.DeadlineExceeded},
		} {
			cur := CreateTask(e, st, Owned(e, e.ID("ctx"), "alice"))
			// Each call runs with the ended context; afterwards the store must hold
			// either the state before the call or the whole effect of it.
			type call struct {
				name  string
				run   func(ctx context.Context) error
				after func(call string)
			}
			fresh := task(e, e.ID("ctx-new"))
			next := Next(cur, "swapped with an ended context")
			calls := []call{
				{"Create(" + battery.Literal(fresh) + ")", func(ctx context.Context) error { _, err := st.Create(ctx, fresh); return err },
					func(c string) {
						if got, ok := Stored(e, st, fresh.TaskID); ok {
							CheckTask(e, "after "+c+" failed: Get (all or nothing)", WithVersion(fresh, 1), got)
						}
					}},
				{fmt.Sprintf("Get(%s, system)", battery.Literal(cur.TaskID)), func(ctx context.Context) error {
					_, err := st.Get(ctx, cur.TaskID, reference.System())
					return err
				}, nil},
				{fmt.Sprintf("Get(%s, principal \"alice\")", battery.Literal(cur.TaskID)), func(ctx context.Context) error {
					_, err := st.Get(ctx, cur.TaskID, reference.Principal("alice"))
					return err
				}, nil},
				{SwapCall(reference.System(), cur.Version, next), func(ctx context.Context) error {
					_, err := st.Swap(ctx, reference.System(), cur.Version, next)
					return err
				}, func(c string) {
					got, ok := Stored(e, st, cur.TaskID)
					if e.Check(ok, "after "+c+" failed: Get", "the task", "ErrNotFound") &&
						!modern.Equal(got, cur) {
						CheckTask(e, "after "+c+" failed: Get (all or nothing: the old task or the whole new one)", WithVersion(next, cur.Version+1), got)
						cur = got
					}
				}},
				{"Delete(" + battery.Literal(cur.TaskID) + ")", func(ctx context.Context) error { return st.Delete(ctx, cur.TaskID) },
					func(c string) {
						if got, ok := Stored(e, st, cur.TaskID); ok {
							CheckTask(e, "after "+c+" failed: Get (all or nothing)", cur, got)
						}
					}},
				{"Sweep()", func(ctx context.Context) error { _, err := st.Sweep(ctx); return err }, nil},
			}
			for _, c := range calls {
				input := fmt.Sprintf("%s with a %s context", c.name, cc.name)
				var err error
				start := time.Now()
				if !e.Check(battery.Finishes(Prompt, func() { err = c.run(cc.ctx()) }), input, "an answer within 1 s", "no answer within 1 s") {
					continue
				}
				e.Check(err != nil && errors.Is(err, cc.want), input,
					fmt.Sprintf("an error wrapping %q, within 1 s", cc.want), fmt.Sprintf("%s after %v", battery.DescribeErr(err), time.Since(start).Round(time.Millisecond)))
				if c.after != nil {
					c.after(input)
				}
			}
		}
	})

	s.It("S-CTX-1", "a modern Swap cut off by its deadline changed nothing or everything", func(e *battery.Env) {
		st := e.Modern()
		cur := CreateTask(e, st, task(e, e.ID("ctx-race")))
		// pending are the cut-off writes the store did not show at once. A write already
		// on its way to the backend may still land after the call gave up, whole (see
		// "S-CTX-1 while blocked" in docs/spec.md), so a later Get may find one of them.
		// All of them expect cur's version: at most one lands, and none once the
		// version has moved on.
		var pending []modern.Task
		for i := range 300 {
			next := Next(cur, fmt.Sprintf("write %d", i))
			next.Result = map[string]any{"i": fmt.Sprint(i), "pad": longText(4 << 10)}
			d := time.Duration(i%30) * 5 * time.Microsecond
			ctx, cancel := context.WithTimeout(e.Ctx, d)
			// The deadline goes first: a long input is cut short in the summary.
			call := fmt.Sprintf("with a %v deadline, %s", d, SwapCall(reference.System(), cur.Version, next))
			var (
				got modern.Task
				err error
			)
			ok := battery.Finishes(Prompt, func() { got, err = st.Swap(ctx, reference.System(), cur.Version, next) })
			cancel()
			if !e.Check(ok, call, "an answer within 1 s", "no answer within 1 s") {
				return
			}
			want := WithVersion(next, cur.Version+1)
			conflict := errors.Is(err, reference.ErrConflict) && len(pending) > 0
			switch {
			case err == nil:
				CheckTask(e, call+" returned", want, got)
			case errors.Is(err, context.DeadlineExceeded):
				// Cut off: judged below by what the store holds.
			case conflict:
				// An earlier cut-off write landed before this one ran: judged below.
			default:
				e.Check(false, call, "success, or an error wrapping the context's", err)
			}
			stored, found := Stored(e, st, cur.TaskID)
			if !e.Check(found, "Get after "+call, "the task", "ErrNotFound") {
				return
			}
			switch {
			case err == nil:
				// Acknowledged: the write must be there, whatever was pending.
				if !CheckTask(e, "acknowledged but not visible: Get after a Swap that succeeded must return its write; the Swap "+call, want, stored) {
					return
				}
				pending = nil
			case modern.Equal(stored, cur) && !conflict:
				pending = append(pending, want)
				continue
			case modern.Equal(stored, want) && !conflict:
				pending = nil
			case slices.ContainsFunc(pending, func(p modern.Task) bool { return modern.Equal(p, stored) }):
				pending = nil
			default:
				if conflict {
					e.Check(false, "conflict with no cut-off write landed: Get after a Swap that answered a conflict must return the whole of an earlier cut-off write; the Swap "+call,
						fmt.Sprintf("one of the %d cut-off writes not yet seen, the last %s", len(pending), battery.Show(pending[len(pending)-1])), stored)
					return
				}
				CheckTask(e, "neither old nor new: Get after a Swap cut off by its deadline must return the old task, the whole new one or the whole of an earlier cut-off write landing late; the Swap "+call, want, stored)
				return
			}
			cur = stored
		}
	})
}
