package conformance_test

import (
	"testing"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/conformance"
)

// TestMemstore runs the whole battery, both eras, against the embedded store. Ginkgo
// allows one RunSpecs per process, so this is the package's only battery test.
func TestMemstore(t *testing.T) {
	conformance.Run(t, memharness.Harness())
}
