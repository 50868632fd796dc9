package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/mcp/server"
)

// client is one principal's connection to one instance, in one era: raw JSON-RPC over
// Streamable HTTP, as a client written from the specification would send it.
type client struct {
	t       testing.TB
	url     string
	token   string
	session string // 2025-11-25 only
	modern  bool
	next    int
}

// reply is a JSON-RPC answer.
type reply struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// request builds a POST of method with params, with the era's headers and _meta.
func (c *client) request(ctx context.Context, method string, params map[string]any) *http.Request {
	c.next++
	if params == nil {
		params = map[string]any{}
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.modern {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": server.VersionModern,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{},
				"extensions": map[string]any{server.TasksExtension: map[string]any{}}}}
		req.Header.Set("MCP-Protocol-Version", server.VersionModern)
		req.Header.Set("Mcp-Method", method)
		if id, ok := params["taskId"].(string); ok {
			req.Header.Set("Mcp-Name", id)
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	return req
}

// call sends method and returns its answer (an SSE answer's last message).
func (c *client) call(method string, params map[string]any) reply {
	c.t.Helper()
	res, err := http.DefaultClient.Do(c.request(context.Background(), method, params))
	if err != nil {
		c.t.Fatalf("%s on %s: %v", method, c.url, err)
	}
	defer res.Body.Close()
	if s := res.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	raw, _ := io.ReadAll(res.Body)
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		var last string
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				last = d
			}
		}
		raw = []byte(last)
	}
	var r reply
	if err := json.Unmarshal(raw, &r); err != nil {
		c.t.Fatalf("%s on %s: HTTP %d, not JSON-RPC: %q", method, c.url, res.StatusCode, raw)
	}
	return r
}

// ok is call that fails the test on an error answer.
func (c *client) ok(method string, params map[string]any) map[string]any {
	c.t.Helper()
	r := c.call(method, params)
	if r.Error != nil || r.Result == nil {
		c.t.Fatalf("%s %v on %s: error %+v", method, params, c.url, r.Error)
	}
	return r.Result
}

// create starts tool as a task and returns its id.
func (c *client) create(tool string, args map[string]any) string {
	c.t.Helper()
	params := map[string]any{"name": tool, "arguments": args}
	if !c.modern {
		params["task"] = map[string]any{}
		return c.ok("tools/call", params)["task"].(map[string]any)["taskId"].(string)
	}
	return c.ok("tools/call", params)["taskId"].(string)
}

// get is tasks/get's task.
func (c *client) get(id string) map[string]any {
	c.t.Helper()
	return c.ok("tasks/get", map[string]any{"taskId": id})
}

// waitStatus polls tasks/get until the task has status want, failing after within.
func (c *client) waitStatus(id, want string, within time.Duration) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := c.get(id)
		if got["status"] == want {
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s on %s: status %v after %v, want %s (%v)", id, c.url, got["status"], within, want, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stream sends req and returns the data lines of its SSE answer until the body ends.
func stream(t testing.TB, req *http.Request) <-chan string {
	t.Helper()
	ch := make(chan string, 64)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s stream: %v (HTTP %v)", req.Method, req.URL, err, res)
	}
	go func() {
		defer res.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
	}()
	return ch
}

// waitLine returns the first line holding every one of want, failing after within.
func waitLine(t testing.TB, ch <-chan string, within time.Duration, want ...string) string {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("waiting for a line with %q: the stream ended", want)
			}
			all := true
			for _, w := range want {
				all = all && strings.Contains(l, w)
			}
			if all {
				return l
			}
		case <-timeout:
			t.Fatalf("waiting for a line with %q: nothing within %v", want, within)
		}
	}
}
