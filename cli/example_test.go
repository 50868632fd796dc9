package cli_test

import (
	"github.com/storecheck/storecheck/cli"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	mystore "github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

func myHarness() harness.Harness {
	return harness.InProcess("mystore", harness.Capabilities{Legacy: true, Modern: true, Clock: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			s := mystore.New(mystore.WithClock(clock))
			return s.Legacy(), s.Modern()
		})
}

// The main of a store author's own checker (cmd/mystore-check/main.go): the whole
// storecheck command line, with their store as the default adapter. Main exits, so this
// example is compiled, not run.
func ExampleMain() {
	// readme:cli-main
	cli.Main(cli.WithHarness(myHarness()))
	// readme:end
}
