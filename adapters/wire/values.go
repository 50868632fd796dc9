package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// The wire forms of docs/wire.md's values, both ways. Decoders are strict: a value of the
// wrong shape is an error that says which field and what came instead, never a default.

// checkUTF8 refuses strings JSON cannot carry. encoding/json would silently replace
// invalid bytes with U+FFFD, so a store would be judged on a value it never received;
// refusing with ErrInvalid is what an honest store does with such a value (S-ID-2).
// checkUTF8 refuses what the wire cannot carry: JSON text is UTF-8 only, and
// encoding/json would silently turn invalid bytes into U+FFFD (jsonvalue.CheckUTF8).
func checkUTF8(v any) error {
	if err := jsonvalue.CheckUTF8(v); err != nil {
		return fmt.Errorf("%w: the wire protocol carries UTF-8 only: %v", reference.ErrInvalid, err)
	}
	return nil
}

// encodeLegacyTask is a legacy task's wire form: the object verbatim.
func encodeLegacyTask(t legacy.Task) (json.RawMessage, error) {
	n, err := legacy.Normalize(t)
	if err != nil {
		return nil, err
	}
	if err := checkUTF8(map[string]any(n)); err != nil {
		return nil, err
	}
	b, err := json.Marshal(map[string]any(n))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	return b, nil
}

func decodeObject(raw json.RawMessage, what string) (map[string]any, error) {
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a JSON object, got %s", what, kindOf(v))
	}
	return m, nil
}

func decodeLegacyTask(raw json.RawMessage) (legacy.Task, error) {
	m, err := decodeObject(raw, "a legacy task")
	if err != nil {
		return nil, err
	}
	return legacy.Task(m), nil
}

func decodeLegacyList(raw json.RawMessage) ([]legacy.Task, error) {
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("legacy.list must answer an array of tasks, got %s", kindOf(v))
	}
	out := make([]legacy.Task, len(arr))
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("element %d of the list must be a task (a JSON object), got %s", i, kindOf(e))
		}
		out[i] = legacy.Task(m)
	}
	return out, nil
}

// decodeCount reads the integer of cleanup and sweep.
func decodeCount(raw json.RawMessage) (int, error) {
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return 0, err
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want an integer count, got %s", kindOf(v))
	}
	i, err := integer(n)
	if err != nil || int64(int(i)) != i {
		return 0, fmt.Errorf("want an integer count, got %s", n)
	}
	return int(i), nil
}

// integer reads a JSON number with an exact int64 value. Forms like 3.0 or 3e0 are
// accepted: the value, not its spelling, is what the protocol carries.
func integer(n json.Number) (int64, error) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("%s is not a 64-bit integer", n)
	}
	return r.Num().Int64(), nil
}

// optionalInteger is v read as a 64-bit integer, nil for null; an error names v key.
func optionalInteger(v any, key string) (*int64, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.Number:
		i, err := integer(x)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		return &i, nil
	}
	return nil, fmt.Errorf("%s must be an integer or null, got %s", key, kindOf(v))
}

// optional sets *dst to v when v is a T and leaves it as it is for null; for any other
// value ok is false and got names what v is.
func optional[T any](v any, dst *T) (got string, ok bool) {
	switch x := v.(type) {
	case nil:
	case T:
		*dst = x
	default:
		return kindOf(x), false
	}
	return "", true
}

// kindOf is jsonvalue.Kind, but a number is named with its value.
func kindOf(v any) string {
	if n, ok := v.(json.Number); ok {
		return "the number " + string(n)
	}
	return jsonvalue.Kind(v)
}

// callerArg is a caller's wire form.
func callerArg(c reference.Caller) map[string]any {
	switch {
	case c.IsSystem():
		return map[string]any{"scope": "system"}
	case c.IsAnonymous():
		return map[string]any{"scope": "anonymous"}
	}
	id, _ := c.PrincipalID()
	return map[string]any{"scope": "principal", "id": id}
}

func decodeCaller(v any) (reference.Caller, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return reference.Caller{}, fmt.Errorf("caller must be an object, got %s", kindOf(v))
	}
	switch m["scope"] {
	case "system":
		return reference.System(), nil
	case "anonymous":
		return reference.Anonymous(), nil
	case "principal":
		id, ok := m["id"].(string)
		if !ok || id == "" {
			return reference.Caller{}, errors.New(`a principal caller needs a non-empty string "id"`)
		}
		return reference.Principal(id), nil
	}
	return reference.Caller{}, fmt.Errorf(`caller scope must be "system", "anonymous" or "principal", got %s`, jsonvalue.Describe(m["scope"]))
}

// scopeArg is a list's owner scope in wire form.
func scopeArg(s legacy.OwnerScope) map[string]any {
	if id, ok := s.Principal(); ok {
		return map[string]any{"scope": "principal", "id": id}
	}
	if s.IsAnonymous() {
		return map[string]any{"scope": "anonymous"}
	}
	return map[string]any{"scope": "any"}
}

func decodeScope(v any) (legacy.OwnerScope, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return legacy.OwnerScope{}, fmt.Errorf("owner must be a scope object, got %s", kindOf(v))
	}
	switch m["scope"] {
	case "any":
		return legacy.AnyOwner(), nil
	case "anonymous":
		return legacy.AnonymousOwner(), nil
	case "principal":
		id, ok := m["id"].(string)
		if !ok || id == "" {
			return legacy.OwnerScope{}, errors.New(`a principal scope needs a non-empty string "id"`)
		}
		return legacy.PrincipalOwner(id), nil
	}
	return legacy.OwnerScope{}, fmt.Errorf(`owner scope must be "any", "anonymous" or "principal", got %s`, jsonvalue.Describe(m["scope"]))
}

// ttlMillis is a Cleanup ttl in whole milliseconds, rounded down: ages are whole
// milliseconds, so age > ttl exactly when age > ⌊ttl⌋ms.
func ttlMillis(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond < 0 {
		ms--
	}
	return ms
}

// encodeModernTask is a modern task's wire form (modern.Task.MarshalJSON).
func encodeModernTask(t modern.Task) (json.RawMessage, error) {
	n, err := t.Normalize()
	if err != nil {
		return nil, err
	}
	for _, s := range []string{n.TaskID, n.Owner, string(n.Status), n.StatusMessage} {
		if err := checkUTF8(s); err != nil {
			return nil, err
		}
	}
	for _, m := range []map[string]any{n.Result, n.Error, n.InputRequests, n.StagedResponses, n.InputResponses} {
		if err := checkUTF8(m); err != nil {
			return nil, err
		}
	}
	if err := checkUTF8(n.IssuedKeys); err != nil {
		return nil, err
	}
	b, err := json.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	return b, nil
}

// modernKeys are the keys of a modern task's wire form: exactly these.
var modernKeys = []string{"task_id", "owner", "status", "status_message", "created_at_ms",
	"last_updated_at_ms", "ttl_ms", "poll_interval_ms", "result", "error", "input_requests",
	"staged_responses", "input_responses", "issued_keys", "version"}

func decodeModernTask(raw json.RawMessage) (modern.Task, error) {
	if t, ok := decodeModernFast(raw); ok {
		return t, nil
	}
	m, err := decodeObject(raw, "a modern task")
	if err != nil {
		return modern.Task{}, err
	}
	return modernFromObject(m)
}

// modernFromObject reads a modern task from its decoded wire form. Null is accepted for
// status_message, the three input maps and issued_keys as their empty value (the Go
// record does not tell them apart); everything else must have exactly its type.
func modernFromObject(m map[string]any) (modern.Task, error) {
	for k := range m {
		if modernKeyIndex(k) < 0 {
			return modern.Task{}, fmt.Errorf("a modern task has exactly the keys of docs/wire.md, and %q is not one", k)
		}
	}
	for _, k := range modernKeys {
		if _, ok := m[k]; !ok {
			return modern.Task{}, fmt.Errorf("a modern task must carry every key of docs/wire.md, and %q is missing", k)
		}
	}
	return modernFromValues(func(k string) any { return m[k] })
}

// modernFromValues reads a modern task from the values of its fifteen keys (all
// present), as modernFromObject describes.
func modernFromValues(get func(k string) any) (modern.Task, error) {
	var t modern.Task
	r := valueReader{get: get}
	t.TaskID = r.str("task_id", false)
	t.Owner = r.str("owner", true)
	t.Status = reference.Status(r.str("status", false))
	t.StatusMessage = r.str("status_message", true) // null reads as empty, as for the maps
	if p := r.num("created_at_ms", false); p != nil {
		t.CreatedAt = *p
	}
	if p := r.num("last_updated_at_ms", false); p != nil {
		t.LastUpdatedAt = *p
	}
	t.TTL = r.num("ttl_ms", true)
	t.PollInterval = r.num("poll_interval_ms", true)
	if p := r.num("version", false); p != nil {
		t.Version = *p
	}
	t.Result = r.obj("result")
	t.Error = r.obj("error")
	t.InputRequests = r.obj("input_requests")
	t.StagedResponses = r.obj("staged_responses")
	t.InputResponses = r.obj("input_responses")
	if r.err != nil {
		return modern.Task{}, r.err
	}
	keys, err := issuedKeysFromValue(get("issued_keys"))
	if err != nil {
		return modern.Task{}, err
	}
	t.IssuedKeys = keys
	return t, nil
}

// valueReader reads typed values by key; after the first error it reads nothing more
// and err keeps that error.
type valueReader struct {
	get func(k string) any
	err error
}

func (r *valueReader) str(k string, nullable bool) string {
	if r.err != nil {
		return ""
	}
	switch x := r.get(k).(type) {
	case string:
		return x
	case nil:
		if nullable {
			return ""
		}
	}
	r.err = fmt.Errorf("%s must be a string%s, got %s", k, orNull(nullable), kindOf(r.get(k)))
	return ""
}

func (r *valueReader) num(k string, nullable bool) *int64 {
	if r.err != nil {
		return nil
	}
	switch x := r.get(k).(type) {
	case json.Number:
		i, e := integer(x)
		if e == nil {
			return &i
		}
	case nil:
		if nullable {
			return nil
		}
	}
	r.err = fmt.Errorf("%s must be an integer%s, got %s", k, orNull(nullable), kindOf(r.get(k)))
	return nil
}

func (r *valueReader) obj(k string) map[string]any {
	if r.err != nil {
		return nil
	}
	switch x := r.get(k).(type) {
	case map[string]any:
		return x
	case nil:
		return nil
	}
	r.err = fmt.Errorf("%s must be an object or null, got %s", k, kindOf(r.get(k)))
	return nil
}

// issuedKeysFromValue reads issued_keys: null, or an array of strings.
func issuedKeysFromValue(v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		keys := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("issued_keys must be an array of strings, and element %d is %s", i, kindOf(e))
			}
			keys[i] = s
		}
		return keys, nil
	}
	return nil, fmt.Errorf("issued_keys must be an array of strings, got %s", kindOf(v))
}

func orNull(nullable bool) string {
	if nullable {
		return " or null"
	}
	return ""
}

// parseHello reads the answer to hello strictly.
func parseHello(raw json.RawMessage) (Hello, error) {
	m, err := decodeObject(raw, "the answer to hello")
	if err != nil {
		return Hello{}, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	bad := func(format string, args ...any) (Hello, error) {
		return Hello{}, fmt.Errorf("%w: hello: %s; answer was %s", ErrProtocol, fmt.Sprintf(format, args...), quoteLine(raw))
	}
	var h Hello
	p, ok := m["protocol"].(json.Number)
	if !ok {
		return bad("protocol must be an integer, got %s", kindOf(m["protocol"]))
	}
	v, err := integer(p)
	if err != nil || v < MinProtocolVersion || v > ProtocolVersion {
		return bad("the store process speaks protocol %s, storecheck speaks %d to %d", p, MinProtocolVersion, ProtocolVersion)
	}
	h.Protocol = int(v)
	if err := parseLayers(m, &h); err != nil {
		return bad("%v", err)
	}
	if err := parseProfiles(m, &h); err != nil {
		return bad("%v", err)
	}
	if got, ok := optional(m["name"], &h.Name); !ok {
		return bad("name must be a string, got %s", got)
	}
	eras, ok := m["eras"].([]any)
	if !ok {
		return bad(`eras must be an array such as ["legacy", "modern"], got %s`, kindOf(m["eras"]))
	}
	if err := decodeListed(eras, "era", []helloFlag{{"legacy", &h.Legacy}, {"modern", &h.Modern}}); err != nil {
		return bad("%v", err)
	}
	if !h.Legacy && !h.Modern && !h.SDK {
		if h.Protocol >= 3 {
			return bad(`eras lists no era and profiles no profile`)
		}
		return bad("eras lists no era")
	}
	switch x := m["legacy"].(type) {
	case nil:
	case map[string]any:
		if err := decodeFlags(x, "legacy", []helloFlag{{"cancel", &h.Cancel}, {"cleanup", &h.Cleanup}, {"conditional_update", &h.ConditionalUpdate}}); err != nil {
			return bad("%v", err)
		}
	default:
		return bad("legacy must be an object of flags, got %s", kindOf(x))
	}
	if got, ok := optional(m["clock"], &h.Clock); !ok {
		return bad("clock must be a boolean, got %s", got)
	}
	if got, ok := optional(m["delay"], &h.Delay); !ok {
		return bad("delay must be a boolean, got %s", got)
	}
	if !h.Legacy {
		h.Cancel, h.Cleanup, h.ConditionalUpdate = false, false, false
	}
	return h, nil
}
