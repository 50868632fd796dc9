package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
)

// TestLegacyInputFlow: the 2025-11-25 input flow over Streamable HTTP. alice's
// confirm_delete task goes to input_required; her tasks/result stream carries the
// elicitation/create request with the related-task _meta; bob's response to that request
// (he learnt its id) is ignored; alice's is taken, the task completes with her answer and
// the stream ends with the result. A task cancelled while it waits for input stays
// cancelled; a plain call of the tool is -32601 (it is listed as required); a client that
// did not declare elicitation cannot start it (-32600).
func TestLegacyInputFlow(t *testing.T) {
	hs := newServer(t, server.Config{})
	alice := &client{t: t, url: hs.URL, token: "token-a"}
	alice.ok("initialize", map[string]any{"protocolVersion": server.VersionLegacy, "capabilities": map[string]any{"elicitation": map[string]any{}},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	bob := legacyClient(t, hs.URL, "token-b")
	alice.wantError(jsonrpc.CodeMethodNotFound, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}})
	bob.wantError(jsonrpc.CodeInvalidRequest, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "task": map[string]any{}})

	created := alice.ok("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}, "task": map[string]any{}})
	id := created["task"].(map[string]any)["taskId"].(string)
	waitStatus(alice, id, "input_required")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tasks/result", "params": map[string]any{"taskId": id}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer token-a")
	req.Header.Set("Mcp-Session-Id", alice.session)
	lines := make(chan string, 16)
	sseLines(t, req, lines)
	var ask struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta map[string]map[string]string `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(waitLine(t, lines, "elicitation/create")), &ask); err != nil {
		t.Fatal(err)
	}
	if got := ask.Params.Meta["io.modelcontextprotocol/related-task"]["taskId"]; got != id {
		t.Errorf("elicitation/create of task %s: related-task %q", id, got)
	}

	respond := func(c *client, action string) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": map[string]any{"action": action, "content": map[string]any{"confirm": true}}})
		if a := c.post(b, nil); a.status != http.StatusAccepted {
			t.Errorf("a response POSTed: HTTP %d, want 202", a.status)
		}
	}
	respond(bob, "accept")
	time.Sleep(200 * time.Millisecond)
	if got := alice.ok("tasks/get", map[string]any{"taskId": id})["status"]; got != "input_required" {
		t.Fatalf("after bob's response to alice's input request: status %v, want input_required (bob's answer must be ignored)", got)
	}
	respond(alice, "decline")
	if l := waitLine(t, lines, `"id":99`); !strings.Contains(l, `Kept`) || !strings.Contains(l, id) {
		t.Errorf("tasks/result after alice declined: %s (want her answer's result, Kept, with the related-task _meta)", l)
	}
	waitStatus(alice, id, "completed")

	other := alice.ok("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "y"}, "task": map[string]any{}})
	oid := other["task"].(map[string]any)["taskId"].(string)
	waitStatus(alice, oid, "input_required")
	if got := alice.ok("tasks/cancel", map[string]any{"taskId": oid})["status"]; got != "cancelled" {
		t.Fatalf("tasks/cancel of an input_required task: status %v", got)
	}
	time.Sleep(100 * time.Millisecond)
	waitStatus(alice, oid, "cancelled")
}

// TestModernTerminalMessage: a 2026-07-28 task shows its working message while it works,
// and no stale one once it is terminal.
func TestModernTerminalMessage(t *testing.T) {
	hs := newServer(t, server.Config{})
	alice := modernClient(t, hs.URL, "token-a")
	created := alice.ok("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0.2}})
	id, _ := created["taskId"].(string)
	if created["statusMessage"] == nil {
		t.Errorf("a working task without its message: %v", created)
	}
	if done := waitStatus(alice, id, "completed"); done["statusMessage"] != nil {
		t.Errorf("a completed task still says %q", done["statusMessage"])
	}
}
