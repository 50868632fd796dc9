package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// StoresFunc builds a fresh, empty pair of in-process stores reading clock. Either may be
// nil for an era the store does not implement.
type StoresFunc func(clock reference.Clock) (legacy.Store, modern.Store)

// ErrClosed answers a namespace used after Close.
var ErrClosed = errors.New("harness: namespace closed")

// InProcess is the Harness of an in-process store: every Open builds a fresh pair with
// newStores, so a namespace is a store of its own; Close drops it. Such a store has one
// instance per namespace, so caps.Shared should be false.
func InProcess(name string, caps Capabilities, newStores StoresFunc) Harness {
	return inProcess{name: name, caps: caps, newStores: newStores}
}

type inProcess struct {
	name      string
	caps      Capabilities
	newStores StoresFunc
}

func (h inProcess) Name() string               { return h.name }
func (h inProcess) Capabilities() Capabilities { return h.caps }

func (h inProcess) Open(ctx context.Context, clock reference.Clock) (Namespace, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", h.name, err)
	}
	l, m := h.newStores(clock)
	return &inProcessNamespace{name: h.name, legacy: l, modern: m}, nil
}

type inProcessNamespace struct {
	name   string
	mu     sync.Mutex
	closed bool
	legacy legacy.Store
	modern modern.Store
}

func (n *inProcessNamespace) Legacy(ctx context.Context) (legacy.Store, error) {
	return eraStore(&n.mu, &n.closed, &n.legacy, n.name, "legacy era")
}

func (n *inProcessNamespace) Modern(ctx context.Context) (modern.Store, error) {
	return eraStore(&n.mu, &n.closed, &n.modern, n.name, "modern era")
}

// eraStore is a namespace's store *st of one era, read under mu: ErrClosed once the
// namespace is closed, ErrUnsupported ("NAME has no WHAT") where it has none.
func eraStore[S any](mu *sync.Mutex, closed *bool, st *S, name, what string) (S, error) {
	mu.Lock()
	defer mu.Unlock()
	var none S
	switch {
	case *closed:
		return none, ErrClosed
	case any(*st) == nil:
		return none, fmt.Errorf("%s has no %s: %w", name, what, reference.ErrUnsupported)
	}
	return *st, nil
}

// Close drops the stores; their memory goes with the last reference.
func (n *inProcessNamespace) Close(ctx context.Context) error {
	n.mu.Lock()
	n.closed, n.legacy, n.modern = true, nil, nil
	n.mu.Unlock()
	return nil
}
