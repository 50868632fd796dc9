package harness

import (
	"context"
	"fmt"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// SDKFunc builds a fresh, empty in-process SDK-profile store reading clock.
type SDKFunc func(clock reference.Clock) sdk.Store

// WithSDK adds the SDK task-store profile to h: h declares Capabilities.SDK, and every
// namespace it opens also implements SDKNamespace with a fresh store from newSDK (one
// instance per namespace, reading the namespace's clock).
func WithSDK(h Harness, newSDK SDKFunc) Harness {
	return extended{h, func(c *Capabilities) { c.SDK = true }, func(ns Namespace, clock reference.Clock) Namespace {
		return &sdkNamespace{Namespace: ns, name: h.Name(), store: newSDK(clock)}
	}}
}

type sdkNamespace struct {
	Namespace
	name   string
	mu     sync.Mutex
	closed bool
	store  sdk.Store
}

func (n *sdkNamespace) SDK(ctx context.Context) (sdk.Store, error) {
	return eraStore(&n.mu, &n.closed, &n.store, n.name, "SDK profile")
}

func (n *sdkNamespace) Close(ctx context.Context) error {
	n.mu.Lock()
	n.closed, n.store = true, nil
	n.mu.Unlock()
	return n.Namespace.Close(ctx)
}

// OpenSDK returns the SDK-profile store of ns, or reference.ErrUnsupported when ns has
// none.
func OpenSDK(ctx context.Context, ns Namespace) (sdk.Store, error) {
	s, ok := ns.(SDKNamespace)
	if !ok {
		return nil, fmt.Errorf("namespace has no SDK profile: %w", reference.ErrUnsupported)
	}
	return s.SDK(ctx)
}
