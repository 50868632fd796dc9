package memstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// benchIDs creates n legacy and modern tasks of a realistic size.
func benchStore(b *testing.B, n int, opts ...Option) (*Store, []string) {
	b.Helper()
	ctx := context.Background()
	s := New(opts...)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = reference.GenerateID()
		meta := legacy.Task{"tool": "search", "args": map[string]any{"q": "x", "page": i}, "progress": 0}
		if _, err := s.Legacy().Create(ctx, ids[i], meta); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Modern().Create(ctx, modern.Task{TaskID: ids[i], Status: reference.StatusWorking, InputRequests: map[string]any{"k": map[string]any{"q": "?"}}}); err != nil {
			b.Fatal(err)
		}
	}
	return s, ids
}

func BenchmarkLegacyGetParallel(b *testing.B) {
	shardedParallel(b, func(ctx context.Context, s *Store, id string, _ uint64) error {
		_, err := s.Legacy().Get(ctx, id)
		return err
	})
}

func BenchmarkLegacyUpdateParallel(b *testing.B) {
	shardedParallel(b, func(ctx context.Context, s *Store, id string, i uint64) error {
		_, err := s.Legacy().Update(ctx, id, legacy.Task{"progress": int(i)})
		return err
	})
}

// shardedParallel runs op from parallel goroutines over the tasks of a benchStore, with
// one shard and with the default number; i is the goroutine's running count, id the task
// it picks (each goroutine starts at its own stride so that they do not move in step).
func shardedParallel(b *testing.B, op func(ctx context.Context, s *Store, id string, i uint64) error) {
	for _, shards := range []int{1, DefaultShards} {
		b.Run(fmt.Sprint("shards=", shards), func(b *testing.B) {
			s, ids := benchStore(b, 1024, WithShards(shards))
			var next atomic.Uint64
			b.ResetTimer()
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
		})
	}
}

func BenchmarkModernCASParallel(b *testing.B) {
	s, ids := benchStore(b, 1024)
	var next atomic.Uint64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		sys := reference.System()
		i := next.Add(1) * 7919
		for pb.Next() {
			i++
			id := ids[i%uint64(len(ids))]
			for {
				cur, err := s.Modern().Get(ctx, id, sys)
				if err != nil {
					b.Fatal(err)
				}
				cur.StatusMessage = "step"
				if _, err := s.Modern().Swap(ctx, sys, cur.Version, cur); err == nil {
					break
				}
			}
		}
	})
}

func BenchmarkLegacyList(b *testing.B) {
	s, _ := benchStore(b, 10_000)
	ctx := context.Background()
	opts := legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), Limit: new(100)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Legacy().List(ctx, opts); err != nil {
			b.Fatal(err)
		}
	}
}
