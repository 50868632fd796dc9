package etslike

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Compare with reference/memstore's benchmarks of the same names: the one lock is what
// differs.
func benchTable(b *testing.B, n int) (*Store, []string) {
	b.Helper()
	ctx := context.Background()
	s := New(WithMaxRows(n))
	ids := make([]string, n)
	for i := range ids {
		ids[i] = reference.GenerateID()
		meta := legacy.Task{"tool": "search", "args": map[string]any{"q": "x", "page": i}, "progress": 0}
		if _, err := s.Legacy().Create(ctx, ids[i], meta); err != nil {
			b.Fatal(err)
		}
	}
	return s, ids
}

// benchParallel runs op, the i-th call of a goroutine of b.RunParallel, on the tasks of a
// table of n in turn; each goroutine starts at another task.
func benchParallel(b *testing.B, n int, op func(ctx context.Context, s *Store, id string, i uint64) error) {
	s, ids := benchTable(b, n)
	var next atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := next.Add(1) * 7919
		for pb.Next() {
			i++
			if err := op(ctx, s, ids[i%uint64(len(ids))], i); err != nil {
				b.Fatal(err)
			}
		}
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
