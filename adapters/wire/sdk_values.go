package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/sdk"
)

// SDKSupport is what a child's SDK-profile store declares in hello (protocol 3, key
// "sdk"): its policy and which optional operations it has.
type SDKSupport struct {
	Policy                        sdk.Policy
	Delete, Cleanup, Wait, Mutate bool
}

// parseProfiles reads the version 3 keys of a hello answer: "profiles" and "sdk".
func parseProfiles(m map[string]any, h *Hello) error {
	if h.Protocol < 3 {
		return nil
	}
	switch x := m["profiles"].(type) {
	case nil:
	case []any:
		if err := decodeListed(x, "profile", []helloFlag{{"sdk", &h.SDK}}); err != nil {
			return err
		}
	default:
		return fmt.Errorf(`profiles must be an array such as ["sdk"], got %s`, kindOf(x))
	}
	raw, present := m["sdk"]
	if !h.SDK {
		if present && raw != nil {
			return errors.New(`sdk is declared but profiles does not list "sdk"`)
		}
		return nil
	}
	x, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf(`a child serving the sdk profile declares it: sdk must be an object such as {"sessionless": "isolated", "ttl_from": "creation"}, got %s`, kindOf(raw))
	}
	s, _ := x["sessionless"].(string)
	f, _ := x["ttl_from"].(string)
	h.SDKSupport.Policy = sdk.Policy{Sessionless: sdk.Sessionless(s), TTLFrom: sdk.TTLFrom(f)}
	if err := h.SDKSupport.Policy.Validate(); err != nil {
		return fmt.Errorf(`sdk: sessionless must be "isolated", "refused" or "unrestricted" and ttl_from "creation" or "completion", got %s and %s`,
			jsonvalue.Describe(x["sessionless"]), jsonvalue.Describe(x["ttl_from"]))
	}
	return decodeFlags(x, "sdk", []helloFlag{{"delete", &h.SDKSupport.Delete}, {"cleanup", &h.SDKSupport.Cleanup}, {"wait", &h.SDKSupport.Wait}, {"mutate", &h.SDKSupport.Mutate}})
}

// sdkHello is the "sdk" object of a hello answer.
func sdkHello(s SDKSupport) map[string]any {
	return map[string]any{"sessionless": string(s.Policy.Sessionless), "ttl_from": string(s.Policy.TTLFrom),
		"delete": s.Delete, "cleanup": s.Cleanup, "wait": s.Wait, "mutate": s.Mutate}
}

// sessionArg is a session's wire form: null for sdk.NoSession.
func sessionArg(session string) any {
	if session == sdk.NoSession {
		return nil
	}
	return session
}

// decodeSession reads a session argument: a string or null. The empty string is no
// session, as in Go.
func decodeSession(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return sdk.NoSession, nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("session must be a string or null, got %s", kindOf(v))
}

// optionalString reads a string-or-null argument; null is "".
func optionalString(args map[string]any, key string) (string, error) {
	switch x := args[key].(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("%s must be a string or null, got %s", key, kindOf(args[key]))
}

// paramsArg is sdk.create's params: the keys the caller set, CreateTaskOptions' names.
func paramsArg(p sdk.CreateParams) (map[string]any, error) {
	m := map[string]any{}
	if p.TTL != nil {
		m["ttl"] = *p.TTL
	}
	if p.PollInterval != nil {
		m["pollInterval"] = *p.PollInterval
	}
	if p.RequestID != nil {
		id, err := jsonvalue.Normalize(p.RequestID)
		if err != nil {
			return nil, fmt.Errorf("%w: requestId: %v", reference.ErrInvalid, err)
		}
		m["requestId"] = id
	}
	if p.Request != nil {
		r, err := jsonvalue.Normalize(p.Request)
		if err != nil {
			return nil, fmt.Errorf("%w: request: %v", reference.ErrInvalid, err)
		}
		m["request"] = r
	}
	if err := checkUTF8(m); err != nil {
		return nil, err
	}
	return m, nil
}

func decodeParams(v any) (sdk.CreateParams, error) {
	var p sdk.CreateParams
	if v == nil {
		return p, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return p, fmt.Errorf("params must be an object, got %s", kindOf(v))
	}
	ms := func(key string) (*int64, error) { return optionalInteger(m[key], "params."+key) }
	var err error
	if p.TTL, err = ms("ttl"); err != nil {
		return p, err
	}
	if p.PollInterval, err = ms("pollInterval"); err != nil {
		return p, err
	}
	p.RequestID = m["requestId"]
	switch x := m["request"].(type) {
	case nil:
	case map[string]any:
		p.Request = x
	default:
		return p, fmt.Errorf("params.request must be an object, got %s", kindOf(x))
	}
	return p, nil
}

// decodeSDKTask reads an SDK task: the MCP Task object. The keys the profile needs must
// be there with their types (ttl included, as a number or null); other keys (_meta) are
// ignored.
func decodeSDKTask(raw json.RawMessage) (sdk.Task, error) {
	m, err := decodeObject(raw, "an SDK task")
	if err != nil {
		return sdk.Task{}, err
	}
	return sdkTaskFromObject(m)
}

func sdkTaskFromObject(m map[string]any) (sdk.Task, error) {
	var t sdk.Task
	str := func(key string, dst *string, required bool) error {
		switch x := m[key].(type) {
		case string:
			*dst = x
			return nil
		case nil:
			if _, present := m[key]; !present && !required {
				return nil
			}
		}
		if required {
			return fmt.Errorf("task %s must be a string, got %s", key, kindOf(m[key]))
		}
		return fmt.Errorf("task %s must be a string when present, got %s", key, kindOf(m[key]))
	}
	var status string
	for _, f := range []struct {
		key      string
		dst      *string
		required bool
	}{{"taskId", &t.TaskID, true}, {"status", &status, true}, {"statusMessage", &t.StatusMessage, false},
		{"createdAt", &t.CreatedAt, true}, {"lastUpdatedAt", &t.LastUpdatedAt, true}} {
		if err := str(f.key, f.dst, f.required); err != nil {
			return sdk.Task{}, err
		}
	}
	t.Status = reference.Status(status)
	ms := func(key string, required bool) (*int64, error) {
		v, present := m[key]
		if !present && required {
			return nil, fmt.Errorf("task %s is missing (MCP: a number, or null for unlimited)", key)
		}
		return optionalInteger(v, "task "+key)
	}
	var err error
	if t.TTL, err = ms("ttl", true); err != nil {
		return sdk.Task{}, err
	}
	if t.PollInterval, err = ms("pollInterval", false); err != nil {
		return sdk.Task{}, err
	}
	return t, nil
}

// decodeSDKPage reads sdk.list's answer.
func decodeSDKPage(raw json.RawMessage) (sdk.Page, error) {
	m, err := decodeObject(raw, "a page")
	if err != nil {
		return sdk.Page{}, err
	}
	list, ok := m["tasks"].([]any)
	if !ok {
		return sdk.Page{}, fmt.Errorf("page tasks must be an array, got %s", kindOf(m["tasks"]))
	}
	p := sdk.Page{Tasks: make([]sdk.Task, 0, len(list))}
	for i, e := range list {
		o, ok := e.(map[string]any)
		if !ok {
			return sdk.Page{}, fmt.Errorf("page tasks[%d] must be an object, got %s", i, kindOf(e))
		}
		t, err := sdkTaskFromObject(o)
		if err != nil {
			return sdk.Page{}, fmt.Errorf("page tasks[%d]: %v", i, err)
		}
		p.Tasks = append(p.Tasks, t)
	}
	if got, ok := optional(m["nextCursor"], &p.NextCursor); !ok {
		return sdk.Page{}, fmt.Errorf("page nextCursor must be a string, absent or null, got %s", got)
	}
	return p, nil
}

// decodeResult reads a result: a JSON object, numbers exact.
func decodeResult(raw json.RawMessage) (sdk.Result, error) {
	return decodeObject(raw, "a result")
}

// resultArg is a result's wire form, refused with ErrInvalid when it has no JSON form.
func resultArg(r sdk.Result) (any, error) {
	if r == nil {
		return nil, nil
	}
	n, err := jsonvalue.Normalize(r)
	if err != nil {
		return nil, fmt.Errorf("%w: result: %v", reference.ErrInvalid, err)
	}
	if err := checkUTF8(n); err != nil {
		return nil, err
	}
	return n, nil
}
