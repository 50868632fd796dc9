package benchmarks

import (
	"context"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/adapters/wire"
)

func init() {
	addTarget(Target{
		Name:    "wire",
		Summary: "memstore served by a child process over the wire protocol (JSON Lines on stdio) vs memstore in process",
		Start:   startWire,
	})
}

func startWire(ctx context.Context, env Env) (*Backend, error) {
	if len(env.WireCommand) == 0 {
		return nil, fmt.Errorf("%w: no command serves a store over the wire protocol", ErrUnavailable)
	}
	c, err := wire.Start(ctx, env.WireCommand, wire.Options{Env: env.WireEnv})
	if err != nil {
		return nil, err
	}
	h := c.Hello()
	if !h.Legacy || !h.Modern || !h.Clock || !h.Cleanup {
		_ = c.Close()
		return nil, fmt.Errorf("wire: %s serves %+v; the benchmarks need both eras, cleanup and clock control", strings.Join(env.WireCommand, " "), h)
	}
	store := Subject{Label: "store", What: h.Name + " over the wire", Open: func(ctx context.Context) (*Space, error) {
		if err := c.Reset(ctx); err != nil {
			return nil, err
		}
		clock, setLocal := manualClock()
		set := func(ctx context.Context, ms int64) error {
			if err := setLocal(ctx, ms); err != nil {
				return err
			}
			return c.SetClock(ctx, &ms)
		}
		if err := set(ctx, clock.Now().UnixMilli()); err != nil {
			return nil, err
		}
		return &Space{
			Legacy: &storeLegacy{st: c.Legacy(), setClock: set},
			Modern: newStoreModern(c.Modern(), clock),
			Close:  func(ctx context.Context) error { return c.Reset(ctx) },
		}, nil
	}}
	base := inProcess("baseline", "memstore in process", newMemstore)
	return &Backend{Store: store, Baseline: base, Stop: func(context.Context) error { return c.Close() }}, nil
}
