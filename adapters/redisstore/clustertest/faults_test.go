// go-redis v9.23.0's cluster client writes its node list without a lock while it
// reloads the cluster state during a failover (osscluster.go appendIfNotExist, caught by
// the race detector in its own code, not ours), so this test runs without -race:
// `make test` runs it in a second, race-free go test.

//go:build !race

package clustertest

import (
	"testing"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/adapters/redisstore/rediscontainer"
	"github.com/storecheck/storecheck/conformance/faults"
	"github.com/storecheck/storecheck/conformance/harness"
)

// TestFaultsFailover kills one primary of a cluster of its own (three primaries, each
// with a replica, appendfsync always) while clients write, and reports how many
// acknowledged writes the promotion of its replica lost: Redis replicates
// asynchronously, so losses are declared, never passed.
func TestFaultsFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a primary away for seconds; skipped with -short")
	}
	c, err := rediscontainer.StartFaultableCluster(t.Context(), rediscontainer.AOFAlways)
	if err != nil {
		containers.SkipOrFail(t, "redis cluster (faults)", err)
		return
	}
	containers.StopAtCleanup(t, c.Stop)
	h := redisstore.NewHarness("redis-cluster (always)", redisstore.ClusterClients(c.Options), buckets)
	t.Cleanup(h.Close)
	fh := &redisstore.FailoverHarness{
		FaultHarness: redisstore.NewFaultHarness(h, c, harness.Durability{
			MayLoseOnCrash: c.Persistence.LosesOnCrash(), MayLoseOnFailover: true,
			Setting: c.Persistence.Setting() + "; replicas asynchronous",
		}),
		Failover: c,
	}
	r := faults.Check(t, fh, faults.Config{Faults: []string{faults.Failover}})
	f := r.Faults[0]
	t.Logf("failover: %d of %d acknowledged writes lost", f.AckedLost, f.AckedChecked)
	for _, v := range f.Rules {
		want := faults.Passed
		if v.ID == faults.RuleDurable && f.AckedLost > 0 {
			want = faults.Declared
		}
		if v.Outcome != want && !(v.ID == faults.RuleOutage && v.Outcome == faults.NotExercised) {
			t.Errorf("%s %s, want %s: %v", v.ID, v.Outcome, want, v.Reasons)
		}
	}
}
