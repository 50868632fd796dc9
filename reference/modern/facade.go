package modern

import (
	"context"

	"github.com/storecheck/storecheck/reference"
)

// Facade is the modern facade's contract (docs/spec.md 2.2): what the M-F-* rules judge.
// *Tasks, the reference facade, implements it; so does a foreign facade reached over the
// wire protocol (adapters/wire), so that the same specs run against either.
type Facade interface {
	Create(ctx context.Context, opts CreateOptions, start func(ctx context.Context, id string) error) (Task, error)
	// Get, Update and Cancel are the client's: scoped by caller.
	Get(ctx context.Context, id string, caller reference.Caller) (Task, error)
	Update(ctx context.Context, id string, caller reference.Caller, responses map[string]any) (Task, error)
	Cancel(ctx context.Context, id string, caller reference.Caller) (Task, error)
	// Status, Progress, RequireInput, Complete and Fail are the worker's: unscoped.
	Status(ctx context.Context, id string) (Task, error)
	Cancelled(ctx context.Context, id string) (bool, error)
	Progress(ctx context.Context, id, message string) (Task, error)
	RequireInput(ctx context.Context, id string, requests map[string]any) (Task, error)
	Complete(ctx context.Context, id string, result map[string]any) (Task, error)
	Fail(ctx context.Context, id string, rpcError map[string]any) (Task, error)
}

var _ Facade = (*Tasks)(nil)
