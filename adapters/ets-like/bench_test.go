package etslike

import (
	"context"
	"testing"

	"github.com/storecheck/storecheck/internal/storebench"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Compare with reference/memstore's benchmarks of the same names: the one lock is what
// differs.
func benchTable(b *testing.B, n int) (*Store, []string) {
	s := New(WithMaxRows(n))
	return s, storebench.LegacyTasks(b, s.Legacy(), n, nil)
}

// benchParallel runs op, the i-th call of a goroutine of b.RunParallel, on the tasks of a
// table of n in turn; each goroutine starts at another task.
func benchParallel(b *testing.B, n int, op func(ctx context.Context, s *Store, id string, i uint64) error) {
	s, ids := benchTable(b, n)
	storebench.Parallel(b, ids, func(ctx context.Context, id string, i uint64) error {
		return op(ctx, s, id, i)
	})
}

func BenchmarkLegacyGetParallel(b *testing.B) {
	benchParallel(b, 1024, func(ctx context.Context, s *Store, id string, _ uint64) error {
		_, err := s.Legacy().Get(ctx, id)
		return err
	})
}

func BenchmarkLegacyUpdateParallel(b *testing.B) {
	benchParallel(b, 1024, func(ctx context.Context, s *Store, id string, i uint64) error {
		_, err := s.Legacy().Update(ctx, id, legacy.Task{"progress": int(i)})
		return err
	})
}

func BenchmarkLegacyList(b *testing.B) {
	s, _ := benchTable(b, 10_000)
	ctx := context.Background()
	opts := legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), Limit: new(100)}
	for b.Loop() {
		if _, err := s.Legacy().List(ctx, opts); err != nil {
			b.Fatal(err)
		}
	}
}
