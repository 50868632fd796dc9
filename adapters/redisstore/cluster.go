package redisstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/reference"
)

// Several MCP server instances over one key prefix (storecheck serve --mcp
// --namespace): OpenNamed opens a prefix by name and leaves its keys on Close; Cluster is
// what the instances share beyond the tasks: pub/sub for signals, a sorted set of
// leases.

// OpenNamed returns the namespace of the key prefix name; its Close leaves the keys for
// the other instances.
func (h *Harness) OpenNamed(ctx context.Context, clock reference.Clock, name string) (harness.Namespace, error) {
	if err := validPrefix(name); err != nil {
		return nil, err
	}
	if err := h.adminClient().Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redis harness %s: %w", h.name, err)
	}
	return &namespace{h: h, prefix: name, clock: clock, kept: true}, nil
}

// Cluster returns the MCP instances' backend on the namespace's prefix, on a client of
// its own (closed with the namespace).
func (n *namespace) Cluster(context.Context) (cluster.Backend, error) {
	c, err := n.clients.Add(func() (redis.UniversalClient, error) { return n.h.newClient(), nil }, errClosed)
	if err != nil {
		return nil, err
	}
	return NewCluster(c, n.prefix), nil
}

// claimExpired returns the members of the lease set whose end (score) is before
// ARGV[1] and moves their end to ARGV[2]: one script, so that each is claimed by one
// caller.
var claimExpired = redis.NewScript(`
local ks = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
for _, k in ipairs(ks) do redis.call('ZADD', KEYS[1], ARGV[2], k) end
return ks`)

// Cluster is cluster.Backend on a Redis server or cluster: signals are PUBLISH on a
// channel named after the prefix (a cluster forwards it to every node), heard by a
// SUBSCRIBE that go-redis renews when its connection breaks; leases are a sorted set
// under the prefix's hash tag (one slot), scored by their end in Unix milliseconds.
type Cluster struct {
	c               redis.UniversalClient
	channel, leases string

	mu     sync.Mutex
	closed bool
	subs   []*redis.PubSub
}

var _ cluster.Backend = (*Cluster)(nil)

// NewCluster returns the backend of prefix on c. Close does not close c.
func NewCluster(c redis.UniversalClient, prefix string) *Cluster {
	return &Cluster{c: c, channel: "{" + prefix + ":mcp}:signals", leases: "{" + prefix + ":mcp}:leases"}
}

func (c *Cluster) Publish(ctx context.Context, msg []byte) error {
	return c.c.Publish(ctx, c.channel, msg).Err()
}

// Subscribe returns once the subscription is confirmed, so that what is published after
// it is heard.
func (c *Cluster) Subscribe(ctx context.Context) (<-chan []byte, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, cluster.ErrClosed
	}
	ps := c.c.Subscribe(ctx, c.channel)
	c.subs = append(c.subs, ps)
	c.mu.Unlock()
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("redis cluster: subscribe: %w", err)
	}
	out := make(chan []byte, 256)
	in := ps.Channel()
	go func() {
		defer close(out)
		defer ps.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-in:
				if !ok {
					return
				}
				select {
				case out <- []byte(m.Payload):
				default: // a subscriber behind loses the signal
				}
			}
		}
	}()
	return out, nil
}

func (c *Cluster) Hold(ctx context.Context, key string, until time.Time) error {
	return c.c.ZAdd(ctx, c.leases, redis.Z{Score: float64(until.UnixMilli()), Member: key}).Err()
}

func (c *Cluster) Drop(ctx context.Context, key string) error {
	return c.c.ZRem(ctx, c.leases, key).Err()
}

func (c *Cluster) Expired(ctx context.Context, now, until time.Time) ([]string, error) {
	return claimExpired.Run(ctx, c.c, []string{c.leases}, now.UnixMilli(), until.UnixMilli()).StringSlice()
}

// Close ends the subscriptions; the client stays open.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	for _, ps := range c.subs {
		_ = ps.Close()
	}
	return nil
}
