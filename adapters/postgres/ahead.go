package postgres

import (
	"context"
	"sync"
)

// ahead makes schemas one ahead of the specs that take them: while a spec runs, the
// next one's schema is created and migrated.
type ahead struct {
	mu      sync.Mutex
	started bool
	next    chan made // one schema made ahead, or why it could not be made
	cancel  context.CancelFunc
	stopped chan struct{}
}

type made struct {
	schema string
	err    error
}

// take returns the schema made ahead, starting the maker on first use. When the maker
// failed, take makes one itself (the server may be back by now) and returns its
// result: an error is never a stale one.
func (a *ahead) take(ctx context.Context, newSchema func(context.Context) (string, error)) (string, error) {
	a.mu.Lock()
	if !a.started {
		a.started = true
		var bg context.Context
		bg, a.cancel = context.WithCancel(context.Background())
		a.next, a.stopped = make(chan made), make(chan struct{})
		go a.run(bg, newSchema)
	}
	next := a.next
	a.mu.Unlock()
	select {
	case m := <-next:
		if m.err != nil {
			return newSchema(ctx)
		}
		return m.schema, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// run makes a schema, waits for a spec to take it, and makes the next.
func (a *ahead) run(ctx context.Context, newSchema func(context.Context) (string, error)) {
	defer close(a.stopped)
	for ctx.Err() == nil {
		s, err := newSchema(ctx)
		select {
		case a.next <- made{s, err}:
		case <-ctx.Done():
			if err == nil {
				// Made and never taken: handed back to stop, which drops it.
				a.next <- made{s, nil}
			}
			return
		}
	}
}

// stop ends the maker and drops the schema it made and no spec took.
func (a *ahead) stop(drop func(schema string)) {
	a.mu.Lock()
	started := a.started
	a.mu.Unlock()
	if !started {
		return
	}
	a.cancel()
	defer func() {
		a.mu.Lock()
		a.started = false // a later take starts a maker again
		a.mu.Unlock()
	}()
	for {
		select {
		case m := <-a.next:
			if m.err == nil {
				drop(m.schema)
			}
		case <-a.stopped:
			return
		}
	}
}
