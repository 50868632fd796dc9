// Command mystorecheck is the main a store author writes (README, "Checking a Go
// store"): the storecheck command line around one Go store, here the reference memstore.
// The cli tests check that it links no database driver, since it uses none.
package main

import (
	"github.com/storecheck/storecheck/cli"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	mystore "github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

func main() {
	cli.Main(cli.WithHarness(myHarness()))
}

func myHarness() harness.Harness {
	return harness.InProcess("mystore", harness.Capabilities{Legacy: true, Modern: true, Clock: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			s := mystore.New(mystore.WithClock(clock))
			return s.Legacy(), s.Modern()
		})
}
