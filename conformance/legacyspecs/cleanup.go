package legacyspecs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// cleanupRun calls Cleanup(ttl) and checks that exactly gone of mine were removed, that
// the rest of mine are still there, and that the count returned is the number of rows
// that disappeared (judged by List before and after, so rows the spec did not create are
// counted too). what describes the moment, for messages.
func cleanupRun(e *battery.Env, st legacy.Store, cl legacy.Cleaner, ttl time.Duration, mine, gone battery.IDSet, what string) {
	before := battery.RowIDs(battery.ListRows(e, st, legacy.ListOptions{}), nil)
	input := fmt.Sprintf("Cleanup(%v) %s", ttl, what)
	n, err := cl.Cleanup(e.Ctx, ttl)
	if !e.CheckErr(err, nil, input) {
		return
	}
	for _, id := range mine.Sorted() {
		_, ok := battery.Stored(e, st, id)
		switch {
		case gone[id]:
			e.Check(!ok, input, battery.Literal(id)+" removed", "still there")
		default:
			e.Check(ok, input, battery.Literal(id)+" kept", "removed")
		}
	}
	after := battery.RowIDs(battery.ListRows(e, st, legacy.ListOptions{}), nil)
	removed := 0
	for id := range before {
		if !after[id] {
			removed++
		}
	}
	e.Check(n == removed, input, fmt.Sprintf("the count of tasks removed, %d", removed), fmt.Sprintf("%d", n))
	for id := range gone {
		delete(mine, id)
	}
}

func Cleanup(s *battery.Suite) {
	s.It("L-CLEAN-1", "removes exactly the terminal tasks with now − created_at > ttl, counting age from created_at", func(e *battery.Env) {
		clk := e.ManualClock()
		st := e.Legacy()
		cl := battery.RequireCleaner(st)
		const ttl = time.Hour
		mine := battery.IDSet{}
		task := func(name string, status any) string {
			id := e.ID(name)
			battery.MustCreate(e, st, id, legacy.Task{"what": name})
			if status != "working" {
				battery.MustUpdate(e, st, id, legacy.Task{legacy.KeyStatus: status})
			}
			mine[id] = true
			return id
		}
		t0 := clk.Now()
		done, failed, cancelled := task("completed", "completed"), task("failed", "failed"), task("cancelled", "cancelled")
		task("working", "working")
		task("input", "input_required")
		task("null-status", nil) // a task without status counts as working
		lateDone := task("late-done", "working")
		clk.Set(t0.Add(30 * time.Minute))
		young := task("young", "completed")
		clk.Set(t0.Add(ttl))
		battery.MustStatus(e, st, lateDone, "completed") // finished just now; age still counts from t0

		cleanupRun(e, st, cl, ttl, mine, battery.IDSet{}, "when the oldest tasks are exactly ttl old (age == ttl is kept)")
		clk.Set(t0.Add(ttl + time.Millisecond))
		cleanupRun(e, st, cl, ttl, mine, battery.SetOf(done, failed, cancelled, lateDone), "1 ms later (age ttl+1ms)")
		clk.Set(t0.Add(30*time.Minute + ttl))
		cleanupRun(e, st, cl, ttl, mine, battery.IDSet{}, "when the young task is exactly ttl old")
		clk.Set(t0.Add(30*time.Minute + ttl + time.Millisecond))
		cleanupRun(e, st, cl, ttl, mine, battery.SetOf(young), "when the young task is ttl+1ms old")
		clk.Set(t0.Add(1000 * time.Hour))
		cleanupRun(e, st, cl, ttl, mine, battery.IDSet{}, "1000 h later: working, input_required and status-less tasks are never removed")

		// ttl 0: a task finished at its creation instant is 0 ms old, which is not > 0.
		now := task("now", "completed")
		cleanupRun(e, st, cl, 0, mine, battery.IDSet{}, "at the instant a completed task was created")
		clk.Advance(time.Millisecond)
		cleanupRun(e, st, cl, 0, mine, battery.SetOf(now), "1 ms after a completed task was created")
		// A ttl that is not a whole number of milliseconds: age 1 ms is not > 1.5 ms.
		half := task("half", "failed")
		clk.Advance(time.Millisecond)
		cleanupRun(e, st, cl, 1500*time.Microsecond, mine, battery.IDSet{}, "when a failed task is 1 ms old")
		clk.Advance(time.Millisecond)
		cleanupRun(e, st, cl, 1500*time.Microsecond, mine, battery.SetOf(half), "when a failed task is 2 ms old")
	})

	s.It("L-CLEAN-1", "counts age from the created_at the task holds, one an Update stored included; a created_at that is not an integer has no age", func(e *battery.Env) {
		st := e.Legacy()
		cl := battery.RequireCleaner(st)
		now := e.NowMillis()
		const hour = int64(time.Hour / time.Millisecond)
		mine := battery.IDSet{}
		task := func(name string, changes legacy.Task) string {
			id := e.ID(name)
			battery.MustCreate(e, st, id, legacy.Task{"what": name})
			battery.MustUpdate(e, st, id, changes)
			mine[id] = true
			return id
		}
		at := func(ms int64) json.Number { return json.Number(fmt.Sprint(ms)) }
		old := task("backdated", legacy.Task{legacy.KeyStatus: "completed", legacy.KeyCreatedAt: at(now - 2*hour)})
		oldFailed := task("backdated-failed", legacy.Task{legacy.KeyCreatedAt: at(now - 3*hour), legacy.KeyStatus: "failed"})
		task("postdated", legacy.Task{legacy.KeyStatus: "completed", legacy.KeyCreatedAt: at(now + 10*hour)})
		task("text", legacy.Task{legacy.KeyStatus: "cancelled", legacy.KeyCreatedAt: "long ago"})
		task("null", legacy.Task{legacy.KeyStatus: "failed", legacy.KeyCreatedAt: nil})
		task("fraction", legacy.Task{legacy.KeyStatus: "completed", legacy.KeyCreatedAt: json.Number("1.5")})
		// Values that look like another type: two hours back as text (digits, padded,
		// with a fraction, in exponent form) and as a number with a fraction. None is an
		// integer, so none has an age; a store that converts what it finds ages them.
		back := fmt.Sprint(now - 2*hour)
		for i, v := range []any{back, " " + back + " ", back + ".0", back + "\n", fmt.Sprintf("%.6e", float64(now-2*hour)), json.Number(back + ".5"), []any{json.Number(back)}} {
			task(fmt.Sprintf("look-alike-%d", i), legacy.Task{legacy.KeyStatus: "completed", legacy.KeyCreatedAt: v})
		}
		task("backdated-working", legacy.Task{legacy.KeyCreatedAt: at(now - 5*hour)})
		task("fresh", legacy.Task{legacy.KeyStatus: "completed"})
		cleanupRun(e, st, cl, time.Hour, mine, battery.SetOf(old, oldFailed),
			"after Updates set created_at two and three hours back (terminal), ten hours ahead, to text, null, 1.5, and two hours back written as text or with a fraction")
	})

	s.It("L-CLEAN-1", "on the store's own clock: keeps young and live tasks, removes old terminal ones, and counts them", func(e *battery.Env) {
		st := e.Legacy()
		cl := battery.RequireCleaner(st)
		mine := battery.IDSet{}
		task := func(name string, status string) string {
			id := e.ID(name)
			battery.MustCreate(e, st, id, legacy.Task{})
			if status != "working" {
				battery.MustStatus(e, st, id, status)
			}
			mine[id] = true
			return id
		}
		done, failed, cancelled := task("completed", "completed"), task("failed", "failed"), task("cancelled", "cancelled")
		task("working", "working")
		task("input", "input_required")
		cleanupRun(e, st, cl, time.Hour, mine, battery.IDSet{}, "of tasks a moment old")
		// Let time pass on whichever clock the store reads.
		e.Age(50*time.Millisecond, 50*time.Millisecond)
		cleanupRun(e, st, cl, 10*time.Millisecond, mine, battery.SetOf(done, failed, cancelled), "50 ms later")
	})

	s.It("L-CLEAN-1", "ttls past 32 bits of milliseconds (2^31, 2^32+1) keep a task exactly that old and remove it 1 ms later; a negative ttl removes every terminal task, or is refused with ErrInvalid and removes nothing", func(e *battery.Env) {
		clk := e.ManualClock()
		st := e.Legacy()
		cl := battery.RequireCleaner(st)
		mine := battery.IDSet{}
		task := func(name, status string) string {
			id := e.ID(name)
			battery.MustCreate(e, st, id, legacy.Task{"what": name})
			if status != "working" {
				battery.MustStatus(e, st, id, status)
			}
			mine[id] = true
			return id
		}
		task("working", "working")
		for _, ms := range []int64{1 << 31, 1<<32 + 1} {
			ttl := time.Duration(ms) * time.Millisecond
			t0 := clk.Now()
			old := task(fmt.Sprintf("done-%d", ms), "completed")
			clk.Set(t0.Add(ttl))
			cleanupRun(e, st, cl, ttl, mine, battery.IDSet{}, fmt.Sprintf("when a completed task is exactly %d ms old", ms))
			clk.Set(t0.Add(ttl + time.Millisecond))
			cleanupRun(e, st, cl, ttl, mine, battery.SetOf(old), fmt.Sprintf("when a completed task is %d ms old", ms+1))
		}

		// A negative ttl: every age, 0 included, is greater than it.
		done := task("negative", "completed")
		ttl := -time.Millisecond
		input := fmt.Sprintf("Cleanup(%v) of a completed task created now", ttl)
		before := battery.RowIDs(battery.ListRows(e, st, legacy.ListOptions{}), nil)
		n, err := cl.Cleanup(e.Ctx, ttl)
		if err != nil {
			e.CheckErr(err, reference.ErrInvalid, input)
			after := battery.RowIDs(battery.ListRows(e, st, legacy.ListOptions{}), nil)
			e.Check(len(after) == len(before), input+" refused", "nothing removed", fmt.Sprintf("%d of %d tasks removed", len(before)-len(after), len(before)))
			return
		}
		_, kept := battery.Stored(e, st, done)
		e.Check(!kept, input, battery.Literal(done)+" removed (age 0 > -1ms), or ErrInvalid", fmt.Sprintf("still there (count %d)", n))
		for id := range mine {
			if id != done {
				_, ok := battery.Stored(e, st, id)
				e.Check(ok, input, battery.Literal(id)+" (working) kept", "removed")
			}
		}
	})
}
