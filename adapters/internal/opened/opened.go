// Package opened keeps what a harness namespace opened for its stores (clients, pools,
// database handles), so that the namespace's Close closes every one of them and nothing
// is opened after it.
package opened

import "sync"

// Set is what a namespace opened. Its zero value is an open, empty set.
type Set[T any] struct {
	mu     sync.Mutex
	items  []T
	closed bool
}

// Add opens one more with open and keeps it; once the set is closed it opens nothing and
// returns closedErr. open runs under the set's lock, so Close never misses what it opens.
func (s *Set[T]) Add(open func() (T, error), closedErr error) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		var zero T
		return zero, closedErr
	}
	x, err := open()
	if err != nil {
		return x, err
	}
	s.items = append(s.items, x)
	return x, nil
}

// Close closes the set and returns what it held, for the caller to close.
func (s *Set[T]) Close() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	items := s.items
	s.items, s.closed = nil, true
	return items
}
