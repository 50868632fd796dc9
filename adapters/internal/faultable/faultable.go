// Package faultable names what the fault checks need from a database deployment the
// adapters' fault harnesses run on: the postgres and redis adapters share it.
package faultable

import (
	"context"

	"github.com/storecheck/storecheck/conformance/harness"
)

// Backend is a deployment that can be taken away: pgcontainer.Server.Faults,
// rediscontainer.Server.Faults or a rediscontainer.Cluster. What each call must do is
// harness.FaultInjector's.
type Backend interface {
	Pause(ctx context.Context) error
	Unpause(ctx context.Context) error
	Kill(ctx context.Context) error
	Restart(ctx context.Context) error
}

// Injector is what every adapter's fault harness adds to its plain harness: the backend
// the fault checks take away, and the durability the harness declares for it
// (harness.FaultInjector with the plain harness embedded beside it).
type Injector struct {
	Backend
	Declared harness.Durability
}

// Durability is the durability declared.
func (i Injector) Durability() harness.Durability { return i.Declared }
