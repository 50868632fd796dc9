// Package memwire runs the whole battery against memstore served over the wire
// protocol: this test binary re-executes itself as the child, which runs wire.Serve on
// its stdin and stdout. It proves the client and the server together lose nothing an
// in-process store keeps. (The same check through the CLI, `storecheck run --exec
// "storecheck serve --adapter memstore"`, lives with the CLI's tests.)
package memwire

import (
	"os"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/adapters/wire/wiretest"
	"github.com/storecheck/storecheck/conformance"
)

const childEnv = "STORECHECK_WIRE_SELFTEST_CHILD"

func TestMain(m *testing.M) { wiretest.Main(m, childEnv) }

func TestBatteryOverWire(t *testing.T) {
	h := wiretest.Start(t, 30*time.Second, []string{os.Args[0]}, wire.Options{Env: append(os.Environ(), childEnv+"=memstore")})
	if caps := h.Capabilities(); !caps.Legacy || !caps.Modern || !caps.Clock || caps.Shared {
		t.Fatalf("capabilities from the handshake = %+v, want both eras, clock, not shared", caps)
	}
	// Every call crosses a process boundary, and under -race both sides run slower:
	// the spec bound is raised so that the property checks finish rather than time out.
	conformance.Run(t, h, conformance.Options{SpecTimeout: 3 * time.Minute})
	if err := h.Client().Err(); err != nil {
		t.Errorf("the session ended with a protocol error: %v", err)
	}
}
