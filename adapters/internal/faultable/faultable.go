// Package faultable names what the fault checks need from a database deployment the
// adapters' fault harnesses run on: the postgres and redis adapters share it.
package faultable

import "context"

// Backend is a deployment that can be taken away: pgcontainer.Server.Faults,
// rediscontainer.Server.Faults or a rediscontainer.Cluster. What each call must do is
// harness.FaultInjector's.
type Backend interface {
	Pause(ctx context.Context) error
	Unpause(ctx context.Context) error
	Kill(ctx context.Context) error
	Restart(ctx context.Context) error
}
