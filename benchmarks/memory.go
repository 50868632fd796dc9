package benchmarks

import (
	"context"

	etslike "github.com/storecheck/storecheck/adapters/ets-like"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// etsRows is the row cap of the ets-like store under benchmark: room for every task a
// run makes, so that the cap never answers instead of the store.
const etsRows = 1 << 30

func init() {
	addTarget(Target{
		Name:    "memstore",
		Summary: "the embedded sharded in-memory store vs a plain mutex+map store that copies values",
		Start: func(context.Context, Env) (*Backend, error) {
			return &Backend{Store: inProcess("store", "memstore", newMemstore), Baseline: mapSubject()}, nil
		},
	})
	addTarget(Target{
		Name:    "ets-like",
		Summary: "the Go twin of ConduitMCP's EtsStore (one map, one lock) vs a plain mutex+map store that copies values",
		Start: func(context.Context, Env) (*Backend, error) {
			return &Backend{Store: inProcess("store", "ets-like", func(clock reference.Clock) (legacy.Store, modern.Store) {
				s := etslike.New(etslike.WithClock(clock), etslike.WithMaxRows(etsRows))
				return s.Legacy(), s.Modern()
			}), Baseline: mapSubject()}, nil
		},
	})
}

// inProcess is a Subject whose every Space is a fresh store of both eras from newStore,
// on a manual clock, held in this process: closing it leaves nothing behind.
func inProcess(label, what string, newStore func(clock reference.Clock) (legacy.Store, modern.Store)) Subject {
	return Subject{Label: label, What: what, Open: func(context.Context) (*Space, error) {
		clock, set := manualClock()
		l, m := newStore(clock)
		return &Space{
			Legacy: &storeLegacy{st: l, setClock: set},
			Modern: newStoreModern(m, clock),
			Close:  func(context.Context) error { return nil },
		}, nil
	}}
}

// newMemstore is a memstore reading clock.
func newMemstore(clock reference.Clock) (legacy.Store, modern.Store) {
	s := memstore.New(memstore.WithClock(clock))
	return s.Legacy(), s.Modern()
}
