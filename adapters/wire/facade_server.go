package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// The child side of the facade layer (protocol 2): a harness declaring FacadeOwn is
// served with its namespaces' facades (harness.Facades).

func (s *server) servesFacade() bool { return s.caps.Facade == harness.FacadeOwn }

// helloV2 adds the version 2 keys to a hello answer.
func (s *server) helloV2(version int, hello map[string]any) {
	if version < 2 {
		return
	}
	layers := []string{"store"}
	if s.servesFacade() {
		layers = append(layers, "facade")
		d := s.declared()
		hello["facade"] = map[string]any{"require_owner": d.RequireOwner, "default_ttl": d.DefaultTTL, "max_ttl": d.MaxTTL}
	}
	hello["layers"] = layers
}

// declared is the facade settings hello declares: the ttl settings are the modern
// facade's (M-F-CREATE-1), so a facade without the modern era declares require_owner
// alone.
func (s *server) declared() FacadeSupport {
	return FacadeSupport{RequireOwner: true, DefaultTTL: s.caps.Modern, MaxTTL: s.caps.Modern}
}

// configure sets the facade configuration. A setting hello did not declare is taken
// at its default only (docs/wire.md, facade.configure); a refused configuration changes
// nothing.
func (s *server) configure(args map[string]any) error {
	if s.version.Load() < 2 || !s.servesFacade() {
		return fmt.Errorf("%w: %s serves no facade", reference.ErrUnsupported, s.name)
	}
	cfg, err := decodeConfig(args)
	if err != nil {
		return errArgs(opFacadeConfigure, "%v", err)
	}
	if err := checkDeclared(s.declared(), cfg); err != nil {
		return err
	}
	s.facadeCfg.Store(&cfg)
	return nil
}

func (s *server) isFacadeOp(op string) bool {
	return strings.HasPrefix(op, "legacy.tasks.") || strings.HasPrefix(op, "modern.tasks.")
}

func (s *server) config() harness.FacadeConfig {
	if p := s.facadeCfg.Load(); p != nil {
		return *p
	}
	return harness.FacadeConfig{}
}

// dispatchFacade answers one facade op; the caller holds s.mu shared.
func (s *server) dispatchFacade(ctx context.Context, op string, args map[string]any) (any, error) {
	fs, ok := s.ns.(harness.Facades)
	if s.version.Load() < 2 || !s.servesFacade() || !ok {
		return nil, fmt.Errorf("%w: %s serves no facade", reference.ErrUnsupported, s.name)
	}
	a := facadeArgs{opArgs{op: op, args: args}}
	if strings.HasPrefix(op, "legacy.") {
		f, err := fs.LegacyFacade(ctx, s.config())
		if err != nil {
			return nil, err
		}
		return a.legacy(ctx, f)
	}
	f, err := fs.ModernFacade(ctx, s.config())
	if err != nil {
		return nil, err
	}
	return a.modern(ctx, f)
}

// facadeArgs decodes one facade request's arguments.
type facadeArgs struct{ opArgs }

func (a facadeArgs) legacy(ctx context.Context, f legacy.Facade) (any, error) {
	id, idErr := a.str("task_id")
	switch a.op {
	case opLegacyTasksCreate:
		meta, err := a.object("metadata", false)
		if err = firstErr(idErr, err); err != nil {
			return nil, err
		}
		owner := ""
		if got, ok := optional(a.args["owner"], &owner); !ok {
			return nil, errArgs(a.op, "owner must be a string or null, got %s", got)
		}
		return f.Create(ctx, id, legacy.Task(meta), owner)
	case opLegacyTasksGet, opLegacyTasksCancel:
		c, err := a.caller("caller", false)
		if err = firstErr(idErr, err); err != nil {
			return nil, err
		}
		if a.op == opLegacyTasksGet {
			return f.Get(ctx, id, c)
		}
		return f.Cancel(ctx, id, c)
	case opLegacyTasksUpdate:
		changes, err := a.object("changes", false)
		if err = firstErr(idErr, err); err != nil {
			return nil, err
		}
		if a.args["caller"] != nil {
			// The reference contract's Update is the worker's; a scoped one is not part of it.
			return nil, errArgs(a.op, "caller must be null (the worker's write)")
		}
		return f.Update(ctx, id, legacy.Task(changes))
	case opLegacyTasksList:
		c, err := a.caller("caller", false)
		if err != nil {
			return nil, err
		}
		var opts legacy.ListOptions
		switch v := a.args["status"].(type) {
		case nil:
		case string:
			opts.Status = &v
		default:
			return nil, errArgs(a.op, "status must be a string or null, got %s", kindOf(v))
		}
		n, err := optionalInteger(a.args["limit"], "limit")
		if err != nil {
			return nil, errArgs(a.op, "%v", err)
		}
		if n != nil {
			opts.Limit = new(int(*n))
		}
		if v, ok := a.args["owner"]; ok && v != nil {
			if opts.Owner, err = decodeScope(v); err != nil {
				return nil, errArgs(a.op, "%v", err)
			}
		}
		rows, err := f.List(ctx, opts, c)
		if rows == nil && err == nil {
			rows = []legacy.Task{}
		}
		return rows, err
	case opLegacyTasksCleanup:
		ttl, err := decodeOptionalMillis(a.args, "ttl_ms")
		if err == nil && ttl == nil {
			err = errors.New("ttl_ms must be an integer")
		}
		if err != nil {
			return nil, errArgs(a.op, "%v", err)
		}
		return f.Cleanup(ctx, *ttl)
	}
	return nil, fmt.Errorf("%w: unknown op %q", reference.ErrUnsupported, a.op)
}

func (a facadeArgs) modern(ctx context.Context, f modern.Facade) (any, error) {
	if a.op == opModernTasksCreate {
		opts, err := decodeCreateOptions(a.args["options"])
		if err != nil {
			return nil, errArgs(a.op, "%v", err)
		}
		return modernAnswer(f.Create(ctx, opts, nil))
	}
	id, err := a.str("task_id")
	if err != nil {
		return nil, err
	}
	switch a.op {
	case opModernTasksStartFail:
		msg, err := a.str("message")
		if err != nil {
			return nil, err
		}
		return modernAnswer(f.Fail(ctx, id, modern.RPCError(modern.CodeInternalError, msg, nil)))
	case opModernTasksGet, opModernTasksCancel:
		c, err := a.caller("caller", false)
		if err != nil {
			return nil, err
		}
		if a.op == opModernTasksGet {
			return modernAnswer(f.Get(ctx, id, c))
		}
		return modernAnswer(f.Cancel(ctx, id, c))
	case opModernTasksStatus:
		return modernAnswer(f.Status(ctx, id))
	case opModernTasksProgress:
		msg, err := a.str("message")
		if err != nil {
			return nil, err
		}
		return modernAnswer(f.Progress(ctx, id, msg))
	case opModernTasksRequire:
		req, err := a.object("requests", false)
		if err != nil {
			return nil, err
		}
		return modernAnswer(f.RequireInput(ctx, id, req))
	case opModernTasksComplete:
		res, err := a.object("result", true)
		if err != nil {
			return nil, err
		}
		return modernAnswer(f.Complete(ctx, id, res))
	case opModernTasksFail:
		e, err := a.object("error", true)
		if err != nil {
			return nil, err
		}
		return modernAnswer(f.Fail(ctx, id, e))
	case opModernTasksUpdate:
		c, err := a.caller("caller", false)
		if err != nil {
			return nil, err
		}
		resp, err := a.object("responses", false)
		if err != nil {
			return nil, err
		}
		return modernAnswer(f.Update(ctx, id, c, resp))
	}
	return nil, fmt.Errorf("%w: unknown op %q", reference.ErrUnsupported, a.op)
}

// modernAnswer is a modern task's wire answer; an error answer carries the error only.
func modernAnswer(t modern.Task, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	raw, err := encodeModernTask(t)
	if err != nil {
		return nil, err
	}
	return raw, nil
}
