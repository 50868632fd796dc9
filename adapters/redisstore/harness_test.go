package redisstore_test

import (
	"testing"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/redisstore"
)

// TestClusterClientsOwnTheirSeeds: go-redis appends the nodes it discovers to its
// options' Addrs, so two clients of one harness must not share that slice's backing
// array (with room to spare, as an append leaves it, they would race on it).
func TestClusterClientsOwnTheirSeeds(t *testing.T) {
	seeds := make([]string, 0, 8)
	seeds = append(seeds, "127.0.0.1:1", "127.0.0.1:2")
	newClient := redisstore.ClusterClients(&redis.ClusterOptions{Addrs: seeds})
	a, b := newClient().(*redis.ClusterClient), newClient().(*redis.ClusterClient)
	defer a.Close()
	defer b.Close()
	for _, c := range []*redis.ClusterClient{a, b} {
		addrs := c.Options().Addrs
		if unsafe.SliceData(addrs) == unsafe.SliceData(seeds) || cap(addrs) != len(addrs) {
			t.Errorf("a client's Addrs shares the seeds' array or has room to append in place (len %d, cap %d)", len(addrs), cap(addrs))
		}
	}
	if unsafe.SliceData(a.Options().Addrs) == unsafe.SliceData(b.Options().Addrs) {
		t.Errorf("two clients of ClusterClients share one Addrs array")
	}
}
