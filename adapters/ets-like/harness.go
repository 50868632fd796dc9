package etslike

import (
	"context"
	"errors"
	"sync"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Harness puts etslike under the battery: every namespace is a fresh table built with
// opts and the battery's clock. Both eras, clock control, no sharing.
func Harness(opts ...Option) harness.Harness { return etsHarness{opts: opts} }

type etsHarness struct{ opts []Option }

func (etsHarness) Name() string { return "ets-like" }

func (etsHarness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: false}
}

func (h etsHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	if err := live(ctx); err != nil {
		return nil, err
	}
	opts := append(append([]Option{}, h.opts...), WithClock(clock))
	return &namespace{store: New(opts...)}, nil
}

var errClosed = errors.New("etslike: namespace closed")

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

// Close drops the namespace's table.
func (n *namespace) Close(ctx context.Context) error {
	n.mu.Lock()
	n.store = nil
	n.mu.Unlock()
	return nil
}
