package faults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// A write leaves its task in a state named by its mark: a number unique in the task's
// history, written twice in one call (legacy: keys "seq" and "tag"; modern: the status
// message and the result), so that a write applied halfway shows as two marks that
// disagree.

// target is one era's store under the workload.
type target interface {
	era() string
	create(ctx context.Context, id string, mark int64) error
	// write replaces the task's mark (legacy Update, modern Swap at version) and
	// returns the new version (modern) or 0.
	write(ctx context.Context, id string, mark, version int64) (int64, error)
	remove(ctx context.Context, id string) error
	read(ctx context.Context, id string) (observed, error)
}

// observed is a task as read back.
type observed struct {
	present bool
	mark    int64
	// torn is set when the two copies of the mark disagree (or cannot be read):
	// a write applied in part.
	torn    bool
	version int64
	raw     string
}

func (o observed) String() string {
	switch {
	case !o.present:
		return "absent"
	case o.torn:
		return "torn state " + o.raw
	}
	return "mark " + strconv.FormatInt(o.mark, 10)
}

type legacyTarget struct{ s legacy.Store }

func (legacyTarget) era() string { return "legacy" }

func legacyMark(mark int64) legacy.Task {
	return legacy.Task{"seq": json.Number(strconv.FormatInt(mark, 10)), "tag": "w" + strconv.FormatInt(mark, 10)}
}

func (t legacyTarget) create(ctx context.Context, id string, mark int64) error {
	_, err := t.s.Create(ctx, id, legacyMark(mark))
	return err
}

func (t legacyTarget) write(ctx context.Context, id string, mark, _ int64) (int64, error) {
	_, err := t.s.Update(ctx, id, legacyMark(mark))
	return 0, err
}

func (t legacyTarget) remove(ctx context.Context, id string) error { return t.s.Delete(ctx, id) }

func (t legacyTarget) read(ctx context.Context, id string) (observed, error) {
	task, err := t.s.Get(ctx, id)
	if errors.Is(err, reference.ErrNotFound) {
		return observed{}, nil
	}
	if err != nil {
		return observed{}, err
	}
	o := observed{present: true, raw: fmt.Sprintf("seq=%v tag=%v", task["seq"], task["tag"])}
	seq, ok := task["seq"].(json.Number)
	tag, ok2 := task["tag"].(string)
	n, err := strconv.ParseInt(string(seq), 10, 64)
	if !ok || !ok2 || err != nil || tag != "w"+string(seq) {
		o.torn = true
		return o, nil
	}
	o.mark = n
	return o, nil
}

type modernTarget struct {
	s     modern.Store
	clock reference.Clock
}

func (modernTarget) era() string { return "modern" }

func (t modernTarget) task(id string, mark int64) modern.Task {
	now := reference.NowMillis(t.clock)
	return modern.Task{
		TaskID: id, Status: reference.StatusWorking, StatusMessage: "w" + strconv.FormatInt(mark, 10),
		CreatedAt: 0, LastUpdatedAt: now,
		Result: map[string]any{"seq": json.Number(strconv.FormatInt(mark, 10))},
	}
}

func (t modernTarget) create(ctx context.Context, id string, mark int64) error {
	_, err := t.s.Create(ctx, t.task(id, mark))
	return err
}

func (t modernTarget) write(ctx context.Context, id string, mark, version int64) (int64, error) {
	got, err := t.s.Swap(ctx, reference.System(), version, t.task(id, mark))
	return got.Version, err
}

func (t modernTarget) remove(ctx context.Context, id string) error { return t.s.Delete(ctx, id) }

func (t modernTarget) read(ctx context.Context, id string) (observed, error) {
	task, err := t.s.Get(ctx, id, reference.System())
	if errors.Is(err, reference.ErrNotFound) {
		return observed{}, nil
	}
	if err != nil {
		return observed{}, err
	}
	o := observed{present: true, version: task.Version,
		raw: fmt.Sprintf("status_message=%q result=%v version=%d", task.StatusMessage, task.Result, task.Version)}
	seq, ok := task.Result["seq"].(json.Number)
	n, err := strconv.ParseInt(string(seq), 10, 64)
	if !ok || err != nil || task.StatusMessage != "w"+string(seq) {
		o.torn = true
		return o, nil
	}
	o.mark = n
	return o, nil
}

// opKind is what a write did.
type opKind string

const (
	opCreate opKind = "create"
	opWrite  opKind = "write" // legacy Update, modern Swap
	opDelete opKind = "delete"
)

// op is one write of a task's history.
type op struct {
	kind  opKind
	mark  int64 // the state it leaves: mark, or absent for a delete
	acked bool
	err   string
	// seenApplied is set for an errored write by the read that followed it once the
	// store served again: 1 it had taken effect, -1 it had not, 0 never read; seenAt is
	// when that read began, end when the write returned.
	seenApplied int
	seenAt, end time.Time
}

// history is one task's writes, in order. A worker stops writing a task after its
// first errored write, so only the last write can have failed.
type history struct {
	era string
	id  string
	ops []op
}

// calls records every call of a run as it ends, for the judges (callRecord), and
// keeps the two counts the run waits on: acknowledged calls before the fault, and the
// eras whose clients have succeeded since the backend came back.
type calls struct {
	mu       sync.Mutex
	inFlight atomic.Int64
	log      []callRecord // in the order the calls ended
	acked    int
	// backAt is when the backend answered again (zero before); recovered holds the
	// eras with a call begun after it that succeeded.
	backAt    time.Time
	recovered map[string]bool
}

func newCalls() *calls { return &calls{recovered: map[string]bool{}} }

// callRecord is one call of the workload: what it was, when it began and ended, and
// how it ended.
type callRecord struct {
	era, what  string
	start, end time.Time
	err        error  // nil: acknowledged
	panicked   string // what it panicked with ("" when it did not); err is then set too
	// cancelled: the run's own context had ended when the call returned, so how late
	// it returned says nothing about the store.
	cancelled bool
}

// call runs fn with a deadline of timeout and records how it ended.
func (c *calls) call(ctx context.Context, era, what string, timeout time.Duration, fn func(ctx context.Context) error) (err error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c.inFlight.Add(1)
	start := time.Now()
	defer func() {
		c.inFlight.Add(-1)
		rec := callRecord{era: era, what: what, start: start, end: time.Now()}
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
			rec.panicked = fmt.Sprint(r)
		}
		rec.err, rec.cancelled = err, ctx.Err() != nil
		c.mu.Lock()
		defer c.mu.Unlock()
		c.log = append(c.log, rec)
		if err == nil {
			c.acked++
			if !c.backAt.IsZero() && start.After(c.backAt) {
				c.recovered[era] = true
			}
		}
	}()
	return fn(cctx)
}

// ackedCount is how many calls have succeeded so far.
func (c *calls) ackedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acked
}

// markBack records when the backend answered again.
func (c *calls) markBack(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.backAt = at
}

// recoveredEras is how many eras' clients have succeeded since markBack.
func (c *calls) recoveredEras() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.recovered)
}

// snapshot returns the calls recorded so far.
func (c *calls) snapshot() []callRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]callRecord(nil), c.log...)
}

// worker writes tasks of one era until stop closes: creates, writes (updates or
// swaps) and deletes, each acknowledged write recorded.
type worker struct {
	t       target
	name    string
	calls   *calls
	timeout time.Duration
	pause   time.Duration // between writes, so that a worker does not saturate the backend

	histories []*history
}

func (w *worker) run(ctx context.Context, stop <-chan struct{}) {
	stopped := func() bool {
		select {
		case <-stop:
			return true
		case <-ctx.Done():
			return true
		default:
			return false
		}
	}
	n := 0
	for !stopped() {
		n++
		h := &history{era: w.t.era(), id: fmt.Sprintf("%s-%d", w.name, n)}
		w.histories = append(w.histories, h)
		w.task(ctx, h, stopped)
	}
}

// task writes one task until an error, a delete or stop.
func (w *worker) task(ctx context.Context, h *history, stopped func() bool) {
	var mark, version int64
	do := func(kind opKind, fn func(ctx context.Context) error) bool {
		mark++
		o := op{kind: kind, mark: mark}
		err := w.calls.call(ctx, h.era, string(kind)+" "+h.id, w.timeout, fn)
		o.end = time.Now()
		if err == nil {
			o.acked = true
		} else {
			o.err = err.Error()
		}
		h.ops = append(h.ops, o)
		if err != nil {
			w.resync(ctx, h, stopped)
		}
		return err == nil
	}
	m := mark + 1
	if !do(opCreate, func(ctx context.Context) error { return w.t.create(ctx, h.id, m) }) {
		return
	}
	version = 1
	// Ten writes, then a delete: tasks are created and deleted all along the run.
	for i := 0; i < 10; i++ {
		if stopped() {
			return
		}
		w.sleep()
		m, v := mark+1, version
		var got int64
		if !do(opWrite, func(ctx context.Context) error {
			var err error
			got, err = w.t.write(ctx, h.id, m, v)
			return err
		}) {
			return
		}
		version = got
	}
	if stopped() {
		return
	}
	w.sleep()
	do(opDelete, func(ctx context.Context) error { return w.t.remove(ctx, h.id) })
}

func (w *worker) sleep() {
	if w.pause > 0 {
		time.Sleep(w.pause)
	}
}

// resync reads the task after an errored write until a read succeeds (the store
// serves again) or stop, and records whether the write had taken effect then.
func (w *worker) resync(ctx context.Context, h *history, stopped func() bool) {
	last := &h.ops[len(h.ops)-1]
	// Backing off as a client should: every read given up at its deadline leaves the
	// backend a connection to accept and authenticate once it is back, so retrying at a
	// short fixed interval would pile up the very work that delays the recovery being
	// timed (docs/faults.md, "Timings").
	backoff := 100 * time.Millisecond
	for {
		var o observed
		began := time.Now()
		err := w.calls.call(ctx, h.era, "get "+h.id, w.timeout, func(ctx context.Context) error {
			var err error
			o, err = w.t.read(ctx, h.id)
			return err
		})
		if err == nil {
			applied := o.present && !o.torn && o.mark == last.mark
			if last.kind == opDelete {
				applied = !o.present
			}
			last.seenApplied, last.seenAt = -1, began
			if applied {
				last.seenApplied = 1
			}
			return
		}
		if stopped() {
			return
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, time.Second)
	}
}
