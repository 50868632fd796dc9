package harness

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// WithReferenceFacades wraps h so that it declares FacadeOwn and each namespace serves
// storecheck's reference facades over its stores: for serving a Go store with a facade
// over the wire protocol (`storecheck serve --facade`), and for checking the wire
// protocol's facade layer against a facade known to be right.
func WithReferenceFacades(h Harness) Harness {
	return extended{h, func(c *Capabilities) { c.Facade = FacadeOwn }, func(ns Namespace, clock reference.Clock) Namespace {
		return &referenceNamespace{Namespace: ns, clock: clock}
	}}
}

type referenceNamespace struct {
	Namespace
	clock reference.Clock

	mu     sync.Mutex
	legacy legacy.Store
	modern modern.Store
}

// SDK passes the wrapped namespace's SDK-profile store through (the profile has no
// facade).
func (n *referenceNamespace) SDK(ctx context.Context) (sdk.Store, error) {
	return OpenSDK(ctx, n.Namespace)
}

func (n *referenceNamespace) LegacyFacade(ctx context.Context, cfg FacadeConfig) (legacy.Facade, error) {
	st, err := openOnce(ctx, &n.mu, &n.legacy, n.Namespace.Legacy)
	if err != nil {
		return nil, err
	}
	return legacy.New(st, legacy.WithRequireOwner(cfg.RequireOwner)), nil
}

func (n *referenceNamespace) ModernFacade(ctx context.Context, cfg FacadeConfig) (modern.Facade, error) {
	st, err := openOnce(ctx, &n.mu, &n.modern, n.Namespace.Modern)
	if err != nil {
		return nil, err
	}
	return modern.New(modern.Config{
		Store: st, Clock: n.clock, RequireOwner: cfg.RequireOwner, DefaultTTL: cfg.DefaultTTL, MaxTTL: cfg.MaxTTL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}), nil
}

// openOnce is *st, opened by open the first time it is asked for, under mu (which
// guards st).
func openOnce[S any](ctx context.Context, mu *sync.Mutex, st *S, open func(context.Context) (S, error)) (S, error) {
	mu.Lock()
	defer mu.Unlock()
	if any(*st) == nil {
		s, err := open(ctx)
		if err != nil {
			return s, err
		}
		*st = s
	}
	return *st, nil
}
