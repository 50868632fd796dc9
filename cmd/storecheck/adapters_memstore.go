package main

import (
	"context"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference/memstore"
)

func init() {
	addAdapter(adapter{
		name:    "memstore",
		summary: "the embedded sharded in-memory store, both eras (the default)",
		open: func(context.Context, string) (harness.Harness, func(), error) {
			return memstore.Harness(), nil, nil
		},
	})
}
