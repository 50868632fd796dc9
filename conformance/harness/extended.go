package harness

import (
	"context"

	"github.com/storecheck/storecheck/reference"
)

// extended is a harness that adds to the one it wraps (WithSDK, WithReferenceFacades):
// caps declares what it adds, and wrap adds it to each namespace opened.
type extended struct {
	Harness
	caps func(*Capabilities)
	wrap func(ns Namespace, clock reference.Clock) Namespace
}

func (h extended) Capabilities() Capabilities {
	c := h.Harness.Capabilities()
	h.caps(&c)
	return c
}

func (h extended) Open(ctx context.Context, clock reference.Clock) (Namespace, error) {
	ns, err := h.Harness.Open(ctx, clock)
	if err != nil {
		return nil, err
	}
	return h.wrap(ns, clock), nil
}
