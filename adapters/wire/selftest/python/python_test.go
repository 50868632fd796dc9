// Package python runs the whole battery against the Python example store
// (examples/python-store/store.py) over the wire protocol: the example must pass every
// MUST. The example served by a pool of threads (threaded.py) must pass the race rules,
// conclusively. It needs python3 on PATH; without it the tests are skipped, saying so.
package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/adapters/wire/wiretest"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
)

func TestPythonExample(t *testing.T) {
	h := start(t, "store.py")
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

// start starts the example script (in examples/python-store) as a wire child, closed
// when the test ends.
func start(t *testing.T, script string) *wire.Harness {
	t.Helper()
	py := python3(t)
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", "..", "..", "examples", "python-store", script)
	return wiretest.Start(t, 30*time.Second, []string{py, path}, wire.Options{})
}

// python3 is the path of python3, skipping the test when it is not on PATH.
func python3(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python example store cannot run here")
	}
	return py
}

// threadedRules are the race rules the threaded example is held to.
var threadedRules = []string{"L-CREATE-2", "M-CREATE-1", "L-F-FIN-2", "M-SWAP-4"}

// threadedChild names the process of TestThreadedExample that runs the battery.
const threadedChild = "STORECHECK_TEST_THREADED_CHILD"

// TestThreadedExample: the example served by a pool of threads, the store behind one
// lock (threaded.py), passes the race rules under --strict, so none of their checks is
// inconclusive. Ginkgo runs specs once per process and TestPythonExample runs them in
// this one, so the battery runs in a child process of this test binary.
func TestThreadedExample(t *testing.T) {
	if os.Getenv(threadedChild) != "" {
		h := start(t, "threaded.py")
		conformance.Run(t, h, conformance.Options{Rules: threadedRules, Strict: true, SpecTimeout: 3 * time.Minute})
		return
	}
	python3(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestThreadedExample$", "-test.v")
	cmd.Env = append(os.Environ(), threadedChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the battery's race rules against threaded.py: %v\n%s", err, out)
	}
	for _, id := range threadedRules {
		if !regexp.MustCompile(`(?m)^\s*` + id + `\s.*\spassed\s`).Match(out) {
			t.Errorf("the summary has no passed line for %s:\n%s", id, out)
		}
	}
}
