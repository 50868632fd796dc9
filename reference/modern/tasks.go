package modern

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
)

// CodeInternalError is the JSON-RPC code a task fails with when its start hook fails.
const CodeInternalError = -32603

// Notifier hears about every successful write of the facade (M-F-NOTIFY-1).
type Notifier interface {
	// TaskChanged gets the task as stored, in the goroutine that wrote it, after the
	// write. A panic in it is recovered and logged.
	TaskChanged(task Task)
}

// NotifierFunc adapts a function to Notifier.
type NotifierFunc func(task Task)

func (f NotifierFunc) TaskChanged(task Task) { f(task) }

// Config configures the facade.
type Config struct {
	Store        Store
	Notifier     Notifier        // nil = none
	RequireOwner bool            // deny unowned tasks to every scoped caller
	Clock        reference.Clock // nil = real clock
	DefaultTTL   time.Duration   // 0 = none (never expires)
	MaxTTL       time.Duration   // 0 = no cap; with a cap, "none" is clamped to the cap too
	Logger       *slog.Logger    // recovered notifier panics; nil = slog.Default()
	// NewID makes the id of a task Create makes; nil = reference.GenerateID (S-ID-1).
	// For tests that replay a run exactly (the battery's state machine, B-REPRO-1):
	// a random id a store treats differently by its bytes makes two runs differ.
	NewID func() string
}

// Tasks is the reference modern facade (docs/spec.md 2.2): the task lifecycle over a
// compare-and-swap store. Every lifecycle operation is a CAS loop, so concurrent writers
// (a client's cancel, the worker's complete) never lose each other's writes and terminal
// statuses are final. It is safe for concurrent use.
type Tasks struct {
	cfg Config
	log *slog.Logger
}

func (t *Tasks) newID() string {
	if t.cfg.NewID != nil {
		return t.cfg.NewID()
	}
	return reference.GenerateID()
}

// New returns the facade configured by cfg.
func New(cfg Config) *Tasks {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Tasks{cfg: cfg, log: log}
}

// CreateOptions are what a tool asks for when it starts a task.
type CreateOptions struct {
	Owner         string         // "" = no owner
	TTL           *time.Duration // nil = the default; <= 0 -> ErrInvalid
	PollInterval  *time.Duration // nil = none;        <= 0 -> ErrInvalid
	StatusMessage string
}

func (t *Tasks) now() int64 { return reference.NowMillis(t.cfg.Clock) }

// millis rounds a positive duration up to whole milliseconds, so that a positive request
// never becomes a ttl of 0 (expired at birth).
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// ttl is the ttl applied to a new task: requested, else the default, clamped to the cap
// (a task without ttl too). nil means none.
func (t *Tasks) ttl(requested *time.Duration) *int64 {
	d := t.cfg.DefaultTTL
	if requested != nil {
		d = *requested
	}
	if t.cfg.MaxTTL > 0 && (d <= 0 || d > t.cfg.MaxTTL) {
		d = t.cfg.MaxTTL
	}
	if d <= 0 {
		return nil
	}
	return new(millis(d))
}

// Create stores a new working task and only then calls start with its id, so a worker
// started there can never see a missing task (M-F-CREATE-1). A start failure fails the
// task with code -32603 and the hook's message; Create then returns the task as it ended
// up and an error wrapping the hook's. start may be nil.
func (t *Tasks) Create(ctx context.Context, opts CreateOptions, start func(ctx context.Context, id string) error) (Task, error) {
	if opts.TTL != nil && *opts.TTL <= 0 {
		return Task{}, fmt.Errorf("%w: ttl %v is not positive", reference.ErrInvalid, *opts.TTL)
	}
	var poll *int64
	if opts.PollInterval != nil {
		if *opts.PollInterval <= 0 {
			return Task{}, fmt.Errorf("%w: poll interval %v is not positive", reference.ErrInvalid, *opts.PollInterval)
		}
		poll = new(millis(*opts.PollInterval))
	}
	now := t.now()
	task := Task{
		Owner:         opts.Owner,
		Status:        reference.StatusWorking,
		StatusMessage: opts.StatusMessage,
		CreatedAt:     now,
		LastUpdatedAt: now,
		TTL:           t.ttl(opts.TTL),
		PollInterval:  poll,
	}
	var created Task
	var err error
	// A collision of 128 random bits does not happen; the retry only keeps a broken
	// random source or a store bug from turning into a lost task.
	for range 3 {
		task.TaskID = t.newID()
		created, err = t.cfg.Store.Create(ctx, task)
		if !errors.Is(err, reference.ErrExists) {
			break
		}
	}
	if err != nil {
		return Task{}, err
	}
	t.notify(created)
	if start == nil {
		return created, nil
	}
	hookErr := start(ctx, created.TaskID)
	if hookErr == nil {
		return created, nil
	}
	// Record the failure even when ctx has ended (the hook may have failed because of
	// it): otherwise the task would stay working with no worker behind it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	failed, err := t.Fail(fctx, created.TaskID, RPCError(CodeInternalError, hookErr.Error(), nil))
	if err != nil && failed.TaskID == "" {
		return created, fmt.Errorf("start task %s: %w (and recording the failure: %v)", created.TaskID, hookErr, err)
	}
	return failed, fmt.Errorf("start task %s: %w", created.TaskID, hookErr)
}

// load reads the task as the system and applies expiry (facade clock) and the truth
// table for caller; every miss is the one canonical not-found (S-OWN-2).
func (t *Tasks) load(ctx context.Context, id string, caller reference.Caller) (Task, error) {
	task, err := t.cfg.Store.Get(ctx, id, reference.System())
	if errors.Is(err, reference.ErrNotFound) {
		return Task{}, reference.NotFound(id)
	}
	if err != nil {
		return Task{}, err
	}
	if task.Expired(t.now()) || !reference.CanSee(task.Owner, caller, t.cfg.RequireOwner) {
		return Task{}, reference.NotFound(id)
	}
	return task, nil
}

// Get is the client's tasks/get: scoped by the truth table, require_owner included.
func (t *Tasks) Get(ctx context.Context, id string, caller reference.Caller) (Task, error) {
	return t.load(ctx, id, caller)
}

// Status is the worker's read: unscoped, but an expired task is not found (M-F-TTL-1).
func (t *Tasks) Status(ctx context.Context, id string) (Task, error) {
	return t.load(ctx, id, reference.System())
}

// Cancelled reports whether the task has been cancelled.
func (t *Tasks) Cancelled(ctx context.Context, id string) (bool, error) {
	task, err := t.Status(ctx, id)
	if err != nil {
		return false, err
	}
	return task.Status == reference.StatusCancelled, nil
}

// change computes the next state from a private copy of the current one. It returns
// write false to leave the task untouched (the call then answers the current task and
// err, which may be nil).
type change func(cur Task) (next Task, write bool, err error)

// mutate is the CAS loop of every lifecycle operation: read as the system (scoped by
// caller), compute, swap; retry on conflict until ctx ends. It stamps last_updated_at,
// never backwards, and notifies after a successful write only.
func (t *Tasks) mutate(ctx context.Context, id string, caller reference.Caller, fn change) (Task, error) {
	for {
		if err := ctx.Err(); err != nil {
			return Task{}, fmt.Errorf("modern: task %s: %w", id, err)
		}
		cur, err := t.load(ctx, id, caller)
		if err != nil {
			return Task{}, err
		}
		next, write, err := fn(cur.Clone())
		if !write || err != nil {
			return cur, err
		}
		next.LastUpdatedAt = max(t.now(), cur.LastUpdatedAt)
		stored, err := t.cfg.Store.Swap(ctx, reference.System(), cur.Version, next)
		switch {
		case errors.Is(err, reference.ErrConflict):
			continue // someone wrote first: recompute on their state
		case errors.Is(err, reference.ErrNotFound):
			return Task{}, reference.NotFound(id)
		case err != nil:
			return Task{}, err
		}
		t.notify(stored)
		return stored, nil
	}
}

// live wraps a change so that it runs only on a non-terminal task (M-F-FIN-1).
func live(id string, fn change) change {
	return func(cur Task) (Task, bool, error) {
		if cur.Status.Terminal() {
			return cur, false, reference.ErrorFor(reference.ErrTerminal, id)
		}
		return fn(cur)
	}
}

// moveTo sets the status, which the transition table must allow.
func moveTo(task *Task, to reference.Status) error {
	if !reference.ValidTransition(task.Status, to) {
		return fmt.Errorf("%w: %s: %q -> %q", reference.ErrInvalidTransition, task.TaskID, task.Status, to)
	}
	task.Status = to
	return nil
}

// Progress sets the status message of a live task.
func (t *Tasks) Progress(ctx context.Context, id, message string) (Task, error) {
	return t.mutate(ctx, id, reference.System(), live(id, func(cur Task) (Task, bool, error) {
		cur.StatusMessage = message
		return cur, true, nil
	}))
}

// RequireInput adds requests to the outstanding set, records their keys, clears the
// previous round's delivered responses and sets input_required (M-F-INPUT-1). A key
// issued before in the task's life is reference.ErrKeyReused and nothing is written.
func (t *Tasks) RequireInput(ctx context.Context, id string, requests map[string]any) (Task, error) {
	if len(requests) == 0 {
		return Task{}, fmt.Errorf("%w: require input on %s: no requests", reference.ErrInvalid, id)
	}
	reqs, err := object(requests)
	if err != nil {
		return Task{}, err
	}
	keys := slices.Sorted(maps.Keys(reqs)) // issue order within one call is by key
	return t.mutate(ctx, id, reference.System(), live(id, func(cur Task) (Task, bool, error) {
		for _, k := range keys {
			if slices.Contains(cur.IssuedKeys, k) {
				return cur, false, fmt.Errorf("%w: task %s key %q", reference.ErrKeyReused, id, k)
			}
		}
		if err := moveTo(&cur, reference.StatusInputRequired); err != nil {
			return cur, false, err
		}
		if cur.InputRequests == nil {
			cur.InputRequests = make(map[string]any, len(reqs))
		}
		maps.Copy(cur.InputRequests, reqs)
		cur.IssuedKeys = append(cur.IssuedKeys, keys...)
		cur.InputResponses = nil
		return cur, true, nil
	}))
}

// Update is the client's tasks/update (M-F-INPUT-2): each answered outstanding key moves
// to staged_responses; unknown, answered or never-issued keys are ignored. When the last
// outstanding key is answered, every staged answer is delivered at once in
// input_responses and the task is working again. With nothing to apply it writes nothing
// and returns the task. Scoped by the truth table (M-F-SCOPE-1).
func (t *Tasks) Update(ctx context.Context, id string, caller reference.Caller, responses map[string]any) (Task, error) {
	resps, err := object(responses)
	if err != nil {
		return Task{}, err
	}
	return t.mutate(ctx, id, caller, live(id, func(cur Task) (Task, bool, error) {
		applied := false
		for k, v := range resps {
			if _, outstanding := cur.InputRequests[k]; !outstanding {
				continue
			}
			delete(cur.InputRequests, k)
			if cur.StagedResponses == nil {
				cur.StagedResponses = make(map[string]any)
			}
			cur.StagedResponses[k] = v
			applied = true
		}
		if !applied {
			return cur, false, nil
		}
		if len(cur.InputRequests) == 0 {
			if err := moveTo(&cur, reference.StatusWorking); err != nil {
				return cur, false, err
			}
			cur.InputResponses = cur.StagedResponses
			cur.StagedResponses = nil
		}
		return cur, true, nil
	}))
}

// Complete finishes a live task with result (a CallToolResult; nil stores {}).
func (t *Tasks) Complete(ctx context.Context, id string, result map[string]any) (Task, error) {
	res, err := object(result)
	if err != nil {
		return Task{}, err
	}
	return t.end(ctx, id, reference.System(), reference.StatusCompleted, func(cur *Task) { cur.Result = res })
}

// Fail fails a live task with a JSON-RPC error object {code, message, data?}.
func (t *Tasks) Fail(ctx context.Context, id string, rpcError map[string]any) (Task, error) {
	if rpcError == nil {
		return Task{}, fmt.Errorf("%w: fail %s: no error object", reference.ErrInvalid, id)
	}
	e, err := object(rpcError)
	if err != nil {
		return Task{}, err
	}
	return t.end(ctx, id, reference.System(), reference.StatusFailed, func(cur *Task) { cur.Error = e })
}

// Cancel is the client's tasks/cancel, scoped by the truth table. A terminal task is
// left as it is and returned with reference.ErrTerminal (the handler acks it).
func (t *Tasks) Cancel(ctx context.Context, id string, caller reference.Caller) (Task, error) {
	return t.end(ctx, id, caller, reference.StatusCancelled, func(*Task) {})
}

// end moves a live task to the terminal status to as caller, outcome writing what it
// ends with.
func (t *Tasks) end(ctx context.Context, id string, caller reference.Caller, to reference.Status, outcome func(cur *Task)) (Task, error) {
	return t.mutate(ctx, id, caller, live(id, func(cur Task) (Task, bool, error) {
		if err := moveTo(&cur, to); err != nil {
			return cur, false, err
		}
		outcome(&cur)
		return cur, true, nil
	}))
}

// notify calls the notifier, which must not be able to undo or break a write that has
// already happened: a panic is recovered and logged.
func (t *Tasks) notify(task Task) {
	if t.cfg.Notifier == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			t.log.Error("modern: task notifier panicked", "task_id", task.TaskID, "version", task.Version, "panic", r)
		}
	}()
	t.cfg.Notifier.TaskChanged(task.Clone())
}

// object normalises a caller's map into canonical JSON (a private copy, S-VAL-4); nil
// becomes an empty object.
func object(m map[string]any) (map[string]any, error) {
	if m == nil {
		return map[string]any{}, nil
	}
	v, err := jsonvalue.Normalize(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	return v.(map[string]any), nil
}
