package conformance

import (
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func legacyCancelSpecs(s *suite) {
	s.It("L-CANCEL-1", "Cancel sets status cancelled and returns the task; a missing id is ErrNotFound", func(e *Env) {
		st := e.Legacy()
		c := requireCanceler(st)
		cancelled := legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)}

		// From every status: the store's Cancel is a plain write (finality is the
		// facade's), and it runs again after the facade's atomic claim, so it must
		// not fail on a task that is already cancelled or whose job has finished.
		for _, from := range reference.Statuses() {
			id := e.ID("cancel")
			mustCreate(e, st, id, legacy.Task{"job": "queued", "nested": map[string]any{"a": true}})
			cur, _ := stored(e, st, id)
			if from != reference.StatusWorking {
				cur = mustStatus(e, st, id, string(from))
			}
			input := fmt.Sprintf("Cancel(%s) of a %s task", Q(id), from)
			want := legacy.Merge(cur, cancelled)
			got, err := c.Cancel(e.Ctx, id)
			if e.CheckErr(err, nil, input) {
				checkTask(e, input+" returned", want, got)
			}
			checkStored(e, st, id, want, input)
		}

		missing := e.ID("missing")
		input := fmt.Sprintf("Cancel(%s) of an id never created", Q(missing))
		_, err := c.Cancel(e.Ctx, missing)
		e.CheckErr(err, reference.ErrNotFound, input)
		checkGone(e, st, missing, input)

		id := e.ID("deleted")
		mustCreate(e, st, id, legacy.Task{})
		if err := st.Delete(e.Ctx, id); err != nil {
			e.Fatalf("setup: Delete(%q): %v", id, err)
		}
		input = fmt.Sprintf("Cancel(%s) after Delete", Q(id))
		_, err = c.Cancel(e.Ctx, id)
		e.CheckErr(err, reference.ErrNotFound, input)
		checkGone(e, st, id, input)
	})
}
