package cli

import (
	"context"
	"errors"
	"flag"

	etslike "github.com/storecheck/storecheck/adapters/ets-like"
	"github.com/storecheck/storecheck/conformance/harness"
)

func init() {
	var maxRows int
	addAdapter(adapter{
		name:     "ets-like",
		summary:  "the Go twin of ConduitMCP's ETS table: one table, compiled list predicate, a row cap (--ets-max-rows)",
		parallel: perProcessor,
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&maxRows, "ets-max-rows", etslike.DefaultMaxRows, "ets-like: the row cap (both eras, terminal rows included)")
		},
		open: func(context.Context, string) (harness.Harness, func(), error) {
			if maxRows < 1 {
				return nil, nil, errors.New("--ets-max-rows must be at least 1")
			}
			return etslike.Harness(etslike.WithMaxRows(maxRows)), nil, nil
		},
	})
}
