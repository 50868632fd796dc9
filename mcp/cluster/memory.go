package cluster

import (
	"context"
	"sync"
	"time"
)

// subscriberBuffer is a subscription's buffer; a subscriber that falls behind by more
// loses messages, as the backends' do.
const subscriberBuffer = 256

// Memory is Signals and Leases for server instances in one process.
type Memory struct {
	mu     sync.Mutex
	subs   map[chan []byte]struct{}
	leases map[string]time.Time
	closed bool
}

var _ Backend = (*Memory)(nil)

// NewMemory returns an empty in-process backend.
func NewMemory() *Memory {
	return &Memory{subs: map[chan []byte]struct{}{}, leases: map[string]time.Time{}}
}

func (m *Memory) Publish(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for ch := range m.subs {
		select {
		case ch <- append([]byte(nil), msg...):
		default:
		}
	}
	return nil
}

func (m *Memory) Subscribe(ctx context.Context) (<-chan []byte, error) {
	ch := make(chan []byte, subscriberBuffer)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	m.subs[ch] = struct{}{}
	go func() {
		<-ctx.Done()
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, ok := m.subs[ch]; ok {
			delete(m.subs, ch)
			close(ch)
		}
	}()
	return ch, nil
}

func (m *Memory) Hold(ctx context.Context, key string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.leases[key] = until
	return nil
}

func (m *Memory) Drop(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.leases, key)
	return nil
}

func (m *Memory) Expired(ctx context.Context, now, until time.Time) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k, end := range m.leases {
		if end.Before(now) {
			out = append(out, k)
			m.leases[k] = until
		}
	}
	return out, nil
}

// Close ends every subscription; later calls fail with ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	for ch := range m.subs {
		delete(m.subs, ch)
		close(ch)
	}
	return nil
}
