package redisstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/adapters/redisstore/rediscontainer"
	"github.com/storecheck/storecheck/reference"
)

// srv is one server for the whole test binary: started by the first test that needs it,
// stopped by TestMain. srv.Get(t) is its options, or skips the test when Docker is absent
// outside CI and fails it otherwise (containers.SkipOrFail).
var srv = containers.NewShared("redis", rediscontainer.Start)

func TestMain(m *testing.M) { srv.Main(m) }

// newClientFunc makes a new client on the shared server per call.
func newClientFunc(t *testing.T) func() redis.UniversalClient { return redisstore.Clients(srv.Get(t)) }

// fixture is a fresh prefix on the shared server with both stores, deleted with the test.
type fixture struct {
	client redis.UniversalClient
	prefix string
	clock  *reference.ManualClock
	store  *redisstore.Store
	legacy *redisstore.Legacy
	modern *redisstore.Modern
}

var fixtureSeq struct {
	sync.Mutex
	n int
}

func newFixture(t *testing.T, opts ...redisstore.Option) *fixture {
	t.Helper()
	c := newClientFunc(t)()
	fixtureSeq.Lock()
	fixtureSeq.n++
	n := fixtureSeq.n
	fixtureSeq.Unlock()
	f := &fixture{
		client: c,
		prefix: "unit-" + time.Now().Format("150405.000000") + "-" + string(rune('a'+n%26)),
		clock:  reference.NewManualClock(time.UnixMilli(1_764_400_000_000)),
	}
	all := append([]redisstore.Option{redisstore.WithPrefix(f.prefix), redisstore.WithClock(f.clock), redisstore.WithBuckets(4)}, opts...)
	s, err := redisstore.New(c, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.store, f.legacy, f.modern = s, s.Legacy(), s.Modern()
	t.Cleanup(func() {
		if _, err := redisstore.DeletePrefix(context.Background(), c, f.prefix); err != nil {
			t.Errorf("DeletePrefix: %v", err)
		}
		_ = c.Close()
	})
	return f
}
