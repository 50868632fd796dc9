package conformance

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// The one way a spec runs concurrent clients. Every goroutine a spec starts goes
// through clients.run: it recovers a panic (the store's or the spec's), so that a store
// that panics in a client fails the spec it panicked in, with the panic and its stack,
// and the run goes on to its summary and reports.

// clientPanic is a panic recovered in a client goroutine, re-raised in the spec's own
// goroutine once every client has stopped, so that Ginkgo records it as the spec's
// panic.
type clientPanic struct {
	client int
	value  any
	stack  []byte
}

func (p clientPanic) String() string {
	return fmt.Sprintf("client %d of a concurrent check panicked: %v\n\ngoroutine stack of the panic:\n%s", p.client, p.value, p.stack)
}

// together runs fn(0..n-1) in n goroutines released at once by a barrier, and waits for
// them all. A panic in one of them is re-raised here after all have returned.
func together(n int, fn func(i int)) {
	var cs clients
	var ready sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	for i := range n {
		cs.run(i, func() {
			ready.Done()
			<-start
			fn(i)
		})
	}
	// The caller releases them (see barrier) and waits, leaving its processor to them.
	ready.Wait()
	time.Sleep(barrierSettle)
	close(start)
	cs.wait()
}

// clients is a group of client goroutines of one check.
type clients struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	panic *clientPanic
}

// run starts fn as client i.
func (c *clients) run(i int, fn func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if err, ok := r.(error); ok && errors.Is(err, errFatal) {
				return // the fault is recorded; this client stops
			}
			c.mu.Lock()
			if c.panic == nil {
				c.panic = &clientPanic{client: i, value: r, stack: debug.Stack()}
			}
			c.mu.Unlock()
		}()
		fn()
	}()
}

// wait waits for every client and re-raises the first panic among them.
func (c *clients) wait() {
	c.wg.Wait()
	if c.panic != nil {
		panic(c.panic.String())
	}
}

// barrier releases n clients at once, any number of times (one round after another).
// Clients park until the last one arrives; that one waits a moment, so that every
// other client is parked rather than about to park, then releases them all at once and
// goes on itself. Released together, the clients are spread over every processor by
// the scheduler, and contend for the store from the same instant. (Measured on two
// cores: clients that spin and yield while they wait, or a release the instant the last
// arrives, overlap in a few percent of their calls; parked and released together, in
// a third and more.)
type barrier struct {
	mu      sync.Mutex
	n       int // clients still in the rounds
	arrived int
	release chan struct{}
}

// barrierSettle is how long the last client waits before it releases the others.
const barrierSettle = 50 * time.Microsecond

func newBarrier(n int) *barrier { return &barrier{n: n, release: make(chan struct{})} }

// leave takes a client that stops early out of the rounds still to come, so that the
// others do not wait for it.
func (b *barrier) leave() {
	b.mu.Lock()
	b.n--
	if ch, ok := b.lastLocked(); ok {
		b.mu.Unlock()
		close(ch)
		return
	}
	b.mu.Unlock()
}

// lastLocked starts the next round when every client still in the rounds has arrived,
// and returns the channel to close to release this one.
func (b *barrier) lastLocked() (chan struct{}, bool) {
	if b.arrived == 0 || b.arrived < b.n {
		return nil, false
	}
	ch := b.release
	b.arrived = 0
	b.release = make(chan struct{})
	return ch, true
}

// wait blocks until every client still in the rounds has called it in this round.
func (b *barrier) wait() {
	b.mu.Lock()
	b.arrived++
	if ch, ok := b.lastLocked(); ok {
		b.mu.Unlock()
		time.Sleep(barrierSettle)
		close(ch)
		return
	}
	ch := b.release
	b.mu.Unlock()
	<-ch
}
