// Package python runs the whole battery against the Python example store
// (examples/python-store/store.py) over the wire protocol: the example must pass every
// MUST. It needs python3 on PATH; without it the test is skipped, saying so.
package python

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
)

func TestPythonExample(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python example store cannot run here")
	}
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "..", "..", "examples", "python-store", "store.py")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := wire.NewHarness(ctx, []string{py, script}, wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := h.Close(); err != nil {
			t.Errorf("closing the child: %v", err)
		}
	}()
	hello := h.Client().Hello()
	if !hello.Legacy || !hello.Modern || !hello.Clock || !hello.Cancel || !hello.Cleanup || !hello.ConditionalUpdate {
		t.Fatalf("handshake = %+v, want both eras, every optional legacy op and clock control", hello)
	}
	// The facade layer (protocol 2): the L-F-* and M-F-* rules run against facade.py.
	if hello.Protocol != 2 || !hello.Store || !hello.Facade || h.Capabilities().Facade != harness.FacadeOwn {
		t.Fatalf("handshake = %+v, want protocol 2 with the store and facade layers", hello)
	}
	// Every call crosses a process boundary, and under -race both sides run slower:
	// the spec bound is raised so that the property checks finish rather than time out.
	conformance.Run(t, h, conformance.Options{SpecTimeout: 3 * time.Minute})
	if err := h.Client().Err(); err != nil {
		t.Errorf("the session ended with a protocol error: %v", err)
	}
}
