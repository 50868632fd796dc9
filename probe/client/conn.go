package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
)

// Inbound is a message the server sent that answered none of the client's calls: a
// notification, or a request of the server's.
type Inbound struct {
	Message
	// Via says where it came: "post" (the SSE stream of a POST), "get" (the standalone
	// GET stream) or "stdout".
	Via string
	At  time.Time
}

// RequestHandler answers a request the server sends (elicitation, sampling). It returns
// the result, or a JSON-RPC error, or Unanswered.
type RequestHandler func(Message) (any, *Error)

// Unanswered, returned by a RequestHandler as its error, sends no response for now: the
// request is answered later with Respond, from this connection or another.
var Unanswered = &Error{Message: "the probe answers this request later"}

// transport carries one message to the server and brings back the answer to id (nil for
// a notification or a response, which have none).
type transport interface {
	roundTrip(ctx context.Context, id json.RawMessage, body []byte, hdr http.Header) (*Response, error)
	// send is roundTrip in two steps: it returns once the message is on its way, with the
	// wait for its answer.
	send(ctx context.Context, id json.RawMessage, body []byte, hdr http.Header) func() (*Response, error)
	// alive is nil, or a *DiedError when the server is known to be gone.
	alive(ctx context.Context) error
	close() error
}

// Conn is one client connection to an MCP server. It is safe for concurrent calls.
type Conn struct {
	t    transport
	next atomic.Int64

	mu        sync.Mutex
	inbox     []Inbound
	onRequest RequestHandler
	waiters   []chan struct{}
	last      string // what was sent last, and when
	lastAt    time.Time
}

func newConn(t transport) *Conn { return &Conn{t: t} }

// OnRequest sets how the server's own requests are answered (default: method not found).
func (c *Conn) OnRequest(h RequestHandler) {
	c.mu.Lock()
	c.onRequest = h
	c.mu.Unlock()
}

// Call sends a request and waits for its answer. A JSON-RPC error is not a Go error: it
// is in the Response. hdr adds HTTP headers to this request (ignored on stdio).
func (c *Conn) Call(ctx context.Context, method string, params any, hdr http.Header) (*Response, error) {
	id := numericID(c.next.Add(1))
	body, err := encode(id, method, params)
	if err != nil {
		return nil, err
	}
	c.sent(method)
	return c.t.roundTrip(ctx, id, body, hdr)
}

// Start sends a request as Call does and returns once it is on its way, with the wait
// for its answer. On stdio the server reads what is sent in order, so a request sent
// after Start returns is read after this one; HTTP gives no such order.
func (c *Conn) Start(ctx context.Context, method string, params any, hdr http.Header) func() (*Response, error) {
	id := numericID(c.next.Add(1))
	body, err := encode(id, method, params)
	if err != nil {
		return func() (*Response, error) { return nil, err }
	}
	c.sent(method)
	return c.t.send(ctx, id, body, hdr)
}

// StartRaw is SendRaw in Start's two steps.
func (c *Conn) StartRaw(ctx context.Context, id json.RawMessage, body []byte, hdr http.Header) func() (*Response, error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	c.sent(rawWhat(body))
	return c.t.send(ctx, id, body, hdr)
}

// LastSent is what the connection sent last (a method, or the start of a raw message)
// and when; "" before anything was sent.
func (c *Conn) LastSent() (string, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last, c.lastAt
}

// Alive returns nil unless the server is known to be gone; then a *DiedError (wrapping
// ErrDied) saying how: on stdio the child's exit status and the last lines of its
// stderr, on HTTP the refused connection to its endpoint.
func (c *Conn) Alive(ctx context.Context) error { return c.t.alive(ctx) }

func (c *Conn) sent(what string) {
	c.mu.Lock()
	c.last, c.lastAt = what, time.Now()
	c.mu.Unlock()
}

func rawWhat(body []byte) string { return "the raw message " + clip(body, 60) }

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any, hdr http.Header) error {
	body, err := encode(nil, method, params)
	if err != nil {
		return err
	}
	c.sent(method)
	_, err = c.t.roundTrip(ctx, nil, body, hdr)
	return err
}

// SendRaw sends body as it is (malformed JSON, a wrong envelope) and returns whatever
// answer the transport can attribute to it: on HTTP the response to the POST; on stdio
// the first response carrying id, or, with id nil, one carrying a null id.
func (c *Conn) SendRaw(ctx context.Context, id json.RawMessage, body []byte, hdr http.Header) (*Response, error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	c.sent(rawWhat(body))
	return c.t.roundTrip(ctx, id, body, hdr)
}

// NextID reserves an id for a raw request.
func (c *Conn) NextID() json.RawMessage { return numericID(c.next.Add(1)) }

// Inbox returns a copy of the messages received so far that answered no call.
func (c *Conn) Inbox() []Inbound {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Inbound(nil), c.inbox...)
}

// WaitInbox blocks until pred holds for the inbox or ctx ends; it reports whether pred
// held.
func (c *Conn) WaitInbox(ctx context.Context, pred func([]Inbound) bool) bool {
	for {
		c.mu.Lock()
		if pred(c.inbox) {
			c.mu.Unlock()
			return true
		}
		ch := make(chan struct{})
		c.waiters = append(c.waiters, ch)
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// Close ends the connection (on HTTP: deletes the session, if any; on stdio: ends the
// process).
func (c *Conn) Close() error { return c.t.close() }

// deliver files a message that answered no call; the server's requests are answered.
func (c *Conn) deliver(m Message, via string) (reply []byte) {
	c.mu.Lock()
	c.inbox = append(c.inbox, Inbound{Message: m, Via: via, At: time.Now()})
	for _, w := range c.waiters {
		close(w)
	}
	c.waiters = nil
	h := c.onRequest
	c.mu.Unlock()
	if !m.IsRequest() {
		return nil
	}
	var result any
	var rpcErr *Error
	if h != nil {
		result, rpcErr = h(m)
	} else {
		rpcErr = &Error{Code: jsonrpc.CodeMethodNotFound, Message: "the probe does not serve " + m.Method}
	}
	if rpcErr == Unanswered {
		return nil
	}
	return response(m.ID, result, rpcErr)
}

// response encodes a response to the server's request id.
func response(id json.RawMessage, result any, rpcErr *Error) []byte {
	out := Message{JSONRPC: "2.0", ID: id, Error: rpcErr}
	if rpcErr == nil {
		raw, err := json.Marshal(result)
		if err != nil {
			out.Error = &Error{Code: jsonrpc.CodeInternal, Message: err.Error()}
		} else {
			out.Result = raw
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// Respond sends, on this connection, a response to the server's request id: result, or
// rpcErr when it is not nil. The request may have come to another connection: that is
// how the probe answers one principal's request as another.
func (c *Conn) Respond(ctx context.Context, id json.RawMessage, result any, rpcErr *Error) error {
	_, err := c.t.roundTrip(ctx, nil, response(id, result, rpcErr), nil)
	return err
}

func encode(id json.RawMessage, method string, params any) ([]byte, error) {
	m := Message{JSONRPC: "2.0", ID: id, Method: method}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
		m.Params = raw
	}
	return json.Marshal(m)
}

// decodeMessage parses one JSON-RPC message; an array (a batch) is returned whole.
func decodeMessages(b []byte) ([]Message, error) {
	var one Message
	if err := json.Unmarshal(b, &one); err == nil {
		if one.JSONRPC != "2.0" {
			return nil, fmt.Errorf("%w: jsonrpc is %q in %s", ErrMalformed, one.JSONRPC, clip(b, 200))
		}
		return []Message{one}, nil
	}
	var batch []Message
	if err := json.Unmarshal(b, &batch); err != nil {
		return nil, fmt.Errorf("%w: %v in %s", ErrMalformed, err, clip(b, 200))
	}
	return batch, nil
}
