package legacyspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func Cancel(s *battery.Suite) {
	s.It("L-CANCEL-1", "Cancel sets status cancelled and returns the task; a missing id is ErrNotFound", func(e *battery.Env) {
		st := e.Legacy()
		c := battery.RequireCanceler(st)
		cancelled := legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)}

		// From every status: the store's Cancel is a plain write (finality is the
		// facade's), and it runs again after the facade's atomic claim, so it must
		// not fail on a task that is already cancelled or whose job has finished.
		for _, from := range reference.Statuses() {
			id := e.ID("cancel")
			battery.MustCreate(e, st, id, legacy.Task{"job": "queued", "nested": map[string]any{"a": true}})
			cur, _ := battery.Stored(e, st, id)
			if from != reference.StatusWorking {
				cur = battery.MustStatus(e, st, id, string(from))
			}
			input := fmt.Sprintf("Cancel(%s) of a %s task", battery.Literal(id), from)
			want := legacy.Merge(cur, cancelled)
			got, err := c.Cancel(e.Ctx, id)
			if e.CheckErr(err, nil, input) {
				battery.CheckTask(e, input+" returned", want, got)
			}
			battery.CheckStored(e, st, id, want, input)
		}

		missing := e.ID("missing")
		input := fmt.Sprintf("Cancel(%s) of an id never created", battery.Literal(missing))
		_, err := c.Cancel(e.Ctx, missing)
		e.CheckErr(err, reference.ErrNotFound, input)
		battery.CheckGone(e, st, missing, input)

		id := e.ID("deleted")
		battery.MustCreate(e, st, id, legacy.Task{})
		if err := st.Delete(e.Ctx, id); err != nil {
			e.Fatalf("setup: Delete(%q): %v", id, err)
		}
		input = fmt.Sprintf("Cancel(%s) after Delete", battery.Literal(id))
		_, err = c.Cancel(e.Ctx, id)
		e.CheckErr(err, reference.ErrNotFound, input)
		battery.CheckGone(e, st, id, input)
	})
}
