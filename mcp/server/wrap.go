package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/storecheck/storecheck/reference"
)

// Handler answers one parsed request: its result, or its JSON-RPC error; nil and nil when
// there is nothing to send (a stream that broke).
type Handler func(ctx context.Context, r *Request) (any, *Error)

// generic is next as a Config.Wrap sees it: its results and the messages it streams as
// generic JSON (jsonValue), so that a wrapper reads and rewrites them as it reads the
// params, whatever types the server writes them from.
func generic(next Handler) Handler {
	return func(ctx context.Context, r *Request) (any, *Error) {
		if send := r.stream; send != nil {
			r.stream = func(v any) error { return send(jsonValue(v)) }
			defer func() { r.stream = send }()
		}
		res, e := next(ctx, r)
		return jsonValue(res), e
	}
}

// Method is the request's JSON-RPC method.
func (r *Request) Method() string { return r.msg.Method }

// Params are the request's params, parsed; a Handler may change them before passing the
// request on.
func (r *Request) Params() map[string]any { return r.params }

// Caller is who the facades see making the request.
func (r *Request) Caller() reference.Caller { return r.caller }

// SetCaller changes who the facades see making the request.
func (r *Request) SetCaller(c reference.Caller) { r.caller = c }

// Principal is the principal the request's credentials name ("" for none): the owner of
// a task it creates.
func (r *Request) Principal() string { return r.owner }

// SessionID is the 2025-11-25 session the request belongs to ("" for none).
func (r *Request) SessionID() string {
	if r.session == nil {
		return ""
	}
	return r.session.id
}

// Header is the request's HTTP header (nil on stdio).
func (r *Request) Header() http.Header { return r.header }

// Modern reports whether the request speaks the 2026-07-28 wire.
func (r *Request) Modern() bool { return r.modernRequest() }

// Stream is how messages reach the client before the answer (nil when the request is
// answered with one JSON body).
func (r *Request) Stream() func(v any) error { return r.stream }

// SetStream replaces how messages reach the client before the answer.
func (r *Request) SetStream(send func(v any) error) { r.stream = send }

// Standalone sends v on the open standalone streams of the request's 2025-11-25 session
// (its GET streams; on stdio, its output), as the server sends what answers no request;
// false when none is open.
func (r *Request) Standalone(v any) bool {
	if r.session == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	r.session.mu.Lock()
	defer r.session.mu.Unlock()
	sent := false
	for ch := range r.session.streams {
		select {
		case ch <- b:
			sent = true
		default:
		}
	}
	return sent
}

// NewRequest makes a request as a Handler would receive it from a transport, for a
// Handler that issues calls of its own (for instance a tasks/cancel after a tools/call).
// Its routing headers (2026-07-28 Mcp-Method, Mcp-Name) name the new call, as a client's
// would.
func NewRequest(like *Request, method string, params map[string]any) *Request {
	c := *like
	c.msg = message{JSONRPC: "2.0", Method: method, ID: []byte(`"storecheck-internal"`)}
	c.params = params
	c.stream = nil
	if like.header != nil {
		c.header = like.header.Clone()
		c.header.Set("Mcp-Method", method)
		c.header.Del("Mcp-Name")
		if id, ok := params["taskId"].(string); ok {
			c.header.Set("Mcp-Name", id)
		}
	}
	return &c
}
