package facadespecs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// note is one TaskChanged call as the recording notifier saw it.
type note struct {
	task      modern.Task
	goroutine uint64
	stored    modern.Task // the store's answer inside the callback
	storeErr  error
}

// recorder is a Notifier that records every call, reading the store inside it.
type recorder struct {
	st    modern.Store
	ctx   context.Context
	mu    sync.Mutex
	notes []note
	panic bool
}

func (r *recorder) TaskChanged(t modern.Task) {
	n := note{task: t, goroutine: modernspecs.Goid()}
	n.stored, n.storeErr = r.st.Get(r.ctx, t.TaskID, reference.System())
	r.mu.Lock()
	r.notes = append(r.notes, n)
	p := r.panic
	r.mu.Unlock()
	if p {
		panic("notifier exploded")
	}
}

// take returns and forgets the notes so far.
func (r *recorder) take() []note {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.notes
	r.notes = nil
	return n
}

func ModernNotify(s *battery.Suite) {
	s.It("M-F-NOTIFY-1", "TaskChanged runs once per successful write, after it, in the writer's goroutine, never for refused or ignored calls", func(e *battery.Env) {
		st := e.Modern()
		rec := &recorder{st: st, ctx: e.Ctx}
		f := battery.ModernFacade(e, func(c *modern.Config) { c.Notifier = rec })
		alice, bob := reference.Principal("alice"), reference.Principal("bob")
		me := modernspecs.Goid()
		var id string

		// expect runs one call and checks that it notified exactly writes times, and if
		// it wrote, that the notification carries the task it returned.
		expect := func(name string, writes int, call func() (modern.Task, error), wantErr error) {
			got, err := call()
			input := fmt.Sprintf("facade %s on task %s", name, battery.Literal(id))
			e.CheckErr(err, wantErr, input)
			notes := rec.take()
			if !e.Check(len(notes) == writes, input, fmt.Sprintf("%d TaskChanged call(s)", writes), fmt.Sprintf("%d", len(notes))) {
				return
			}
			for i, n := range notes {
				e.Check(n.goroutine == me, input, fmt.Sprintf("TaskChanged in the writer's goroutine %d", me), fmt.Sprintf("goroutine %d", n.goroutine))
				if e.CheckErr(n.storeErr, nil, input+": store Get inside TaskChanged") {
					modernspecs.CheckTask(e, input+": inside TaskChanged the store already holds the notified task", n.task, n.stored)
				}
				if i == len(notes)-1 && writes > 0 && err == nil {
					modernspecs.CheckTask(e, input+": TaskChanged got the task the call returned", got, n.task)
				}
			}
		}

		expect("Create", 1, func() (modern.Task, error) {
			t, err := f.Create(e.Ctx, modern.CreateOptions{Owner: "alice"}, nil)
			id = t.TaskID
			return t, err
		}, nil)
		if id == "" {
			return
		}
		expect("Get(alice)", 0, func() (modern.Task, error) { return f.Get(e.Ctx, id, alice) }, nil)
		expect("Status", 0, func() (modern.Task, error) { return f.Status(e.Ctx, id) }, nil)
		expect("Progress", 1, func() (modern.Task, error) { return f.Progress(e.Ctx, id, "working on it") }, nil)
		expect("RequireInput({a, b})", 1, func() (modern.Task, error) {
			return f.RequireInput(e.Ctx, id, map[string]any{"a": "?", "b": "?"})
		}, nil)
		expect("RequireInput({a}) reused", 0, func() (modern.Task, error) {
			return f.RequireInput(e.Ctx, id, map[string]any{"a": "?"})
		}, reference.ErrKeyReused)
		expect("Update(bob, {a}) denied", 0, func() (modern.Task, error) {
			return f.Update(e.Ctx, id, bob, map[string]any{"a": "x"})
		}, reference.ErrNotFound)
		expect("Cancel(bob) denied", 0, func() (modern.Task, error) { return f.Cancel(e.Ctx, id, bob) }, reference.ErrNotFound)
		expect("Update(alice, {zz}) ignored", 0, func() (modern.Task, error) {
			return f.Update(e.Ctx, id, alice, map[string]any{"zz": "x"})
		}, nil)
		expect("Update(alice, {a})", 1, func() (modern.Task, error) {
			return f.Update(e.Ctx, id, alice, map[string]any{"a": "A"})
		}, nil)
		expect("Update(alice, {a}) again, ignored", 0, func() (modern.Task, error) {
			return f.Update(e.Ctx, id, alice, map[string]any{"a": "A2"})
		}, nil)
		expect("Update(alice, {b})", 1, func() (modern.Task, error) {
			return f.Update(e.Ctx, id, alice, map[string]any{"b": "B"})
		}, nil)
		expect("Complete", 1, func() (modern.Task, error) { return f.Complete(e.Ctx, id, map[string]any{"ok": true}) }, nil)
		expect("Complete again", 0, func() (modern.Task, error) { return f.Complete(e.Ctx, id, map[string]any{"ok": false}) }, reference.ErrTerminal)
		expect("Fail after Complete", 0, func() (modern.Task, error) { return f.Fail(e.Ctx, id, modern.RPCError(1, "x", nil)) }, reference.ErrTerminal)
		expect("Progress after Complete", 0, func() (modern.Task, error) { return f.Progress(e.Ctx, id, "x") }, reference.ErrTerminal)
		expect("Cancel(alice) after Complete", 0, func() (modern.Task, error) { return f.Cancel(e.Ctx, id, alice) }, reference.ErrTerminal)

		// A failing start hook: the create and the failure are two writes.
		boom := errors.New("no worker")
		expect("Create with a failing start", 2, func() (modern.Task, error) {
			t, err := f.Create(e.Ctx, modern.CreateOptions{}, func(context.Context, string) error { return boom })
			id = t.TaskID
			return t, err
		}, boom)
		expect("Create with a ttl of 0 (refused)", 0, func() (modern.Task, error) {
			return f.Create(e.Ctx, modern.CreateOptions{TTL: new(time.Duration(0))}, nil)
		}, reference.ErrInvalid)

		// The writer's goroutine is whichever goroutine wrote.
		battery.Together(1, func(int) {
			writer := modernspecs.Goid()
			t, err := f.Create(e.Ctx, modern.CreateOptions{}, nil)
			if !e.CheckErr(err, nil, "facade Create from another goroutine") {
				return
			}
			notes := rec.take()
			e.Check(len(notes) == 1 && notes[0].goroutine == writer && notes[0].task.TaskID == t.TaskID,
				"facade Create from goroutine "+fmt.Sprint(writer), "one TaskChanged in that goroutine",
				fmt.Sprintf("%d notes %s", len(notes), noteGoroutines(notes)))
		})
	})

	s.It("M-F-NOTIFY-1", "a panic in TaskChanged is recovered and logged, and the write still succeeds", func(e *battery.Env) {
		st := e.Modern()
		rec := &recorder{st: st, ctx: e.Ctx, panic: true}
		var logged bytes.Buffer
		var mu sync.Mutex
		f := battery.ModernFacade(e, func(c *modern.Config) {
			c.Notifier = rec
			c.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logged, mu: &mu}, nil))
		})
		var (
			t   modern.Task
			err error
		)
		panicked := recovers(func() { t, err = f.Create(e.Ctx, modern.CreateOptions{Owner: "alice"}, nil) })
		e.Check(panicked == nil, "facade Create with a panicking notifier", "no panic", fmt.Sprint(panicked))
		e.RequireErr(err, nil, "facade Create with a panicking notifier")
		modernspecs.CheckStored(e, st, t, "facade Create with a panicking notifier")
		var p modern.Task
		panicked = recovers(func() { p, err = f.Progress(e.Ctx, t.TaskID, "still fine") })
		e.Check(panicked == nil, "facade Progress with a panicking notifier", "no panic", fmt.Sprint(panicked))
		if e.CheckErr(err, nil, "facade Progress with a panicking notifier") {
			e.Check(p.Version == 2 && p.StatusMessage == "still fine", "facade Progress with a panicking notifier", "the task at version 2", p)
			modernspecs.CheckStored(e, st, p, "facade Progress with a panicking notifier")
		}
		e.Check(len(rec.take()) == 2, "two writes with a panicking notifier", "2 TaskChanged calls", "a different count")
		mu.Lock()
		n := logged.Len()
		mu.Unlock()
		e.Check(n > 0, "two writes with a panicking notifier", "the recovered panics logged", "nothing logged")
	})
}

// lockedWriter serialises writes of a logger into a buffer.
type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// recovers runs f and returns what it panicked with, if anything.
func recovers(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func noteGoroutines(notes []note) string {
	var ids []uint64
	for _, n := range notes {
		ids = append(ids, n.goroutine)
	}
	return fmt.Sprintf("in goroutines %v", ids)
}
