package memstore

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// DefaultShards is the shard count of New without WithShards.
const DefaultShards = 64

// MaxShards bounds WithShards: more shards than this only waste memory.
const MaxShards = 1 << 16

// Store is the in-memory store of both eras. Its zero value is not usable: call New.
type Store struct {
	clock  reference.Clock
	legacy Legacy
	modern Modern
}

// Option configures New.
type Option func(*config)

type config struct {
	clock  reference.Clock
	shards int
}

// WithClock makes the store read time from c (created_at of legacy tasks, Cleanup, modern
// expiry). A nil clock reads the real time.
func WithClock(c reference.Clock) Option { return func(o *config) { o.clock = c } }

// WithShards sets the number of shards, rounded up to a power of two and at most
// MaxShards; n < 1 keeps the default (DefaultShards). One shard makes the store a
// single-lock map.
func WithShards(n int) Option { return func(o *config) { o.shards = n } }

// New returns an empty store.
func New(opts ...Option) *Store {
	cfg := config{shards: DefaultShards}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = reference.SystemClock{}
	}
	if cfg.shards < 1 {
		cfg.shards = DefaultShards
	}
	cfg.shards = min(cfg.shards, MaxShards)
	s := &Store{clock: cfg.clock}
	s.legacy = Legacy{s: s, rows: newTable[placed](cfg.shards)}
	s.modern = Modern{s: s, rows: newTable[modern.Task](cfg.shards)}
	return s
}

// Legacy is the store's legacy era: legacy.Store, legacy.Canceler, legacy.Cleaner and
// legacy.ConditionalUpdater.
func (s *Store) Legacy() *Legacy { return &s.legacy }

// Modern is the store's modern era: modern.Store.
func (s *Store) Modern() *Modern { return &s.modern }

func (s *Store) now() int64 { return s.clock.Now().UnixMilli() }

// live returns ctx's error, wrapped, once ctx has ended (S-CTX-1).
func live(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	return nil
}

// table is a map from task id to a row, split into shards that each have
// their own lock.
type table[R any] struct {
	seed   maphash.Seed
	mask   uint64
	shards []shard[R]
}

type shard[R any] struct {
	// mu is a plain Mutex, readers included: a read holds it for one map lookup (the
	// row is cloned after Unlock), and a sync.RWMutex would cost every write two more
	// atomic operations (RWMutex.Lock and Unlock) for read concurrency a 64-way
	// sharded table rarely needs.
	mu   sync.Mutex
	rows map[string]R
	// Pad to 128 bytes so that two busy shards never share a cache line, nor a pair of
	// lines that the adjacent-line prefetcher pulls in together.
	_ [shardSize - unsafe.Sizeof(sync.Mutex{}) - unsafe.Sizeof(map[string]int(nil))]byte
}

// shardSize is the size of a shard: two 64-byte cache lines.
const shardSize = 128

func newTable[R any](n int) table[R] {
	n = 1 << bits.Len(uint(n-1)) // round up to a power of two
	t := table[R]{seed: maphash.MakeSeed(), mask: uint64(n - 1), shards: make([]shard[R], n)}
	for i := range t.shards {
		t.shards[i].rows = make(map[string]R)
	}
	return t
}

func (t *table[R]) shard(id string) *shard[R] {
	return &t.shards[maphash.String(t.seed, id)&t.mask]
}

// get returns id's row under the shard lock.
func (t *table[R]) get(id string) (R, bool) {
	sh := t.shard(id)
	sh.mu.Lock()
	r, ok := sh.rows[id]
	sh.mu.Unlock()
	return r, ok
}

// insert stores r under id unless id exists.
func (t *table[R]) insert(id string, r R) bool {
	sh := t.shard(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.rows[id]; ok {
		return false
	}
	sh.rows[id] = r
	return true
}

// update replaces id's row by what f computes from it, atomically; f sees ok = false for
// a missing row, and nothing is written when it fails.
func (t *table[R]) update(id string, f func(cur R, ok bool) (R, error)) (R, error) {
	sh := t.shard(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cur, ok := sh.rows[id]
	next, err := f(cur, ok)
	if err != nil {
		var zero R
		return zero, err
	}
	sh.rows[id] = next
	return next, nil
}

func (t *table[R]) delete(id string) {
	sh := t.shard(id)
	sh.mu.Lock()
	delete(sh.rows, id)
	sh.mu.Unlock()
}

// scan calls keep for every row, one shard at a time under its lock, and collects
// the rows it accepts until it says stop. It checks ctx between shards.
func (t *table[R]) scan(ctx context.Context, keep func(R) (take, stop bool)) ([]R, error) {
	var out []R
	for i := range t.shards {
		if err := live(ctx); err != nil {
			return nil, err
		}
		sh := &t.shards[i]
		sh.mu.Lock()
		for _, r := range sh.rows {
			take, stop := keep(r)
			if take {
				out = append(out, r)
			}
			if stop {
				sh.mu.Unlock()
				return out, nil
			}
		}
		sh.mu.Unlock()
	}
	return out, nil
}

// purge deletes every row doomed says, one shard at a time, and returns the count. It is
// not interrupted by ctx once started, so a purge is never left half done (S-CTX-1).
func (t *table[R]) purge(doomed func(R) bool) int {
	n := 0
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		for id, r := range sh.rows {
			if doomed(r) {
				delete(sh.rows, id)
				n++
			}
		}
		sh.mu.Unlock()
	}
	return n
}
