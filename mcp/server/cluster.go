package server

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Several instances over one store. Every task's state is the store's, so a task made on
// one instance is read, listed, cancelled, answered and waited for on any other: the work
// and tasks/result read the store at the intervals of their loops (cancel 50 ms, input
// and results 20 ms). Cursors and requestState verify on every instance given the same
// Config.Secret. What the store does not carry is carried here: a signal per change, so
// that each instance tells its own listeners (subscriptions/listen, the GET streams of its
// 2025-11-25 sessions), and a lease per running task, renewed by the instance running it,
// so that another ends the task failed once the lease runs out unrenewed. 2025-11-25
// sessions and the elicitations sent on them stay with the instance that holds the
// session: a deployment routes a session's requests to one instance.

// Eras as signals and leases name them.
const (
	eraLegacy = "l"
	eraModern = "m"
)

// DefaultLease is Config.Lease's default.
const DefaultLease = 10 * time.Second

// outboxSize bounds the signals waiting to be published; past it a signal is lost, as a
// slow subscriber loses one: the store still holds the change.
const outboxSize = 1024

// peers is an instance's part in a deployment of several.
type peers struct {
	instance string
	outbox   chan []byte

	mu     sync.Mutex
	leased map[string]struct{} // the leases this instance holds and renews
}

// change is one signal: task id of an era changed on instance from.
type change struct {
	From string `json:"o"`
	Era  string `json:"e"`
	Task string `json:"t"`
}

// join starts what being one of several instances needs: the publisher and subscriber
// of Signals, the renewal and reaping of Leases.
func (s *Server) join() error {
	if s.cfg.Signals == nil && s.cfg.Leases == nil {
		return nil
	}
	if s.cfg.Lease <= 0 {
		s.cfg.Lease = DefaultLease
	}
	p := &peers{instance: newSessionID(), outbox: make(chan []byte, outboxSize), leased: map[string]struct{}{}}
	s.peers = p
	if s.cfg.Signals != nil {
		in, err := s.cfg.Signals.Subscribe(s.ctx)
		if err != nil {
			return err
		}
		s.background(func() { s.publish(p.outbox) })
		s.background(func() { s.hear(in) })
	}
	if s.cfg.Leases != nil {
		s.background(s.renew)
		s.background(s.reap)
	}
	return nil
}

// background runs f until the server closes; Close waits for it.
func (s *Server) background(f func()) {
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		f()
	}()
}

// modernNotifier is the 2026-07-28 facade's notifier: the hub of this instance's
// listeners, and a signal to the others when there are any.
func (s *Server) modernNotifier() modern.Notifier {
	if s.cfg.Signals == nil {
		return s.hub
	}
	return modern.NotifierFunc(func(t modern.Task) {
		s.hub.TaskChanged(t)
		s.signal(eraModern, t.TaskID)
	})
}

// signal tells the other instances that task id changed, without waiting.
func (s *Server) signal(era, id string) {
	if s.peers == nil || s.cfg.Signals == nil {
		return
	}
	b, _ := json.Marshal(change{From: s.peers.instance, Era: era, Task: id})
	select {
	case s.peers.outbox <- b:
	default:
	}
}

func (s *Server) publish(outbox <-chan []byte) {
	for {
		select {
		case <-s.ctx.Done():
			return
		case b := <-outbox:
			ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
			_ = s.cfg.Signals.Publish(ctx, b) // lost: the listeners miss one change, the store has it
			cancel()
		}
	}
}

// hear tells this instance's listeners of the changes other instances signal, as the
// store holds the task now.
func (s *Server) hear(in <-chan []byte) {
	for b := range in {
		var c change
		if json.Unmarshal(b, &c) != nil || c.From == s.peers.instance {
			continue
		}
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		switch {
		case c.Era == eraModern && s.modern != nil:
			if t, err := s.modern.Status(ctx, c.Task); err == nil {
				s.hub.TaskChanged(t)
			}
		case c.Era == eraLegacy && s.legacy != nil:
			if t, err := s.legacy.Get(ctx, c.Task, reference.System()); err == nil {
				s.legacyNotify(t)
			}
		}
		cancel()
	}
}

// lease holds the lease of task id's work for this instance until the returned function
// drops it; without Leases it does nothing.
func (s *Server) lease(ctx context.Context, era, id string) (func(), error) {
	if s.peers == nil || s.cfg.Leases == nil {
		return func() {}, nil
	}
	key := era + ":" + id
	if err := s.cfg.Leases.Hold(ctx, key, time.Now().Add(s.cfg.Lease)); err != nil {
		return nil, err
	}
	s.peers.mu.Lock()
	s.peers.leased[key] = struct{}{}
	s.peers.mu.Unlock()
	return func() {
		s.peers.mu.Lock()
		delete(s.peers.leased, key)
		s.peers.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
		defer cancel()
		_ = s.cfg.Leases.Drop(ctx, key) // kept: it runs out, and the reaper finds the task ended
	}, nil
}

// roundTimeout bounds one round of renewals or of reaping.
const roundTimeout = 5 * time.Second

// every calls f each period until the server closes.
func (s *Server) every(period time.Duration, f func(ctx context.Context)) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(s.ctx, max(period, roundTimeout))
			f(ctx)
			cancel()
		}
	}
}

// renew moves the end of every lease this instance holds, three times a lease.
func (s *Server) renew() {
	s.every(s.cfg.Lease/3, func(ctx context.Context) {
		s.peers.mu.Lock()
		keys := make([]string, 0, len(s.peers.leased))
		for k := range s.peers.leased {
			keys = append(keys, k)
		}
		s.peers.mu.Unlock()
		until := time.Now().Add(s.cfg.Lease)
		for _, k := range keys {
			_ = s.cfg.Leases.Hold(ctx, k, until) // a missed renewal is retried next round
		}
	})
}

// reapEvery bounds the time between a lease running out and the end of its task.
const reapEvery = time.Second

// reap ends failed, four times a lease and at least every reapEvery, the tasks whose
// lease ran out: their instance stopped without ending them. A dead instance's task ends
// within lease + min(lease/4, reapEvery) of the death.
func (s *Server) reap() {
	s.every(min(s.cfg.Lease/4, reapEvery), func(ctx context.Context) {
		// A claimed lease is held for the claimer for a lease more: should the claimer
		// fail to end the task, or die, another claims it again.
		now := time.Now()
		keys, err := s.cfg.Leases.Expired(ctx, now, now.Add(s.cfg.Lease))
		if err != nil {
			return
		}
		for _, k := range keys {
			s.orphaned(context.WithoutCancel(ctx), k)
		}
	})
}

// orphaned ends the task of a claimed lease failed, unless it has ended, and drops the
// lease; a task it could not end keeps the claim, which runs out for another round.
func (s *Server) orphaned(ctx context.Context, key string) {
	era, id := key[:1], key[min(2, len(key)):]
	msg := "The server instance running this task stopped: its lease of " + s.cfg.Lease.String() + " expired without renewal."
	var err error
	switch {
	case era == eraModern && s.modern != nil:
		_, err = s.modern.Fail(ctx, id, modern.RPCError(jsonrpc.CodeInternal, msg, nil))
	case era == eraLegacy && s.legacy != nil:
		var t legacy.Task
		t, err = s.legacy.Update(ctx, id, legacy.Task{legacy.KeyStatus: string(reference.StatusFailed), keyMessage: msg,
			keyError: map[string]any{"code": int64(jsonrpc.CodeInternal), "message": msg}, keyUpdatedAt: reference.NowMillis(s.cfg.Clock)})
		if err == nil {
			s.legacyChanged(t)
		}
	}
	if err == nil || errors.Is(err, reference.ErrTerminal) || errors.Is(err, reference.ErrNotFound) {
		_ = s.cfg.Leases.Drop(ctx, key)
	}
}
