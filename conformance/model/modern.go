package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern models a modern store (docs/spec.md 2.1) and, through its F* methods, the modern
// facade over it (2.2). Notes records every write the facade made, in order: what its
// notifier must have heard (M-F-NOTIFY-1).
type Modern struct {
	tasks map[string]modern.Task
	Notes []modern.Task
}

// NewModern returns an empty modern model.
func NewModern() *Modern { return &Modern{tasks: map[string]modern.Task{}} }

// Clone returns an independent copy.
func (m *Modern) Clone() *Modern {
	c := NewModern()
	for id, t := range m.tasks {
		c.tasks[id] = t.Clone()
	}
	for _, n := range m.Notes {
		c.Notes = append(c.Notes, n.Clone())
	}
	return c
}

// IDs lists the stored ids (expired ones too, until swept), sorted.
func (m *Modern) IDs() []string {
	return slices.Sorted(maps.Keys(m.tasks))
}

// Task returns a copy of the stored task, expired or not.
func (m *Modern) Task(id string) (modern.Task, bool) {
	t, ok := m.tasks[id]
	return t.Clone(), ok
}

// Put stores t as it is, version included (for histories that carry the state).
func (m *Modern) Put(t modern.Task) { m.tasks[t.TaskID] = t.Clone() }

// Equal reports whether two models hold the same tasks (notes aside).
func (m *Modern) Equal(o *Modern) bool {
	if len(m.tasks) != len(o.tasks) {
		return false
	}
	for id, t := range m.tasks {
		u, ok := o.tasks[id]
		if !ok || !modern.Equal(t, u) {
			return false
		}
	}
	return true
}

func expired(t modern.Task, now int64) bool { return t.TTL != nil && now >= t.CreatedAt+*t.TTL }

func canonicalTask(t modern.Task) modern.Task {
	c, err := t.Normalize()
	if err != nil {
		panic(fmt.Sprintf("model: task with no JSON form: %v", err))
	}
	return c
}

// Create is M-CREATE-1: version 1; an existing id, expired or not, is ErrExists.
func (m *Modern) Create(task modern.Task) (modern.Task, error) {
	if !ValidID(task.TaskID) {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, task.TaskID)
	}
	if _, ok := m.tasks[task.TaskID]; ok {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, task.TaskID)
	}
	t := canonicalTask(task)
	t.Version = 1
	m.tasks[t.TaskID] = t
	return t.Clone(), nil
}

// Get is M-GET-1: missing, expired (now ≥ created_at + ttl) and invisible tasks are not
// found; at the store require_owner is off.
func (m *Modern) Get(id string, c reference.Caller, now int64) (modern.Task, error) {
	t, ok := m.tasks[id]
	if !ok || expired(t, now) || !Visible(t.Owner, c, false) {
		return modern.Task{}, reference.NotFound(id)
	}
	return t.Clone(), nil
}

// Swap is M-SWAP-1..3. The order of the refusals: not found (no existence leak), then
// an immutable field changed, then a version mismatch.
func (m *Modern) Swap(c reference.Caller, expected int64, next modern.Task, now int64) (modern.Task, error) {
	id := next.TaskID
	cur, err := m.Get(id, c, now)
	if err != nil {
		return modern.Task{}, err
	}
	if next.Owner != cur.Owner || next.CreatedAt != cur.CreatedAt {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, id)
	}
	if cur.Version != expected {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, id)
	}
	t := canonicalTask(next)
	t.Version = expected + 1
	m.tasks[id] = t
	return t.Clone(), nil
}

// Delete is M-DELETE-1.
func (m *Modern) Delete(id string) { delete(m.tasks, id) }

// Sweep is M-SWEEP-1: removes the expired tasks and returns how many.
func (m *Modern) Sweep(now int64) int {
	n := 0
	for id, t := range m.tasks {
		if expired(t, now) {
			delete(m.tasks, id)
			n++
		}
	}
	return n
}

// --- facade (docs/spec.md 2.2) ---

// Facade is the configuration of the modern facade the model follows.
type Facade struct {
	RequireOwner bool
	DefaultTTL   time.Duration // 0: none
	MaxTTL       time.Duration // 0: no cap; with a cap, none becomes the cap
}

// CreateOptions mirror modern.CreateOptions.
type CreateOptions = modern.CreateOptions

func ceilMillis(d time.Duration) int64 { return int64((d + time.Millisecond - 1) / time.Millisecond) }

// TTL is the ttl the facade applies (M-F-CREATE-1): requested, else the default; clamped
// to the cap (none too, when there is a cap); nil for none.
func (f Facade) TTL(requested *time.Duration) *int64 {
	d := f.DefaultTTL
	if requested != nil {
		d = *requested
	}
	if f.MaxTTL > 0 && (d <= 0 || d > f.MaxTTL) {
		d = f.MaxTTL
	}
	if d <= 0 {
		return nil
	}
	ms := ceilMillis(d)
	return &ms
}

// FacadeCreate is M-F-CREATE-1 for the id the facade generated: a working task stamped from
// opts at now, then, when the start hook failed with hookErr, failed with code -32603
// and the hook's message.
func (m *Modern) FacadeCreate(f Facade, id string, opts CreateOptions, now int64, hookErr error) (modern.Task, error) {
	if (opts.TTL != nil && *opts.TTL <= 0) || (opts.PollInterval != nil && *opts.PollInterval <= 0) {
		return modern.Task{}, reference.ErrInvalid
	}
	t := modern.Task{
		TaskID: id, Owner: opts.Owner, Status: reference.StatusWorking, StatusMessage: opts.StatusMessage,
		CreatedAt: now, LastUpdatedAt: now, TTL: f.TTL(opts.TTL),
	}
	if opts.PollInterval != nil {
		p := ceilMillis(*opts.PollInterval)
		t.PollInterval = &p
	}
	created, err := m.Create(t)
	if err != nil {
		return modern.Task{}, err
	}
	m.Notes = append(m.Notes, created.Clone())
	if hookErr == nil {
		return created, nil
	}
	failed, _ := m.FacadeFail(f, id, map[string]any{"code": json.Number("-32603"), "message": hookErr.Error()}, now)
	return failed, fmt.Errorf("start task %s: %w", id, hookErr)
}

// load is the facade's read: as the system, with expiry, then the truth table for c.
func (m *Modern) load(f Facade, id string, c reference.Caller, now int64) (modern.Task, error) {
	t, err := m.Get(id, reference.System(), now)
	if err != nil || !Visible(t.Owner, c, f.RequireOwner) {
		return modern.Task{}, reference.NotFound(id)
	}
	return t, nil
}

// FacadeGet is the client's tasks/get (M-F-SCOPE-1).
func (m *Modern) FacadeGet(f Facade, id string, c reference.Caller, now int64) (modern.Task, error) {
	return m.load(f, id, c, now)
}

// FacadeStatus is the worker's read (M-F-TTL-1).
func (m *Modern) FacadeStatus(f Facade, id string, now int64) (modern.Task, error) {
	return m.load(f, id, reference.System(), now)
}

// FacadeCancelled reports whether the task is cancelled.
func (m *Modern) FacadeCancelled(f Facade, id string, now int64) (bool, error) {
	t, err := m.FacadeStatus(f, id, now)
	return err == nil && t.Status == reference.StatusCancelled, err
}

// write is one lifecycle write: compute next from a copy of the live task visible to c,
// or refuse. A terminal task is refused with ErrTerminal, answering the task as it is
// (M-F-FIN-1). write false leaves the task untouched and answers it with err.
func (m *Modern) write(f Facade, id string, c reference.Caller, now int64, fn func(t *modern.Task) (write bool, err error)) (modern.Task, error) {
	cur, err := m.load(f, id, c, now)
	if err != nil {
		return modern.Task{}, err
	}
	if terminal(cur.Status) {
		return cur, reference.ErrorFor(reference.ErrTerminal, id)
	}
	next := cur.Clone()
	w, err := fn(&next)
	if !w || err != nil {
		return cur, err
	}
	next.LastUpdatedAt = max(now, cur.LastUpdatedAt)
	stored, err := m.Swap(reference.System(), cur.Version, next, now)
	if err != nil {
		panic("model: a facade write the model itself refused: " + err.Error())
	}
	m.Notes = append(m.Notes, stored.Clone())
	return stored, nil
}

func object(v map[string]any) map[string]any {
	if v == nil {
		return map[string]any{}
	}
	n, err := jsonvalue.Normalize(v)
	if err != nil {
		panic(fmt.Sprintf("model: value with no JSON form: %v", err))
	}
	return n.(map[string]any)
}

// FacadeProgress sets the status message of a live task.
func (m *Modern) FacadeProgress(f Facade, id, message string, now int64) (modern.Task, error) {
	return m.write(f, id, reference.System(), now, func(t *modern.Task) (bool, error) {
		t.StatusMessage = message
		return true, nil
	})
}

// FacadeRequireInput is M-F-INPUT-1. Keys of one call are issued in sorted order.
func (m *Modern) FacadeRequireInput(f Facade, id string, requests map[string]any, now int64) (modern.Task, error) {
	if len(requests) == 0 {
		return modern.Task{}, reference.ErrInvalid
	}
	reqs := object(requests)
	keys := slices.Sorted(maps.Keys(reqs))
	return m.write(f, id, reference.System(), now, func(t *modern.Task) (bool, error) {
		for _, k := range keys {
			if slices.Contains(t.IssuedKeys, k) {
				return false, reference.ErrorFor(reference.ErrKeyReused, id)
			}
		}
		t.Status = reference.StatusInputRequired
		if t.InputRequests == nil {
			t.InputRequests = map[string]any{}
		}
		maps.Copy(t.InputRequests, reqs)
		t.IssuedKeys = append(t.IssuedKeys, keys...)
		t.InputResponses = nil
		return true, nil
	})
}

// FacadeUpdate is the client's tasks/update (M-F-INPUT-2, M-F-SCOPE-1).
func (m *Modern) FacadeUpdate(f Facade, id string, c reference.Caller, responses map[string]any, now int64) (modern.Task, error) {
	resps := object(responses)
	return m.write(f, id, c, now, func(t *modern.Task) (bool, error) {
		applied := false
		for k, v := range resps {
			if _, out := t.InputRequests[k]; !out {
				continue
			}
			delete(t.InputRequests, k)
			if t.StagedResponses == nil {
				t.StagedResponses = map[string]any{}
			}
			t.StagedResponses[k] = v
			applied = true
		}
		if !applied {
			return false, nil
		}
		if len(t.InputRequests) == 0 {
			t.Status = reference.StatusWorking
			t.InputResponses = t.StagedResponses
			t.StagedResponses = nil
		}
		return true, nil
	})
}

// FacadeComplete finishes a live task with result (nil stores {}).
func (m *Modern) FacadeComplete(f Facade, id string, result map[string]any, now int64) (modern.Task, error) {
	res := object(result)
	return m.write(f, id, reference.System(), now, func(t *modern.Task) (bool, error) {
		t.Status = reference.StatusCompleted
		t.Result = res
		return true, nil
	})
}

// FacadeFail fails a live task with a JSON-RPC error object (nil is ErrInvalid).
func (m *Modern) FacadeFail(f Facade, id string, rpcError map[string]any, now int64) (modern.Task, error) {
	if rpcError == nil {
		return modern.Task{}, reference.ErrInvalid
	}
	e := object(rpcError)
	return m.write(f, id, reference.System(), now, func(t *modern.Task) (bool, error) {
		t.Status = reference.StatusFailed
		t.Error = e
		return true, nil
	})
}

// FacadeCancel is the client's tasks/cancel: a terminal task is answered as it is with
// ErrTerminal (M-F-FIN-1).
func (m *Modern) FacadeCancel(f Facade, id string, c reference.Caller, now int64) (modern.Task, error) {
	return m.write(f, id, c, now, func(t *modern.Task) (bool, error) {
		t.Status = reference.StatusCancelled
		return true, nil
	})
}
