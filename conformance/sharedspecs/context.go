package sharedspecs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy-era body of S-CTX-1; the modern body lives with the modern specs.

func LegacyContext(s *battery.Suite) {
	s.It("S-CTX-1", "every legacy method answers an ended context promptly with its error, and changes nothing or everything", func(e *battery.Env) {
		e.NotExercisedRemote(battery.RemoteEndedCtx)
		st := e.Legacy()
		ends := []struct {
			name string
			ctx  func() context.Context
			want error
		}{
			{"a cancelled context", battery.CancelledCtx, context.Canceled},
			{"a context past its deadline", battery.ExpiredCtx, context.DeadlineExceeded},
		}
		for _, end := range ends {
			// call runs one method with the ended context and checks that it answers
			// within 1 s with an error wrapping the context's; what the call left
			// behind is checked after it.
			call := func(what string, do func(ctx context.Context) error) {
				input := fmt.Sprintf("%s with %s", what, end.name)
				var err error
				if !battery.Finishes(time.Second, func() { err = do(end.ctx()) }) {
					e.Check(false, input, "an answer within 1 s", "no answer within 1 s")
					return
				}
				e.Check(errors.Is(err, end.want), input, "an error wrapping "+battery.DescribeErr(end.want), err)
			}

			id := e.ID("ctx")
			meta := legacy.Task{"a": "b"}
			before := e.NowMillis()
			call(fmt.Sprintf("Create(%s, %s)", battery.Literal(id), battery.Literal(meta)), func(ctx context.Context) error {
				_, err := st.Create(ctx, id, meta)
				return err
			})
			if got, ok := battery.Stored(e, st, id); ok {
				// Everything: the task exactly as a successful Create would have stored it.
				createdAt, _ := got.CreatedAt()
				if createdAt < before || createdAt > e.NowMillis() {
					createdAt = before
				}
				battery.CheckTask(e, fmt.Sprintf("Get(%s) after Create with %s", battery.Literal(id), end.name), legacy.Stamp(id, meta, createdAt), got)
				if err := st.Delete(e.Ctx, id); err != nil {
					e.Fatalf("setup: Delete(%q): %v", id, err)
				}
			}

			id = e.ID("ctx")
			task := battery.MustCreate(e, st, id, legacy.Task{"a": "b"})
			call(fmt.Sprintf("Get(%s)", battery.Literal(id)), func(ctx context.Context) error {
				_, err := st.Get(ctx, id)
				return err
			})
			call("List({})", func(ctx context.Context) error {
				_, err := st.List(ctx, legacy.ListOptions{})
				return err
			})

			changes := legacy.Task{"a": "changed", "c": "new"}
			call(fmt.Sprintf("Update(%s, %s)", battery.Literal(id), battery.Literal(changes)), func(ctx context.Context) error {
				_, err := st.Update(ctx, id, changes)
				return err
			})
			task = nothingOrEverything(e, st, id, task, legacy.Merge(task, changes), "Update with "+end.name)

			if cu, ok := st.(legacy.ConditionalUpdater); ok {
				changes := legacy.Task{"u": true}
				call(fmt.Sprintf("UpdateIf(%s, [working], %s)", battery.Literal(id), battery.Literal(changes)), func(ctx context.Context) error {
					_, err := cu.UpdateIf(ctx, id, []reference.Status{reference.StatusWorking}, changes)
					return err
				})
				task = nothingOrEverything(e, st, id, task, legacy.Merge(task, changes), "UpdateIf with "+end.name)
			}
			if c, ok := st.(legacy.Canceler); ok {
				call(fmt.Sprintf("Cancel(%s)", battery.Literal(id)), func(ctx context.Context) error {
					_, err := c.Cancel(ctx, id)
					return err
				})
				task = nothingOrEverything(e, st, id, task, legacy.Merge(task, legacy.Task{legacy.KeyStatus: "cancelled"}), "Cancel with "+end.name)
			}
			if c, ok := st.(legacy.Cleaner); ok {
				done := e.ID("ctx")
				battery.MustCreate(e, st, done, legacy.Task{})
				battery.MustStatus(e, st, done, "completed")
				call("Cleanup(0)", func(ctx context.Context) error {
					_, err := c.Cleanup(ctx, 0)
					return err
				})
			}
			call(fmt.Sprintf("Delete(%s)", battery.Literal(id)), func(ctx context.Context) error {
				return st.Delete(ctx, id)
			})
			if got, ok := battery.Stored(e, st, id); ok {
				battery.CheckTask(e, fmt.Sprintf("Get(%s) after Delete with %s", battery.Literal(id), end.name), task, got)
			}
		}
	})
}

// nothingOrEverything checks that id holds exactly before or exactly after, following a
// call that may or may not have been applied, and returns what it holds.
func nothingOrEverything(e *battery.Env, st legacy.Store, id string, before, after legacy.Task, what string) legacy.Task {
	got, ok := battery.Stored(e, st, id)
	input := fmt.Sprintf("Get(%s) after %s", battery.Literal(id), what)
	if !e.Check(ok, input, "the task, unchanged or fully changed", "ErrNotFound") {
		e.Fatalf("the task is gone")
	}
	switch {
	case legacy.Equal(got, before):
		return before
	case legacy.Equal(got, after):
		return after
	}
	e.Check(false, input, fmt.Sprintf("nothing changed, %s, or everything, %s", battery.Show(before), battery.Show(after)), got)
	return got
}
