package legacy

import (
	"context"
	"time"

	"github.com/storecheck/storecheck/reference"
)

// Facade is the legacy facade's contract (docs/spec.md 1.2): what the L-F-* rules judge.
// *Tasks, the reference facade, implements it; so does a foreign facade reached over the
// wire protocol (adapters/wire), so that the same specs run against either.
type Facade interface {
	Create(ctx context.Context, id string, meta Task, owner string) (Task, error)
	Get(ctx context.Context, id string, caller reference.Caller) (Task, error)
	// Update is the worker's write: unscoped.
	Update(ctx context.Context, id string, changes Task) (Task, error)
	Cancel(ctx context.Context, id string, caller reference.Caller) (Task, error)
	List(ctx context.Context, opts ListOptions, caller reference.Caller) ([]Task, error)
	Cleanup(ctx context.Context, ttl time.Duration) (int, error)
}

var _ Facade = (*Tasks)(nil)
