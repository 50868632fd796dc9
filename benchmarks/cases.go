package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
)

// Mode is how a case runs: one goroutine, or b.RunParallel.
type Mode string

const (
	Serial   Mode = "serial"
	Parallel Mode = "parallel"
)

// Sizes of the data sets the cases work on.
const (
	// readSet is how many tasks get and update spread over.
	readSet = 1024
	// listSet is how many tasks list looks through, spread over listOwners owners;
	// every list asks for listLimit rows.
	listSet, listOwners, listLimit = 10_000, 100, 10
	// cleanupSet is how many tasks cleanup looks through; half of them are due.
	cleanupSet = 10_000
	// casWriters is how many goroutines increment one task in the contended CAS.
	casWriters = 8
)

// cleanupTTL is the ttl of the cleanup case; due tasks are twice as old.
const cleanupTTL = time.Hour

// Case is one benchmarked operation.
type Case struct {
	// Op names it: legacy-create, ..., modern-cas.
	Op string
	// Modes are the modes it runs in.
	Modes []Mode
	// About says what one op is, for the table's notes.
	About string
	// grows is set for a case whose every op adds a task: its Space is replaced by a
	// fresh one every growCap ops, so that memory stays bounded however large b.N is.
	grows bool
	setup func(ctx context.Context, sp *Space, d *caseData) error
	run   func(b *testing.B, sp *Space, d *caseData, mode Mode)
}

// caseData is what a case's setup leaves for its runs.
type caseData struct {
	prefix string
	seq    atomic.Uint64
	ids    []string
	// slots hand each goroutine of the swap case a task of its own, with its version.
	slots chan *swapSlot
	now   int64

	// growth rotates the Space of a case whose every op adds a task (see growCap).
	growth *growth

	mu      sync.Mutex
	failure string // the first failure of a run, for Run (testing.Benchmark drops it)
}

// error records err as the run's failure (the first one wins) and fails b.
func (d *caseData) error(b *testing.B, err error) {
	d.mu.Lock()
	if d.failure == "" {
		d.failure = err.Error()
	}
	d.mu.Unlock()
	b.Error(err)
}

// fatal is error, then b.FailNow.
func (d *caseData) fatal(b *testing.B, err error) {
	d.error(b, err)
	b.FailNow()
}

func (d *caseData) fatalf(b *testing.B, format string, args ...any) {
	d.fatal(b, fmt.Errorf(format, args...))
}

// takeFailure returns the recorded failure and clears it.
func (d *caseData) takeFailure() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.failure
	d.failure = ""
	return f
}

type swapSlot struct {
	id      string
	version int64
}

// newID is an id no other run of the fixture has used.
func (d *caseData) newID() string {
	return d.prefix + strconv.FormatUint(d.seq.Add(1), 10)
}

func owner(i int) string { return "user-" + strconv.Itoa(i%listOwners) }

var bothModes = []Mode{Serial, Parallel}

// Cases are every benchmarked operation, legacy then modern.
func Cases() []Case {
	return []Case{
		{Op: "legacy-create", Modes: bothModes, About: "Create of a new task", grows: true, run: create(legacyOf)},
		{Op: "legacy-get", Modes: bothModes, About: fmt.Sprintf("Get of one of %d tasks", readSet), setup: seedLegacy(readSet), run: legacyGet},
		{Op: "legacy-update", Modes: bothModes, About: fmt.Sprintf("Update of one key of one of %d tasks", readSet), setup: seedLegacy(readSet), run: legacyUpdate},
		{Op: "legacy-list", Modes: bothModes, About: fmt.Sprintf("List of %d tasks, owner-scoped (%d owners), limit %d", listSet, listOwners, listLimit), setup: seedLegacy(listSet), run: legacyList},
		{Op: "legacy-cleanup", Modes: []Mode{Serial}, About: fmt.Sprintf("Cleanup of %d terminal tasks, half of them due", cleanupSet), setup: seedYoung, run: legacyCleanup},
		{Op: "modern-create", Modes: bothModes, About: "Create of a new task", grows: true, run: create(modernOf)},
		{Op: "modern-get", Modes: bothModes, About: fmt.Sprintf("Get of one of %d tasks", readSet), setup: seedModern(readSet), run: modernGet},
		{Op: "modern-swap", Modes: bothModes, About: "Swap at the known version, a task per goroutine (no read, no conflict)", setup: seedModern(readSet), run: modernSwap},
		{Op: "modern-lifecycle", Modes: bothModes, About: "facade Create, Progress, Complete (5 store calls)", grows: true, run: modernLifecycle},
		{Op: "modern-cas", Modes: bothModes, About: fmt.Sprintf("read+Swap increment of one task; parallel: %d goroutines on it", casWriters), setup: seedModern(1), run: modernCAS},
	}
}

// ids makes n new ids.
func (d *caseData) newIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = d.newID()
	}
	return ids
}

func seedLegacy(n int) func(ctx context.Context, sp *Space, d *caseData) error {
	return func(ctx context.Context, sp *Space, d *caseData) error {
		d.ids = d.newIDs(n)
		i := atomic.Int64{}
		return forEach(ctx, d.ids, func(ctx context.Context, id string) error {
			return sp.Legacy.Create(ctx, id, owner(int(i.Add(1))))
		})
	}
}

func seedModern(n int) func(ctx context.Context, sp *Space, d *caseData) error {
	return func(ctx context.Context, sp *Space, d *caseData) error {
		d.ids = d.newIDs(n)
		d.slots = make(chan *swapSlot, n)
		for _, id := range d.ids {
			d.slots <- &swapSlot{id: id, version: 1}
		}
		return forEach(ctx, d.ids, func(ctx context.Context, id string) error {
			return sp.Modern.Create(ctx, id, ownerOf(d, id))
		})
	}
}

// ownerOf is the owner seedModern gave id.
func ownerOf(d *caseData, id string) string {
	n, _ := strconv.Atoi(id[len(d.prefix):])
	return owner(n - 1)
}

// seedYoung makes the half of the cleanup set that is never due: completed now.
func seedYoung(ctx context.Context, sp *Space, d *caseData) error {
	d.now = time.Now().UnixMilli()
	return sp.Legacy.Seed(ctx, d.newIDs(cleanupSet/2), owner(0), d.now)
}

// each runs op once per iteration, serially or under RunParallel; i counts from a
// different place in every goroutine so that parallel goroutines touch different tasks.
func each(b *testing.B, d *caseData, mode Mode, op func(ctx context.Context, i int) error) {
	ctx := context.Background()
	if mode == Serial {
		for i := range b.N {
			if err := op(ctx, i); err != nil {
				d.fatal(b, err)
			}
		}
		return
	}
	var start atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(start.Add(1)) * 7919
		for pb.Next() {
			i++
			if err := op(ctx, i); err != nil {
				d.error(b, err)
				return
			}
		}
	})
}

func legacyOf(sp *Space) LegacyOps { return sp.Legacy }
func modernOf(sp *Space) ModernOps { return sp.Modern }

// create is the create case of the era that era picks from a Space: every op makes a new
// task, in the Space growth has current.
func create[O interface {
	Create(ctx context.Context, id, owner string) error
}](era func(*Space) O) func(b *testing.B, sp *Space, d *caseData, mode Mode) {
	return func(b *testing.B, _ *Space, d *caseData, mode Mode) {
		each(b, d, mode, func(ctx context.Context, i int) error {
			sp, err := d.growth.space(ctx)
			if err != nil {
				return err
			}
			return era(sp).Create(ctx, d.newID(), owner(i))
		})
	}
}

func legacyGet(b *testing.B, sp *Space, d *caseData, mode Mode) {
	each(b, d, mode, func(ctx context.Context, i int) error { return sp.Legacy.Get(ctx, d.ids[i%len(d.ids)]) })
}

func legacyUpdate(b *testing.B, sp *Space, d *caseData, mode Mode) {
	each(b, d, mode, func(ctx context.Context, i int) error { return sp.Legacy.Update(ctx, d.ids[i%len(d.ids)], i) })
}

func legacyList(b *testing.B, sp *Space, d *caseData, mode Mode) {
	each(b, d, mode, func(ctx context.Context, i int) error {
		n, err := sp.Legacy.List(ctx, owner(i), listLimit)
		if err == nil && n != listLimit {
			err = fmt.Errorf("List(principal %s, limit %d) returned %d rows, want %d (%d tasks, %d owners)", owner(i), listLimit, n, listLimit, listSet, listOwners)
		}
		return err
	})
}

// legacyCleanup loads the due half again before every Cleanup, with the timer stopped.
func legacyCleanup(b *testing.B, sp *Space, d *caseData, mode Mode) {
	ctx := context.Background()
	due := d.now - 2*cleanupTTL.Milliseconds()
	for range b.N {
		b.StopTimer()
		if err := sp.Legacy.Seed(ctx, d.newIDs(cleanupSet/2), owner(1), due); err != nil {
			d.fatal(b, fmt.Errorf("loading the due half: %w", err))
		}
		b.StartTimer()
		n, err := sp.Legacy.Cleanup(ctx, d.now, cleanupTTL)
		if err != nil {
			d.fatal(b, err)
		}
		if n != cleanupSet/2 {
			d.fatalf(b, "Cleanup(%s) of %d completed tasks, %d of them %s old, removed %d, want %d", cleanupTTL, cleanupSet, cleanupSet/2, 2*cleanupTTL, n, cleanupSet/2)
		}
	}
}

func modernGet(b *testing.B, sp *Space, d *caseData, mode Mode) {
	each(b, d, mode, func(ctx context.Context, i int) error { return sp.Modern.Get(ctx, d.ids[i%len(d.ids)]) })
}

// modernSwap gives every goroutine a task of its own, whose version it tracks.
func modernSwap(b *testing.B, sp *Space, d *caseData, mode Mode) {
	ctx := context.Background()
	run := func(next func() bool) {
		s := <-d.slots
		defer func() { d.slots <- s }()
		for next() {
			if err := sp.Modern.Swap(ctx, s.id, ownerOf(d, s.id), s.version); err != nil {
				d.error(b, fmt.Errorf("Swap(%s at version %d): %w", s.id, s.version, err))
				return
			}
			s.version++
		}
	}
	if mode == Serial {
		i := 0
		run(func() bool { i++; return i <= b.N })
		return
	}
	b.RunParallel(func(pb *testing.PB) { run(pb.Next) })
}

func modernLifecycle(b *testing.B, sp *Space, d *caseData, mode Mode) {
	each(b, d, mode, func(ctx context.Context, i int) error {
		sp, err := d.growth.space(ctx)
		if err != nil {
			return err
		}
		return sp.Modern.Lifecycle(ctx, owner(i))
	})
}

// modernCAS increments one task; in parallel mode casWriters goroutines do, whatever
// GOMAXPROCS is.
func modernCAS(b *testing.B, sp *Space, d *caseData, mode Mode) {
	if mode == Parallel {
		p := runtime.GOMAXPROCS(0)
		b.SetParallelism((casWriters + p - 1) / p)
	}
	each(b, d, mode, func(ctx context.Context, i int) error { return sp.Modern.Increment(ctx, d.ids[0]) })
}

// fixture is a case's Space and data for one subject, made on first use and shared by
// the case's modes and every round testing runs.
type fixture struct {
	subj Subject
	c    Case
	sp   *Space
	data *caseData
	err  error
}

func newFixture(subj Subject, c Case) *fixture { return &fixture{subj: subj, c: c} }

// ensure opens the fixture's Space and runs the case's setup, once.
func (f *fixture) ensure(ctx context.Context) error {
	if f.sp != nil || f.err != nil {
		return f.err
	}
	sp, err := f.subj.Open(ctx)
	if err != nil {
		f.err = fmt.Errorf("%s: open: %w", f.subj.What, err)
		return f.err
	}
	f.sp = sp
	f.data = &caseData{prefix: "b" + reference.GenerateID()[:8] + "-"}
	if f.c.grows {
		f.data.growth = &growth{open: f.subj.Open}
		f.data.growth.cur.Store(sp)
	}
	if f.c.setup != nil {
		if err := f.c.setup(ctx, sp, f.data); err != nil {
			f.err = fmt.Errorf("%s: %s setup: %w", f.subj.What, f.c.Op, err)
		}
	}
	return f.err
}

// bench is the benchmark function of the fixture's case in mode.
func (f *fixture) bench(mode Mode) func(b *testing.B) {
	return func(b *testing.B) {
		if err := f.ensure(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		f.c.run(b, f.sp, f.data, mode)
	}
}

// close closes the fixture's Space.
func (f *fixture) close(ctx context.Context) error {
	if f.sp == nil {
		return nil
	}
	sp := f.sp
	f.sp = nil
	err := sp.Close(ctx)
	if f.data != nil && f.data.growth != nil {
		err = errors.Join(err, f.data.growth.close(ctx))
	}
	return err
}

// growCap is how many ops of a growing case one Space takes before a fresh one replaces
// it. Without it a create benchmark keeps every task it made, and testing.Benchmark
// ramps b.N up until a round lasts -benchtime, so the faster the store the more tasks
// it holds: an in-process store's memory would grow with its speed. The cap bounds what
// one Space holds, whatever the speed; a networked store, far slower per op, never
// reaches it within a round (docs/performance.md, "Memory of the benchmarks", has the
// figures).
const growCap = 1 << 16

// growth hands out the current Space of a growing case and replaces it every growCap
// ops. The op that crosses the boundary opens the new Space (a memstore is a few
// allocations; the replaced ones are closed when the fixture is).
type growth struct {
	open func(ctx context.Context) (*Space, error)
	ops  atomic.Int64
	cur  atomic.Pointer[Space]

	mu sync.Mutex
	// closes are the Close of every replaced Space but the first (the fixture closes
	// that one); only the functions are kept, so that the tasks can be collected.
	closes  []func(ctx context.Context) error
	rotated bool // the first Space has been replaced
}

func (g *growth) space(ctx context.Context) (*Space, error) {
	if g.ops.Add(1)%growCap != 0 {
		return g.cur.Load(), nil
	}
	sp, err := g.open(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening a fresh space after %d creates: %w", growCap, err)
	}
	g.mu.Lock()
	old := g.cur.Swap(sp)
	if g.rotated {
		g.closes = append(g.closes, old.Close)
	}
	g.rotated = true
	g.mu.Unlock()
	return sp, nil
}

// close closes the Spaces growth opened (the fixture closes the first one).
func (g *growth) close(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var err error
	for _, c := range g.closes {
		err = errors.Join(err, c(ctx))
	}
	if g.rotated {
		err = errors.Join(err, g.cur.Load().Close(ctx))
	}
	g.closes, g.rotated = nil, false
	return err
}
