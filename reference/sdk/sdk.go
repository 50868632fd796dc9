// Package sdk is the SDK task-store profile of docs/spec.md section 6: the shape of the
// TaskStore that the official MCP SDKs ship for the 2025-11-25 tasks utility (TypeScript
// and Python TaskStore, C# IMcpTaskStore). Unlike the legacy and modern eras, the store
// generates the task id, every call carries the caller's session, the result is stored
// apart from the task, listing is cursor-paged and the store itself refuses to leave a
// terminal status.
//
// The common core is Store; the parts only some SDKs have are optional interfaces found
// by interface assertion: Deleter, Cleaner, Waiter.
package sdk

import (
	"context"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/reference"
)

// NoSession is the session of a caller that has none (stdio, stateless HTTP, a worker
// calling the store directly). Sessions are otherwise opaque non-empty strings compared
// byte for byte.
const NoSession = ""

// Task is the MCP 2025-11-25 Task, with its JSON field names.
type Task struct {
	TaskID string           `json:"taskId"`
	Status reference.Status `json:"status"`
	// StatusMessage is "" when the task has none.
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps (FormatTime writes them).
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is the retention the store keeps, in milliseconds; nil (JSON null) is
	// unlimited. It is always present in JSON.
	TTL *int64 `json:"ttl"`
	// PollInterval is the suggested polling interval in milliseconds, nil for none.
	PollInterval *int64 `json:"pollInterval,omitempty"`
}

// Clone deep-copies t.
func (t Task) Clone() Task {
	c := t
	c.TTL = reference.CloneMillis(t.TTL)
	c.PollInterval = reference.CloneMillis(t.PollInterval)
	return c
}

// Result is a task's result: the JSON object of the request's result (a CallToolResult,
// or whatever the task-augmented request answers), in jsonvalue's canonical form.
type Result = map[string]any

// CreateParams is what a createTask call carries (the TypeScript SDK's
// CreateTaskOptions plus the request that created the task).
type CreateParams struct {
	// TTL is the requested retention in milliseconds; nil when none was requested. The
	// store may keep another (the returned Task says which).
	TTL *int64 `json:"ttl,omitempty"`
	// PollInterval is the requested polling interval in milliseconds, nil for none.
	PollInterval *int64 `json:"pollInterval,omitempty"`
	// RequestID is the JSON-RPC id of the request (a string or a number), nil when the
	// caller has none; Request is that request ({"method", "params"}). Stores keep them
	// for their own use; no rule reads them back.
	RequestID any            `json:"requestId,omitempty"`
	Request   map[string]any `json:"request,omitempty"`
}

// Page is one page of ListTasks.
type Page struct {
	Tasks []Task `json:"tasks"`
	// NextCursor is "" on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Store is the SDK task-store profile (docs/spec.md section 6). Every method is safe
// for concurrent use and honours its context. Errors wrap reference's sentinels:
//
//   - reference.ErrNotFound: the task is missing, expired, or not visible to session;
//   - reference.ErrInvalid: an unknown status, a status a method does not take, a
//     cursor the store never issued, a sessionless call a store refuses;
//   - reference.ErrTerminal: the task is in a terminal status and the call would change it;
//   - reference.ErrNoResult: GetTaskResult of a visible task that has no result.
type Store interface {
	// Policy is what the store declares about sessionless callers and ttl counting.
	Policy() Policy
	// CreateTask generates a new task id (P-ID-1) and stores a task in status working,
	// created now, bound to session, with the ttl the store keeps (params.TTL or its
	// own) and returns it (P-CREATE-1).
	CreateTask(ctx context.Context, session string, params CreateParams) (Task, error)
	// GetTask returns the task, or ErrNotFound.
	GetTask(ctx context.Context, session, taskID string) (Task, error)
	// StoreTaskResult stores result and sets the final status (completed or failed) in
	// one step, once (P-RESULT-1). On a terminal task it fails with ErrTerminal.
	StoreTaskResult(ctx context.Context, session, taskID string, status reference.Status, result Result) error
	// GetTaskResult returns the stored result of a terminal task exactly as stored
	// (P-RESULT-2); ErrNoResult when the task has none.
	GetTaskResult(ctx context.Context, session, taskID string) (Result, error)
	// UpdateTaskStatus sets the status, and the status message when message is not
	// "". Unknown statuses are ErrInvalid (P-STATUS-1); a terminal task ErrTerminal
	// (P-FIN-1).
	UpdateTaskStatus(ctx context.Context, session, taskID string, status reference.Status, message string) error
	// ListTasks returns the page of the tasks visible to session that follows cursor
	// ("" for the first page); NextCursor is "" on the last page (P-LIST-1..3).
	ListTasks(ctx context.Context, session, cursor string) (Page, error)
}

// Deleter is the optional delete of a store (Python's delete_task).
type Deleter interface {
	// DeleteTask removes the task; a missing or invisible one is ErrNotFound (P-DELETE-1).
	DeleteTask(ctx context.Context, session, taskID string) error
}

// Cleaner is the optional cleanup of a store (C#'s expired-task timer, Python's lazy
// expiry made explicit).
type Cleaner interface {
	// Cleanup removes every expired task, and only those, and returns the count
	// (P-CLEAN-1).
	Cleanup(ctx context.Context) (int, error)
}

// Waiter is the optional wait-for-update of a store (Python's wait_for_update).
type Waiter interface {
	// WaitForUpdate returns nil once the task's status or status message has changed
	// after the call began, ErrNotFound for a task it cannot see, and the context's
	// error when ctx ends first (P-WAIT-1).
	WaitForUpdate(ctx context.Context, session, taskID string) error
}

// Held names a value that a caller of the store holds after a call: aliasing checks
// (P-RESULT-3) mutate it in place.
type Held string

const (
	// HeldCreatedTask is the task CreateTask returned.
	HeldCreatedTask Held = "created_task"
	// HeldStoredResult is the result the caller passed to StoreTaskResult.
	HeldStoredResult Held = "stored_result"
	// HeldReturnedResult is the result GetTaskResult last returned.
	HeldReturnedResult Held = "returned_result"
)

// CallerMutator is implemented by a store client that keeps, on the store's side of a
// process boundary, the values a caller holds (the wire client: values that cross JSON
// are copies on the battery's side, so aliasing must be provoked where the store is).
// MutateHeld changes the held value of taskID in place: a task gets status "failed" and
// status message "mutated by the caller"; a result gets the top-level key
// "storecheck_mutated": true.
type CallerMutator interface {
	MutateHeld(ctx context.Context, taskID string, what Held) error
}

// Sessionless is a store's declared policy for callers without a session.
type Sessionless string

const (
	// SessionlessIsolated: having no session is a session of its own. A sessionless
	// caller sees only tasks created without a session, and those tasks are seen only
	// by sessionless callers. Fails closed.
	SessionlessIsolated Sessionless = "isolated"
	// SessionlessRefused: every call without a session fails with ErrInvalid and
	// changes nothing. Fails closed.
	SessionlessRefused Sessionless = "refused"
	// SessionlessUnrestricted: a sessionless caller sees and writes every task of
	// every session (the TypeScript and C# SDKs' in-memory stores). Fails open.
	SessionlessUnrestricted Sessionless = "unrestricted"
)

// FailsClosed reports whether the policy keeps sessionless callers away from sessions'
// tasks (P-SESS-3).
func (s Sessionless) FailsClosed() bool {
	return s == SessionlessIsolated || s == SessionlessRefused
}

// TTLFrom is where a store declares it counts a task's ttl from.
type TTLFrom string

const (
	// TTLFromCreation: retention ends at createdAt + ttl (MCP 2025-11-25).
	TTLFromCreation TTLFrom = "creation"
	// TTLFromCompletion: retention ends ttl after the task reached its terminal status.
	TTLFromCompletion TTLFrom = "completion"
)

// Policy is what a store declares (docs/spec.md 6.1).
type Policy struct {
	Sessionless Sessionless `json:"sessionless"`
	TTLFrom     TTLFrom     `json:"ttlFrom"`
}

// Validate reports an unknown policy value.
func (p Policy) Validate() error {
	switch p.Sessionless {
	case SessionlessIsolated, SessionlessRefused, SessionlessUnrestricted:
	default:
		return fmt.Errorf("sdk policy: unknown sessionless policy %q: %w", p.Sessionless, reference.ErrInvalid)
	}
	switch p.TTLFrom {
	case TTLFromCreation, TTLFromCompletion:
	default:
		return fmt.Errorf("sdk policy: unknown ttl counting %q: %w", p.TTLFrom, reference.ErrInvalid)
	}
	return nil
}

// Visible reports whether a caller with session caller may see a task created with
// session owner under policy s: the same session always; across sessions never; a
// sessionless caller as the policy says. Under SessionlessUnrestricted a caller with a
// session sees only its own session's tasks here; the SDKs differ on whether it also
// sees tasks created without a session, and the battery accepts both (docs/spec.md 6.3).
func (s Sessionless) Visible(owner, caller string) bool {
	switch {
	case s == SessionlessRefused && caller == NoSession:
		return false
	case owner == caller:
		return true
	}
	return s == SessionlessUnrestricted && caller == NoSession
}

// TimeLayout is the ISO 8601 layout of Task timestamps: UTC, milliseconds, as
// JavaScript's Date.toISOString writes them.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime writes ms (milliseconds since the Unix epoch) as a Task timestamp.
func FormatTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(TimeLayout) }

// ParseTime reads an ISO 8601 timestamp (RFC 3339, any fraction and offset) as
// milliseconds since the Unix epoch.
func ParseTime(s string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("timestamp %q is not ISO 8601: %w", s, reference.ErrInvalid)
	}
	return t.UnixMilli(), nil
}
