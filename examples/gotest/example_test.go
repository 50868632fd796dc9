package gotest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	mystore "github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// The README quotes each region between "readme:NAME" and "readme:end" verbatim
// (readme_test.go checks it).

// readme:harness
// myHarness puts mystore under the battery: every namespace is a fresh store reading
// the battery's clock.
func myHarness() harness.Harness {
	return harness.InProcess("mystore", harness.Capabilities{Legacy: true, Modern: true, Clock: true, SelfContained: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			s := mystore.New(mystore.WithClock(clock))
			return s.Legacy(), s.Modern()
		})
}

func TestBattery(t *testing.T) { conformance.Run(t, myHarness()) } // or RunLegacy / RunModern
// readme:end

// readme:configurations
// TestConfigurations checks several configurations of one store in one test binary:
// one subtest each. Ginkgo runs specs once per process, so every Run after the first
// re-executes the test binary for just its subtest; go test -run selects one.
func TestConfigurations(t *testing.T) {
	for _, shards := range []int{1, 64} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			h := harness.InProcess(fmt.Sprintf("mystore/%d-shards", shards),
				harness.Capabilities{Legacy: true, Modern: true, Clock: true, SelfContained: true},
				func(clock reference.Clock) (legacy.Store, modern.Store) {
					s := mystore.New(mystore.WithClock(clock), mystore.WithShards(shards))
					return s.Legacy(), s.Modern()
				})
			conformance.Run(t, h)
		})
	}
}

// readme:end

// ExampleDetect prints what the battery detects of a store before it runs; it heads
// every summary.
func ExampleDetect() {
	d, err := conformance.Detect(context.Background(), myHarness())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(d)
	// Output:
	// store mystore: eras legacy, modern
	//   clock control: yes (time-dependent specs use a manual clock)
	//   shared instances: no (one instance per namespace)
	//   optional legacy operations: Cancel (legacy.Canceler) yes, Cleanup (legacy.Cleaner) yes, UpdateIf (legacy.ConditionalUpdater) yes, ListAfter (legacy.Pager) yes
}
