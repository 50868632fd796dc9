package wire

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Harness puts a child process under the battery. One child serves the whole run: Open
// sends reset (and the battery's clock, when the child obeys one), so every spec starts
// from an empty store.
type Harness struct {
	c *Client
}

var (
	_ harness.Harness       = (*Harness)(nil)
	_ harness.InFlightGauge = (*Harness)(nil)
	_ harness.CPUGauge      = (*Harness)(nil)
)

// StoreCPU is the processor time of the child's process group (the child and whatever
// it started).
func (h *Harness) StoreCPU() (time.Duration, bool) {
	if h.c.cmd == nil || h.c.cmd.Process == nil {
		return 0, false
	}
	return groupCPU(h.c.cmd.Process.Pid)
}

// PeakInFlight is the client's count of requests in flight at the store process
// (Client.PeakInFlight).
func (h *Harness) PeakInFlight() int { return h.c.PeakInFlight() }

// NewHarness starts argv and does the handshake. It starts the child at once because
// the battery asks for Capabilities, which come from the handshake, before the first
// spec. Close it when the run ends.
func NewHarness(ctx context.Context, argv []string, opts Options) (*Harness, error) {
	c, err := Start(ctx, argv, opts)
	if err != nil {
		return nil, err
	}
	return &Harness{c: c}, nil
}

// Client is the harness's session with the child.
func (h *Harness) Client() *Client { return h.c }

// Close ends the child (see Client.Close).
func (h *Harness) Close() error { return h.c.Close() }

// Name is the store's name from the handshake, marked as served over the protocol.
func (h *Harness) Name() string { return h.c.hello.Name + " (wire)" }

// Capabilities are the handshake's eras and clock flag. Instances are never shared: one
// child is one store instance.
//
// The facade rules run against the child's own facade when it serves one (protocol 2,
// layer "facade"); otherwise the child's real facade is out of reach and they are not
// exercised.
func (h *Harness) Capabilities() harness.Capabilities {
	facade := harness.FacadeUnreachable
	if h.c.hello.Facade {
		facade = harness.FacadeOwn
	}
	return harness.Capabilities{Legacy: h.c.hello.Legacy, Modern: h.c.hello.Modern, SDK: h.c.hello.SDK, Clock: h.c.hello.Clock, Facade: facade, Remote: true}
}

var _ harness.TransportFailer = (*Harness)(nil)

// TransportFailure is the error that ended the session (the child exited, hung or broke
// the protocol) with the ops that were in flight, or nil while the session is healthy.
func (h *Harness) TransportFailure() error { return h.c.Failure() }

// Open resets the child and, when it obeys a clock and clock is the battery's
// *reference.ManualClock, forwards that clock's time now and whenever it moves later.
// Any other clock sets the child back to its real clock.
func (h *Harness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	if err := h.c.Reset(ctx); err != nil {
		return nil, err
	}
	ns := &namespace{c: h.c}
	if h.c.hello.Clock {
		if mc, ok := clock.(*reference.ManualClock); ok {
			if err := h.c.follow(ctx, mc); err != nil {
				return nil, err
			}
			ns.clock = mc
		} else if err := h.c.SetClock(ctx, nil); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

type namespace struct {
	c     *Client
	clock *reference.ManualClock
}

var (
	_ harness.Facades      = (*namespace)(nil)
	_ harness.SDKNamespace = (*namespace)(nil)
)

// SDK is the child's SDK-profile store (protocol 3); it forwards the battery's clock
// like the eras' stores do.
func (n *namespace) SDK(ctx context.Context) (sdk.Store, error) { return n.c.sdkStore(n.clock) }

// LegacyFacade is the child's legacy facade; it forwards the battery's clock like the
// stores do.
func (n *namespace) LegacyFacade(ctx context.Context, cfg harness.FacadeConfig) (legacy.Facade, error) {
	return n.c.legacyFacade(n.clock, cfg)
}

// ModernFacade is the child's modern facade.
func (n *namespace) ModernFacade(ctx context.Context, cfg harness.FacadeConfig) (modern.Facade, error) {
	return n.c.modernFacade(n.clock, cfg)
}

// errNoStoreLayer answers for the store of a child that serves only a facade.
var errNoStoreLayer = fmt.Errorf("wire: %w: the store process declared no store layer", reference.ErrUnsupported)

func (n *namespace) Legacy(ctx context.Context) (legacy.Store, error) {
	if !n.c.hello.Store {
		return nil, errNoStoreLayer
	}
	if !n.c.hello.Legacy {
		return nil, fmt.Errorf("wire: %w: the store process does not implement the legacy era", reference.ErrUnsupported)
	}
	return n.c.legacyStore(n.clock), nil
}

func (n *namespace) Modern(ctx context.Context) (modern.Store, error) {
	if !n.c.hello.Store {
		return nil, errNoStoreLayer
	}
	if !n.c.hello.Modern {
		return nil, fmt.Errorf("wire: %w: the store process does not implement the modern era", reference.ErrUnsupported)
	}
	return &modernStore{c: n.c, clock: n.clock}, nil
}

// Close leaves the tasks in place: the next Open resets the child.
func (n *namespace) Close(ctx context.Context) error { return nil }

// StderrReport renders the child's stderr tail for a report after a failed run.
func (h *Harness) StderrReport() string {
	lines := h.c.StderrTail()
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("last %d lines of the store process's stderr:\n%s", len(lines), strings.Join(lines, "\n"))
}

var _ harness.Blocker = (*namespace)(nil)

// heldDelay is how long Block asks the child to hold its next store operation back:
// well past the moment S-CTX-1 ends the held call's context.
const heldDelay = 300 * time.Millisecond

// Block asks the child to sleep heldDelay before its next store operation (the delay op,
// for a child that declared it), whatever the era, id or kind of call. The held call's
// context then ends while the child sleeps: storecheck's client must stop waiting and
// answer the context's error, and the child, which applies the call whole once it wakes,
// must be consistent afterwards. Release waits for the delay to pass.
func (n *namespace) Block(ctx context.Context, era harness.Era, id string, reads bool) (harness.Hold, error) {
	if err := n.c.Delay(ctx, heldDelay); err != nil {
		return harness.Hold{}, err
	}
	until := time.Now().Add(heldDelay)
	return harness.Hold{How: fmt.Sprintf("the store process sleeping %v before it runs the call (delay op)", heldDelay), Release: func(ctx context.Context) error {
		select {
		case <-time.After(time.Until(until)):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}, nil
}
