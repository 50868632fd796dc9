package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/storecheck/storecheck/reference/legacy"
)

func init() { register(EraLegacy, legacyConcurrencySpecs) }

// together runs fn(0..n-1) in n goroutines released at once, and waits for them all.
func together(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

func legacyConcurrencySpecs(s *suite) {
	s.It("L-CONC-1", "keeps every one of concurrent Updates of disjoint keys (no lost update)", func(e *Env) {
		st := e.Legacy()
		const writers, rounds, tasks = 8, 20, 3
		for range tasks {
			id := e.ID("conc")
			mustCreate(e, st, id, legacy.Task{"base": true})
			var mu sync.Mutex
			var errs []string
			together(writers, func(w int) {
				for r := range rounds {
					changes := legacy.Task{fmt.Sprintf("k%d", w): json.Number(fmt.Sprint(r))}
					if _, err := st.Update(e.Ctx, id, changes); err != nil {
						mu.Lock()
						errs = append(errs, fmt.Sprintf("Update(%q, %s): %s", id, show(changes), describeErr(err)))
						mu.Unlock()
						return
					}
				}
			})
			e.Check(len(errs) == 0, fmt.Sprintf("%d goroutines × %d Updates of disjoint keys of %s", writers, rounds, Q(id)), "every Update to succeed", errs)
			got, ok := stored(e, st, id)
			if !e.Check(ok, "Get("+Q(id)+") after the concurrent Updates", "the task", "ErrNotFound") {
				continue
			}
			var lost []string
			for w := range writers {
				k := fmt.Sprintf("k%d", w)
				if !legacy.Equal(legacy.Task{k: got[k]}, legacy.Task{k: json.Number(fmt.Sprint(rounds - 1))}) {
					lost = append(lost, fmt.Sprintf("%s=%s", k, show(got[k])))
				}
			}
			sort.Strings(lost)
			e.Check(len(lost) == 0 && got["base"] == true,
				fmt.Sprintf("Get(%s) after %d goroutines each wrote their own key %d times", Q(id), writers, rounds),
				fmt.Sprintf("base=true and every key k0..k%d at its last value %d", writers-1, rounds-1),
				fmt.Sprintf("lost or stale: %v in %s", lost, show(got)))
		}
	})

	s.It("L-CONC-1", "never resurrects a task deleted while an Update runs", func(e *Env) {
		st := e.Legacy()
		const rounds = 40
		var resurrected []string
		for r := range rounds {
			id := e.ID("resurrect")
			mustCreate(e, st, id, legacy.Task{"round": json.Number(fmt.Sprint(r))})
			var delErr error
			together(2, func(i int) {
				if i == 0 {
					_, _ = st.Update(e.Ctx, id, legacy.Task{"late": true}) // success or ErrNotFound: both fine
				} else {
					delErr = st.Delete(e.Ctx, id)
				}
			})
			e.CheckErr(delErr, nil, fmt.Sprintf("Delete(%s) concurrent with Update", Q(id)))
			if got, ok := stored(e, st, id); ok {
				resurrected = append(resurrected, show(got))
			}
		}
		e.Check(len(resurrected) == 0,
			fmt.Sprintf("%d rounds of Update(id, {\"late\":true}) concurrent with Delete(id), then Get(id)", rounds),
			"ErrNotFound every time: once Delete has returned, an Update either ran before it or finds nothing",
			fmt.Sprintf("%d tasks back from the dead, e.g. %v", len(resurrected), resurrected[:min(len(resurrected), 3)]))
	})
}
