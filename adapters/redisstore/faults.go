package redisstore

import (
	"github.com/storecheck/storecheck/adapters/internal/faultable"
	"github.com/storecheck/storecheck/conformance/harness"
)

// Backend is a Redis deployment that can be taken away: rediscontainer.Server.Faults or
// a rediscontainer.Cluster.
type Backend = faultable.Backend

// FaultHarness is Harness on a deployment the fault checks may pause, kill and restart
// (harness.FaultInjector), with the durability its persistence gives.
type FaultHarness struct {
	*Harness
	faultable.Injector
}

var _ harness.FaultInjector = (*FaultHarness)(nil)

// NewFaultHarness puts h's backend under the fault checks. durability is what the
// deployment's persistence keeps (rediscontainer.Persistence): the store adds nothing
// to it, every write is one Lua script whose effect is what the server persists.
func NewFaultHarness(h *Harness, b Backend, durability harness.Durability) *FaultHarness {
	return &FaultHarness{Harness: h, Injector: faultable.Injector{Backend: b, Declared: durability}}
}

// FailoverHarness is FaultHarness on a cluster with replicas: the fault checks may also
// kill one primary (harness.Failover).
type FailoverHarness struct {
	*FaultHarness
	harness.Failover
}

var _ harness.Failover = (*FailoverHarness)(nil)
