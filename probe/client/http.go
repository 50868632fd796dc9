package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
)

// maxBody bounds what the probe reads of one HTTP response, so a server that streams
// without end cannot exhaust the probe's memory.
const maxBody = 16 << 20

// HTTPError is an HTTP error status that came without a JSON-RPC answer; it wraps
// ErrHTTP.
type HTTPError struct {
	StatusCode int
	Status     string
	Body       string // its start
}

func (e *HTTPError) Error() string { return fmt.Sprintf("%v: %s: %s", ErrHTTP, e.Status, e.Body) }
func (e *HTTPError) Unwrap() error { return ErrHTTP }

// HTTPOptions configures a Streamable HTTP connection.
type HTTPOptions struct {
	// Client defaults to a client without a timeout: every call's context bounds it.
	Client *http.Client
	// Header is sent with every request (Authorization, MCP-Protocol-Version).
	Header http.Header
}

// DialHTTP returns a connection to the MCP endpoint url. Nothing is sent yet.
func DialHTTP(url string, opts HTTPOptions) *Conn {
	t := &httpTransport{url: url, client: opts.Client, header: opts.Header.Clone()}
	if t.client == nil {
		t.client = &http.Client{}
	}
	if t.header == nil {
		t.header = http.Header{}
	}
	c := newConn(t)
	t.conn = c
	return c
}

// SessionID returns the Mcp-Session-Id the server assigned (empty when none).
func (c *Conn) SessionID() string {
	if t, ok := c.t.(*httpTransport); ok {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.session
	}
	return ""
}

// SetSessionID replaces the session id sent with every request (to try a forged one).
func (c *Conn) SetSessionID(id string) {
	if t, ok := c.t.(*httpTransport); ok {
		t.mu.Lock()
		t.session = id
		t.mu.Unlock()
	}
}

// SetHeader sets a header sent with every later request.
func (c *Conn) SetHeader(name, value string) {
	if t, ok := c.t.(*httpTransport); ok {
		t.mu.Lock()
		t.header.Set(name, value)
		t.mu.Unlock()
	}
}

// Listen opens the standalone GET stream and files what it carries in the inbox until
// ctx ends or the server closes it. It returns once the stream is open (or refused:
// a server may answer 405).
func (c *Conn) Listen(ctx context.Context) error {
	t, ok := c.t.(*httpTransport)
	if !ok {
		return nil // stdio: everything arrives on stdout already
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
	if err != nil {
		return err
	}
	t.setHeaders(req, nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := t.client.Do(req)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		res.Body.Close()
		return &HTTPError{StatusCode: res.StatusCode, Status: res.Status, Body: clip(b, 200)}
	}
	go func() {
		defer res.Body.Close()
		_ = readSSE(res.Body, func(data []byte) bool {
			msgs, err := decodeMessages(data)
			if err != nil {
				return true
			}
			for _, m := range msgs {
				if reply := c.deliver(m, "get"); reply != nil {
					t.answer(ctx, reply)
				}
			}
			return true
		})
	}()
	return nil
}

type httpTransport struct {
	url    string
	client *http.Client
	conn   *Conn

	mu      sync.Mutex
	header  http.Header
	session string
}

func (t *httpTransport) setHeaders(req *http.Request, hdr http.Header) {
	t.mu.Lock()
	for k, v := range t.header {
		req.Header[k] = append([]string(nil), v...)
	}
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	t.mu.Unlock()
	for k, v := range hdr {
		if len(v) == 0 {
			req.Header.Del(k) // an empty value removes a default, to test its absence
			continue
		}
		req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
	}
}

func (t *httpTransport) post(ctx context.Context, body []byte, hdr http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	t.setHeaders(req, hdr)
	res, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	if s := res.Header.Get("Mcp-Session-Id"); s != "" {
		t.mu.Lock()
		if t.session == "" {
			t.session = s
		}
		t.mu.Unlock()
	}
	return res, nil
}

// answer posts the probe's reply to a server's request, in the background and past the
// end of ctx (the stream that carried the request may be ending). A reply that fails
// to post is no error of the probe's: the server sees its request unanswered, which is
// what the check waiting on it judges.
func (t *httpTransport) answer(ctx context.Context, reply []byte) {
	go func() {
		res, err := t.post(context.WithoutCancel(ctx), reply, nil)
		if err != nil {
			return
		}
		res.Body.Close()
	}()
}

func (t *httpTransport) roundTrip(ctx context.Context, id json.RawMessage, body []byte, hdr http.Header) (*Response, error) {
	res, err := t.post(ctx, body, hdr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out := &Response{HTTPStatus: res.StatusCode}
	ctype, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if id == nil { // a notification or a response: 202 Accepted with no body
		if res.StatusCode == http.StatusAccepted || res.StatusCode == http.StatusOK || res.StatusCode == http.StatusNoContent {
			return out, nil
		}
	}
	switch {
	case ctype == "text/event-stream":
		out.Stream = true
		found := false
		err := readSSE(io.LimitReader(res.Body, maxBody), func(data []byte) bool {
			msgs, err := decodeMessages(data)
			if err != nil {
				out.Others = append(out.Others, Message{Method: "(malformed SSE data)", Params: json.RawMessage(quote(data))})
				return true
			}
			for _, m := range msgs {
				if m.IsResponse() && idKey(m.ID) == idKey(id) && !found {
					out.Message = m
					found = true
					continue
				}
				out.Others = append(out.Others, m)
				if reply := t.conn.deliver(m, "post"); reply != nil {
					t.answer(ctx, reply)
				}
			}
			return !found
		})
		if found {
			return out, nil
		}
		if err != nil && ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, fmt.Errorf("%w: SSE stream of %s ended after %d other messages (HTTP %d)", ErrNoAnswer, clip(body, 120), len(out.Others), res.StatusCode)
	case ctype == "application/json":
		b, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
		if err != nil {
			return out, err
		}
		msgs, err := decodeMessages(b)
		if err != nil {
			if res.StatusCode >= 400 {
				return out, &HTTPError{StatusCode: res.StatusCode, Status: res.Status, Body: clip(b, 200)}
			}
			return out, err
		}
		for _, m := range msgs {
			if m.IsResponse() && (idKey(m.ID) == idKey(id) || len(msgs) == 1) {
				out.Message = m
				return out, nil
			}
		}
		return out, fmt.Errorf("%w: no answer to id %s in %s", ErrMalformed, id, clip(b, 200))
	default:
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		if res.StatusCode >= 400 {
			return out, &HTTPError{StatusCode: res.StatusCode, Status: res.Status, Body: clip(b, 200)}
		}
		return out, fmt.Errorf("%w: HTTP %d with content type %q: %s", ErrMalformed, res.StatusCode, res.Header.Get("Content-Type"), clip(b, 200))
	}
}

// send posts in the background: HTTP requests travel apart, so nothing orders them.
func (t *httpTransport) send(ctx context.Context, id json.RawMessage, body []byte, hdr http.Header) func() (*Response, error) {
	type answer struct {
		res *Response
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		res, err := t.roundTrip(ctx, id, body, hdr)
		ch <- answer{res, err}
	}()
	return func() (*Response, error) {
		a := <-ch
		return a.res, a.err
	}
}

// alive dials the endpoint's host: a connection refused or reset is a server gone (one
// that answers nothing yet takes connections is hung, not dead: nil).
func (t *httpTransport) alive(ctx context.Context) error {
	u, err := url.Parse(t.url)
	if err != nil {
		return nil
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	ctx, cancel := context.WithTimeout(ctx, exitGrace)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", host)
	switch {
	case err == nil:
		conn.Close()
		return nil
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return &DiedError{How: "stopped accepting connections (" + err.Error() + ")"}
	}
	return nil
}

func (t *httpTransport) close() error {
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	if session == "" {
		return nil
	}
	req, err := http.NewRequest(http.MethodDelete, t.url, nil)
	if err != nil {
		return err
	}
	t.setHeaders(req, nil)
	res, err := t.client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	return nil
}

// readSSE calls fn with the data of every event of an SSE stream until fn returns false
// or the stream ends (io.EOF is not an error).
func readSSE(r io.Reader, fn func(data []byte) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	var data [][]byte
	flush := func() bool {
		if len(data) == 0 {
			return true
		}
		d := bytes.Join(data, []byte("\n"))
		data = nil
		return fn(d)
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if !flush() {
				return nil
			}
		case strings.HasPrefix(line, ":"):
			// a comment (keep-alive)
		case strings.HasPrefix(line, "data:"):
			data = append(data, []byte(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")))
		}
	}
	if !flush() {
		return nil
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func quote(b []byte) []byte {
	q, _ := json.Marshal(string(clip(b, 200)))
	return q
}
