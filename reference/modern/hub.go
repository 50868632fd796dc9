package modern

import (
	"sync"
	"sync/atomic"

	"github.com/storecheck/storecheck/reference"
)

// DefaultHubBuffer is the per-subscription buffer when HubOptions.Buffer is not positive.
const DefaultHubBuffer = 64

// HubOptions configure a Hub.
type HubOptions struct {
	RequireOwner bool // the truth table's require_owner, as the facade's
	Buffer       int  // per subscription; <= 0 means DefaultHubBuffer
}

// Hub is the reference listen hub (M-F-LISTEN-1): a Notifier that fans task changes out to
// subscriptions/listen streams on this node. A change goes only to subscriptions that
// named the task id and whose caller may see the task. Delivery never blocks the writer:
// a subscription whose buffer is full loses the change and counts it.
type Hub struct {
	opts HubOptions
	mu   sync.RWMutex
	subs map[string]map[*Subscription]struct{} // by task id
}

// NewHub returns an empty hub.
func NewHub(opts HubOptions) *Hub {
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultHubBuffer
	}
	return &Hub{opts: opts, subs: make(map[string]map[*Subscription]struct{})}
}

// Subscription is one listen stream's interest in a set of task ids.
type Subscription struct {
	hub     *Hub
	caller  reference.Caller
	ids     []string
	ch      chan Task
	dropped atomic.Uint64
	once    sync.Once
}

// Subscribe registers caller's interest in taskIDs (duplicates count once). The caller is
// judged against each change's owner at delivery time, so a subscription naming a task
// it may not see receives nothing about it.
func (h *Hub) Subscribe(caller reference.Caller, taskIDs ...string) *Subscription {
	s := &Subscription{hub: h, caller: caller, ch: make(chan Task, h.opts.Buffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range taskIDs {
		set := h.subs[id]
		if set == nil {
			set = make(map[*Subscription]struct{})
			h.subs[id] = set
		}
		if _, dup := set[s]; dup {
			continue
		}
		set[s] = struct{}{}
		s.ids = append(s.ids, id)
	}
	return s
}

// TaskChanged delivers task to every subscription that may receive it, without blocking.
func (h *Hub) TaskChanged(task Task) {
	// Sends happen under the read lock so that Close (write lock) cannot close a channel
	// mid-send; they never block, so the lock is held briefly.
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.subs[task.TaskID] {
		if !reference.CanSee(task.Owner, s.caller, h.opts.RequireOwner) {
			continue
		}
		select {
		case s.ch <- task.Clone():
		default:
			s.dropped.Add(1)
		}
	}
}

// C is the stream of changes; it is closed by Close.
func (s *Subscription) C() <-chan Task { return s.ch }

// Dropped counts the changes lost because the buffer was full.
func (s *Subscription) Dropped() uint64 { return s.dropped.Load() }

// Close unsubscribes and closes C. It is idempotent.
func (s *Subscription) Close() {
	s.once.Do(func() {
		h := s.hub
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, id := range s.ids {
			set := h.subs[id]
			delete(set, s)
			if len(set) == 0 {
				delete(h.subs, id)
			}
		}
		close(s.ch)
	})
}
