package elixirstore

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/adapters/wire/wiretest"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
)

// TestElixirExample: the example passes every store and facade rule of both eras under --strict
// (nothing failed, warned, partly verified or inconclusive). The shim serves each
// request in a process of its own, so the race rules (S-CONC-1, L-CONC-1, M-SWAP-4...)
// pass on the stores' compare-and-swap, not on a serial child.
func TestElixirExample(t *testing.T) {
	h := start(t)
	hello := h.Client().Hello()
	if !hello.Legacy || !hello.Modern || !hello.Clock || !hello.Cancel || !hello.Cleanup || !hello.ConditionalUpdate {
		t.Fatalf("handshake = %+v, want both eras, every optional legacy op and clock control", hello)
	}
	// The facade layer (protocol 2): the L-F-* and M-F-* rules run against lib/tasks/facade.ex.
	if hello.Protocol != 2 || !hello.Store || !hello.Facade || h.Capabilities().Facade != harness.FacadeOwn {
		t.Fatalf("handshake = %+v, want protocol 2 with the store and facade layers", hello)
	}
	// Every call crosses a process boundary, and under -race storecheck's side runs
	// slower: the spec bound is raised so that the property checks finish.
	conformance.Run(t, h, battery.Options{Strict: true, SpecTimeout: 3 * time.Minute})
	if err := h.Client().Err(); err != nil {
		t.Errorf("the session ended with a protocol error: %v", err)
	}
}

// start starts shim.exs as a wire child, closed when the test ends.
func start(t *testing.T) *wire.Harness {
	t.Helper()
	ex, err := exec.LookPath("elixir")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("elixir is not on PATH; CI needs it (apt-get install elixir)")
		}
		t.Skip("elixir is not on PATH: the Elixir example store cannot run here")
	}
	return wiretest.Start(t, 60*time.Second, []string{ex, "shim.exs"}, wire.Options{})
}
