package server

import (
	"encoding/json"
	"reflect"
	"strings"
)

// The messages the server receives and sends, per method: the 2025-11-25 tasks utility
// and the 2026-07-28 tasks extension. Params are read from the request's params object
// (decodeParams), results written from these types. A map[string]any or `any` is left
// only where the content is open to the server, each said at its field.

// decodeParams fills p, a pointer to one of the types below, from a JSON value as
// parsed (a request's params or _meta, a request a task keeps, a client's answer). A
// field is read from its exact key (JSON keys are case-sensitive; encoding/json matches
// struct fields without case), and a value that does not fit its field leaves it zero:
// the server takes a param of the wrong type as absent, and reads those it must refuse
// through optional, or as sent.
func decodeParams(params any, p any) {
	b, err := json.Marshal(params)
	if err == nil {
		_ = decodeExact(b, p)
	}
}

// decodeExact fills the struct p points to from the JSON object b, field by field by
// exact key; b not an object is an error, a field that does not decode stays zero.
func decodeExact(b []byte, p any) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		raw, ok := obj[name]
		if !ok || name == "" || name == "-" {
			continue
		}
		f := v.Field(i)
		if json.Unmarshal(raw, f.Addr().Interface()) != nil {
			f.SetZero()
		}
	}
	return nil
}

// optional is a param the server checks itself: whether it was sent, whether as null,
// and its value when it is of its type (ok).
type optional[T any] struct {
	sent, null, ok bool
	v              T
}

func (o *optional[T]) UnmarshalJSON(b []byte) error {
	o.sent, o.null = true, string(b) == "null"
	o.ok = !o.null && json.Unmarshal(b, &o.v) == nil
	return nil
}

// requestMeta is a request's _meta as the 2026-07-28 wire reads it (per-request
// protocol version and client capabilities).
type requestMeta struct {
	ProtocolVersion    string             `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities clientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
}

func (m *requestMeta) UnmarshalJSON(b []byte) error { return decodeExact(b, m) }

// clientCapabilities are the capabilities a client declares (2025-11-25 initialize, the
// extension's per-request _meta) and those an error says are missing. Each is the
// capability's settings, open to the server: nil when not declared (absent, null or not
// an object), an empty map for one declared without settings.
type clientCapabilities struct {
	Elicitation map[string]any `json:"elicitation,omitzero"`
	Sampling    map[string]any `json:"sampling,omitzero"`
	Roots       map[string]any `json:"roots,omitzero"`
	// Extensions are the extensions declared, by name, each with its settings.
	Extensions map[string]any `json:"extensions,omitzero"`
}

func (c *clientCapabilities) UnmarshalJSON(b []byte) error { return decodeExact(b, c) }

// elicits reports whether the capabilities take elicitation in mode: "an empty
// capabilities object is equivalent to declaring support for form mode only".
func (c clientCapabilities) elicits(mode string) bool {
	if c.Elicitation == nil {
		return false
	}
	_, has := c.Elicitation[mode]
	return has || len(c.Elicitation) == 0 && mode == "form"
}

// initializeParams are a 2025-11-25 initialize's params, as far as the server reads them.
type initializeParams struct {
	Capabilities clientCapabilities `json:"capabilities"`
}

// taskParams are the params of tasks/get, tasks/cancel and tasks/result (both eras).
type taskParams struct {
	TaskID string `json:"taskId"`
}

// listParams are a 2025-11-25 tasks/list's params: a cursor that is not a string is
// refused as a cursor the server did not issue; null lists from the start.
type listParams struct {
	Cursor optional[string] `json:"cursor"`
}

// updateParams are a 2026-07-28 tasks/update's params.
type updateParams struct {
	TaskID string `json:"taskId"`
	// InputResponses are the client's answers by request key, each open to the server
	// (it hands them to the task's tool); nil when absent or not an object.
	InputResponses map[string]any `json:"inputResponses"`
}

// callParams are a tools/call's params in both eras.
type callParams struct {
	Name string `json:"name"`
	// Arguments are the tool's, open to the server; nil when absent or not an object.
	Arguments map[string]any `json:"arguments"`
	// Task (2025-11-25) asks for a task when it is an object.
	Task *taskMetadata `json:"task"`
	// RequestState and InputResponses carry a 2026-07-28 retry's answers (multi
	// round-trip requests): each of InputResponses is the client's result for that
	// request, open to the server, which checks only that it is an object.
	RequestState   optional[string]         `json:"requestState"`
	InputResponses optional[map[string]any] `json:"inputResponses"`
}

// taskMetadata is a 2025-11-25 tools/call's params.task.
type taskMetadata struct {
	// TTL is as sent (a JSON value decoded as encoding/json decodes into any): the server
	// checks it is a whole number of milliseconds and quotes it when it is not.
	TTL any `json:"ttl"`
}

func (t *taskMetadata) UnmarshalJSON(b []byte) error { return decodeExact(b, t) }

// listenParams are a subscriptions/listen's params, and the acknowledgement's.
type listenParams struct {
	Notifications subscription `json:"notifications"`
}

// subscription names the tasks a listen hears of.
type subscription struct {
	TaskIDs stringsOnly `json:"taskIds"`
}

func (s *subscription) UnmarshalJSON(b []byte) error { return decodeExact(b, s) }

// stringsOnly is a JSON array of which only the strings are kept.
type stringsOnly []string

func (s *stringsOnly) UnmarshalJSON(b []byte) error {
	var raw []any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, v := range raw {
		if str, ok := v.(string); ok {
			*s = append(*s, str)
		}
	}
	return nil
}

// Result types of the 2026-07-28 wire (resultType).
const (
	resultComplete      = "complete"
	resultTask          = "task"
	resultInputRequired = "input_required"
)

// empty is a capability or setting that carries nothing: {}.
type empty struct{}

// implementation names the server (serverInfo).
type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

var serverInfo = implementation{Name: "storecheck", Version: "reference"}

// serverCapabilities are what the server declares: tools and, in 2025-11-25, tasks; in
// 2026-07-28 the tasks extension.
type serverCapabilities struct {
	Tools      empty            `json:"tools"`
	Tasks      *taskCapability  `json:"tasks,omitempty"`
	Extensions map[string]empty `json:"extensions,omitempty"`
}

// taskCapability is 2025-11-25's capabilities.tasks: tasks/list, tasks/cancel and
// task-augmented tools/call.
type taskCapability struct {
	List     empty `json:"list"`
	Cancel   empty `json:"cancel"`
	Requests struct {
		Tools struct {
			Call empty `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// initializeResult answers a 2025-11-25 initialize.
type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    serverCapabilities `json:"capabilities"`
	ServerInfo      implementation     `json:"serverInfo"`
}

// discoverResult answers a 2026-07-28 server/discover.
type discoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      serverCapabilities `json:"capabilities"`
	ServerInfo        implementation     `json:"serverInfo"`
	TTLMs             int                `json:"ttlMs"`
	CacheScope        string             `json:"cacheScope"`
	ResultType        string             `json:"resultType"`
}

// emptyResult answers with nothing but, in 2026-07-28, its resultType: ping,
// tasks/update, the extension's tasks/cancel, the end of a listen.
type emptyResult struct {
	ResultType string `json:"resultType,omitempty"`
}

// toolsListResult answers tools/list (resultType in 2026-07-28 only).
type toolsListResult struct {
	Tools      []toolInfo `json:"tools"`
	ResultType string     `json:"resultType,omitempty"`
}

// toolInfo is one tool as tools/list shows it.
type toolInfo struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"` // a JSON Schema, open to the server
	Execution   struct {
		TaskSupport string `json:"taskSupport"`
	} `json:"execution"`
}

// callToolResult is what a tool answers (resultType in 2026-07-28 only, when it answers
// the call itself).
type callToolResult struct {
	Content    []textContent `json:"content"`
	IsError    bool          `json:"isError"`
	ResultType string        `json:"resultType,omitempty"`
}

// textContent is a text content block.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// legacyTask is a task as 2025-11-25 shows it: tasks/get, tasks/cancel, tasks/list, a
// CreateTaskResult, notifications/tasks/status.
type legacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"` // null: no ttl
	PollInterval  *int64 `json:"pollInterval,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
}

// createTaskResult answers a 2025-11-25 task-augmented tools/call.
type createTaskResult struct {
	Task legacyTask `json:"task"`
}

// listTasksResult answers a 2025-11-25 tasks/list.
type listTasksResult struct {
	Tasks      []legacyTask `json:"tasks"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// detailedTask is a task as the extension's DetailedTask shows it: a CreateTaskResult
// (resultType "task"), tasks/get (resultType "complete"), notifications/tasks (none).
type detailedTask struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          *int64 `json:"ttlMs"` // null: no ttl
	PollIntervalMs *int64 `json:"pollIntervalMs,omitempty"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	// The store's payloads, open to the server, each shown in the status that has it
	// (null when the store keeps none): the tool's result, the JSON-RPC error, the
	// outstanding input requests.
	Result        *map[string]any `json:"result,omitempty"`
	Error         *map[string]any `json:"error,omitempty"`
	InputRequests *map[string]any `json:"inputRequests,omitempty"`
	ResultType    string          `json:"resultType,omitempty"`
}

// inputRequiredResult answers a 2026-07-28 tools/call whose tool asked what the call
// did not carry.
type inputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]inputRequest `json:"inputRequests"`
	RequestState  string                  `json:"requestState"`
}

// inputRequest is one request a tool asks of the client: an InputRequest of the
// extension, and in 2025-11-25 the elicitation/create sent on tasks/result.
type inputRequest struct {
	Method string       `json:"method"`
	Params elicitParams `json:"params"`
}

func (r *inputRequest) UnmarshalJSON(b []byte) error { return decodeExact(b, r) }

// elicitParams are a form-mode elicitation/create's params.
type elicitParams struct {
	Mode            string         `json:"mode"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema"` // a JSON Schema, open to the server
	// Meta relates a 2025-11-25 request to its task.
	Meta *relatedMeta `json:"_meta,omitempty"`
}

func (p *elicitParams) UnmarshalJSON(b []byte) error { return decodeExact(b, p) }

// elicitResult is the part of a client's answer to an elicitation the tools read.
type elicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"` // the requested schema's fields, open to the server
}

// relatedMeta is the _meta that relates a message to its 2025-11-25 task.
type relatedMeta struct {
	RelatedTask taskParams `json:"io.modelcontextprotocol/related-task"`
}

// notification is a JSON-RPC notification the server sends.
type notification[P any] struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  P      `json:"params"`
}

func notify[P any](method string, params P) notification[P] {
	return notification[P]{JSONRPC: "2.0", Method: method, Params: params}
}

// rpcRequest is a JSON-RPC request the server sends (2025-11-25 elicitation/create).
type rpcRequest[P any] struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  P      `json:"params"`
}

// response answers a request with its result, open to the JSON-RPC layer: any of the
// results above, or a task's stored result.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

// errorResponse answers a request with its error.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *Error          `json:"error"`
}

// missingCapabilityData is a -32021 error's data.
type missingCapabilityData struct {
	RequiredCapabilities clientCapabilities `json:"requiredCapabilities"`
}

// limitData is the data of the error that refuses a task past MaxTasksPerPrincipal.
type limitData struct {
	MaxConcurrentTasks int `json:"maxConcurrentTasks"`
}

// jsonValue is v as generic JSON: objects as map[string]any, arrays as []any, numbers as
// json.Number (exact); nil stays nil.
func jsonValue(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return v
	}
	return out
}

// jsonObject is v as a generic JSON object, as the stores keep a task's payloads.
func jsonObject(v any) map[string]any {
	m, _ := jsonValue(v).(map[string]any)
	return m
}
