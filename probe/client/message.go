// Package client is the probe's MCP client: JSON-RPC 2.0 over Streamable HTTP and over
// stdio, written to see the wire as it is.
//
// It is written by hand rather than taken from an MCP SDK because the probe judges the
// server's traffic, and an SDK client hides exactly what the probe must see: the error
// code and HTTP status of every answer, whether it came as JSON or inside an SSE stream,
// the other messages that shared its stream, malformed frames, and headers (a forged
// session id, a missing Mcp-Name). An SDK would also refuse to send the malformed and
// foreign requests the probe sends on purpose.
package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors of a call that got no JSON-RPC answer.
var (
	// ErrHTTP: the server answered with an HTTP error status and no JSON-RPC body.
	ErrHTTP = errors.New("HTTP error without a JSON-RPC answer")
	// ErrMalformed: the answer was not a JSON-RPC message (bad JSON, wrong shape, an
	// unexpected content type).
	ErrMalformed = errors.New("malformed answer")
	// ErrNoAnswer: the stream or the process ended before the answer came.
	ErrNoAnswer = errors.New("no answer before the stream ended")
	// ErrClosed: the connection was closed.
	ErrClosed = errors.New("connection closed")
	// ErrDied: the server is gone: its process exited, or its endpoint refuses
	// connections. A *DiedError says how.
	ErrDied = errors.New("the server died")
)

// DiedError says how a server ended; it wraps ErrDied.
type DiedError struct {
	How    string   // "exited: exit status 3", "stopped accepting connections: ..."
	Stderr []string // the last lines of its stderr, when the probe started it
}

func (e *DiedError) Error() string {
	s := fmt.Sprintf("%v: it %s", ErrDied, e.How)
	if len(e.Stderr) > 0 {
		s += "; the last lines of its stderr: " + strings.Join(e.Stderr, " | ")
	}
	return s
}

func (e *DiedError) Unwrap() error { return ErrDied }

// Message is one JSON-RPC 2.0 message: a request (ID and Method), a notification
// (Method only) or a response (ID and Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsResponse reports whether m answers a request.
func (m Message) IsResponse() bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// IsNotification reports whether m is a notification.
func (m Message) IsNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// IsRequest reports whether m is a request (from the server, when the client reads it).
func (m Message) IsRequest() bool { return m.Method != "" && len(m.ID) != 0 }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
}

// Response is the answer to one call and how it arrived.
type Response struct {
	Message
	// HTTPStatus is the status of the HTTP response that carried the answer (0 on stdio).
	HTTPStatus int
	// Stream is true when the answer came inside an SSE stream.
	Stream bool
	// Others are the other messages of the same stream, before or after the answer.
	Others []Message
}

// RPCError returns the answer's JSON-RPC error, or nil for a result.
func (r *Response) RPCError() *Error {
	if r == nil {
		return nil
	}
	return r.Error
}

// Decode decodes the answer's result into v; a JSON-RPC error is returned as is.
func (r *Response) Decode(v any) error {
	if r.Error != nil {
		return r.Error
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		return fmt.Errorf("%w: result %s: %v", ErrMalformed, clip(r.Result, 200), err)
	}
	return nil
}

// idKey is the form an id is matched by: the probe sends numbers, and a server that
// answers with the same number as a string has not answered that request.
func idKey(raw json.RawMessage) string { return string(raw) }

func numericID(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
