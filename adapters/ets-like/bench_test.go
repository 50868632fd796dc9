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

func BenchmarkLegacyGetParallel(b *testing.B) {
	s, ids := benchTable(b, 1024)
	var next atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := next.Add(1) * 7919
		for pb.Next() {
			i++
			if _, err := s.Legacy().Get(ctx, ids[i%uint64(len(ids))]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkLegacyUpdateParallel(b *testing.B) {
	s, ids := benchTable(b, 1024)
	var next atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := next.Add(1) * 7919
		for pb.Next() {
			i++
			if _, err := s.Legacy().Update(ctx, ids[i%uint64(len(ids))], legacy.Task{"progress": int(i)}); err != nil {
				b.Fatal(err)
			}
		}
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
