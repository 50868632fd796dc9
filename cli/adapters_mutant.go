package cli

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/mutants"
)

func init() {
	addAdapter(adapter{
		name:    "mutant",
		summary: "a deliberately broken store of the mutant catalogue (storecheck mutants lists them; mutant:honest is the unbroken one)",
		argName: "NAME",
		open: func(_ context.Context, name string) (harness.Harness, func(), error) {
			m, ok := mutants.Lookup(name)
			if !ok {
				return nil, nil, fmt.Errorf("no mutant %q in the catalogue (storecheck mutants --list names them)", name)
			}
			return mutants.Harness(m), nil, nil
		},
	})
}
