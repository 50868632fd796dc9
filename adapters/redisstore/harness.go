package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/internal/opened"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Harness puts the store under the battery on one Redis server or one Redis Cluster.
// Every namespace is a fresh random key prefix; its Close deletes the prefix's keys
// (SCAN on every master), so specs never see each other's tasks and the server keeps
// nothing afterwards (B-ISO-1). Each Legacy or Modern call on a namespace opens a new
// client, so the battery's second instance (S-SHARE-1, M-CREATE-2) is a distinct client.
type Harness struct {
	name      string
	newClient func() redis.UniversalClient
	buckets   int

	mu    sync.Mutex
	admin redis.UniversalClient
}

var _ harness.Harness = (*Harness)(nil)

// NewHarness returns a harness named name whose stores use clients made by newClient
// (each call a new client: the harness closes them) and buckets index buckets. Call
// Close when done.
func NewHarness(name string, newClient func() redis.UniversalClient, buckets int) *Harness {
	return &Harness{name: name, newClient: newClient, buckets: buckets}
}

// Clients is a NewHarness client function for one server: each call a new client on a
// copy of opts, which the clients never share.
func Clients(opts *redis.Options) func() redis.UniversalClient {
	return func() redis.UniversalClient {
		o := *opts
		return redis.NewClient(&o)
	}
}

// ClusterClients is Clients for a Redis Cluster. Each client gets its own copy of the
// seed addresses too: go-redis appends the nodes it discovers to the Addrs slice it was
// given, so clients that shared one backing array would race on it.
func ClusterClients(opts *redis.ClusterOptions) func() redis.UniversalClient {
	return func() redis.UniversalClient {
		o := *opts
		o.Addrs = slices.Clip(slices.Clone(opts.Addrs))
		return redis.NewClusterClient(&o)
	}
}

func (h *Harness) Name() string { return h.name }

func (h *Harness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: true}
}

// Close closes the harness's administrative client. Namespaces still open keep theirs.
func (h *Harness) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.admin != nil {
		_ = h.admin.Close()
		h.admin = nil
	}
}

func (h *Harness) adminClient() redis.UniversalClient {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.admin == nil {
		h.admin = h.newClient()
	}
	return h.admin
}

// Open returns a namespace on a fresh random prefix whose stores read clock.
func (h *Harness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	admin := h.adminClient()
	if err := admin.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redis harness %s: %w", h.name, err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &namespace{h: h, prefix: "storecheck-" + hex.EncodeToString(b[:]), clock: clock}, nil
}

type namespace struct {
	h      *Harness
	prefix string
	clock  reference.Clock

	clients opened.Set[redis.UniversalClient]
	kept    bool // a named prefix (cluster.go): Close leaves its keys
}

var errClosed = errors.New("redis harness: namespace closed")

func (n *namespace) store() (*Store, error) {
	c, err := n.clients.Add(func() (redis.UniversalClient, error) { return n.h.newClient(), nil }, errClosed)
	if err != nil {
		return nil, err
	}
	// The backstop is on so that its code path runs; at an hour past the logical
	// expiry it never fires during a spec.
	return New(c, WithPrefix(n.prefix), WithBuckets(n.h.buckets), WithClock(n.clock), WithExpiryBackstop(time.Hour))
}

func (n *namespace) Legacy(context.Context) (legacy.Store, error) {
	s, err := n.store()
	if err != nil {
		return nil, err
	}
	return s.Legacy(), nil
}

func (n *namespace) Modern(context.Context) (modern.Store, error) {
	s, err := n.store()
	if err != nil {
		return nil, err
	}
	return s.Modern(), nil
}

// Close closes the namespace's clients and deletes every key of its prefix.
func (n *namespace) Close(ctx context.Context) error {
	for _, c := range n.clients.Close() {
		_ = c.Close()
	}
	if n.kept {
		return nil
	}
	// The spec's context may already be over; the keys must go all the same.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := DeletePrefix(ctx, n.h.adminClient(), n.prefix); err != nil {
		return fmt.Errorf("redis harness: delete prefix %s: %w", n.prefix, err)
	}
	return nil
}

// DeletePrefix deletes every key of prefix (Pattern) and returns how many: SCAN on every
// master of a cluster (on the server of a single node), one UNLINK per key, pipelined.
// Keys of several slots cannot go in one command on a cluster, hence one per key.
func DeletePrefix(ctx context.Context, c redis.UniversalClient, prefix string) (int, error) {
	if err := validPrefix(prefix); err != nil {
		return 0, err
	}
	var (
		mu    sync.Mutex
		total int
	)
	del := func(ctx context.Context, node *redis.Client) error {
		iter := node.Scan(ctx, 0, Pattern(prefix), 1000).Iterator()
		var keys []string
		flush := func() error {
			if len(keys) == 0 {
				return nil
			}
			pipe := node.Pipeline()
			for _, k := range keys {
				pipe.Unlink(ctx, k)
			}
			_, err := pipe.Exec(ctx)
			mu.Lock()
			total += len(keys)
			mu.Unlock()
			keys = keys[:0]
			return err
		}
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
			if len(keys) == 1000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := iter.Err(); err != nil {
			return err
		}
		return flush()
	}
	var err error
	switch x := c.(type) {
	case *redis.ClusterClient:
		err = x.ForEachMaster(ctx, del)
	case *redis.Client:
		err = del(ctx, x)
	default:
		err = fmt.Errorf("unsupported client type %T", c)
	}
	return total, err
}

var _ harness.Blocker = (*namespace)(nil)

// pauseReads is how long a CLIENT PAUSE ALL of Block lasts: every client waits, the
// one that would unpause too, so the pause ends by itself and Release waits for it. It
// must outlast the held call's context (100 ms after the call starts, S-CTX-1) with room
// for a loaded machine's scheduling; a call the pause did not hold reads inconclusive,
// never passed.
const pauseReads = 600 * time.Millisecond

// Block pauses the server (CLIENT PAUSE on every primary, from the harness's own
// client): WRITE holds back the store's writes (and its scripts) until Release unpauses;
// with reads, ALL holds back every command for pauseReads, and Release waits for the
// pause to end. The whole server pauses, not only the namespace: do not point a harness
// that blocks at a server others use.
func (n *namespace) Block(ctx context.Context, era harness.Era, id string, reads bool) (harness.Hold, error) {
	mode, d := "WRITE", 30*time.Second
	if reads {
		mode, d = "ALL", pauseReads
	}
	admin := n.h.adminClient()
	each := func(ctx context.Context, f func(ctx context.Context, c *redis.Client) error) error {
		switch c := admin.(type) {
		case *redis.Client:
			return f(ctx, c)
		case *redis.ClusterClient:
			return c.ForEachMaster(ctx, f)
		}
		return fmt.Errorf("redis harness: block: %w: client %T", reference.ErrUnsupported, admin)
	}
	until := time.Now().Add(d)
	err := each(ctx, func(ctx context.Context, c *redis.Client) error {
		return c.Do(ctx, "CLIENT", "PAUSE", d.Milliseconds(), mode).Err()
	})
	if err != nil {
		return harness.Hold{}, fmt.Errorf("redis harness: block: %w", err)
	}
	return harness.Hold{How: "CLIENT PAUSE " + mode, Release: func(ctx context.Context) error {
		if reads {
			// Nothing gets through a pause of every client: wait for its end.
			select {
			case <-time.After(time.Until(until)):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return each(ctx, func(ctx context.Context, c *redis.Client) error {
			return c.Do(ctx, "CLIENT", "UNPAUSE").Err()
		})
	}}, nil
}
