package benchmarks

import (
	"context"
	"errors"

	"github.com/storecheck/storecheck/conformance/harness"
)

// HarnessTarget benchmarks the store of any harness (a store author's own, given to
// cli.WithHarness) against the plain mutex+map baseline. Each Space is a fresh namespace
// of h on a manual clock. Run only the operations of the eras h declares (Ops filters
// them; HarnessOps lists them).
func HarnessTarget(h harness.Harness) Target {
	return Target{
		Name:    h.Name(),
		Summary: h.Name() + " (a harness) vs a plain mutex+map store that copies values",
		Start: func(context.Context, Env) (*Backend, error) {
			caps := h.Capabilities()
			return &Backend{Store: Subject{Label: "store", What: h.Name(), Open: func(ctx context.Context) (*Space, error) {
				clock, set := manualClock()
				ns, err := h.Open(ctx, clock)
				if err != nil {
					return nil, err
				}
				sp := &Space{Close: ns.Close}
				if caps.Legacy {
					l, err := ns.Legacy(ctx)
					if err != nil {
						return nil, errors.Join(err, ns.Close(ctx))
					}
					sp.Legacy = &storeLegacy{st: l, setClock: set}
				}
				if caps.Modern {
					m, err := ns.Modern(ctx)
					if err != nil {
						return nil, errors.Join(err, ns.Close(ctx))
					}
					sp.Modern = newStoreModern(m, clock)
				}
				return sp, nil
			}}, Baseline: mapSubject()}, nil
		},
	}
}

// HarnessOps are the operations HarnessTarget(h) can run: those of h's eras, and
// legacy-cleanup only when cleanup is true (the legacy store is a legacy.Cleaner).
func HarnessOps(h harness.Harness, cleanup bool) []string {
	caps := h.Capabilities()
	var ops []string
	for _, c := range Cases() {
		switch {
		case c.Op == "legacy-cleanup" && !cleanup:
		case len(c.Op) > 7 && c.Op[:7] == "legacy-" && !caps.Legacy:
		case len(c.Op) > 7 && c.Op[:7] == "modern-" && !caps.Modern:
		default:
			ops = append(ops, c.Op)
		}
	}
	return ops
}
