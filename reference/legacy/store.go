package legacy

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/storecheck/storecheck/reference"
)

// Store is the legacy store contract (docs/spec.md 1.1). Every method is safe for concurrent
// use (S-CONC-1) and honours its context (S-CTX-1). Errors wrap the reference sentinels.
type Store interface {
	// Create stores meta with task_id = id, status = working and created_at = now
	// (L-CREATE-1) and returns the stored task; an existing id fails with
	// reference.ErrExists (L-CREATE-2) and never merges (L-CREATE-3).
	Create(ctx context.Context, id string, meta Task) (Task, error)
	// Get returns the task or reference.ErrNotFound (L-GET-1).
	Get(ctx context.Context, id string) (Task, error)
	// Update shallow-merges changes into the task and returns the result (L-UPDATE-1);
	// a missing id is reference.ErrNotFound and creates nothing (L-UPDATE-2).
	Update(ctx context.Context, id string, changes Task) (Task, error)
	// Delete removes the task; it succeeds whether or not the id exists (L-DELETE-1).
	Delete(ctx context.Context, id string) error
	// List returns the tasks matching opts, each once, in any order (L-LIST-*).
	List(ctx context.Context, opts ListOptions) ([]Task, error)
}

// Canceler is the optional Cancel of L-CANCEL-1: status becomes cancelled and the task is
// returned; a missing id is reference.ErrNotFound.
type Canceler interface {
	Cancel(ctx context.Context, id string) (Task, error)
}

// Cleaner is the optional Cleanup of L-CLEAN-1: it removes exactly the terminal tasks
// whose age now − created_at is strictly greater than ttl, and returns how many.
type Cleaner interface {
	Cleanup(ctx context.Context, ttl time.Duration) (int, error)
}

// ConditionalUpdater is the optional atomic UpdateIf of L-F-FIN-2: the shallow merge of
// Update, applied only when the current status (working when absent) is one of allowed;
// otherwise reference.ErrConflict and nothing is written.
type ConditionalUpdater interface {
	UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes Task) (Task, error)
}

// Pager is the optional ordered List of L-LIST-5: the tasks List(opts) would return
// (Status and Owner as there) whose Position is strictly after after (every one when
// after is nil), oldest first by Position, at most opts.Limit of them. A store that keeps
// its tasks in order, or can find the smallest few without copying every row, serves a
// page of a large scope at the cost of the page; without it the facade sorts all of List.
type Pager interface {
	ListAfter(ctx context.Context, opts ListOptions, after *Position) ([]Task, error)
}

// Position is a task's place in the order of Pager: created_at (0 when absent or not an
// integer), then task_id. Two tasks never share one, since ids are unique.
type Position struct {
	CreatedAt int64
	ID        string
}

// PositionOf is t's Position.
func PositionOf(t Task) Position {
	c, _ := t.CreatedAt()
	return Position{CreatedAt: c, ID: t.ID()}
}

// Compare orders positions: negative when p comes first, 0 when equal, positive after.
func (p Position) Compare(q Position) int {
	if c := cmp.Compare(p.CreatedAt, q.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(p.ID, q.ID)
}

// After reports whether p comes strictly after pos; every position is after nil.
func (p Position) After(pos *Position) bool { return pos == nil || p.Compare(*pos) > 0 }

// ListOptions are the filters of Store.List.
type ListOptions struct {
	// Status keeps only tasks whose status is exactly this string; nil keeps every
	// status. An unknown status yields nothing (L-LIST-1).
	Status *string
	// Limit: nil is unbounded, N > 0 is at most N rows, 0 or negative is no rows
	// (L-LIST-2).
	Limit *int
	// Owner is the owner scope (L-LIST-3). The zero value is AnyOwner.
	Owner OwnerScope
	// RequireOwner excludes unowned rows from the anonymous and principal scopes.
	RequireOwner bool
}

// LimitAllows reports whether a list may return n rows under o.Limit.
func (o ListOptions) LimitAllows(n int) bool { return o.Limit == nil || n < *o.Limit }

// Matches reports whether task t passes o's status and owner filters (not the limit).
func (o ListOptions) Matches(t Task) bool {
	if o.Status != nil {
		s, ok := t[KeyStatus].(string)
		if !ok {
			s = string(reference.StatusWorking)
		}
		if s != *o.Status {
			return false
		}
	}
	return o.Owner.Admits(t.Owner(), o.RequireOwner)
}

type scopeKind uint8

const (
	scopeAny scopeKind = iota
	scopeAnonymous
	scopePrincipal
)

// OwnerScope is the owner filter of a list: any owner, unowned rows only (anonymous), or
// a principal's rows plus unowned ones.
type OwnerScope struct {
	kind scopeKind
	id   string
}

// AnyOwner does not filter by owner.
func AnyOwner() OwnerScope { return OwnerScope{} }

// AnonymousOwner keeps unowned rows only.
func AnonymousOwner() OwnerScope { return OwnerScope{kind: scopeAnonymous} }

// PrincipalOwner keeps id's rows plus unowned rows; PrincipalOwner("") is AnonymousOwner.
func PrincipalOwner(id string) OwnerScope {
	if id == "" {
		return AnonymousOwner()
	}
	return OwnerScope{kind: scopePrincipal, id: id}
}

// ScopeOf is the scope a caller lists with: system is any, anonymous is anonymous, a
// principal is itself.
func ScopeOf(c reference.Caller) OwnerScope {
	if c.IsSystem() {
		return AnyOwner()
	}
	id, _ := c.PrincipalID()
	return PrincipalOwner(id)
}

// IsAny, IsAnonymous and Principal tell the scope's kind, for stores that push the scope
// down into a query.
func (s OwnerScope) IsAny() bool               { return s.kind == scopeAny }
func (s OwnerScope) IsAnonymous() bool         { return s.kind == scopeAnonymous }
func (s OwnerScope) Principal() (string, bool) { return s.id, s.kind == scopePrincipal }
func (s OwnerScope) caller() reference.Caller {
	switch s.kind {
	case scopeAnonymous:
		return reference.Anonymous()
	case scopePrincipal:
		return reference.Principal(s.id)
	}
	return reference.System()
}

// Admits reports whether a row owned by owner ("" for none) is in the scope.
func (s OwnerScope) Admits(owner string, requireOwner bool) bool {
	return reference.CanSee(owner, s.caller(), requireOwner)
}

func (s OwnerScope) String() string {
	switch s.kind {
	case scopeAnonymous:
		return "anonymous"
	case scopePrincipal:
		return "principal " + reference.Principal(s.id).String()[len("principal "):]
	}
	return "any"
}
