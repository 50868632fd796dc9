// Package modern is the modern era of docs/spec.md section 2 (the 2026-07-28 extension
// io.modelcontextprotocol/tasks): the typed task record, the compare-and-swap Store
// contract, and the reference facade Tasks with its Notifier and listen hub.
package modern

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
)

// Task is the modern task record. Times and durations are milliseconds (since the Unix
// epoch for times). JSON-valued fields hold jsonvalue's canonical form. The store
// understands only TaskID, Owner, CreatedAt, TTL and Version; everything else it keeps
// verbatim.
type Task struct {
	TaskID        string
	Owner         string // "" = no owner
	Status        reference.Status
	StatusMessage string
	CreatedAt     int64
	LastUpdatedAt int64
	TTL           *int64 // nil = never expires; expires at CreatedAt + *TTL
	PollInterval  *int64
	Result        map[string]any // the CallToolResult once completed, else nil
	Error         map[string]any // the JSON-RPC error {code, message, data?} once failed, else nil
	// InputRequests are the outstanding requests, by key.
	InputRequests map[string]any
	// StagedResponses are answers received while other keys are still outstanding.
	StagedResponses map[string]any
	// InputResponses are the answers delivered to the worker, all at once.
	InputResponses map[string]any
	// IssuedKeys is every input key ever issued to this task, in issue order.
	IssuedKeys []string
	Version    int64
}

// Clone deep-copies t (S-VAL-4). Empty and nil maps are kept as they are.
func (t Task) Clone() Task {
	c := t.CloneValues()
	c.TTL = reference.CloneMillis(t.TTL)
	c.PollInterval = reference.CloneMillis(t.PollInterval)
	return c
}

// CloneValues deep-copies t's JSON fields and IssuedKeys and leaves TTL and PollInterval
// pointing where t's do: for a store that copies those two numbers its own way.
func (t Task) CloneValues() Task {
	c := t
	c.Result = jsonvalue.CloneObject(t.Result)
	c.Error = jsonvalue.CloneObject(t.Error)
	c.InputRequests = jsonvalue.CloneObject(t.InputRequests)
	c.StagedResponses = jsonvalue.CloneObject(t.StagedResponses)
	c.InputResponses = jsonvalue.CloneObject(t.InputResponses)
	if t.IssuedKeys != nil {
		c.IssuedKeys = append([]string{}, t.IssuedKeys...)
	}
	return c
}

// Expired reports whether t has expired at nowMillis: it has a ttl and
// now ≥ created_at + ttl (M-GET-1).
func (t Task) Expired(nowMillis int64) bool {
	if t.TTL == nil {
		return false
	}
	// created_at + ttl may overflow (ttl = 2^63−1 is a valid number, M-FIELDS-1): an end
	// past the last representable millisecond never comes, one before the first has come.
	end := t.CreatedAt + *t.TTL
	switch {
	case *t.TTL > 0 && end < t.CreatedAt:
		return false
	case *t.TTL < 0 && end > t.CreatedAt:
		return true
	}
	return nowMillis >= end
}

// Normalize returns a deep copy of t with every JSON-valued field in canonical form, and
// wraps reference.ErrInvalid when a value has no JSON form. Stores call it on the way in.
func (t Task) Normalize() (Task, error) {
	c := t.Clone()
	for _, f := range []*map[string]any{&c.Result, &c.Error, &c.InputRequests, &c.StagedResponses, &c.InputResponses} {
		if *f == nil {
			continue
		}
		v, err := jsonvalue.Normalize(*f)
		if err != nil {
			return Task{}, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
		}
		*f = v.(map[string]any)
	}
	return c, nil
}

// Equal reports whether a and b hold the same record. The three input maps and
// issued_keys compare an empty value equal to a nil one (the wire form has no
// difference); result and error do not (null is not {}).
func Equal(a, b Task) bool {
	return a.TaskID == b.TaskID && a.Owner == b.Owner && a.Status == b.Status &&
		a.StatusMessage == b.StatusMessage && a.CreatedAt == b.CreatedAt &&
		a.LastUpdatedAt == b.LastUpdatedAt && a.Version == b.Version &&
		ptrEqual(a.TTL, b.TTL) && ptrEqual(a.PollInterval, b.PollInterval) &&
		objEqual(a.Result, b.Result) && objEqual(a.Error, b.Error) &&
		mapEqual(a.InputRequests, b.InputRequests) &&
		mapEqual(a.StagedResponses, b.StagedResponses) &&
		mapEqual(a.InputResponses, b.InputResponses) &&
		keysEqual(a.IssuedKeys, b.IssuedKeys)
}

func ptrEqual(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func objEqual(a, b map[string]any) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return a == nil || jsonvalue.Equal(a, b)
}

func mapEqual(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return jsonvalue.Equal(a, b)
}

func keysEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// RPCError builds the JSON-RPC error object stored in Task.Error.
func RPCError(code int64, message string, data any) map[string]any {
	e := map[string]any{"code": json.Number(fmt.Sprint(code)), "message": message}
	if data != nil {
		e["data"] = data
	}
	return e
}

// wireTask is the wire form of docs/wire.md: exactly these keys.
type wireTask struct {
	TaskID          string          `json:"task_id"`
	Owner           *string         `json:"owner"`
	Status          string          `json:"status"`
	StatusMessage   string          `json:"status_message"`
	CreatedAt       int64           `json:"created_at_ms"`
	LastUpdatedAt   int64           `json:"last_updated_at_ms"`
	TTL             *int64          `json:"ttl_ms"`
	PollInterval    *int64          `json:"poll_interval_ms"`
	Result          json.RawMessage `json:"result"`
	Error           json.RawMessage `json:"error"`
	InputRequests   json.RawMessage `json:"input_requests"`
	StagedResponses json.RawMessage `json:"staged_responses"`
	InputResponses  json.RawMessage `json:"input_responses"`
	IssuedKeys      []string        `json:"issued_keys"`
	Version         int64           `json:"version"`
}

// MarshalJSON writes the wire form of docs/wire.md (created_at_ms, ttl_ms, …; owner null for
// none; maps as objects, never null; issued_keys as an array).
func (t Task) MarshalJSON() ([]byte, error) {
	w := wireTask{
		TaskID: t.TaskID, Status: string(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL,
		PollInterval: t.PollInterval, IssuedKeys: t.IssuedKeys, Version: t.Version,
	}
	if w.IssuedKeys == nil {
		w.IssuedKeys = []string{}
	}
	if t.Owner != "" {
		w.Owner = &t.Owner
	}
	var err error
	enc := func(m map[string]any, nullable bool) json.RawMessage {
		if m == nil {
			if nullable {
				return json.RawMessage("null")
			}
			return json.RawMessage("{}")
		}
		b, e := json.Marshal(m)
		if e != nil && err == nil {
			err = e
		}
		return b
	}
	w.Result = enc(t.Result, true)
	w.Error = enc(t.Error, true)
	w.InputRequests = enc(t.InputRequests, false)
	w.StagedResponses = enc(t.StagedResponses, false)
	w.InputResponses = enc(t.InputResponses, false)
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the wire form, keeping numbers exact. Unknown keys are refused so
// that a child that sends a misspelt field is caught rather than read as a default.
func (t *Task) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var w wireTask
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("modern task: %w", err)
	}
	out := Task{
		TaskID: w.TaskID, Status: reference.Status(w.Status), StatusMessage: w.StatusMessage,
		CreatedAt: w.CreatedAt, LastUpdatedAt: w.LastUpdatedAt, TTL: w.TTL,
		PollInterval: w.PollInterval, IssuedKeys: w.IssuedKeys, Version: w.Version,
	}
	if w.Owner != nil {
		out.Owner = *w.Owner
	}
	dst := []*map[string]any{&out.Result, &out.Error, &out.InputRequests, &out.StagedResponses, &out.InputResponses}
	src := []json.RawMessage{w.Result, w.Error, w.InputRequests, w.StagedResponses, w.InputResponses}
	names := []string{"result", "error", "input_requests", "staged_responses", "input_responses"}
	for i, raw := range src {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		m, err := jsonvalue.DecodeObject(raw)
		if err != nil {
			return fmt.Errorf("modern task: %s: %w", names[i], err)
		}
		*dst[i] = m
	}
	*t = out
	return nil
}
