// Package harness is what a store author implements to put a store under the battery:
// a Harness that opens a fresh namespace per spec and declares the store's capabilities.
// It is kept apart from package conformance so that an adapter can offer a Harness
// without importing Ginkgo.
package harness

import (
	"context"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Harness brings up the store under test. The battery calls Open once per spec, so each
// spec gets a fresh, isolated namespace (a schema, a key prefix: B-ISO-1), and closes it
// when the spec ends.
type Harness interface {
	// Name names the store in reports.
	Name() string
	// Capabilities declares what the store implements. Optional legacy operations
	// are not declared here: the battery finds them by interface assertion.
	Capabilities() Capabilities
	// Open creates a fresh namespace whose stores read time from clock. A harness
	// whose store cannot obey a clock declares Capabilities.Clock false and may
	// ignore it.
	Open(ctx context.Context, clock reference.Clock) (Namespace, error)
}

// Namespace is one spec's slice of the backend.
type Namespace interface {
	// Legacy returns an instance of the legacy store on this namespace. Each call may
	// return a new instance sharing the namespace's data (S-SHARE-1 opens two); it
	// answers reference.ErrUnsupported when the store has no legacy era.
	Legacy(ctx context.Context) (legacy.Store, error)
	// Modern is Legacy for the modern era.
	Modern(ctx context.Context) (modern.Store, error)
	// Close drops the namespace (schema, keys) and closes its instances.
	Close(ctx context.Context) error
}

// SDKNamespace is implemented by the Namespace of a harness declaring Capabilities.SDK.
// It is apart from Namespace so that harnesses without the profile compile unchanged;
// the battery finds it by interface assertion.
type SDKNamespace interface {
	// SDK returns an instance of the SDK-profile store on this namespace; like Legacy,
	// each call may return a new instance sharing the namespace's data.
	SDK(ctx context.Context) (sdk.Store, error)
}

// Era names a contract of docs/spec.md.
type Era string

const (
	EraLegacy Era = "legacy"
	EraModern Era = "modern"
	// EraSDK is the SDK task-store profile (docs/spec.md section 6), a contract of
	// its own beside the two eras.
	EraSDK Era = "sdk"
)

// Capabilities is what a harness declares about its store.
type Capabilities struct {
	// Eras the store implements.
	Legacy, Modern bool
	// SDK is true when every Namespace also implements SDKNamespace: the store has the
	// SDK task-store profile (docs/spec.md section 6). Its policy is the store's own
	// declaration (sdk.Store.Policy).
	SDK bool
	// Clock is true when the store reads the clock given to Open. Without it,
	// time-dependent specs run on the real clock with safe margins and specs that
	// need an exact millisecond are skipped with the reason "no clock control".
	Clock bool
	// Shared is true when instances returned by one Namespace are distinct clients of
	// one backend (S-SHARE-1, M-CREATE-2 then run across two instances).
	Shared bool
	// Remote is true when the store lives in another process behind storecheck's own
	// client, which serialises every value and refuses a call whose context has already
	// ended before sending it (the wire protocol). Specs of checks the client decides
	// alone (S-VAL-4 aliasing, S-CTX-1 with an ended context) are then reported as
	// "not exercised" rather than as the store's passes.
	Remote bool
	// SelfContained is true when the store waits on nothing outside its own process: no
	// backend, network or disk, only its own short critical sections. S-CTX-1 then still
	// crowds one task with concurrent calls to make a call wait; when none waits past its
	// deadline, the held-call part of the rule does not apply (there is nothing to hold)
	// instead of reading "partly verified". A store whose calls do wait, ignoring their
	// context, fails S-CTX-1 whatever it declares.
	SelfContained bool
	// Facade says whose facade the L-F-* and M-F-* specs judge.
	Facade FacadeMode
}

// TransportFailer is implemented by a Harness whose store sits behind a transport that
// can fail on its own: a child process that died, hung or broke the protocol. The
// battery asks it after every spec; once it answers an error, that spec and every later
// one are reported as aborted, never as failures of their rules.
type TransportFailer interface {
	// TransportFailure returns the error that ended the transport, naming the
	// operation in flight, or nil while it is healthy.
	TransportFailure() error
}

// FacadeMode says whose facade the facade rules (L-F-*, M-F-*) run against.
type FacadeMode int

const (
	// FacadeReference: storecheck's reference facades over the store. The default, for
	// a Go store, which is used under those facades.
	FacadeReference FacadeMode = iota
	// FacadeUnreachable: the store's real facade is out of reach (a store process that
	// serves no facade). Running the reference facade would judge only storecheck's own
	// code, so the facade rules are reported not exercised.
	FacadeUnreachable
	// FacadeOwn: every Namespace also implements Facades, and the facade rules run
	// against the store's own facades.
	FacadeOwn
)

// FacadeConfig is the facade configuration of docs/spec.md (2.2) that the battery sets.
type FacadeConfig struct {
	RequireOwner bool
	// DefaultTTL and MaxTTL are the modern facade's; 0 means none.
	DefaultTTL, MaxTTL time.Duration
}

// Facades is implemented by the Namespace of a harness declaring FacadeOwn: the store's
// own facades over the namespace's data, configured by cfg.
type Facades interface {
	LegacyFacade(ctx context.Context, cfg FacadeConfig) (legacy.Facade, error)
	ModernFacade(ctx context.Context, cfg FacadeConfig) (modern.Facade, error)
}
