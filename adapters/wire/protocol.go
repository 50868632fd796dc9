package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonscan"
)

// ProtocolVersion is the newest version of docs/wire.md this package speaks: storecheck
// offers it in hello and the child answers with the version it speaks.
const ProtocolVersion = 3

// MinProtocolVersion is the oldest version still spoken: a version 1 child has store
// operations only.
const MinProtocolVersion = 1

// Errors of the transport. None of them wraps a reference sentinel, so a broken child can
// never pass a check that expects one.
var (
	// ErrProtocol is wrapped by every protocol violation.
	ErrProtocol = errors.New("wire protocol violation")
	// ErrChildExited is wrapped when the child process exits or closes its stdout.
	ErrChildExited = errors.New("store process exited")
	// ErrTimeout is wrapped when the child does not answer a request in time.
	ErrTimeout = errors.New("store process stopped answering")
	// ErrClosed is wrapped by calls on a closed client.
	ErrClosed = errors.New("wire client closed")
)

// Ops of docs/wire.md.
const (
	opHello          = "hello"
	opReset          = "reset"
	opClock          = "clock"
	opDelay          = "delay"
	opLegacyCreate   = "legacy.create"
	opLegacyGet      = "legacy.get"
	opLegacyUpdate   = "legacy.update"
	opLegacyDelete   = "legacy.delete"
	opLegacyList     = "legacy.list"
	opLegacyCancel   = "legacy.cancel"
	opLegacyCleanup  = "legacy.cleanup"
	opLegacyUpdateIf = "legacy.update_if"
	opModernCreate   = "modern.create"
	opModernGet      = "modern.get"
	opModernSwap     = "modern.swap"
	opModernDelete   = "modern.delete"
	opModernSweep    = "modern.sweep"

	// Version 2: the facade layer (docs/wire.md, "Facade operations").
	opFacadeConfigure      = "facade.configure"
	opLegacyTasksCreate    = "legacy.tasks.create"
	opLegacyTasksGet       = "legacy.tasks.get"
	opLegacyTasksUpdate    = "legacy.tasks.update"
	opLegacyTasksCancel    = "legacy.tasks.cancel"
	opLegacyTasksList      = "legacy.tasks.list"
	opLegacyTasksCleanup   = "legacy.tasks.cleanup"
	opModernTasksCreate    = "modern.tasks.create"
	opModernTasksStartFail = "modern.tasks.start_failed"
	opModernTasksGet       = "modern.tasks.get"
	opModernTasksStatus    = "modern.tasks.status"
	opModernTasksProgress  = "modern.tasks.progress"
	opModernTasksRequire   = "modern.tasks.require_input"
	opModernTasksComplete  = "modern.tasks.complete"
	opModernTasksFail      = "modern.tasks.fail"
	opModernTasksUpdate    = "modern.tasks.update"
	opModernTasksCancel    = "modern.tasks.cancel"

	// Version 3: the SDK task-store profile (docs/wire.md, "SDK profile operations").
	opSDKCreate       = "sdk.create"
	opSDKGet          = "sdk.get"
	opSDKStoreResult  = "sdk.store_result"
	opSDKGetResult    = "sdk.get_result"
	opSDKUpdateStatus = "sdk.update_status"
	opSDKList         = "sdk.list"
	opSDKDelete       = "sdk.delete"
	opSDKCleanup      = "sdk.cleanup"
	opSDKWait         = "sdk.wait"
	opSDKMutate       = "sdk.mutate"
)

// appendRequest appends the line of a request, newline included. It writes what
// json.Marshal of {"id": id, "op": op, "args": args} would, without a reflection pass and the second validation
// of args: args come from json.Marshal, so they are compact valid JSON already, and op
// is one of the constants above (plain ASCII, quoted as is).
func appendRequest(b []byte, id int64, op string, args json.RawMessage) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"op":`...)
	b = strconv.AppendQuote(b, op)
	b = append(b, `,"args":`...)
	b = append(b, args...)
	return append(b, '}', '\n')
}

// Answer is one decoded line of a child's stdout: exactly one of OK and Err is set.
type Answer struct {
	ID int64
	// OK is the raw JSON of "ok" (the bytes "null" for a null value); nil on failure.
	OK json.RawMessage
	// Err is the "error" object; nil on success.
	Err *RemoteError
}

// RemoteError is an error answered by the child. It wraps the reference sentinel of its
// code, and its message is the child's message verbatim, so that a store's error text
// (S-OWN-2 compares them) reaches the battery unchanged.
type RemoteError struct {
	Code    string
	Message string
	err     error // the sentinel; nil for an unknown code
}

func (e *RemoteError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if e.err != nil {
		return e.err.Error()
	}
	return "error code " + strconv.Quote(e.Code)
}

func (e *RemoteError) Unwrap() error { return e.err }

// maxQuote bounds how much of an offending line an error quotes.
const maxQuote = 400

// quoteLine renders a line for an error message: Go-quoted, cut at maxQuote bytes.
func quoteLine(line []byte) string {
	if len(line) <= maxQuote {
		return strconv.Quote(string(line))
	}
	return strconv.Quote(string(line[:maxQuote])) + fmt.Sprintf("…(%d bytes)", len(line))
}

// loggerHint says what a stray stdout line most often is: a blank line or text that
// does not start a JSON value comes from a logger or a print (Elixir's Logger writes to
// stdout by default, and its lines start with a blank one).
func loggerHint(line []byte) string {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0:
		return " — the line is blank: is a logger writing to stdout? Only protocol lines may go there; log to stderr (docs/wire.md, common pitfalls)"
	case t[0] != '{' && t[0] != '[' && t[0] != '"':
		return " — it looks like a log line or a print: is a logger writing to stdout? Only protocol lines may go there; log to stderr (docs/wire.md, common pitfalls)"
	}
	return ""
}

// DecodeAnswer parses one line of a child's stdout (without its newline). It fails,
// wrapping ErrProtocol and quoting the line, when the line is not UTF-8, not a JSON
// object, has no integer id, or has not exactly one of ok and error, or when the error
// is not an object with a string code. An unknown error code is not a framing error:
// the Answer carries it and the call that receives it fails (see RemoteError).
//
// When the id could be read it is returned with the error, so that the caller can name
// the request the bad answer was meant for.
func DecodeAnswer(line []byte) (Answer, error) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if utf8.Valid(line) {
		if a, ok := decodeAnswerFast(line); ok {
			return a, nil
		}
	}
	return decodeAnswerSlow(line)
}

// decodeAnswerSlow is DecodeAnswer through encoding/json; it words every error.
func decodeAnswerSlow(line []byte) (Answer, error) {
	bad := func(id int64, format string, args ...any) (Answer, error) {
		return Answer{ID: id}, fmt.Errorf("%w: %s: %s", ErrProtocol, fmt.Sprintf(format, args...), quoteLine(line))
	}
	if !utf8.Valid(line) {
		return bad(0, "line is not valid UTF-8")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		if err == nil {
			err = errors.New("null is not an object")
		}
		return Answer{}, fmt.Errorf("%w: line is not a JSON object (%v): %s%s", ErrProtocol, err, quoteLine(line), loggerHint(line))
	}
	rawID, ok := fields["id"]
	if !ok {
		return bad(0, "answer has no id")
	}
	var num json.Number
	if len(rawID) == 0 || rawID[0] == '"' || json.Unmarshal(rawID, &num) != nil {
		return bad(0, "answer id %s is not an integer", rawID)
	}
	id, err := integer(num)
	if err != nil {
		return bad(0, "answer id %s is not an integer", rawID)
	}
	rawOK, hasOK := fields["ok"]
	rawErr, hasErr := fields["error"]
	switch {
	case hasOK && hasErr:
		return bad(id, "answer has both ok and error")
	case !hasOK && !hasErr:
		return bad(id, "answer has neither ok nor error")
	case hasOK:
		return Answer{ID: id, OK: rawOK}, nil
	}
	var eo map[string]json.RawMessage
	if err := json.Unmarshal(rawErr, &eo); err != nil || eo == nil {
		return bad(id, "error is not an object")
	}
	var code, msg string
	if err := json.Unmarshal(eo["code"], &code); err != nil || eo["code"] == nil || string(eo["code"]) == "null" {
		return bad(id, "error has no string code")
	}
	if m, ok := eo["message"]; ok && string(m) != "null" {
		if err := json.Unmarshal(m, &msg); err != nil {
			return bad(id, "error message is not a string")
		}
	}
	re := &RemoteError{Code: code, Message: msg}
	re.err, _ = reference.FromCode(code)
	return Answer{ID: id, Err: re}, nil
}

// pickKeys sets vals[i] to the value of the field keyed keys[i] (leaving the others nil)
// and reports whether fields has no other key: the fast decoders' reading of a line
// whose keys are unrepeated.
func pickKeys(fields []jsonscan.Field, keys []string, vals [][]byte) (onlyKeys bool) {
	onlyKeys = true
next:
	for _, f := range fields {
		for i, k := range keys {
			if string(f.Key) == k {
				vals[i] = f.Val
				continue next
			}
		}
		onlyKeys = false
	}
	return onlyKeys
}

// decodeAnswerFast is DecodeAnswer for a well-formed answer whose keys are plain and
// unrepeated: {"id":…,"ok":…} or {"id":…,"error":{"code":…,"message":…}}. Anything
// else (including every malformed line) is left to DecodeAnswer's slow path.
func decodeAnswerFast(line []byte) (Answer, bool) {
	var buf [4]jsonscan.Field
	fields, ok := jsonscan.ScanObject(line, buf[:0])
	if !ok {
		return Answer{}, false
	}
	var vals [3][]byte
	pickKeys(fields, []string{"id", "ok", "error"}, vals[:])
	rawID, rawOK, rawErr := vals[0], vals[1], vals[2]
	if rawID == nil || (rawOK == nil) == (rawErr == nil) || (rawID[0] != '-' && (rawID[0] < '0' || rawID[0] > '9')) {
		return Answer{}, false
	}
	id, err := integer(json.Number(rawID))
	if err != nil {
		return Answer{}, false
	}
	if rawOK != nil {
		return Answer{ID: id, OK: json.RawMessage(rawOK)}, true
	}
	var ebuf [4]jsonscan.Field
	efields, ok := jsonscan.ScanObject(rawErr, ebuf[:0])
	if !ok {
		return Answer{}, false
	}
	var code, msg string
	hasCode := false
	for _, f := range efields {
		switch string(f.Key) {
		case "code", "message":
			v, ok := jsonscan.Scalar(f.Val)
			s, isStr := v.(string)
			if !ok || !isStr && v != nil {
				return Answer{}, false
			}
			if string(f.Key) == "code" {
				code, hasCode = s, isStr
			} else {
				msg = s
			}
		}
	}
	if !hasCode {
		return Answer{}, false
	}
	re := &RemoteError{Code: code, Message: msg}
	re.err, _ = reference.FromCode(code)
	return Answer{ID: id, Err: re}, true
}

// codeList is the codes of docs/wire.md, for error messages.
var codeList = strings.Join([]string{"not_found", "exists", "conflict", "invalid", "too_large",
	"terminal", "limit_reached", "unsupported", "internal", "invalid_transition", "key_reused", "no_result"}, ", ")

// OpError is the error of one call: the op, the request id and what went wrong. A
// store's own error (a RemoteError wrapping a sentinel) is returned as is, not wrapped
// in an OpError, so that its message stays the store's.
type OpError struct {
	Op  string
	ID  int64
	Err error
}

func (e *OpError) Error() string {
	if e.ID == 0 {
		return fmt.Sprintf("wire: %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("wire: %s (request %d): %v", e.Op, e.ID, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }
