package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/reference"
)

// Input asked on a 2026-07-28 tools/call itself, before any task exists (multi
// round-trip requests, basic/patterns/mrtr.mdx): the call is answered with an
// InputRequiredResult (resultType "input_required", inputRequests, requestState), and the
// client's retry of the same call carries the answers in inputResponses with the
// requestState echoed. The tool runs again from its start on each retry, every round it
// asks answered from what the retry carries; the state keeps the rounds already answered,
// signed, so that the server keeps nothing between the two requests.

// stateTTL is how long a requestState is taken ("a short expiry (TTL), rejecting state
// presented after it lapses").
const stateTTL = 10 * time.Minute

var (
	// errInputRequired ends a tool's run on a call whose retry does not yet answer what it
	// asks: the call is answered with an InputRequiredResult.
	errInputRequired = errors.New("input required: the call is answered with an InputRequiredResult")
	// errState is a requestState the server did not issue for this caller and this call,
	// or one past its expiry.
	errState = errors.New("requestState fails verification")
)

// requestState is what an InputRequiredResult's requestState carries: who it was issued
// to, for which call, until when, and the answers already given.
type requestState struct {
	Caller  string `json:"p"`
	Call    string `json:"c"` // digest of the tool's name and arguments
	Expires int64  `json:"x"` // Unix milliseconds
	// Rounds and Pending are the client's answers by request key, open to the server.
	Rounds  []map[string]any `json:"r,omitempty"`
	Pending map[string]any   `json:"q,omitempty"` // the answers to the round still asked
}

// callDigest names a call: its tool and arguments ("an identifier for the originating
// request, e.g. the method name and a digest of its salient parameters").
func callDigest(name string, args map[string]any) string {
	b, _ := json.Marshal([]any{"tools/call", name, args}) // map keys are sorted: one encoding per call
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// stateDomain sets requestState tokens apart from cursors.
const stateDomain = "requestState\x00"

func (s *Server) writeState(st requestState) string { return s.seal(stateDomain, st) }

func (s *Server) readState(v string, caller reference.Caller, call string) (requestState, error) {
	var st requestState
	ok := s.unseal(stateDomain, v, &st)
	switch {
	case !ok:
		return requestState{}, errState
	case st.Caller != caller.String():
		return requestState{}, errors.Join(errState, errors.New("issued to another caller"))
	case st.Call != call:
		return requestState{}, errors.Join(errState, errors.New("issued for another call"))
	case reference.NowMillis(s.cfg.Clock) > st.Expires:
		return requestState{}, errors.Join(errState, errors.New("expired"))
	}
	return st, nil
}

// callWork is a tool's view of a call that asks its input by multi round-trip requests:
// each round it asks is answered from the retry, or ends the run.
type callWork struct {
	rounds []map[string]any // the answers the call carries, by round
	next   int              // the round the tool asks next
	// asked and kept are set when a round is not yet answered: the requests to send and
	// the state that goes with them.
	asked map[string]inputRequest
	kept  requestState
}

func (w *callWork) cancelled(context.Context) bool { return false }

func (w *callWork) input(_ context.Context, requests map[string]inputRequest) (map[string]any, error) {
	i := w.next
	w.next++
	got := map[string]any{}
	if i < len(w.rounds) {
		for k := range requests { // keys not asked are ignored ("SHOULD ignore any information it does not recognize")
			if v, ok := w.rounds[i][k]; ok {
				got[k] = v
			}
		}
	}
	missing := map[string]inputRequest{}
	for k, v := range requests {
		if _, ok := got[k]; !ok {
			missing[k] = v
		}
	}
	if len(missing) == 0 {
		return got, nil
	}
	// "If the client fails to send all the information requested ..., the server SHOULD
	// respond with a new InputRequiredResult requesting the missing information again":
	// the answers given are kept, the rest asked again.
	w.asked = missing
	w.kept = requestState{Rounds: w.rounds[:min(i, len(w.rounds))], Pending: got}
	return nil, errInputRequired
}

// callInput reads the input a tools/call carries: the rounds its requestState kept, and
// its inputResponses as the answers to the round after them.
func (s *Server) callInput(r *Request, p callParams) (*callWork, *Error) {
	w := &callWork{}
	var cur map[string]any
	if p.RequestState.sent {
		if !p.RequestState.ok {
			return nil, errorf(jsonrpc.CodeInvalidParams, "params.requestState must be a string")
		}
		// "servers MUST treat requestState as an attacker-controlled input ... and MUST
		// reject state that fails verification"
		st, err := s.readState(p.RequestState.v, r.caller, callDigest(p.Name, p.Arguments))
		if err != nil {
			return nil, errorf(jsonrpc.CodeInvalidParams, "%v", err)
		}
		w.rounds, cur = st.Rounds, st.Pending
	}
	if p.InputResponses.sent {
		// "Servers SHOULD validate that the data provided by the client is a valid
		// InputResponses object": a map of results, each an object.
		if !p.InputResponses.ok {
			return nil, errorf(jsonrpc.CodeInvalidParams, "params.inputResponses must be an object of input responses")
		}
		merged := map[string]any{}
		for k, v := range cur {
			merged[k] = v
		}
		for k, v := range p.InputResponses.v {
			if _, isObject := v.(map[string]any); !isObject {
				return nil, errorf(jsonrpc.CodeInvalidParams, "params.inputResponses[%q] must be an object (the client's result for that request)", k)
			}
			merged[k] = v
		}
		cur = merged
	}
	if len(cur) > 0 {
		w.rounds = append(w.rounds, cur)
	}
	return w, nil
}

// inputRequired is the InputRequiredResult of a call whose tool asked what the call did
// not carry. Requests of a kind the client did not declare are not sent: "If processing a
// request requires a capability the client did not include in
// io.modelcontextprotocol/clientCapabilities, the server MUST return a
// MissingRequiredClientCapabilityError (-32021)".
func (s *Server) inputRequired(r *Request, name string, args map[string]any, w *callWork) (any, *Error) {
	if need, missed := r.undeclared(w.asked); missed {
		return nil, &Error{Code: jsonrpc.CodeMissingCapability, Message: "Missing required client capability",
			Data: missingCapabilityData{RequiredCapabilities: need}}
	}
	st := w.kept
	st.Caller, st.Call = r.caller.String(), callDigest(name, args)
	st.Expires = reference.NowMillis(s.cfg.Clock) + stateTTL.Milliseconds()
	return inputRequiredResult{ResultType: resultInputRequired, InputRequests: w.asked, RequestState: s.writeState(st)}, nil
}

// undeclared returns the client capabilities the requests need that the request's
// clientCapabilities do not declare, each as declared without settings; missed is false
// when none is missing.
func (r *Request) undeclared(requests map[string]inputRequest) (need clientCapabilities, missed bool) {
	caps := r.meta().ClientCapabilities
	for _, req := range requests {
		var declared bool
		var missing *map[string]any
		switch req.Method {
		case "elicitation/create":
			mode := req.Params.Mode
			if mode == "" {
				mode = "form"
			}
			declared, missing = caps.elicits(mode), &need.Elicitation
		case "sampling/createMessage":
			declared, missing = caps.Sampling != nil, &need.Sampling
		case "roots/list":
			declared, missing = caps.Roots != nil, &need.Roots
		default:
			continue
		}
		if !declared {
			*missing, missed = map[string]any{}, true
		}
	}
	return need, missed
}
