// Package legacy is the legacy era of docs/spec.md section 1 (MCP 2025-11-25, ConduitMCP's
// ConduitMcp.Tasks): the task type, the Store contract with its optional interfaces, and
// the reference facade Tasks.
package legacy

import (
	"encoding/json"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
)

// Framework keys: the only keys the framework reads or writes (L-CREATE-1, L-OWNER-1).
const (
	KeyTaskID    = "task_id"
	KeyStatus    = "status"
	KeyCreatedAt = "created_at"
	KeyOwner     = "owner"
)

// Task is a legacy task: a JSON object in jsonvalue's canonical form (numbers are
// json.Number, so integers survive exactly). Every key but the framework keys belongs to
// the application and is preserved verbatim.
type Task map[string]any

// DecodeTask parses a JSON object into a Task without passing numbers through float64.
func DecodeTask(data []byte) (Task, error) {
	m, err := jsonvalue.DecodeObject(data)
	if err != nil {
		return nil, err
	}
	return Task(m), nil
}

// Normalize deep-copies t into canonical form (Go numbers become json.Number). It wraps
// reference.ErrInvalid for values that JSON cannot hold. Stores call it on the way in.
func Normalize(t Task) (Task, error) {
	if t == nil {
		return Task{}, nil
	}
	v, err := jsonvalue.Normalize(map[string]any(t))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	return Task(v.(map[string]any)), nil
}

// Clone deep-copies a task already in canonical form (S-VAL-4).
func (t Task) Clone() Task { return Task(jsonvalue.CloneObject(t)) }

// ID returns task_id when it is a string.
func (t Task) ID() string {
	s, _ := t[KeyTaskID].(string)
	return s
}

// Status returns the task's status. A task without a string status counts as working
// (L-CLEAN-1).
func (t Task) Status() reference.Status {
	s, ok := t[KeyStatus].(string)
	if !ok {
		return reference.StatusWorking
	}
	return reference.Status(s)
}

// Owner returns the task's owner: "" when the task is unowned (owner absent or null,
// L-LIST-3). An owner that is present but not a string (a number, an object) is not a
// principal id any caller could present, so it is returned as an impossible owner that
// no principal matches: the task fails closed, visible to the system caller only.
func (t Task) Owner() string {
	switch o := t[KeyOwner].(type) {
	case nil:
		return ""
	case string:
		return o
	default:
		return "\x00non-string owner"
	}
}

// CreatedAt returns created_at in milliseconds, and false when absent or not an integer.
func (t Task) CreatedAt() (int64, bool) {
	switch n := t[KeyCreatedAt].(type) {
	case json.Number:
		v, err := n.Int64()
		return v, err == nil
	case int64:
		return n, true
	case int:
		return int64(n), true
	}
	return 0, false
}

// Equal reports whether two tasks are the same JSON object (jsonvalue.Equal).
func Equal(a, b Task) bool { return jsonvalue.Equal(map[string]any(a), map[string]any(b)) }

// Merge is the shallow merge of L-UPDATE-1: a copy of t in which each top-level key of
// changes replaces t's (a nested object is replaced, not merged; null is stored as null;
// no key is removed). Both inputs must be canonical.
func Merge(t, changes Task) Task {
	out := make(Task, len(t)+len(changes))
	for k, v := range t {
		out[k] = jsonvalue.Clone(v)
	}
	for k, v := range changes {
		out[k] = jsonvalue.Clone(v)
	}
	return out
}

// Stamp returns a copy of meta with the three keys Create sets (L-CREATE-1): task_id,
// status working and created_at, overriding the same keys of meta.
func Stamp(id string, meta Task, nowMillis int64) Task {
	out := make(Task, len(meta)+3)
	for k, v := range meta {
		out[k] = jsonvalue.Clone(v)
	}
	out[KeyTaskID] = id
	out[KeyStatus] = string(reference.StatusWorking)
	out[KeyCreatedAt] = json.Number(fmt.Sprint(nowMillis))
	return out
}
