package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// The 2025-11-25 input flow: a tool that needs input moves its task to input_required
// with its requests kept in the task; tasks/result, asked on a stream, sends each
// outstanding request to the client as a server-to-client JSON-RPC request carrying the
// related-task _meta; the client's response (an HTTP POST, or a line on stdio) is
// written into the task; once every request is answered the tool takes the answers and
// the task goes back to working. The store holds the requests and the answers, so that
// the task's state is the store's.

// Keys of a legacy task's metadata for its input.
const (
	keyInputRequests  = "input_requests"  // key -> {method, params}
	keyInputResponses = "input_responses" // key -> the client's result (or {"error": ...})
	keyInputRound     = "input_round"     // how many times the tool has asked: a round's keys are its own
)

// pendingInput is a request sent to a client, awaiting its response.
type pendingInput struct {
	task, key string
	round     int64
	principal string // the caller the request went to: only its response is taken
}

// input asks the client for input: the task goes to input_required until every request
// is answered, then back to working.
func (w legacyWork) input(ctx context.Context, requests map[string]inputRequest) (map[string]any, error) {
	s := w.s
	cur, err := s.legacy.Get(ctx, w.id, reference.System())
	if err != nil {
		return nil, err
	}
	round, _ := intOf(cur[keyInputRound])
	t, err := s.legacy.Update(ctx, w.id, legacy.Task{legacy.KeyStatus: string(reference.StatusInputRequired),
		keyInputRequests: jsonObject(requests), keyInputResponses: map[string]any{}, keyInputRound: round + 1, keyUpdatedAt: reference.NowMillis(s.cfg.Clock),
		keyMessage: "Waiting for input: call tasks/result to receive the requests."})
	if err != nil {
		return nil, err
	}
	s.legacyChanged(t)
	for {
		t, err := s.legacy.Get(ctx, w.id, reference.System())
		if err != nil {
			return nil, err
		}
		if t.Status().Terminal() {
			return nil, errors.New("the task ended while waiting for input")
		}
		got, _ := t[keyInputResponses].(map[string]any)
		if answeredAll(requests, got) {
			t, err := s.legacy.Update(ctx, w.id, legacy.Task{legacy.KeyStatus: string(reference.StatusWorking),
				keyInputRequests: nil, keyUpdatedAt: reference.NowMillis(s.cfg.Clock), keyMessage: "The operation is in progress."})
			if err != nil {
				return nil, err
			}
			s.legacyChanged(t)
			return got, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func answeredAll(requests map[string]inputRequest, got map[string]any) bool {
	for k := range requests {
		if _, ok := got[k]; !ok {
			return false
		}
	}
	return true
}

// inputSender sends a task's outstanding input requests on one tasks/result stream, each
// once.
type inputSender struct {
	s      *Server
	r      *Request
	sent   map[string]bool // round:key of the requests sent on this stream
	issued []string        // JSON-RPC ids of the requests sent
}

// send sends the requests of t not yet answered nor sent on this stream.
func (is *inputSender) send(t legacy.Task) error {
	if !is.r.session.canElicit() {
		// "Servers MUST NOT send elicitation requests with modes that are not supported by
		// the client": this stream only waits.
		return nil
	}
	reqs, _ := t[keyInputRequests].(map[string]any)
	got, _ := t[keyInputResponses].(map[string]any)
	round, _ := intOf(t[keyInputRound])
	for key, raw := range reqs {
		mark := fmt.Sprintf("%d:%s", round, key)
		if _, answered := got[key]; answered || is.sent[mark] {
			continue
		}
		var req inputRequest
		decodeParams(raw, &req)
		// "The receiver MUST include the io.modelcontextprotocol/related-task metadata in
		// the request to associate it with the task."
		req.Params.Meta = &relatedMeta{RelatedTask: taskParams{TaskID: t.ID()}}
		id := newInputID()
		is.s.inputMu.Lock()
		is.s.inputs[id] = pendingInput{task: t.ID(), key: key, round: round, principal: is.r.owner}
		is.s.inputMu.Unlock()
		is.issued = append(is.issued, id)
		is.sent[mark] = true
		if err := is.r.stream(rpcRequest[elicitParams]{JSONRPC: "2.0", ID: id, Method: req.Method, Params: req.Params}); err != nil {
			return err
		}
	}
	return nil
}

// close forgets the requests of this stream still unanswered.
func (is *inputSender) close() {
	is.s.inputMu.Lock()
	defer is.s.inputMu.Unlock()
	for _, id := range is.issued {
		delete(is.s.inputs, id)
	}
}

func newInputID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("input-%x", b)
}

// answerInput takes a client's response to an input request: from the principal the
// request went to, once per request key; anything else is ignored (a response answers
// nothing to its sender).
func (s *Server) answerInput(ctx context.Context, principal string, msg message) {
	var id string
	if json.Unmarshal(msg.ID, &id) != nil {
		return
	}
	// The answer is kept as the client sent it, open to the server: its result object,
	// or its error as {"error": ...}; the tool that asked reads it (elicited).
	var answer any
	if msg.Error != nil {
		var e any
		_ = json.Unmarshal(msg.Error, &e)
		answer = map[string]any{"error": e}
	} else {
		var r map[string]any
		if json.Unmarshal(msg.Result, &r) != nil {
			return
		}
		answer = r
	}
	s.inputMu.Lock()
	p, ok := s.inputs[id]
	if ok && p.principal == principal {
		delete(s.inputs, id)
	}
	s.inputMu.Unlock()
	if !ok || p.principal != principal {
		return
	}
	// Answers are merged into one map of the task: one writer at a time.
	s.inputMu.Lock()
	defer s.inputMu.Unlock()
	t, err := s.legacy.Get(ctx, p.task, reference.System())
	if round, _ := intOf(t[keyInputRound]); err != nil || t.Status() != reference.StatusInputRequired || round != p.round {
		return // the task no longer asks this question
	}
	got := map[string]any{}
	if old, ok := t[keyInputResponses].(map[string]any); ok {
		for k, v := range old {
			got[k] = v
		}
	}
	if _, answered := got[p.key]; answered {
		return
	}
	got[p.key] = answer
	_, _ = s.legacy.Store().Update(ctx, p.task, legacy.Task{keyInputResponses: got})
}
