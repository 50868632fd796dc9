package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// facadeConfigState is the facade configuration the child was last told, so that a
// facade value sends facade.configure only when the configuration it needs differs.
// Calls hold mu shared while they run, a reconfiguration exclusively, so a call never
// runs under another facade value's configuration.
type facadeConfigState struct {
	mu  sync.RWMutex
	cfg harness.FacadeConfig
	set bool
}

func (s *facadeConfigState) forget() {
	s.mu.Lock()
	s.set = false
	s.mu.Unlock()
}

// facadeDo is do for a facade op under cfg.
func (c *Client) facadeDo(ctx context.Context, clk *reference.ManualClock, cfg harness.FacadeConfig, op string, args any, decode func(json.RawMessage) error) error {
	if !c.hello.Facade {
		return &OpError{Op: op, Err: fmt.Errorf("%w: the store process declared no facade layer", reference.ErrUnsupported)}
	}
	fc := &c.facadeCfg
	for {
		fc.mu.RLock()
		if fc.set && fc.cfg == cfg {
			err := c.do(ctx, clk, op, args, decode)
			fc.mu.RUnlock()
			return err
		}
		fc.mu.RUnlock()
		fc.mu.Lock()
		if !fc.set || fc.cfg != cfg {
			if err := c.do(ctx, clk, opFacadeConfigure, configArg(cfg), nil); err != nil {
				fc.mu.Unlock()
				return err
			}
			fc.cfg, fc.set = cfg, true
		}
		fc.mu.Unlock()
	}
}

// facadeAnswer is doAnswer for a facade op under cfg (facadeDo).
func facadeAnswer[T any](ctx context.Context, c *Client, clk *reference.ManualClock, cfg harness.FacadeConfig, op string, args any, dec func(json.RawMessage) (T, error)) (T, error) {
	return answer(dec, func(decode func(json.RawMessage) error) error { return c.facadeDo(ctx, clk, cfg, op, args, decode) })
}

// checkFacade refuses, with reference.ErrUnsupported, an era's facade the child does not
// serve (served: hello lists the era) or a configuration it did not declare it can take.
func (c *Client) checkFacade(era string, served bool, cfg harness.FacadeConfig) error {
	if !c.hello.Facade || !served {
		return fmt.Errorf("wire: %w: the store process serves no %s facade", reference.ErrUnsupported, era)
	}
	return checkDeclared(c.hello.FacadeConfig, cfg)
}

// checkDeclared refuses, with reference.ErrUnsupported, a configuration that sets a
// setting s does not declare to anything but its default. Both sides use it: the client
// before it sends, `storecheck serve` when it receives.
func checkDeclared(s FacadeSupport, cfg harness.FacadeConfig) error {
	switch {
	case cfg.RequireOwner && !s.RequireOwner:
		return fmt.Errorf("wire: %w: the store's facade does not declare require_owner", reference.ErrUnsupported)
	case cfg.DefaultTTL != 0 && !s.DefaultTTL:
		return fmt.Errorf("wire: %w: the store's facade does not declare a default ttl", reference.ErrUnsupported)
	case cfg.MaxTTL != 0 && !s.MaxTTL:
		return fmt.Errorf("wire: %w: the store's facade does not declare a max ttl", reference.ErrUnsupported)
	}
	return nil
}

// LegacyFacade returns the child's legacy facade configured by cfg.
func (c *Client) LegacyFacade(cfg harness.FacadeConfig) (legacy.Facade, error) {
	return c.legacyFacade(nil, cfg)
}

// ModernFacade returns the child's modern facade configured by cfg.
func (c *Client) ModernFacade(cfg harness.FacadeConfig) (modern.Facade, error) {
	return c.modernFacade(nil, cfg)
}

func (c *Client) legacyFacade(clk *reference.ManualClock, cfg harness.FacadeConfig) (legacy.Facade, error) {
	if err := c.checkFacade("legacy", c.hello.Legacy, cfg); err != nil {
		return nil, err
	}
	return &legacyFacade{c: c, clock: clk, cfg: cfg}, nil
}

func (c *Client) modernFacade(clk *reference.ManualClock, cfg harness.FacadeConfig) (modern.Facade, error) {
	if err := c.checkFacade("modern", c.hello.Modern, cfg); err != nil {
		return nil, err
	}
	return &modernFacade{c: c, clock: clk, cfg: cfg}, nil
}

// legacyFacade is the child's legacy facade (legacy.tasks.* ops).
type legacyFacade struct {
	c     *Client
	clock *reference.ManualClock
	cfg   harness.FacadeConfig
	// nullOwner sends "no owner" as null instead of "" (NoOwnerAsNull).
	nullOwner bool
}

// NoOwnerAsNull returns the facade sending a create's "no owner" (Go owner "") as null
// rather than "": the wire has both encodings (docs/wire.md, "Values") and the facade
// specs create each none row's task with both, since a child may mishandle either.
func (f *legacyFacade) NoOwnerAsNull() legacy.Facade {
	g := *f
	g.nullOwner = true
	return &g
}

// ownerArg is a create's owner on the wire: a named owner as itself, "no owner" as ""
// or, with null, as null.
func ownerArg(owner string, null bool) any {
	if owner == "" && null {
		return nil
	}
	return owner
}

func (f *legacyFacade) taskCall(ctx context.Context, op string, args any) (legacy.Task, error) {
	return facadeAnswer(ctx, f.c, f.clock, f.cfg, op, args, decodeLegacyTask)
}

func (f *legacyFacade) Create(ctx context.Context, id string, meta legacy.Task, owner string) (legacy.Task, error) {
	if err := checkUTF8(id); err != nil {
		return nil, err
	}
	if err := checkUTF8(owner); err != nil {
		return nil, err
	}
	if meta == nil {
		meta = legacy.Task{}
	}
	m, err := encodeLegacyTask(meta)
	if err != nil {
		return nil, err
	}
	// owner "" (no owner) travels as "" unless nullOwner: a child must treat both as no
	// owner (docs/wire.md, "Values"), and each encoding is a path of its own in a shim.
	return f.taskCall(ctx, opLegacyTasksCreate, map[string]any{"task_id": id, "metadata": m, "owner": ownerArg(owner, f.nullOwner)})
}

// callerCall is a call on one task as caller: Get or Cancel.
func (f *legacyFacade) callerCall(ctx context.Context, op, id string, caller reference.Caller) (legacy.Task, error) {
	if err := firstErr(checkUTF8(id), callerUTF8(caller)); err != nil {
		return nil, err
	}
	return f.taskCall(ctx, op, map[string]any{"task_id": id, "caller": callerArg(caller)})
}

func (f *legacyFacade) Get(ctx context.Context, id string, caller reference.Caller) (legacy.Task, error) {
	return f.callerCall(ctx, opLegacyTasksGet, id, caller)
}

func (f *legacyFacade) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	ch, err := encodeForID(id, changes)
	if err != nil {
		return nil, err
	}
	// caller null: the worker's unscoped write.
	return f.taskCall(ctx, opLegacyTasksUpdate, map[string]any{"task_id": id, "changes": ch, "caller": nil})
}

func (f *legacyFacade) Cancel(ctx context.Context, id string, caller reference.Caller) (legacy.Task, error) {
	return f.callerCall(ctx, opLegacyTasksCancel, id, caller)
}

func (f *legacyFacade) List(ctx context.Context, opts legacy.ListOptions, caller reference.Caller) ([]legacy.Task, error) {
	if err := callerUTF8(caller); err != nil {
		return nil, err
	}
	// owner is sent as the request carried it: the facade must scope by caller instead.
	args, err := listArgs(opts)
	if err != nil {
		return nil, err
	}
	args["caller"] = callerArg(caller)
	return facadeAnswer(ctx, f.c, f.clock, f.cfg, opLegacyTasksList, args, decodeLegacyList)
}

func (f *legacyFacade) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	return facadeAnswer(ctx, f.c, f.clock, f.cfg, opLegacyTasksCleanup, map[string]any{"ttl_ms": ttlMillis(ttl)}, decodeCount)
}

// modernFacade is the child's modern facade (modern.tasks.* ops).
type modernFacade struct {
	c     *Client
	clock *reference.ManualClock
	cfg   harness.FacadeConfig
	// nullOwner sends "no owner" as null instead of "" (NoOwnerAsNull).
	nullOwner bool
}

// NoOwnerAsNull is legacyFacade.NoOwnerAsNull for the modern facade.
func (f *modernFacade) NoOwnerAsNull() modern.Facade {
	g := *f
	g.nullOwner = true
	return &g
}

func (f *modernFacade) taskCall(ctx context.Context, op string, args map[string]any) (modern.Task, error) {
	if id, ok := args["task_id"].(string); ok {
		if err := checkUTF8(id); err != nil {
			return modern.Task{}, err
		}
	}
	var t modern.Task
	err := f.c.facadeDo(ctx, f.clock, f.cfg, op, args, func(raw json.RawMessage) (err error) {
		t, err = decodeModernTask(raw)
		return err
	})
	if errors.Is(err, reference.ErrTerminal) && op != opModernTasksStatus {
		// The facade answers a write refused by a terminal task with the task as it is
		// (M-F-FIN-1). The wire answer is the error alone, so the task is read back with
		// the worker's read: a terminal task cannot change any more.
		if cur, serr := f.Status(ctx, args["task_id"].(string)); serr == nil {
			return cur, err
		}
	}
	if err != nil {
		return modern.Task{}, err
	}
	return t, nil
}

// startFailTimeout bounds recording a start failure, which runs on a context of its
// own: the hook may have failed because the caller's context ended (reference facade).
const startFailTimeout = 10 * time.Second

// Create creates the task through the child's facade, then runs start here, in the
// battery: the task exists on the child before start sees its id. When start fails,
// modern.tasks.start_failed asks the child's facade to record the failure as its own
// start-failure path does.
func (f *modernFacade) Create(ctx context.Context, opts modern.CreateOptions, start func(ctx context.Context, id string) error) (modern.Task, error) {
	if err := checkUTF8(opts.Owner); err != nil {
		return modern.Task{}, err
	}
	if err := checkUTF8(opts.StatusMessage); err != nil {
		return modern.Task{}, err
	}
	created, err := f.taskCall(ctx, opModernTasksCreate, map[string]any{"options": createOptionsArg(opts, f.nullOwner)})
	if err != nil || start == nil {
		return created, err
	}
	hookErr := start(ctx, created.TaskID)
	if hookErr == nil {
		return created, nil
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startFailTimeout)
	defer cancel()
	failed, err := f.taskCall(fctx, opModernTasksStartFail, map[string]any{"task_id": created.TaskID, "message": hookErr.Error()})
	if err != nil {
		return created, fmt.Errorf("start task %s: %w (and recording the failure: %v)", created.TaskID, hookErr, err)
	}
	return failed, fmt.Errorf("start task %s: %w", created.TaskID, hookErr)
}

// callerCall is a call on one task as caller: Get or Cancel.
func (f *modernFacade) callerCall(ctx context.Context, op, id string, caller reference.Caller) (modern.Task, error) {
	if err := callerUTF8(caller); err != nil {
		return modern.Task{}, err
	}
	return f.taskCall(ctx, op, map[string]any{"task_id": id, "caller": callerArg(caller)})
}

func (f *modernFacade) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	return f.callerCall(ctx, opModernTasksGet, id, caller)
}

func (f *modernFacade) Status(ctx context.Context, id string) (modern.Task, error) {
	return f.taskCall(ctx, opModernTasksStatus, map[string]any{"task_id": id})
}

func (f *modernFacade) Cancelled(ctx context.Context, id string) (bool, error) {
	t, err := f.Status(ctx, id)
	if err != nil {
		return false, err
	}
	return t.Status == reference.StatusCancelled, nil
}

func (f *modernFacade) Progress(ctx context.Context, id, message string) (modern.Task, error) {
	if err := checkUTF8(message); err != nil {
		return modern.Task{}, err
	}
	return f.taskCall(ctx, opModernTasksProgress, map[string]any{"task_id": id, "message": message})
}

func (f *modernFacade) RequireInput(ctx context.Context, id string, requests map[string]any) (modern.Task, error) {
	return f.taskCall(ctx, opModernTasksRequire, map[string]any{"task_id": id, "requests": objectArg(requests)})
}

func (f *modernFacade) Complete(ctx context.Context, id string, result map[string]any) (modern.Task, error) {
	var r any
	if result != nil {
		r = result
	}
	return f.taskCall(ctx, opModernTasksComplete, map[string]any{"task_id": id, "result": r})
}

func (f *modernFacade) Fail(ctx context.Context, id string, rpcError map[string]any) (modern.Task, error) {
	var e any
	if rpcError != nil {
		e = rpcError
	}
	return f.taskCall(ctx, opModernTasksFail, map[string]any{"task_id": id, "error": e})
}

func (f *modernFacade) Update(ctx context.Context, id string, caller reference.Caller, responses map[string]any) (modern.Task, error) {
	if err := callerUTF8(caller); err != nil {
		return modern.Task{}, err
	}
	return f.taskCall(ctx, opModernTasksUpdate, map[string]any{"task_id": id, "caller": callerArg(caller), "responses": objectArg(responses)})
}

// Cancel answers a terminal task with the task as it is and ErrTerminal (docs/spec.md
// M-F-FIN-1; see taskCall).
func (f *modernFacade) Cancel(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	return f.callerCall(ctx, opModernTasksCancel, id, caller)
}

// objectArg sends a nil map as an empty object.
func objectArg(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
