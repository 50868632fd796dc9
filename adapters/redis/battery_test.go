package redisstore_test

import (
	"testing"

	redisstore "github.com/storecheck/storecheck/adapters/redis"
	"github.com/storecheck/storecheck/conformance"
)

// TestBattery runs the whole conformance battery, both eras, against one Redis server in
// a container (or STORECHECK_REDIS_URL). Every MUST must pass. Four buckets, so that the
// per-bucket paths of List, Cleanup and Sweep run even on one node.
func TestBattery(t *testing.T) {
	h := redisstore.NewHarness("redis", newClientFunc(t), 4)
	t.Cleanup(h.Close)
	conformance.Run(t, h)
}
