package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
)

// ServeHTTP is the Streamable HTTP endpoint: POST carries one JSON-RPC message, GET opens a
// 2025-11-25 session's notification stream, DELETE ends a session.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) { s.endpoint.ServeHTTP(w, req) }

func (s *Server) serveHTTP(w http.ResponseWriter, req *http.Request) {
	principal, ok := s.principal(req)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="storecheck"`)
		http.Error(w, "unknown bearer token", http.StatusUnauthorized)
		return
	}
	switch req.Method {
	case http.MethodPost:
		s.post(w, req, principal)
	case http.MethodGet:
		s.listen(w, req, principal)
	case http.MethodDelete:
		ss, ok := s.sessionOf(req, principal)
		if !ok {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		s.mu.Lock()
		delete(s.sessions, ss.id)
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// principal maps the request's bearer token; ok is false for a token not configured.
func (s *Server) principal(req *http.Request) (string, bool) {
	auth := req.Header.Get("Authorization")
	if auth == "" {
		return "", true
	}
	token, found := strings.CutPrefix(auth, "Bearer ")
	if !found {
		return "", false
	}
	name, ok := s.cfg.Principals[strings.TrimSpace(token)]
	return name, ok
}

// sessionOf finds the request's session; a session is bound to the principal that made
// it, so another principal's request with its id finds nothing.
func (s *Server) sessionOf(req *http.Request, principal string) (*session, bool) {
	id := req.Header.Get("Mcp-Session-Id")
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok || ss.principal != principal {
		return nil, false
	}
	return ss, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// answer is the response to the request of id (null when unknown): its error, or its
// result.
func answer(id json.RawMessage, result any, e *Error) any {
	if id == nil {
		id = json.RawMessage("null")
	}
	if e != nil {
		return errorResponse{JSONRPC: "2.0", ID: id, Error: e}
	}
	return response{JSONRPC: "2.0", ID: id, Result: result}
}

func (s *Server) post(w http.ResponseWriter, req *http.Request, principal string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, s.cfg.MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeJSON(w, http.StatusRequestEntityTooLarge, answer(nil, nil, errorf(jsonrpc.CodeInvalidRequest, "request body over %d bytes", s.cfg.MaxBody)))
		return
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, answer(nil, nil, errorf(jsonrpc.CodeParse, "read the body: %v", err)))
		return
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		writeJSON(w, http.StatusBadRequest, answer(nil, nil, errorf(jsonrpc.CodeInvalidRequest, "batches are not supported")))
		return
	}
	var msg message
	if err := json.Unmarshal(body, &msg); err != nil {
		writeJSON(w, http.StatusBadRequest, answer(nil, nil, errorf(jsonrpc.CodeParse, "parse error: %v", err)))
		return
	}
	r := &Request{msg: msg, caller: callerOf(principal), owner: principal, header: req.Header}
	if req.Header.Get("Mcp-Session-Id") != "" {
		ss, ok := s.sessionOf(req, principal)
		if !ok {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		r.session = ss
	}
	if msg.Method == "" || msg.ID == nil { // a response or a notification: nothing to answer
		if msg.JSONRPC != "2.0" {
			writeJSON(w, http.StatusBadRequest, answer(nil, nil, errorf(jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message")))
			return
		}
		if msg.Method == "" && msg.ID != nil {
			s.answerInput(req.Context(), principal, msg)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if msg.Method == "initialize" && r.session == nil {
		ss := &session{id: newSessionID(), principal: principal, streams: map[chan []byte]struct{}{}}
		r.session = ss
		defer func() {
			s.mu.Lock()
			s.sessions[ss.id] = ss
			s.mu.Unlock()
		}()
		w.Header().Set("Mcp-Session-Id", ss.id)
	}
	if streams(msg.Method) && strings.Contains(req.Header.Get("Accept"), "text/event-stream") {
		s.postStream(w, req, r)
		return
	}
	result, e := s.handle(req.Context(), r)
	if r.session != nil && msg.Method == "initialize" && e != nil {
		w.Header().Del("Mcp-Session-Id")
		r.session = nil
	}
	writeJSON(w, http.StatusOK, answer(msg.ID, result, e))
}

// streams reports whether a method answers through an SSE stream: it blocks (tasks/result)
// or carries notifications (subscriptions/listen).
func streams(method string) bool { return method == "tasks/result" || method == "subscriptions/listen" }

// postStream answers r with an SSE stream: messages before the answer, then the answer.
func (s *Server) postStream(w http.ResponseWriter, req *http.Request, r *Request) {
	event := sse(w)
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return event(b)
	}
	r.stream = send
	result, e := s.handle(req.Context(), r)
	if result == nil && e == nil {
		return // the stream broke
	}
	_ = send(answer(r.msg.ID, result, e))
}

// listen is the GET stream of a 2025-11-25 session: notifications/tasks/status of its
// tasks. The 2026-07-28 wire has none (405).
func (s *Server) listen(w http.ResponseWriter, req *http.Request, principal string) {
	if req.Header.Get("Mcp-Session-Id") == "" {
		w.Header().Set("Allow", "POST")
		http.Error(w, "no standalone stream without a session", http.StatusMethodNotAllowed)
		return
	}
	ss, ok := s.sessionOf(req, principal)
	if !ok {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	ch := make(chan []byte, 64)
	ss.mu.Lock()
	ss.streams[ch] = struct{}{}
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		delete(ss.streams, ch)
		ss.mu.Unlock()
	}()
	event := sse(w)
	for {
		select {
		case <-req.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case b := <-ch:
			if event(b) != nil {
				return
			}
		}
	}
}

// sse starts an SSE response and returns how to send one message event on it; sends
// may come from several goroutines.
func sse(w http.ResponseWriter) func(data []byte) error {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	var mu sync.Mutex
	return func(data []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", data); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
}

// ServeStdio speaks newline-delimited JSON-RPC on in and out until in ends or ctx does.
// Every request runs in its own goroutine; the connection is one 2025-11-25 session once
// initialized, with no principal (stdio carries no credentials) unless principal names
// one.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, principal string) error {
	var wmu sync.Mutex
	write := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		wmu.Lock()
		defer wmu.Unlock()
		_, err = out.Write(append(b, '\n'))
		return err
	}
	ss := &session{id: newSessionID(), principal: principal, streams: map[chan []byte]struct{}{}}
	notes := make(chan []byte, 64)
	ss.streams[notes] = struct{}{}
	initialized := false
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case b := <-notes:
				wmu.Lock()
				_, _ = out.Write(append(b, '\n'))
				wmu.Unlock()
			}
		}
	}()
	var wg sync.WaitGroup
	defer func() {
		s.mu.Lock()
		delete(s.sessions, ss.id)
		s.mu.Unlock()
		wg.Wait()
	}()
	// Messages are lines ("Messages are delimited by newlines, and MUST NOT contain
	// embedded newlines"): a line that is not a message is answered with its error and
	// the next line is read, so one bad message does not end the connection.
	rd := bufio.NewReader(in)
	for {
		raw, tooLong, rerr := readLine(rd, s.cfg.MaxBody)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("stdio: %w", rerr)
		}
		if msg, ok := stdioMessage(bytes.TrimSpace(raw), tooLong, s.cfg.MaxBody, write); ok {
			switch {
			case msg.Method == "" && msg.ID != nil:
				s.answerInput(ctx, principal, msg)
			case msg.Method == "" || msg.ID == nil:
				// a notification: nothing to answer
			default:
				r := &Request{msg: msg, caller: callerOf(principal), owner: principal, stream: write}
				if msg.Method == "initialize" && !initialized {
					initialized = true
					s.mu.Lock()
					s.sessions[ss.id] = ss
					s.mu.Unlock()
				}
				if initialized {
					r.session = ss
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					result, e := s.handle(ctx, r)
					if result == nil && e == nil {
						return
					}
					_ = write(answer(msg.ID, result, e))
				}()
			}
		}
		if rerr != nil { // io.EOF once the last line is served
			return nil
		}
	}
}

// stdioMessage parses one line; a line that is not a message is answered with its error
// (ok false).
func stdioMessage(raw []byte, tooLong bool, max int64, write func(any) error) (message, bool) {
	var msg message
	switch {
	case tooLong:
		_ = write(answer(nil, nil, errorf(jsonrpc.CodeInvalidRequest, "message over %d bytes", max)))
	case len(raw) == 0:
	case !json.Valid(raw):
		_ = write(answer(nil, nil, errorf(jsonrpc.CodeParse, "parse error: not JSON")))
	case raw[0] == '[':
		_ = write(answer(nil, nil, errorf(jsonrpc.CodeInvalidRequest, "batches are not supported")))
	default:
		if err := json.Unmarshal(raw, &msg); err != nil {
			_ = write(answer(nil, nil, errorf(jsonrpc.CodeInvalidRequest, "not a JSON-RPC message: %v", err)))
			return msg, false
		}
		return msg, true
	}
	return msg, false
}

// readLine reads one line; a line over max bytes is read to its end and reported as too
// long, without being kept.
func readLine(rd *bufio.Reader, max int64) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := rd.ReadSlice('\n')
		if !tooLong && int64(len(line)+len(chunk)) > max {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}
