package cli

import (
	"context"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/conformance/harness"
)

func init() {
	addAdapter(adapter{
		name:     "memstore",
		summary:  "the embedded sharded in-memory store, both eras",
		parallel: perProcessor,
		open: func(context.Context, string) (harness.Harness, func(), error) {
			return memharness.Harness(), nil, nil
		},
	})
}
