package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// serveStdio serves cfg over a fresh memstore on a pair of pipes as principal: the test
// writes lines to in and reads answers from out; done has ServeStdio's return once it
// ends, and out is closed then. The server stops when the test ends.
func serveStdio(t *testing.T, cfg server.Config, principal string) (in *io.PipeWriter, out *io.PipeReader, done <-chan error) {
	t.Helper()
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	cfg.Legacy, cfg.Modern = st.Legacy(), st.Modern()
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(ctx, inR, outW, principal); outW.Close() }()
	return inW, outR, served
}

// messages reads the JSON objects a stdio server writes to out, as they come, until out
// closes.
func messages(out io.Reader) <-chan map[string]any {
	msgs := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				msgs <- m
			}
		}
		close(msgs)
	}()
	return msgs
}

// TestStdioBadInputKeepsServing: over stdio a line that is not JSON is -32700, a batch
// and a line over MaxBody -32600, each with a null id, and the next line is still served.
func TestStdioBadInputKeepsServing(t *testing.T) {
	inW, outR, done := serveStdio(t, server.Config{MaxBody: 4096}, "")
	lines := bufio.NewScanner(outR)
	next := func(line string) map[string]any {
		t.Helper()
		go func() { _, _ = inW.Write([]byte(line + "\n")) }()
		if !lines.Scan() {
			t.Fatalf("no answer to %.40s", line)
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer to %.40s: %v: %s", line, err, lines.Bytes())
		}
		return m
	}
	for _, c := range []struct {
		line string
		code int
	}{
		{`{not json`, jsonrpc.CodeParse},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, jsonrpc.CodeInvalidRequest},
	} {
		m := next(c.line)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(c.code) || m["id"] != nil {
			t.Errorf("%.40s: got %v, want error %d with a null id", c.line, m, c.code)
		}
	}
	if m := next(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); m["id"] != float64(7) || m["result"] == nil {
		t.Errorf("initialize after the bad lines: %v", m)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestStdioLegacyMultiInput: over stdio, a 2025-11-25 task asking two questions at once
// sends both on the tasks/result stream; the task waits until both are answered, then
// its result carries both answers.
func TestStdioLegacyMultiInput(t *testing.T) {
	inW, outR, _ := serveStdio(t, server.Config{}, "alice")
	msgs := messages(outR)
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	// wait returns the next message for which keep holds (notifications are skipped).
	wait := func(keep func(map[string]any) bool) map[string]any {
		t.Helper()
		return receive(t, msgs, 5*time.Second, "the message awaited", keep)
	}
	answerTo := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": server.VersionLegacy, "capabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	wait(answerTo(1))
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "multi_input", "arguments": map[string]any{}, "task": map[string]any{}}})
	id := wait(answerTo(2))["result"].(map[string]any)["task"].(map[string]any)["taskId"].(string)
	send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tasks/result", "params": map[string]any{"taskId": id}})
	isRequest := func(m map[string]any) bool { return m["method"] == "elicitation/create" && m["id"] != nil }
	first, second := wait(isRequest), wait(isRequest)
	send(map[string]any{"jsonrpc": "2.0", "id": first["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"answer": "one"}}})
	time.Sleep(100 * time.Millisecond)
	send(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": map[string]any{"taskId": id}})
	if got := wait(answerTo(4))["result"].(map[string]any)["status"]; got != "input_required" {
		t.Errorf("one of two questions answered: status %v, want input_required", got)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": second["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"answer": "two"}}})
	res := wait(answerTo(3))
	if s := fmt.Sprint(res["result"]); !strings.Contains(s, "one") || !strings.Contains(s, "two") {
		t.Errorf("tasks/result after both answers: %v", res)
	}
	inW.Close()
}
