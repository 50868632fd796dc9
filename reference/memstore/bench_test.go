package memstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/storecheck/storecheck/internal/storebench"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// benchIDs creates n legacy and modern tasks of a realistic size.
func benchStore(b *testing.B, n int, opts ...Option) (*Store, []string) {
	b.Helper()
	s := New(opts...)
	ids := storebench.LegacyTasks(b, s.Legacy(), n, func(ctx context.Context, _ int, id string) {
		if _, err := s.Modern().Create(ctx, modern.Task{TaskID: id, Status: reference.StatusWorking, InputRequests: map[string]any{"k": map[string]any{"q": "?"}}}); err != nil {
			b.Fatal(err)
		}
	})
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
			b.ResetTimer()
			storebench.Parallel(b, ids, func(ctx context.Context, id string, i uint64) error {
				return op(ctx, s, id, i)
			})
		})
	}
}

func BenchmarkModernCASParallel(b *testing.B) {
	s, ids := benchStore(b, 1024)
	sys := reference.System()
	b.ResetTimer()
	storebench.Parallel(b, ids, func(ctx context.Context, id string, _ uint64) error {
		for {
			cur, err := s.Modern().Get(ctx, id, sys)
			if err != nil {
				return err
			}
			cur.StatusMessage = "step"
			if _, err := s.Modern().Swap(ctx, sys, cur.Version, cur); err == nil {
				return nil
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
