package etslike

import (
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Harness puts etslike under the battery: every namespace is a fresh table built with
// opts and the battery's clock. Both eras, clock control, no sharing.
func Harness(opts ...Option) harness.Harness {
	return harness.InProcess("ets-like",
		harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: false, SelfContained: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			s := New(append(append([]Option{}, opts...), WithClock(clock))...)
			return s.Legacy(), s.Modern()
		})
}
