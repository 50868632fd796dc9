package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/server/servertest"
	"github.com/storecheck/storecheck/mcp/servermutants"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// The tests speak to the server as a client written from the specification alone would:
// raw JSON-RPC over HTTP, no SDK.

func newServer(t *testing.T, cfg server.Config) *httptest.Server {
	t.Helper()
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	cfg.Legacy, cfg.Modern = st.Legacy(), st.Modern()
	cfg.Principals = map[string]string{"token-a": "alice", "token-b": "bob"}
	return servertest.Start(t, cfg)
}

// client is one principal's connection: its token, and a session once initialized.
type client struct {
	t       *testing.T
	url     string
	token   string
	session string
	modern  bool
	// caps are the modern requests' clientCapabilities (nil: the tasks extension alone).
	caps map[string]any
	next int
}

type answer struct {
	status int
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func (c *client) post(body []byte, hdr map[string]string) answer {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", body, err)
	}
	defer res.Body.Close()
	if s := res.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	raw, _ := io.ReadAll(res.Body)
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		// The answer is the last data line of the stream.
		var last string
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				last = d
			}
		}
		raw = []byte(last)
	}
	a := answer{status: res.StatusCode}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &a); err != nil {
			c.t.Fatalf("answer to %s: %v: %s", body, err, raw)
		}
	}
	return a
}

// call sends method with params; the modern wire gets its _meta and routing headers.
func (c *client) call(method string, params map[string]any) answer {
	c.t.Helper()
	c.next++
	if params == nil {
		params = map[string]any{}
	}
	hdr := map[string]string{}
	if c.modern {
		caps := c.caps
		if caps == nil {
			caps = map[string]any{"extensions": map[string]any{server.TasksExtension: map[string]any{}}}
		}
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": server.VersionModern,
			"io.modelcontextprotocol/clientCapabilities": caps}
		hdr["MCP-Protocol-Version"], hdr["Mcp-Method"] = server.VersionModern, method
		if id, ok := params["taskId"].(string); ok {
			hdr["Mcp-Name"] = id
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return c.post(body, hdr)
}

func (c *client) ok(method string, params map[string]any) map[string]any {
	c.t.Helper()
	a := c.call(method, params)
	if a.Error != nil || a.Result == nil {
		c.t.Fatalf("%s %v: HTTP %d, error %+v", method, params, a.status, a.Error)
	}
	return a.Result
}

func (c *client) wantError(code int, method string, params map[string]any) {
	c.t.Helper()
	a := c.call(method, params)
	if a.Error == nil || a.Error.Code != code {
		c.t.Errorf("%s %v: want error %d, got HTTP %d result %v error %+v", method, params, code, a.status, a.Result, a.Error)
	}
}

func legacyClient(t *testing.T, url, token string) *client {
	c := &client{t: t, url: url, token: token}
	r := c.ok("initialize", map[string]any{"protocolVersion": server.VersionLegacy, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	if r["protocolVersion"] != server.VersionLegacy || c.session == "" {
		t.Fatalf("initialize: %v, session %q", r, c.session)
	}
	return c
}

// waitStatus polls tasks/get until the task has status want (or 5 s pass).
func waitStatus(c *client, id, want string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := c.ok("tasks/get", map[string]any{"taskId": id})
		if got["status"] == want || time.Now().After(deadline) {
			if got["status"] != want {
				c.t.Fatalf("task %s: status %v after 5 s, want %s", id, got["status"], want)
			}
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLegacyTaskLifecycleAndIsolation(t *testing.T) {
	hs := newServer(t, server.Config{})
	alice, bob := legacyClient(t, hs.URL, "token-a"), legacyClient(t, hs.URL, "token-b")

	created := alice.ok("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0.1}, "task": map[string]any{"ttl": 60000}})
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" || task["status"] != "working" || task["ttl"] != float64(60000) {
		t.Fatalf("CreateTaskResult: %v", created)
	}
	done := waitStatus(alice, id, "completed")
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(done[k])); err != nil {
			t.Errorf("%s %v is not ISO 8601: %v", k, done[k], err)
		}
	}
	res := alice.ok("tasks/result", map[string]any{"taskId": id})
	meta, _ := res["_meta"].(map[string]any)
	if rel, _ := meta["io.modelcontextprotocol/related-task"].(map[string]any); rel["taskId"] != id || res["isError"] != false {
		t.Errorf("tasks/result: %v", res)
	}
	listed := alice.ok("tasks/list", nil)
	if tasks, _ := listed["tasks"].([]any); len(tasks) != 1 {
		t.Errorf("alice's tasks/list: %v", listed)
	}

	// Another principal: answered exactly as for a task that does not exist.
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		bob.wantError(-32602, m, map[string]any{"taskId": id})
		bob.wantError(-32602, m, map[string]any{"taskId": "no-such-task"})
	}
	if tasks, _ := bob.ok("tasks/list", nil)["tasks"].([]any); len(tasks) != 0 {
		t.Errorf("bob lists alice's tasks: %v", tasks)
	}
	// Alice's session with bob's token is no session of bob's.
	stolen := &client{t: t, url: hs.URL, token: "token-b", session: alice.session}
	if a := stolen.call("tasks/get", map[string]any{"taskId": id}); a.status != http.StatusNotFound {
		t.Errorf("bob with alice's session id: HTTP %d %+v, want 404", a.status, a)
	}

	// Cancel: a working task ends cancelled; a terminal one is refused and stays.
	long := alice.ok("tools/call", map[string]any{"name": "long_job", "task": map[string]any{}})["task"].(map[string]any)["taskId"].(string)
	if got := alice.ok("tasks/cancel", map[string]any{"taskId": long}); got["status"] != "cancelled" {
		t.Errorf("tasks/cancel: %v", got)
	}
	alice.wantError(-32602, "tasks/cancel", map[string]any{"taskId": long})
	alice.wantError(-32602, "tasks/cancel", map[string]any{"taskId": id})
	if got := alice.ok("tasks/get", map[string]any{"taskId": id}); got["status"] != "completed" {
		t.Errorf("a completed task after tasks/cancel: %v", got)
	}

	// A tool error fails the task, and tasks/result returns the tool's result; a protocol
	// error is returned as that error.
	failing := alice.ok("tools/call", map[string]any{"name": "failing_job", "task": map[string]any{}})["task"].(map[string]any)["taskId"].(string)
	waitStatus(alice, failing, "failed")
	if r := alice.ok("tasks/result", map[string]any{"taskId": failing}); r["isError"] != true {
		t.Errorf("tasks/result of failing_job: %v", r)
	}
	perr := alice.ok("tools/call", map[string]any{"name": "protocol_error_job", "arguments": map[string]any{"seconds": 0}, "task": map[string]any{}})["task"].(map[string]any)["taskId"].(string)
	alice.wantError(-32603, "tasks/result", map[string]any{"taskId": perr})

	// Tool-level task support: greet refuses a task, failing_job requires one.
	alice.wantError(-32601, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "x"}, "task": map[string]any{}})
	alice.wantError(-32601, "tools/call", map[string]any{"name": "failing_job"})
	if r := alice.ok("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "x"}}); !strings.Contains(fmt.Sprint(r), "Hello, x!") {
		t.Errorf("greet: %v", r)
	}
}

func TestLegacyPagination(t *testing.T) {
	hs := newServer(t, server.Config{PageSize: 10})
	alice, bob := legacyClient(t, hs.URL, "token-a"), legacyClient(t, hs.URL, "token-b")
	want := map[string]bool{}
	for range 25 {
		want[alice.ok("tools/call", map[string]any{"name": "long_job", "task": map[string]any{}})["task"].(map[string]any)["taskId"].(string)] = true
	}
	seen := map[string]int{}
	cursor, pages := "", 0
	var firstCursor string
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		page := alice.ok("tasks/list", params)
		pages++
		for _, x := range page["tasks"].([]any) {
			seen[x.(map[string]any)["taskId"].(string)]++
		}
		// Tasks created while the client pages come after every cursor issued.
		alice.ok("tools/call", map[string]any{"name": "long_job", "task": map[string]any{}})
		next, _ := page["nextCursor"].(string)
		if next == "" {
			break
		}
		if firstCursor == "" {
			firstCursor = next
		}
		cursor = next
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("task %s listed %d times", id, seen[id])
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("task %s listed %d times", id, n)
		}
	}
	bob.wantError(-32602, "tasks/list", map[string]any{"cursor": firstCursor})
	alice.wantError(-32602, "tasks/list", map[string]any{"cursor": "forged"})
	alice.wantError(-32602, "tasks/list", map[string]any{"cursor": firstCursor[:len(firstCursor)-2] + "xx"})
}

func modernClient(t *testing.T, url, token string) *client {
	return &client{t: t, url: url, token: token, modern: true}
}

func TestModernTaskLifecycleAndIsolation(t *testing.T) {
	hs := newServer(t, server.Config{DefaultTTL: time.Hour})
	alice, bob := modernClient(t, hs.URL, "token-a"), modernClient(t, hs.URL, "token-b")
	disc := alice.ok("server/discover", nil)
	if ext, _ := disc["capabilities"].(map[string]any)["extensions"].(map[string]any); ext[server.TasksExtension] == nil || disc["resultType"] != "complete" {
		t.Errorf("server/discover: %v", disc)
	}
	created := alice.ok("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}})
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" || created["ttlMs"] != float64(3600000) {
		t.Fatalf("CreateTaskResult: %v", created)
	}
	asking := waitStatus(alice, id, "input_required")
	if _, ok := asking["inputRequests"].(map[string]any)["confirm"]; !ok {
		t.Fatalf("input_required without the confirm request: %v", asking)
	}
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		bob.wantError(-32602, m, map[string]any{"taskId": id})
	}
	bob.wantError(-32602, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"confirm": map[string]any{"action": "decline"}}})
	alice.ok("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	done := waitStatus(alice, id, "completed")
	if !strings.Contains(fmt.Sprint(done["result"]), `Deleted "x"`) {
		t.Errorf("completed task: %v", done)
	}
	// Cancel is an acknowledgement, and a terminal task stays terminal.
	if r := alice.ok("tasks/cancel", map[string]any{"taskId": id}); r["resultType"] != "complete" {
		t.Errorf("tasks/cancel: %v", r)
	}
	waitStatus(alice, id, "completed")

	// isError completes the task; a protocol error fails it with the error.
	fj := alice.ok("tools/call", map[string]any{"name": "failing_job"})["taskId"].(string)
	if r := waitStatus(alice, fj, "completed"); r["result"].(map[string]any)["isError"] != true {
		t.Errorf("failing_job: %v", r)
	}
	pj := alice.ok("tools/call", map[string]any{"name": "protocol_error_job", "arguments": map[string]any{"seconds": 0}})["taskId"].(string)
	if r := waitStatus(alice, pj, "failed"); r["error"].(map[string]any)["code"] != float64(-32603) {
		t.Errorf("protocol_error_job: %v", r)
	}
	long := alice.ok("tools/call", map[string]any{"name": "long_job"})["taskId"].(string)
	alice.ok("tasks/cancel", map[string]any{"taskId": long})
	waitStatus(alice, long, "cancelled")

	// Without the extension: -32021 for tasks/*, a plain result for a task-capable tool.
	plain := &client{t: t, url: hs.URL, token: "token-a"}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": map[string]any{"taskId": id, "_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": server.VersionModern}}})
	if a := plain.post(body, map[string]string{"Mcp-Name": id}); a.Error == nil || a.Error.Code != -32021 {
		t.Errorf("tasks/get without the extension: %+v", a)
	}
	body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}, "_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": server.VersionModern}}})
	if a := plain.post(body, nil); a.Result["resultType"] != "complete" {
		t.Errorf("tools/call without the extension: %+v", a)
	}
	// Removed methods, and a routing header that disagrees.
	alice.wantError(-32601, "tasks/list", nil)
	alice.wantError(-32601, "tasks/result", map[string]any{"taskId": id})
	body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": map[string]any{"taskId": id, "_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": server.VersionModern,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{server.TasksExtension: map[string]any{}}}}}})
	if a := alice.post(body, map[string]string{"Mcp-Name": "another"}); a.Error == nil || a.Error.Code != -32020 {
		t.Errorf("tasks/get with Mcp-Name of another task: %+v", a)
	}
}

func TestBadInputKeepsServing(t *testing.T) {
	hs := newServer(t, server.Config{MaxBody: 4096})
	alice := legacyClient(t, hs.URL, "token-a")
	for _, c := range []struct {
		body   string
		status int
		code   int
	}{
		{`{not json`, 400, -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, -32600},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, 200, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`, 200, -32601},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":7}}`, 200, -32602},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":"x"}`, 200, -32602},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"unknown"}}`, 200, -32602},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{"cursor":"forged"}}`, 200, -32602},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_compute","task":{"ttl":-1}}}`, 200, -32602},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, 413, -32600},
	} {
		a := alice.post([]byte(c.body), nil)
		if a.status != c.status || a.Error == nil || a.Error.Code != c.code {
			t.Errorf("%.60s: HTTP %d error %+v, want HTTP %d code %d", c.body, a.status, a.Error, c.status, c.code)
		}
	}
	stranger := &client{t: t, url: hs.URL, token: "no-such-token"}
	if a := stranger.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil); a.status != http.StatusUnauthorized {
		t.Errorf("an unknown token: HTTP %d", a.status)
	}
	alice.ok("ping", nil) // still serving
}

func TestStdio(t *testing.T) {
	inW, outR, _ := serveStdio(t, server.Config{}, "")
	// Answers are read as they come: a notification the server writes while the test
	// writes its next line must not leave both waiting on the pipes.
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// next returns the next line that is not a notification.
	next := func(what string) string {
		t.Helper()
		return receive(t, lines, 10*time.Second, "an answer to "+what, func(l string) bool {
			var m map[string]any
			return json.Unmarshal([]byte(l), &m) != nil || m["method"] == nil || m["id"] != nil
		})
	}
	send := func(id int, method string, params map[string]any) map[string]any {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		for {
			var m map[string]any
			if json.Unmarshal([]byte(next(method)), &m) == nil && m["id"] == float64(id) {
				return m
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": server.VersionLegacy, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	r := send(2, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}, "task": map[string]any{}})
	id := r["result"].(map[string]any)["task"].(map[string]any)["taskId"].(string)
	got := send(3, "tasks/result", map[string]any{"taskId": id})
	if !strings.Contains(fmt.Sprint(got["result"]), "Computed") {
		t.Errorf("tasks/result over stdio: %v", got)
	}
	// A line that is not JSON is answered -32700 with id null, and the next line served.
	if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","id":9,"method":` + "\n")); err != nil {
		t.Fatal(err)
	}
	if l := next("a malformed line"); !strings.Contains(l, `"code":-32700`) || !strings.Contains(l, `"id":null`) {
		t.Errorf("a malformed line: %q, want a -32700 answer with id null", l)
	}
	if r := send(4, "tools/list", nil); r["result"] == nil {
		t.Errorf("after a malformed line: %v", r)
	}
	inW.Close()
}

// sseLines reads an SSE response's data lines into ch until the body ends.
func sseLines(t *testing.T, req *http.Request, ch chan<- string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", req.Method, req.URL, err)
		close(ch)
		return
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("%s stream: HTTP %d %s", req.Method, res.StatusCode, res.Header.Get("Content-Type"))
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
}

// waitLine waits for a line containing all of want, failing after 5 s.
func waitLine(t *testing.T, ch <-chan string, want ...string) string {
	t.Helper()
	return receive(t, ch, 5*time.Second, fmt.Sprintf("a line with %q", want), func(l string) bool {
		for _, w := range want {
			if !strings.Contains(l, w) {
				return false
			}
		}
		return true
	})
}

// receive returns the first value from ch for which keep holds, failing the test when ch
// closes or within passes first; what names the value awaited.
func receive[T any](t *testing.T, ch <-chan T, within time.Duration, what string, keep func(T) bool) T {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				t.Fatalf("waiting for %s: the stream ended", what)
			}
			if keep(v) {
				return v
			}
		case <-timeout:
			t.Fatalf("waiting for %s: nothing within %v", what, within)
		}
	}
}

// TestNotificationsReachOnlyTheOwner: notifications/tasks/status (2025-11-25, the session's
// GET stream) and notifications/tasks (2026-07-28, subscriptions/listen) about alice's task
// reach alice's streams, and bob's streams hear nothing of it.
func TestNotificationsReachOnlyTheOwner(t *testing.T) {
	hs := newServer(t, server.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alice, bob := legacyClient(t, hs.URL, "token-a"), legacyClient(t, hs.URL, "token-b")
	// streams opens the stream open makes for a and the one it makes for b.
	streams := func(open func(*client) *http.Request, a, b *client) (chan string, chan string) {
		al, bl := make(chan string, 16), make(chan string, 16)
		sseLines(t, open(a), al)
		sseLines(t, open(b), bl)
		return al, bl
	}
	get := func(c *client) *http.Request {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Mcp-Session-Id", c.session)
		return req
	}
	aliceLegacy, bobLegacy := streams(get, alice, bob)
	time.Sleep(50 * time.Millisecond) // the streams are registered
	id := alice.ok("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}, "task": map[string]any{}})["task"].(map[string]any)["taskId"].(string)
	waitLine(t, aliceLegacy, "notifications/tasks/status", id, "completed")

	// The extension: alice and bob listen to the same task id.
	am, bm := modernClient(t, hs.URL, "token-a"), modernClient(t, hs.URL, "token-b")
	mid := am.ok("tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"item": "x"}})["taskId"].(string)
	listen := func(c *client) *http.Request {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": map[string]any{
			"notifications": map[string]any{"taskIds": []string{mid}},
			"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": server.VersionModern,
				"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{server.TasksExtension: map[string]any{}}}}}})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("MCP-Protocol-Version", server.VersionModern)
		return req
	}
	aliceModern, bobModern := streams(listen, am, bm)
	waitLine(t, aliceModern, "notifications/subscriptions/acknowledged")
	waitLine(t, bobModern, "notifications/subscriptions/acknowledged")
	waitStatus(am, mid, "input_required")
	am.ok("tasks/update", map[string]any{"taskId": mid, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept"}}})
	waitLine(t, aliceModern, `"method":"notifications/tasks"`, mid, "completed")
	bm.wantError(-32602, "tasks/get", map[string]any{"taskId": mid})

	time.Sleep(100 * time.Millisecond) // anything meant for bob would have arrived
	cancel()
	for l := range bobLegacy {
		t.Errorf("bob's GET stream heard: %s", l)
	}
	for l := range bobModern {
		if strings.Contains(l, id) || strings.Contains(l, "notifications/tasks\"") {
			t.Errorf("bob's listen stream heard: %s", l)
		}
	}
}

// TestTaskLimitPerPrincipal: with MaxTasksPerPrincipal 2, a principal's third running
// task is refused with -32603 naming the bound, another principal's is made, and a
// cancel gives the place back, in both eras; the limit-shared defect refuses the other
// principal too.
func TestTaskLimitPerPrincipal(t *testing.T) {
	for _, mutant := range []string{"", "limit-shared"} {
		for _, modernEra := range []bool{false, true} {
			cfg := server.Config{MaxTasksPerPrincipal: 2}
			if mutant != "" {
				m, _ := servermutants.ByName(mutant)
				cfg = m.Build.Configure(cfg, func() {})
			}
			hs := newServer(t, cfg)
			alice, bob := legacyClient(t, hs.URL, "token-a"), legacyClient(t, hs.URL, "token-b")
			task := map[string]any{"name": "long_job", "arguments": map[string]any{"seconds": 30}, "task": map[string]any{}}
			id := func(r map[string]any) string {
				if modernEra {
					return r["taskId"].(string)
				}
				return r["task"].(map[string]any)["taskId"].(string)
			}
			if modernEra {
				alice, bob = modernClient(t, hs.URL, "token-a"), modernClient(t, hs.URL, "token-b")
				delete(task, "task")
			}
			first := id(alice.ok("tools/call", task))
			alice.ok("tools/call", task)
			a := alice.call("tools/call", task)
			if a.Error == nil || a.Error.Code != -32603 || !strings.Contains(a.Error.Message, "at most 2 tasks") {
				t.Errorf("mutant %q modern %v: alice's third task: want -32603 naming the bound, got %+v %v", mutant, modernEra, a.Error, a.Result)
			}
			b := bob.call("tools/call", task)
			if shared := mutant != ""; (b.Error != nil) != shared {
				t.Errorf("mutant %q modern %v: bob's task while alice is at her limit: error %+v result %v", mutant, modernEra, b.Error, b.Result)
			}
			alice.ok("tasks/cancel", map[string]any{"taskId": first})
			if mutant == "" {
				alice.ok("tools/call", task) // the cancelled task's place is free again
			}
		}
	}
}
