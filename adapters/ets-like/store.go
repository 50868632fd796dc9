package etslike

import (
	"context"
	"fmt"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// DefaultMaxRows is the row cap of New without WithMaxRows.
const DefaultMaxRows = 10_000

// Store is the table. Its zero value is not usable: call New.
type Store struct {
	clock   reference.Clock
	maxRows int

	mu         sync.RWMutex // the table's one lock
	legacyRows map[string]legacy.Task
	modernRows map[string]modern.Task

	legacy Legacy
	modern Modern
}

// Option configures New.
type Option func(*Store)

// WithClock makes the store read time from c (legacy created_at, Cleanup, modern expiry).
// A nil clock reads the real time.
func WithClock(c reference.Clock) Option { return func(s *Store) { s.clock = c } }

// WithMaxRows sets the row cap: the most rows, of both eras together, the table holds.
// It panics when n < 1, a configuration error that no store could honour.
func WithMaxRows(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("etslike: WithMaxRows(%d): the row cap must be at least 1", n))
	}
	return func(s *Store) { s.maxRows = n }
}

// New returns an empty table.
func New(opts ...Option) *Store {
	s := &Store{
		maxRows:    DefaultMaxRows,
		legacyRows: make(map[string]legacy.Task),
		modernRows: make(map[string]modern.Task),
	}
	for _, o := range opts {
		o(s)
	}
	if s.clock == nil {
		s.clock = reference.SystemClock{}
	}
	s.legacy.s = s
	s.modern.s = s
	return s
}

// Legacy is the table's legacy era: legacy.Store, legacy.Canceler, legacy.Cleaner and
// legacy.ConditionalUpdater.
func (s *Store) Legacy() *Legacy { return &s.legacy }

// Modern is the table's modern era: modern.Store.
func (s *Store) Modern() *Modern { return &s.modern }

// MaxRows is the row cap.
func (s *Store) MaxRows() int { return s.maxRows }

// Len is the number of rows of both eras, expired and terminal ones included.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rowsLocked()
}

func (s *Store) rowsLocked() int { return len(s.legacyRows) + len(s.modernRows) }

func (s *Store) now() int64 { return s.clock.Now().UnixMilli() }

// insert adds row under id to rows (one of the table's keyspaces) unless id exists there
// or the table is full; the existing row is reported first, as it would be refused
// whatever the room.
func insert[R any](s *Store, rows map[string]R, id string, row R) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := rows[id]; ok {
		return reference.ErrorFor(reference.ErrExists, id)
	}
	if n := s.rowsLocked(); n >= s.maxRows {
		return fmt.Errorf("%w: the table holds %d rows (MaxRows %d); task %s not created", reference.ErrLimitReached, n, s.maxRows, id)
	}
	rows[id] = row
	return nil
}

// update replaces id's row in rows by what f computes from it, under the lock; f sees
// ok = false for a missing row, and nothing is written when it fails.
func update[R any](s *Store, rows map[string]R, id string, f func(cur R, ok bool) (R, error)) (R, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := rows[id]
	next, err := f(cur, ok)
	if err != nil {
		var zero R
		return zero, err
	}
	rows[id] = next
	return next, nil
}

func get[R any](s *Store, rows map[string]R, id string) (R, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := rows[id]
	return r, ok
}

func remove[R any](s *Store, rows map[string]R, id string) {
	s.mu.Lock()
	delete(rows, id)
	s.mu.Unlock()
}

// purge deletes, in one pass under the lock, every row of rows that doomed says, and
// returns the count.
func purge[R any](s *Store, rows map[string]R, doomed func(R) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, r := range rows {
		if doomed(r) {
			delete(rows, id)
			n++
		}
	}
	return n
}

// live returns ctx's error, wrapped, once ctx has ended (S-CTX-1).
func live(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("etslike: %w", err)
	}
	return nil
}
