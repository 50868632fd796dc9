package benchmarks

import (
	"context"

	etslike "github.com/storecheck/storecheck/adapters/ets-like"
	"github.com/storecheck/storecheck/reference/memstore"
)

// etsRows is the row cap of the ets-like store under benchmark: room for every task a
// run makes, so that the cap never answers instead of the store.
const etsRows = 1 << 30

func init() {
	addTarget(Target{
		Name:    "memstore",
		Summary: "the embedded sharded in-memory store vs a plain mutex+map store that copies values",
		Start: func(context.Context, Env) (*Backend, error) {
			return &Backend{Store: Subject{Label: "store", What: "memstore", Open: func(context.Context) (*Space, error) {
				clock, set := manualClock()
				s := memstore.New(memstore.WithClock(clock))
				return &Space{
					Legacy: &storeLegacy{st: s.Legacy(), setClock: set},
					Modern: newStoreModern(s.Modern(), clock),
					Close:  func(context.Context) error { return nil },
				}, nil
			}}, Baseline: mapSubject()}, nil
		},
	})
	addTarget(Target{
		Name:    "ets-like",
		Summary: "the Go twin of ConduitMCP's EtsStore (one map, one lock) vs a plain mutex+map store that copies values",
		Start: func(context.Context, Env) (*Backend, error) {
			return &Backend{Store: Subject{Label: "store", What: "ets-like", Open: func(context.Context) (*Space, error) {
				clock, set := manualClock()
				s := etslike.New(etslike.WithClock(clock), etslike.WithMaxRows(etsRows))
				return &Space{
					Legacy: &storeLegacy{st: s.Legacy(), setClock: set},
					Modern: newStoreModern(s.Modern(), clock),
					Close:  func(context.Context) error { return nil },
				}, nil
			}}, Baseline: mapSubject()}, nil
		},
	})
}
