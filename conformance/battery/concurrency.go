package battery

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
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

// Together runs fn(0..n-1) in n goroutines released at once by a barrier, and waits for
// them all. A panic in one of them is re-raised here after all have returned.
func Together(n int, fn func(i int)) {
	var cs Clients
	var ready sync.WaitGroup
	start := make(chan struct{})
	var at time.Time // written before start is closed, read after
	ready.Add(n)
	for i := range n {
		cs.Run(i, func() {
			ready.Done()
			<-start
			spinUntil(at)
			fn(i)
		})
	}
	// The caller releases them (see barrier) and waits, leaving its processor to them.
	ready.Wait()
	settle(barrierSettle)
	at = time.Now().Add(releaseSpin)
	close(start)
	cs.Wait()
}

// releaseSpin is how long after a release the released clients start their calls.
// Woken from a channel, they land on the releasing processor's run queue and reach the
// other processors only as those wake and steal them, some microseconds later; a fast
// store in process has served a whole round by then, one client after another. Each
// released client instead spins until one instant shared by all, so that the clients
// running on every processor at that instant call the store at once. (Measured on two
// cores, in process, memstore: parked and released clients overlapped in 0.1-6 % of
// their calls, typically under 1 %; spun to one instant, in 2-38 %, typically 10-20 %.)
const releaseSpin = 200 * time.Microsecond

// spinUntil busy-waits until t: a sleep would park the client and lose the instant.
func spinUntil(t time.Time) {
	for time.Now().Before(t) {
	}
}

// YieldFor leaves the processor to other goroutines for d without sleeping: a
// time.Sleep under a millisecond lasts about one (the runtime's timer granularity).
// The barrier's settle does sleep: a process that slept is favoured by the kernel's
// scheduler when it wakes, so on a loaded machine its released clients more often run
// on every core at once (a yield there cost natural race mutants kills under load).
func YieldFor(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		runtime.Gosched()
	}
}

// Clients is a group of client goroutines of one check.
type Clients struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	panic *clientPanic
}

// Run starts fn as client i.
func (c *Clients) Run(i int, fn func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if stopped(r) {
				return // the fault is recorded, or the rounds ended; this client stops
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

// Wait waits for every client and re-raises the first panic among them.
func (c *Clients) Wait() {
	c.wg.Wait()
	if c.panic != nil {
		panic(c.panic.String())
	}
}

// barrier releases n clients at once, any number of times (one round after another).
// Clients park until the last one arrives; that one waits a moment, so that every
// other client is parked rather than about to park, then releases them all at once and
// goes on itself; every released client spins until one shared instant (releaseSpin). Released together, the clients are spread over every processor by
// the scheduler, and contend for the store from the same instant. (Measured on two
// cores: clients that spin and yield while they wait, or a release the instant the last
// arrives, overlap in a few percent of their calls; parked and released together, in
// a third and more.)
type barrier struct {
	mu      sync.Mutex
	n       int // clients still in the rounds
	arrived int
	release chan struct{}
	at      time.Time // when the released round starts (set before release is closed)
}

// barrierSettle is how long the last client waits before it releases the others.
const barrierSettle = 50 * time.Microsecond

func NewBarrier(n int) *barrier { return &barrier{n: n, release: make(chan struct{})} }

// Leave takes a client that stops early out of the rounds still to come, so that the
// others do not wait for it.
func (b *barrier) Leave() {
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
	b.at = time.Now().Add(barrierSettle + releaseSpin)
	return ch, true
}

// Wait blocks until every client still in the rounds has called it in this round.
func (b *barrier) Wait() {
	b.mu.Lock()
	b.arrived++
	if ch, ok := b.lastLocked(); ok {
		at := b.at
		b.mu.Unlock()
		settle(barrierSettle)
		close(ch)
		spinUntil(at)
		return
	}
	ch := b.release
	b.mu.Unlock()
	<-ch
	b.mu.Lock()
	at := b.at
	b.mu.Unlock()
	spinUntil(at)
}

// RaceClients is how many clients contend in a round: the budget's goroutines, which
// default to more than there are processors.
func (e *Env) RaceClients() int { return max(e.Opts.Budget.Goroutines, 1) }

// RaceRounds is how many rounds a race check runs.
func (e *Env) RaceRounds() int { return max(e.Opts.Budget.Histories*32, 1) }

// defaultGoroutines is the default number of concurrent clients: more than there are
// processors, so that clients are preempted mid-call as well as run side by side.
func defaultGoroutines() int { return max(8, runtime.GOMAXPROCS(0)+2) }

// Round is one round of a race check: Clients clients released together, client c
// making the calls of Client(c) (timed on the round's timeline), then Judge, which
// records any fault and answers false to end the check.
type Round struct {
	Clients int
	Client  func(c int)
	Judge   func() bool
}

// Race runs the rounds of a race check, the loop every era's race specs share: base
// rounds, more while the calls have not overlapped enough (OverlapMeter.Rounds), and
// no round once the context has ended. round(r, tl) prepares round r (its fresh tasks)
// and answers it; its clients time their calls on tl, which the meter takes before the
// round is judged.
func Race(e *Env, base int, round func(r int, tl *Timeline) Round) {
	m := e.Meter()
	defer m.Done()
	for r := range m.Rounds(base) {
		if e.Ctx.Err() != nil {
			return
		}
		tl := NewTimeline()
		rd := round(r, tl)
		Together(rd.Clients, rd.Client)
		m.Add(tl.Take())
		if !rd.Judge() {
			return
		}
	}
}

// CreateRounds runs the rounds of a create race (L-CREATE-2/3, M-CREATE-1): in each,
// every client Creates the same two fresh ids, half of them in the other order, released
// together, so that every round holds two contests. create makes client c's Create of
// id; call describes it for a fault (outside the timed call). An answer other than
// success or ErrExists is added to faults; judge gets each id's winners, and ends the
// check by answering false.
func CreateRounds[T any](e *Env, create func(c int, id string) (T, error), call func(c int, id string) string,
	judge func(round int, id string, winners map[int]T, faults *FaultList) bool) {
	Race(e, e.RaceRounds(), func(r int, tl *Timeline) Round {
		ids := []string{e.ID("race-create"), e.ID("race-create")}
		var mu sync.Mutex
		winners := []map[int]T{{}, {}}
		var faults FaultList
		return Round{Clients: e.RaceClients(), Client: func(c int) {
			for k := range ids {
				j := (k + c) % len(ids)
				id := ids[j]
				var got T
				var err error
				tl.Do(c, id, func() { got, err = create(c, id) })
				switch {
				case err == nil:
					mu.Lock()
					winners[j][c] = got
					mu.Unlock()
				case !errors.Is(err, reference.ErrExists):
					faults.Add("%s: %s", call(c, id), DescribeErr(err))
				}
			}
		}, Judge: func() bool {
			for j, id := range ids {
				if !judge(r, id, winners[j], &faults) {
					return false
				}
			}
			return true
		}}
	})
}

// DeleteRace is a resurrection race (L-CONC-1, S-CONC-1): in each round a fresh task is
// deleted by one client, released together with the others, which each write to it.
// Once the Delete has returned, the task must stay gone.
type DeleteRace struct {
	// Create makes round r's task id; Delete deletes it.
	Create func(r int, id string)
	Delete func(id string) error
	// Write makes client c's writes to id, each timed on tl and recorded as
	// "call -> outcome".
	Write func(c int, id string, tl *Timeline, record func(call string))
	// Writes says what each writer makes ("two CAS writes (Get, Swap)"), Writer names
	// one in the expectation ("Swap"), and Get is the read that must find nothing, %s
	// for the quoted id ("Get(%s, system)").
	Writes, Writer, Get string
	// Stored reads the task: false when it is gone.
	Stored func(id string) (any, bool)
	// Gone, when set, checks more places the deleted task must be absent from (after
	// names the round) and answers false to end the check.
	Gone func(id, after string) bool
}

// DeleteRounds runs d's rounds until one finds the task back.
func DeleteRounds(e *Env, d DeleteRace) {
	clients := e.RaceClients()
	Race(e, e.RaceRounds(), func(r int, tl *Timeline) Round {
		id := e.ID("resurrect")
		d.Create(r, id)
		deleter := r % clients
		var delErr error
		var mu sync.Mutex
		var calls []string
		record := func(call string) {
			mu.Lock()
			calls = append(calls, call)
			mu.Unlock()
		}
		return Round{Clients: clients, Client: func(c int) {
			if c == deleter {
				tl.Do(c, id, func() { delErr = d.Delete(id) })
				return
			}
			d.Write(c, id, tl, record)
		}, Judge: func() bool {
			in := fmt.Sprintf("round %d: Delete(%s) released together with %d clients each making %s on it", r, Literal(id), clients-1, d.Writes)
			e.CheckErr(delErr, nil, in+": the Delete")
			if got, ok := d.Stored(id); ok {
				sort.Strings(calls)
				e.Check(false, fmt.Sprintf(d.Get, Literal(id))+" after "+in, "ErrNotFound: once Delete has returned, a racing "+d.Writer+" either ran before it or finds nothing",
					fmt.Sprintf("the task is back: %s\n  the racing calls answered: %v\n  %s", Show(got), calls, e.Rerun()))
				return false
			}
			return d.Gone == nil || d.Gone(id, in)
		}}
	})
}

func SortedKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// Rerun tells how to replay a randomised check: a storecheck command line the CLI
// accepts as it stands (the store's own --adapter or --exec flags added), with the
// budget that shapes the operations, and the go test equivalents.
func (e *Env) Rerun() string {
	s, b := e.RunSeed(), e.Opts.Budget
	return fmt.Sprintf("seed %d: rerun with `storecheck run --seed %d --rules %s --checks %d --goroutines %d --ops %d --histories %d` plus this run's --adapter or --exec flags, or %s=%d go test ..., or conformance.Options{Seed: %d}",
		s, s, e.Rule.ID, b.Checks, b.Goroutines, b.Ops, b.Histories, SeedEnv, s, s)
}

// SeedEnv lets `go test` runs pick the seed without code (Options.Seed wins).
const SeedEnv = "STORECHECK_SEED"

// RunSeed is the seed of the run: Options.Seed, else $STORECHECK_SEED, else one picked
// once per process.
func (e *Env) RunSeed() int64 {
	if e.Opts.Seed != 0 {
		return e.Opts.Seed
	}
	return processSeed()
}

// Lines collects formatted lines from goroutines.
type Lines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *Lines) Add(format string, args ...any) {
	l.mu.Lock()
	l.msgs = append(l.msgs, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// All is a copy of the lines collected so far.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// FaultList collects faults from goroutines.
type FaultList struct{ Lines }

func (f *FaultList) Report(e *Env, input, want string) { f.Check(e, input, want) }

// Check records the faults collected, if any, as one, and reports whether there were
// none.
func (f *FaultList) Check(e *Env, input, want string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.msgs) > 0 {
		return e.Check(false, input, want, fmt.Sprintf("%d faults, e.g. %q\n  %s", len(f.msgs), f.msgs[:min(len(f.msgs), 5)], e.Rerun()))
	}
	return true
}

// Outcome renders a result for the trace: the error's kind only, so that traces do not
// depend on timestamps or generated ids.
func Outcome(err error) string {
	if err == nil {
		return "ok"
	}
	k := model.Kind(err)
	if k == err {
		return "error"
	}
	return k.Error()
}

var processSeed = sync.OnceValue(SeedOrEnv)

// SeedOrEnv is the seed of a run that was given none: $STORECHECK_SEED, else a new one.
func SeedOrEnv() int64 {
	if v, err := strconv.ParseInt(os.Getenv(SeedEnv), 10, 64); err == nil && v != 0 {
		return v
	}
	return NewSeed()
}
