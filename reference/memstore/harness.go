package memstore

import (
	"context"
	"errors"
	"sync"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Harness puts memstore under the battery: every namespace is a fresh Store reading the
// battery's clock. Both eras, clock control, no sharing (one instance per namespace).
func Harness() harness.Harness { return memHarness{} }

type memHarness struct{}

func (memHarness) Name() string { return "memstore" }

func (memHarness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: false}
}

func (memHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	return &namespace{store: New(WithClock(clock))}, nil
}

// errClosed answers a namespace used after Close.
var errClosed = errors.New("memstore: namespace closed")

type namespace struct {
	mu    sync.Mutex
	store *Store
}

func (n *namespace) get() (*Store, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.store == nil {
		return nil, errClosed
	}
	return n.store, nil
}

func (n *namespace) Legacy(ctx context.Context) (legacy.Store, error) {
	s, err := n.get()
	if err != nil {
		return nil, err
	}
	return s.Legacy(), nil
}

func (n *namespace) Modern(ctx context.Context) (modern.Store, error) {
	s, err := n.get()
	if err != nil {
		return nil, err
	}
	return s.Modern(), nil
}

// Close drops the namespace's store; its memory goes with the last reference.
func (n *namespace) Close(ctx context.Context) error {
	n.mu.Lock()
	n.store = nil
	n.mu.Unlock()
	return nil
}
