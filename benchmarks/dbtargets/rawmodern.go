package dbtargets

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/reference"
)

// casPrimitives are the statements a modern baseline cannot do without, one round trip
// each: create the task, read its version (unexpired), and write it at a version.
type casPrimitives interface {
	Create(ctx context.Context, id, owner string) error
	// get reads the task and returns its version.
	get(ctx context.Context, id string) (int64, error)
	// swap is the conditional update by primary key; ok is false when the version moved.
	swap(ctx context.Context, id string, version int64) (ok bool, err error)
}

// rawModern is the modern half of a baseline (benchmarks.ModernOps) made of its backend's
// primitives, so every backend's baseline does the same work around them.
type rawModern struct{ casPrimitives }

func (r rawModern) Get(ctx context.Context, id string) error {
	_, err := r.get(ctx, id)
	return err
}

func (r rawModern) Swap(ctx context.Context, id, owner string, version int64) error {
	ok, err := r.swap(ctx, id, version)
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s not at version %d", reference.ErrConflict, id, version)
	}
	return err
}

func (r rawModern) Lifecycle(ctx context.Context, owner string) error {
	id := reference.GenerateID()
	if err := r.Create(ctx, id, owner); err != nil {
		return err
	}
	for range 2 { // progress, complete: each a read and a compare-and-swap
		if err := r.Increment(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

func (r rawModern) Increment(ctx context.Context, id string) error {
	for {
		v, err := r.get(ctx, id)
		if err != nil {
			return err
		}
		if ok, err := r.swap(ctx, id, v); ok || err != nil {
			return err
		}
	}
}

// scanVersion reads a modern task's row (owner, created_at, ttl, version, body) as a Get
// of a SQL store does, and returns its version.
func scanVersion(row rowScanner) (int64, error) {
	var (
		owner   []byte
		body    string
		created int64
		ttl     *int64
		version int64
	)
	err := row.Scan(&owner, &created, &ttl, &version, &body)
	return version, err
}
