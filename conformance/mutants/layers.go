package mutants

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// wrapper is how a mutant is built from the honest store: a layer over each era's store
// (nil leaves that era honest), the hooks it sets inside the honest store, and what
// kind of defect it is. Each wrapper layer embeds the honest store's own type, so the
// operations it does not override stay the honest ones.
type wrapper struct {
	legacy func(st legacyStore, x *wrapState) legacy.Store
	modern func(st modernStore, x *wrapState) modern.Store
	sdk    func(st sdkStore, x *wrapState) sdk.Store
	hooks  hooks

	// staleAfterFirst gives every instance of a namespace after its first a snapshot of
	// the backend taken when it was opened.
	staleAfterFirst bool
	// slow: every call waits its turn; the battery judges the declared rules only and
	// offers no hold (waits.go).
	slow bool
	// race: a natural race (no sleep or yield widens its window); measured: shown only by
	// a timing measurement; machines: only S-CONC-1's state machines meet it.
	race, measured, machines bool
	// inProcessOnly, when not empty, says why the defect cannot show over the wire.
	inProcessOnly string

	// legacyFacade and modernFacade, when not nil, put a layer over each era's reference
	// facade (facade.go): the mutant then declares its own facade.
	legacyFacade func(ref *legacy.Tasks, st legacyStore, cfg harness.FacadeConfig) legacy.Facade
	modernFacade func(m modernBroken) modern.Facade
}

// legacyLayer is a wrapper over the legacy store alone.
func legacyLayer(f func(legacyStore) legacy.Store) *wrapper {
	return &wrapper{legacy: func(st legacyStore, _ *wrapState) legacy.Store { return f(st) }}
}

// modernLayer is a wrapper over the modern store alone.
func modernLayer(f func(modernStore) modern.Store) *wrapper {
	return &wrapper{modern: func(st modernStore, _ *wrapState) modern.Store { return f(st) }}
}

// sdkLayer is a wrapper over the SDK profile's store alone.
func sdkLayer(f func(sdkStore) sdk.Store) *wrapper {
	return &wrapper{sdk: func(st sdkStore, _ *wrapState) sdk.Store { return f(st) }}
}

// withSDKHooks sets hooks inside the SDK profile's honest store.
func withSDKHooks(h sdkHooks) func(sdkStore, *wrapState) sdk.Store {
	return func(st sdkStore, _ *wrapState) sdk.Store {
		st.h = h
		return st
	}
}

// sdkHooked is the wrapper of a defect that is hooks inside the SDK profile's store.
func sdkHooked(h sdkHooks) *wrapper { return &wrapper{sdk: withSDKHooks(h)} }

// wrapState is a namespace's state the wrappers keep beside the honest backend: indexes
// and columns of their own, the locks and counters of their defects.
type wrapState struct {
	mu          sync.Mutex
	byOwner     map[string]map[string]bool // owner → ids ever created under it
	created     map[string]int64           // id → when Create stamped it
	updated     map[string]int64           // id → when its status last changed
	missed      map[string]bool            // ids a Get did not find
	formerOwner map[string]string          // id → the owner of its deleted task

	// wmu serialises read-modify-write calls among themselves (update-resurrects).
	wmu sync.Mutex
	// updating counts the legacy Updates in flight (panics-in-race).
	updating atomic.Int64
	ioState
	// sdk is the SDK profile's mutants' state, guarded by the SDK backend's lock.
	sdk sdkState
}

// sdkState is what the SDK profile's mutants keep beside its honest backend.
type sdkState struct {
	counter int                 // sequential-ids: the last id's number
	nextID  string              // racy-ids: the id drawn ahead
	freed   []string            // delete-recycles-id: ids of deleted tasks
	created map[string]sdk.Task // list-stale: each task as created
}

func newWrapState() *wrapState {
	return &wrapState{byOwner: map[string]map[string]bool{}, created: map[string]int64{}, updated: map[string]int64{},
		missed: map[string]bool{}, formerOwner: map[string]string{}}
}

func (w *wrapper) wrapLegacy(st legacyStore, x *wrapState) legacy.Store {
	if w.legacy == nil {
		return st
	}
	return w.legacy(st, x)
}

func (w *wrapper) wrapModern(st modernStore, x *wrapState) modern.Store {
	if w.modern == nil {
		return st
	}
	return w.modern(st, x)
}

func (w *wrapper) wrapSDK(st sdkStore, x *wrapState) sdk.Store {
	if w.sdk == nil {
		return st
	}
	return w.sdk(st, x)
}

// stores is Mutant.Stores: one instance of each era over a fresh backend.
func (w *wrapper) stores(clock reference.Clock) (legacy.Store, modern.Store) {
	s := &store{b: newBackend(clock), h: w.hooks}
	x := newWrapState()
	return w.wrapLegacy(legacyStore{s}, x), w.wrapModern(modernStore{s}, x)
}

type storeHarness struct {
	name string
	w    *wrapper
}

func (h *storeHarness) Name() string { return h.name }

func (h *storeHarness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, SDK: true, Clock: true, Shared: true, Facade: h.w.facadeMode()}
}

func (h *storeHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	return &namespace{b: newBackend(clock), sdk: newSDKBackend(clock), w: h.w, state: newWrapState()}, nil
}

// namespace hands out instances over one backend, each under the mutant's layer.
type namespace struct {
	mu     sync.Mutex
	b      *backend
	sdk    *sdkBackend
	w      *wrapper
	state  *wrapState
	opened int
}

func (n *namespace) instance() *store {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.opened++
	if n.w.staleAfterFirst && n.opened > 1 {
		return &store{b: n.b.snapshot(), h: n.w.hooks}
	}
	return &store{b: n.b, h: n.w.hooks}
}

func (n *namespace) Legacy(ctx context.Context) (legacy.Store, error) {
	return n.w.wrapLegacy(legacyStore{n.instance()}, n.state), nil
}

func (n *namespace) Modern(ctx context.Context) (modern.Store, error) {
	return n.w.wrapModern(modernStore{n.instance()}, n.state), nil
}

// SDK is the namespace's SDK-profile store: the mutant's defect when it is one of the
// profile's, the honest profile store otherwise. Its instances share the backend.
func (n *namespace) SDK(ctx context.Context) (sdk.Store, error) {
	return n.w.wrapSDK(sdkStore{b: n.sdk}, n.state), nil
}

func (n *namespace) Close(ctx context.Context) error { return nil }

var _ harness.Blocker = (*namespace)(nil)

// Block holds back every call of the namespace's stores (reads too) until released: a
// lock held by someone else, which the honest store waits on with its context.
func (n *namespace) Block(ctx context.Context, era harness.Era, id string, reads bool) (harness.Hold, error) {
	release := n.b.hold()
	return harness.Hold{How: "a lock someone else holds", Release: func(context.Context) error {
		release()
		return nil
	}}, nil
}

func (b *backend) snapshot() *backend {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := newBackend(b.clock)
	for k, t := range b.legacy {
		c.legacy[k] = t.Clone()
	}
	for k, t := range b.modern {
		c.modern[k] = t.Clone()
	}
	return c
}
