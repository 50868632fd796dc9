package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy-era bodies of S-CONC-1: plain concurrency checks with exact outcomes. The
// randomised linearizability checks live in the property specs.

func init() { register(EraLegacy, legacyConcurrencyRuleSpecs) }

// faultList collects faults from goroutines.
type faultList struct {
	mu   sync.Mutex
	msgs []string
}

func (f *faultList) add(format string, args ...any) {
	f.mu.Lock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *faultList) report(e *Env, input, want string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.msgs) > 0 {
		e.Check(false, input, want, fmt.Sprintf("%d faults, e.g. %q", len(f.msgs), f.msgs[:min(len(f.msgs), 5)]))
	}
}

func legacyConcurrencyRuleSpecs(s *suite) {
	s.It("S-CONC-1", "every legacy method is safe for concurrent use: each goroutine sees its own writes", func(e *Env) {
		st := e.Legacy()
		const workers, rounds = 8, 15
		var faults faultList
		together(workers, func(w int) {
			for r := range rounds {
				id := e.ID(fmt.Sprintf("w%d-", w))
				meta := legacy.Task{"w": json.Number(fmt.Sprint(w)), "r": json.Number(fmt.Sprint(r))}
				created, err := st.Create(e.Ctx, id, meta)
				if err != nil {
					faults.add("Create(%q): %s", id, describeErr(err))
					continue
				}
				if got, err := st.Get(e.Ctx, id); err != nil || !legacy.Equal(got, created) {
					faults.add("Get(%q) after Create: %s %s", id, show(got), describeErr(err))
				}
				changes := legacy.Task{"step": json.Number(fmt.Sprint(r))}
				updated, err := st.Update(e.Ctx, id, changes)
				if err != nil || !legacy.Equal(updated, legacy.Merge(created, changes)) {
					faults.add("Update(%q, %s): %s %s", id, show(changes), show(updated), describeErr(err))
				}
				rows, err := st.List(e.Ctx, legacy.ListOptions{})
				if err != nil || !rowIDs(rows, nil)[id] {
					faults.add("List({}) after Create(%q): row missing or %s", id, describeErr(err))
				}
				if err := st.Delete(e.Ctx, id); err != nil {
					faults.add("Delete(%q): %s", id, describeErr(err))
				}
				if _, err := st.Get(e.Ctx, id); !errors.Is(err, reference.ErrNotFound) {
					faults.add("Get(%q) after Delete: %s", id, describeErr(err))
				}
			}
		})
		faults.report(e, fmt.Sprintf("%d goroutines each running Create, Get, Update, List, Delete, Get on their own ids %d times", workers, rounds),
			"every call to answer as it would alone")
	})

	s.It("S-CONC-1", "Updates are atomic: concurrent Gets and Lists never see half of one", func(e *Env) {
		st := e.Legacy()
		id := e.ID("torn")
		mustCreate(e, st, id, legacy.Task{"a": json.Number("0"), "b": json.Number("0")})
		const writes, readers = 150, 4
		var faults faultList
		torn := func(t legacy.Task, what string) {
			if !legacy.Equal(legacy.Task{"v": t["a"]}, legacy.Task{"v": t["b"]}) {
				faults.add("%s saw a=%s b=%s", what, show(t["a"]), show(t["b"]))
			}
		}
		together(readers+1, func(g int) {
			for i := 1; i <= writes; i++ {
				if g == 0 {
					v := json.Number(fmt.Sprint(i))
					if _, err := st.Update(e.Ctx, id, legacy.Task{"a": v, "b": v}); err != nil {
						faults.add("Update: %s", describeErr(err))
					}
					continue
				}
				if g%2 == 0 {
					rows, err := st.List(e.Ctx, legacy.ListOptions{})
					for _, r := range rows {
						if r.ID() == id {
							torn(r, "List")
						}
					}
					if err != nil {
						faults.add("List: %s", describeErr(err))
					}
					continue
				}
				t, err := st.Get(e.Ctx, id)
				if err != nil {
					faults.add("Get: %s", describeErr(err))
					continue
				}
				torn(t, "Get")
			}
		})
		faults.report(e, fmt.Sprintf("Update(%s, {a: i, b: i}) for i = 1..%d, with %d goroutines reading it meanwhile", Q(id), writes, readers),
			"every read to see a == b")
	})

	s.It("S-CONC-1", "concurrent Creates of one id leave exactly one of them; Cancel and Update of other keys both survive", func(e *Env) {
		st := e.Legacy()
		const creators, rounds = 6, 10
		for r := range rounds {
			id := e.ID("race-create")
			var mu sync.Mutex
			winners := map[int]legacy.Task{}
			var faults faultList
			together(creators, func(i int) {
				meta := legacy.Task{"creator": json.Number(fmt.Sprint(i))}
				got, err := st.Create(e.Ctx, id, meta)
				switch {
				case err == nil:
					mu.Lock()
					winners[i] = got
					mu.Unlock()
				case !errors.Is(err, reference.ErrExists):
					faults.add("Create(%q, %s): %s", id, show(meta), describeErr(err))
				}
			})
			input := fmt.Sprintf("%d concurrent Create(%s, {creator: i}) (round %d)", creators, Q(id), r)
			faults.report(e, input, "success or ErrExists")
			got, ok := stored(e, st, id)
			if !e.Check(ok && len(winners) > 0, input, "at least one success, and the task stored", fmt.Sprintf("%d successes, stored: %v", len(winners), ok)) {
				break
			}
			match := false
			for _, w := range winners {
				match = match || legacy.Equal(got, w)
			}
			if !e.Check(match, "Get("+Q(id)+") after "+input, "exactly the task one successful Create returned", got) {
				break
			}
		}

		c, ok := st.(legacy.Canceler)
		if !ok {
			return
		}
		var lost []string
		for r := range rounds * 2 {
			id := e.ID("race-cancel")
			mustCreate(e, st, id, legacy.Task{})
			var errs [2]error
			together(2, func(i int) {
				if i == 0 {
					_, errs[0] = c.Cancel(e.Ctx, id)
				} else {
					_, errs[1] = st.Update(e.Ctx, id, legacy.Task{"progress": json.Number("1")})
				}
			})
			// A call that failed wrote nothing to lose: a refusal (ErrUnsupported) is
			// the store declining the setup this check needs, any other error a fault
			// of that call, neither a lost write.
			cancelIn, updateIn := fmt.Sprintf("Cancel(%s)", Q(id)), fmt.Sprintf("Update(%s, {progress: 1})", Q(id))
			if errs[0] != nil || errs[1] != nil {
				for i, in := range []string{cancelIn, updateIn} {
					if errors.Is(errs[i], reference.ErrUnsupported) {
						e.RequireErr(errs[i], nil, "setup: "+in+" concurrent with the other write")
					}
					e.CheckErr(errs[i], nil, in+" concurrent with "+[]string{updateIn, cancelIn}[i])
				}
				break
			}
			got, _ := stored(e, st, id)
			if statusOf(got) != "cancelled" || got["progress"] == nil {
				lost = append(lost, fmt.Sprintf("round %d: %s", r, show(got)))
			}
		}
		e.Check(len(lost) == 0, "Cancel(id) concurrent with Update(id, {progress: 1})", "status cancelled and progress 1: both writes survive",
			fmt.Sprintf("%d lost writes, e.g. %q", len(lost), lost[:min(len(lost), 3)]))
	})
}
