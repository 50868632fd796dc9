// Package clustertest checks the reference MCP server scaled out: several instances
// (server.New) over one shared store, each with its backend's cluster.Signals and
// cluster.Leases, served on loopback HTTP listeners, are one server to their clients in
// both eras. A backend's test opens the instances' stores and calls Run.
package clustertest

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Instance is what one server instance runs over: its own clients of the shared store
// and of the backend's signals and leases.
type Instance struct {
	Legacy  legacy.Store
	Modern  modern.Store
	Backend cluster.Backend
}

// Lease is the instances' lease: short, so that a dead instance's tasks end within the
// test.
const Lease = 600 * time.Millisecond

// Bounds the checks hold the deployment to: a cancel stops the work within cancelBound
// (the work reads its task every 50 ms); a dead instance's task ends within deadBound
// of the death (the lease, a reaping round of a quarter lease, a margin for loaded
// machines).
const (
	cancelBound = time.Second
	deadBound   = Lease + Lease/4 + 3*time.Second
)

var errDead = errors.New("clustertest: the instance was killed")

// Node is one running instance, served on a loopback listener.
type Node struct {
	URL   string // the listener's base URL (the server answers on any path)
	srv   *server.Server
	dead  *atomic.Bool
	drops chan string // the leases its work dropped, as it ended
}

// Start serves an instance over in, with the deployment's secret and Lease; its clients
// of the store and backend fail once Kill is called, as a SIGKILLed process's writes
// never arrive. It is closed when the test ends.
func Start(t testing.TB, in Instance) *Node {
	t.Helper()
	n := &Node{dead: &atomic.Bool{}, drops: make(chan string, 64)}
	cfg := server.Config{Principals: map[string]string{"token-a": "alice", "token-b": "bob"},
		Secret: []byte("one deployment"), Lease: Lease, PageSize: 2}
	if in.Legacy != nil {
		cfg.Legacy = deadLegacy{in.Legacy, n.dead}
		if _, ok := in.Legacy.(legacy.ConditionalUpdater); ok {
			cfg.Legacy = deadConditional{deadLegacy{in.Legacy, n.dead}}
		}
	}
	if in.Modern != nil {
		cfg.Modern = deadModern{in.Modern, n.dead}
	}
	b := &deadBackend{Backend: in.Backend, dead: n.dead, drops: n.drops}
	cfg.Signals, cfg.Leases = b, b
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	n.URL, n.srv = hs.URL, srv
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { hs.Close(); srv.Close(); in.Backend.Close() }) })
	return n
}

// Kill stops the instance as SIGKILL would: nothing it does afterwards reaches the
// store or the backend.
func (n *Node) Kill() {
	n.dead.Store(true)
	_ = n.srv.Close()
}

// deadLegacy is a legacy store client that fails once its instance is dead.
type deadLegacy struct {
	legacy.Store
	dead *atomic.Bool
}

func (d deadLegacy) check() error {
	if d.dead.Load() {
		return errDead
	}
	return nil
}

func (d deadLegacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	return d.Store.Create(ctx, id, meta)
}

func (d deadLegacy) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	return d.Store.Update(ctx, id, changes)
}

// deadConditional is deadLegacy over a store with an atomic conditional update, which it
// keeps (the facade's finality rests on it).
type deadConditional struct{ deadLegacy }

func (d deadConditional) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	return d.Store.(legacy.ConditionalUpdater).UpdateIf(ctx, id, allowed, changes)
}

// deadModern is a modern store client that fails once its instance is dead.
type deadModern struct {
	modern.Store
	dead *atomic.Bool
}

func (d deadModern) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	if d.dead.Load() {
		return modern.Task{}, errDead
	}
	return d.Store.Create(ctx, task)
}

func (d deadModern) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if d.dead.Load() {
		return modern.Task{}, errDead
	}
	return d.Store.Swap(ctx, caller, expected, next)
}

// deadBackend is a backend client that fails once its instance is dead, and reports the
// leases its instance drops.
type deadBackend struct {
	cluster.Backend
	dead  *atomic.Bool
	drops chan<- string
}

func (d *deadBackend) Publish(ctx context.Context, msg []byte) error {
	if d.dead.Load() {
		return errDead
	}
	return d.Backend.Publish(ctx, msg)
}

func (d *deadBackend) Hold(ctx context.Context, key string, until time.Time) error {
	if d.dead.Load() {
		return errDead
	}
	return d.Backend.Hold(ctx, key, until)
}

func (d *deadBackend) Drop(ctx context.Context, key string) error {
	if d.dead.Load() {
		return errDead
	}
	select {
	case d.drops <- key:
	default:
	}
	return d.Backend.Drop(ctx, key)
}

func (d *deadBackend) Expired(ctx context.Context, now, until time.Time) ([]string, error) {
	if d.dead.Load() {
		return nil, errDead
	}
	return d.Backend.Expired(ctx, now, until)
}
