package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
)

// Client capabilities of the 2026-07-28 requests below.
var (
	elicitOnly    = map[string]any{"elicitation": map[string]any{}}
	elicitAndTask = map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{server.TasksExtension: map[string]any{}}}
	nothing       = map[string]any{}
)

func modernWith(t *testing.T, url, token string, caps map[string]any) *client {
	return &client{t: t, url: url, token: token, modern: true, caps: caps}
}

// wantInputRequired checks an InputRequiredResult ("resultType": "input_required", an
// inputRequests map asking exactly keys, a requestState, no task) and returns its
// requestState.
func wantInputRequired(t *testing.T, what string, got map[string]any, keys ...string) string {
	t.Helper()
	reqs, _ := got["inputRequests"].(map[string]any)
	state, _ := got["requestState"].(string)
	var asked []string
	for k, v := range reqs {
		if m, _ := v.(map[string]any)["method"].(string); m != "elicitation/create" {
			t.Errorf("%s: inputRequests[%q] is %v, want an elicitation/create request", what, k, v)
		}
		asked = append(asked, k)
	}
	if got["resultType"] != "input_required" || len(asked) != len(keys) || state == "" || got["taskId"] != nil {
		t.Fatalf(`%s: want an InputRequiredResult (multi round-trip requests: resultType "input_required", inputRequests %v, a requestState, no taskId), got %v`, what, keys, got)
	}
	for _, k := range keys {
		if reqs[k] == nil {
			t.Fatalf("%s: inputRequests %v, want the keys %v", what, asked, keys)
		}
	}
	return state
}

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

// TestMRTRWithoutTask: a client without the tasks extension calls an input tool: the call
// is answered with an InputRequiredResult, and the retry carrying inputResponses and the
// requestState completes it with the answer given ("Client retries tool call with
// inputResponses and requestState ... Server reconstitutes state, completes execution").
// A retry that answers part of a round is asked the rest again, the part kept; answers
// to keys never asked are ignored.
func TestMRTRWithoutTask(t *testing.T) {
	hs := newServer(t, server.Config{})
	alice := modernWith(t, hs.URL, "token-a", elicitOnly)
	call := map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}}

	state := wantInputRequired(t, "confirm_delete without the extension", alice.ok("tools/call", call), "confirm")
	retry := map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "requestState": state,
		"inputResponses": map[string]any{"confirm": accept(map[string]any{"confirm": true}), "never-asked": accept(map[string]any{})}}
	done := alice.ok("tools/call", retry)
	if done["resultType"] != "complete" || !strings.Contains(fmt.Sprint(done["content"]), `Deleted "x"`) || done["taskId"] != nil {
		t.Errorf(`confirm_delete retried with its confirmation: want resultType "complete" and Deleted "x", got %v`, done)
	}
	// The same state answered otherwise: the answer decides, not the state.
	retry["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "decline"}}
	if kept := alice.ok("tools/call", retry); !strings.Contains(fmt.Sprint(kept["content"]), `Kept "x"`) {
		t.Errorf(`confirm_delete retried with a decline: want Kept "x", got %v`, kept)
	}

	// Two questions; one answered: the other asked again, the first kept in the state.
	multi := map[string]any{"name": "multi_input", "arguments": map[string]any{}}
	state = wantInputRequired(t, "multi_input", alice.ok("tools/call", multi), "first", "second")
	partial := alice.ok("tools/call", map[string]any{"name": "multi_input", "arguments": map[string]any{}, "requestState": state,
		"inputResponses": map[string]any{"first": accept(map[string]any{"answer": "one"})}})
	state = wantInputRequired(t, "multi_input with its first question answered", partial, "second")
	both := alice.ok("tools/call", map[string]any{"name": "multi_input", "arguments": map[string]any{}, "requestState": state,
		"inputResponses": map[string]any{"second": accept(map[string]any{"answer": "two"})}})
	if s := fmt.Sprint(both["content"]); both["resultType"] != "complete" || !strings.Contains(s, "one") || !strings.Contains(s, "two") {
		t.Errorf("multi_input with its second answer and the state of the first: want both answers in a complete result, got %v", both)
	}
}

// TestMRTRRefusals: what the server does not take. "Servers MUST NOT send an
// inputRequests that the client has not declared support for" and "If processing a
// request requires a capability the client did not include ... -32021" with the
// capability named; "servers MUST treat requestState as an attacker-controlled input ...
// MUST reject state that fails verification" (altered, another principal's, another
// call's); inputResponses that are not input responses are -32602; a tool that runs only
// as a task is still -32021 without the extension.
func TestMRTRRefusals(t *testing.T) {
	hs := newServer(t, server.Config{})
	alice := modernWith(t, hs.URL, "token-a", elicitOnly)
	bob := modernWith(t, hs.URL, "token-b", elicitOnly)
	mute := modernWith(t, hs.URL, "token-a", nothing)

	a := mute.call("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}})
	if a.Error == nil || a.Error.Code != jsonrpc.CodeMissingCapability || a.Error.Data["requiredCapabilities"].(map[string]any)["elicitation"] == nil {
		t.Errorf("confirm_delete from a client declaring neither elicitation nor the extension: want -32021 naming elicitation in data.requiredCapabilities, got result %v error %+v", a.Result, a.Error)
	}
	a = alice.call("tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}})
	if a.Error == nil || a.Error.Code != jsonrpc.CodeMissingCapability || a.Error.Data["requiredCapabilities"].(map[string]any)["extensions"] == nil {
		t.Errorf("test_tool_with_task (taskSupport required) without the extension: want -32021 naming the extension, got result %v error %+v", a.Result, a.Error)
	}

	state := wantInputRequired(t, "confirm_delete", alice.ok("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}}), "confirm")
	yes := map[string]any{"confirm": accept(map[string]any{"confirm": true})}
	for _, c := range []struct {
		what string
		who  *client
		call map[string]any
	}{
		{"an altered requestState", alice, map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "requestState": state + "x", "inputResponses": yes}},
		{"a requestState of another principal", bob, map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "requestState": state, "inputResponses": yes}},
		{"a requestState of another call (other arguments)", alice, map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "y"}, "requestState": state, "inputResponses": yes}},
		{"a requestState that is not a string", alice, map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "requestState": 7, "inputResponses": yes}},
		{"inputResponses that are not an object", alice, map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "inputResponses": nil}},
		{"an input response that is not an object", alice, map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "inputResponses": map[string]any{"confirm": 12345}}},
	} {
		if a := c.who.call("tools/call", c.call); a.Error == nil || a.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("confirm_delete retried with %s: want -32602, got result %v error %+v", c.what, a.Result, a.Error)
		}
	}
}

// TestMRTRStateExpires: a requestState is taken until its expiry only ("a short expiry
// (TTL), rejecting state presented after it lapses").
func TestMRTRStateExpires(t *testing.T) {
	clock := reference.NewManualClock(time.Now())
	hs := newServer(t, server.Config{Clock: clock})
	alice := modernWith(t, hs.URL, "token-a", elicitOnly)
	call := func() map[string]any {
		return map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}}
	}
	state := wantInputRequired(t, "confirm_delete", alice.ok("tools/call", call()), "confirm")
	retry := call()
	retry["requestState"], retry["inputResponses"] = state, map[string]any{"confirm": accept(map[string]any{"confirm": true})}
	clock.Advance(time.Minute)
	if a := alice.call("tools/call", retry); a.Result["resultType"] != "complete" {
		t.Errorf("confirm_delete retried a minute after its InputRequiredResult: want it complete, got result %v error %+v", a.Result, a.Error)
	}
	clock.Advance(time.Hour)
	if a := alice.call("tools/call", retry); a.Error == nil || a.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("confirm_delete retried an hour after its InputRequiredResult: want -32602 (the state expired), got result %v error %+v", a.Result, a.Error)
	}
}

// TestMRTRBeforeTask: a client declaring the extension calls test_tool_with_task: round
// one is an InputRequiredResult without a task; the retry with the answer is a
// CreateTaskResult without requestState or inputRequests ("SHOULD resolve all MRTR
// exchanges synchronously before responding with a CreateTaskResult"), and the task's
// result carries the answer. An input tool called with the extension still runs as a
// task, its input asked through the task.
func TestMRTRBeforeTask(t *testing.T) {
	hs := newServer(t, server.Config{})
	alice := modernWith(t, hs.URL, "token-a", elicitAndTask)
	first := alice.ok("tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}})
	state := wantInputRequired(t, "test_tool_with_task, round one", first, "user_name")
	created := alice.ok("tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}, "requestState": state,
		"inputResponses": map[string]any{"user_name": accept(map[string]any{"name": "Alice"})}})
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" || created["requestState"] != nil || created["inputRequests"] != nil {
		t.Fatalf(`test_tool_with_task retried with the name: want a CreateTaskResult (resultType "task", a taskId, no requestState nor inputRequests), got %v`, created)
	}
	if done := waitStatus(alice, id, "completed"); !strings.Contains(fmt.Sprint(done["result"]), "Hello, Alice!") {
		t.Errorf("test_tool_with_task's task: want its result to greet Alice (the name given before the task), got %v", done)
	}

	task := alice.ok("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}})
	if task["resultType"] != "task" || task["taskId"] == nil {
		t.Fatalf("confirm_delete from a client declaring the extension: want a CreateTaskResult (its input asked through the task), got %v", task)
	}
	waitStatus(alice, task["taskId"].(string), "input_required")
}

// TestLegacyInputBeforeWork: in 2025-11-25 (no multi round-trip requests) the input
// test_tool_with_task gathers before its work is asked inside its task, as any input,
// and the task's result carries the answer.
func TestLegacyInputBeforeWork(t *testing.T) {
	inW, outR, _ := serveStdio(t, server.Config{}, "alice")
	defer inW.Close()
	msgs := messages(outR)
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(what string, keep func(map[string]any) bool) map[string]any {
		t.Helper()
		return receive(t, msgs, 5*time.Second, what, keep)
	}
	answerTo := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": server.VersionLegacy, "capabilities": elicitOnly, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	wait("the answer to initialize", answerTo(1))
	send(map[string]any{"id": 2, "method": "tools/call", "params": map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}, "task": map[string]any{}}})
	created := wait("the CreateTaskResult of test_tool_with_task", answerTo(2))
	task, _ := created["result"].(map[string]any)["task"].(map[string]any)
	if task == nil {
		t.Fatalf("test_tool_with_task as a 2025-11-25 task: want a CreateTaskResult, got %v", created)
	}
	send(map[string]any{"id": 3, "method": "tasks/result", "params": map[string]any{"taskId": task["taskId"]}})
	ask := wait("the elicitation/create asking the name", func(m map[string]any) bool { return m["method"] == "elicitation/create" && m["id"] != nil })
	send(map[string]any{"id": ask["id"], "result": accept(map[string]any{"name": "Alice"})})
	if res := wait("the answer to tasks/result", answerTo(3)); !strings.Contains(fmt.Sprint(res["result"]), "Hello, Alice!") {
		t.Errorf("tasks/result of test_tool_with_task answered Alice: want its result to greet Alice, got %v", res)
	}
}
