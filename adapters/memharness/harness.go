// Package memharness puts the embedded store, reference/memstore, under the battery. It
// lives apart from the store so that reference/ imports nothing from conformance/: the
// store can be embedded without the battery's packages.
package memharness

import (
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Harness puts memstore under the battery: every namespace is a fresh Store reading the
// battery's clock. Both eras and the SDK profile (memstore.SDK), clock control, no
// sharing (one instance per namespace).
func Harness() harness.Harness {
	return harness.WithSDK(eras(), func(clock reference.Clock) sdk.Store {
		return memstore.NewSDK(memstore.WithSDKClock(clock))
	})
}

func eras() harness.Harness {
	return harness.InProcess("memstore",
		harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: false, SelfContained: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			s := memstore.New(memstore.WithClock(clock))
			return s.Legacy(), s.Modern()
		})
}
