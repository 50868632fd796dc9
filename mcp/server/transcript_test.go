package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/server/servertest"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

var updateTranscript = flag.Bool("update", false, "rewrite testdata/transcript.golden from the server's answers")

// TestWireTranscript drives both eras through every method the server serves, good and
// bad params, over Streamable HTTP, and compares what came back with
// testdata/transcript.golden: HTTP status, content type, and each JSON message with its
// keys sorted (objects are unordered), task ids, cursors and requestStates named by
// placeholders, the clock fixed. A change of a field's presence, null or absence, a
// number's form, an error's code or message shows as a diff.
func TestWireTranscript(t *testing.T) {
	tr := newTranscript(t, server.Config{PageSize: 3})
	legacyTranscript(tr)
	modernTranscript(tr)
	limited := newTranscript(t, server.Config{MaxTasksPerPrincipal: 1})
	limitTranscript(limited)
	got := tr.text() + limited.text()
	const golden = "testdata/transcript.golden"
	if *updateTranscript {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestWireTranscript -update writes it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := at(gl, i), at(wl, i)
			if g != w {
				t.Fatalf("the wire differs from %s from line %d:\n got: %s\nwant: %s", golden, i+1, g, w)
			}
		}
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end>"
}

// transcript is one server's exchanges, normalized.
type transcript struct {
	t       *testing.T
	url     string
	session string
	next    int
	mu      sync.Mutex
	b       strings.Builder
	ids     map[string]string // task id -> its placeholder, in order of appearance
	notes   [][]byte          // the GET stream's messages, kept apart: they come when they come
	modern  bool
	caps    map[string]any // the modern requests' clientCapabilities
	stop    context.CancelFunc
	streams sync.WaitGroup
	// clock moves a millisecond before each tools/call, so that tasks are listed in the
	// order they were made.
	clock *reference.ManualClock
}

func newTranscript(t *testing.T, cfg server.Config) *transcript {
	clock := reference.NewManualClock(time.UnixMilli(1767225600000))
	st := memstore.New(memstore.WithClock(clock))
	cfg.Legacy, cfg.Modern, cfg.Clock = st.Legacy(), st.Modern(), clock
	cfg.Principals = map[string]string{"token-a": "alice", "token-b": "bob"}
	return &transcript{t: t, url: servertest.Start(t, cfg).URL, ids: map[string]string{}, clock: clock}
}

func (tr *transcript) text() string {
	tr.mu.Lock()
	raw := slices.Clone(tr.notes)
	tr.mu.Unlock()
	var notes []string
	for _, n := range raw {
		notes = append(notes, tr.norm(n))
	}
	slices.Sort(notes)
	return tr.b.String() + "== the session's GET stream, sorted\n" + strings.Join(notes, "\n") + "\n"
}

// norm names task ids (learned from every taskId), cursors, requestStates and input
// request ids by placeholders, and encodes v with its keys sorted.
func (tr *transcript) norm(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "not JSON: " + string(raw)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.learn(v)
	b, _ := json.Marshal(tr.replace("", v))
	return string(b)
}

func (tr *transcript) learn(v any) {
	switch v := v.(type) {
	case map[string]any:
		if id, ok := v["taskId"].(string); ok && tr.ids[id] == "" && len(id) == 22 {
			tr.ids[id] = fmt.Sprintf("<task %d>", len(tr.ids)+1)
		}
		for _, x := range v {
			tr.learn(x)
		}
	case []any:
		for _, x := range v {
			tr.learn(x)
		}
	}
}

func (tr *transcript) replace(key string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = tr.replace(k, x)
		}
		return out
	case []any:
		out := []any{}
		for _, x := range v {
			out = append(out, tr.replace(key, x))
		}
		return out
	case string:
		switch {
		case key == "nextCursor" || key == "requestState":
			return "<token>"
		case key == "id" && strings.HasPrefix(v, "input-"):
			return "<input id>"
		}
		for id, name := range tr.ids {
			v = strings.ReplaceAll(v, id, name)
		}
		return v
	}
	return v
}

func (tr *transcript) log(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	fmt.Fprintf(&tr.b, format+"\n", args...)
}

// request builds a POST of body as token, with the era's headers.
func (tr *transcript) request(ctx context.Context, token string, body []byte, hdr map[string]string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tr.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if tr.session != "" && !tr.modern {
		req.Header.Set("Mcp-Session-Id", tr.session)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return req
}

// body is a JSON-RPC request of method with params (nil: none), in the transcript's era.
func (tr *transcript) body(method string, params map[string]any) ([]byte, map[string]string) {
	tr.next++
	params = maps.Clone(params)
	msg := map[string]any{"jsonrpc": "2.0", "id": tr.next, "method": method}
	hdr := map[string]string{}
	if tr.modern {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": server.VersionModern,
			"io.modelcontextprotocol/clientCapabilities": tr.caps}
		hdr["MCP-Protocol-Version"], hdr["Mcp-Method"] = server.VersionModern, method
		if id, ok := params["taskId"].(string); ok {
			hdr["Mcp-Name"] = id
		}
	}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	return b, hdr
}

// call sends method and records its answer; it returns the answer's result.
func (tr *transcript) call(label, method string, params map[string]any) map[string]any {
	tr.t.Helper()
	if method == "tools/call" {
		tr.clock.Advance(time.Millisecond)
	}
	body, hdr := tr.body(method, params)
	return tr.send(label, "token-a", body, hdr)
}

// send posts body and records the answer: status, content type, each message.
func (tr *transcript) send(label, token string, body []byte, hdr map[string]string) map[string]any {
	tr.t.Helper()
	res, err := http.DefaultClient.Do(tr.request(context.Background(), token, body, hdr))
	if err != nil {
		tr.t.Fatalf("%s: %v", label, err)
	}
	defer res.Body.Close()
	if s := res.Header.Get("Mcp-Session-Id"); s != "" && !tr.modern {
		tr.session = s
	}
	raw, _ := io.ReadAll(res.Body)
	ct, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
	tr.log("-> %s\n<- %d %s session:%v", label, res.StatusCode, ct, res.Header.Get("Mcp-Session-Id") != "")
	msgs := [][]byte{raw}
	if ct == "text/event-stream" {
		msgs = eventsOf(bytes.NewReader(raw))
	}
	var last []byte
	for _, m := range msgs {
		if m = bytes.TrimSpace(m); len(m) > 0 {
			tr.log("   %s", tr.norm(m))
			last = m
		}
	}
	var a struct {
		Result map[string]any `json:"result"`
	}
	_ = json.Unmarshal(last, &a)
	return a.Result
}

// wait polls tasks/get until the task has status want, then records that answer.
func (tr *transcript) wait(label, id, want string) {
	tr.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		body, hdr := tr.body("tasks/get", map[string]any{"taskId": id})
		tr.next-- // polls are not recorded: the ids recorded do not count them
		res, err := http.DefaultClient.Do(tr.request(context.Background(), "token-a", body, hdr))
		if err != nil {
			tr.t.Fatal(err)
		}
		var a struct {
			Result map[string]any `json:"result"`
		}
		_ = json.NewDecoder(res.Body).Decode(&a)
		res.Body.Close()
		if a.Result["status"] == want {
			tr.call(label, "tasks/get", map[string]any{"taskId": id})
			return
		}
	}
	tr.t.Fatalf("%s: task %s never %s", label, id, want)
}

// stream posts body on an SSE stream and hands each message to each; it records them
// all, server requests sorted (they come in no order), the answer last.
func (tr *transcript) stream(label string, body []byte, hdr map[string]string, each func(msg map[string]any, raw []byte) bool) {
	tr.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := http.DefaultClient.Do(tr.request(ctx, "token-a", body, hdr))
	if err != nil {
		tr.t.Fatalf("%s: %v", label, err)
	}
	defer res.Body.Close()
	var got []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		got = append(got, tr.norm([]byte(d)))
		var m map[string]any
		_ = json.Unmarshal([]byte(d), &m)
		if !each(m, []byte(d)) {
			break
		}
	}
	slices.Sort(got[:max(len(got)-1, 0)])
	tr.log("-> %s\n<- %d %s", label, res.StatusCode, res.Header.Get("Content-Type"))
	for _, g := range got {
		tr.log("   %s", g)
	}
}

// listenGET keeps the session's GET stream's messages until stopGET.
func (tr *transcript) listenGET() {
	ctx, cancel := context.WithCancel(context.Background())
	tr.stop = cancel
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, tr.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer token-a")
	req.Header.Set("Mcp-Session-Id", tr.session)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tr.t.Fatal(err)
	}
	tr.streams.Add(1)
	go func() {
		defer tr.streams.Done()
		defer res.Body.Close()
		for _, raw := range eventsOf(res.Body) {
			tr.mu.Lock()
			tr.notes = append(tr.notes, raw)
			tr.mu.Unlock()
		}
	}()
}

func eventsOf(r io.Reader) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, []byte(d))
		}
	}
	return out
}

func (tr *transcript) stopGET() {
	time.Sleep(200 * time.Millisecond) // the last notifications are delivered
	tr.stop()
	tr.streams.Wait()
}

func taskID(res map[string]any) string {
	if t, ok := res["task"].(map[string]any); ok {
		res = t
	}
	id, _ := res["taskId"].(string)
	return id
}

func call(name string, args map[string]any, task any) map[string]any {
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	if task != nil {
		p["task"] = task
	}
	return p
}

// legacyInput runs tool as a 2025-11-25 task and answers its elicitations on the
// tasks/result stream by their message.
func (tr *transcript) legacyInput(tool string, args map[string]any, answers map[string]map[string]any) {
	tr.t.Helper()
	id := taskID(tr.call("tools/call "+tool+" as a task", "tools/call", call(tool, args, map[string]any{})))
	body, hdr := tr.body("tasks/result", map[string]any{"taskId": id})
	tr.stream("tasks/result of "+tool+", answering its elicitations", body, hdr, func(m map[string]any, _ []byte) bool {
		if m["method"] == nil {
			return false
		}
		params, _ := m["params"].(map[string]any)
		msg, _ := params["message"].(string)
		// Answers are not recorded: the requests come in no order.
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": answers[msg]})
		res, err := http.DefaultClient.Do(tr.request(context.Background(), "token-a", b, nil))
		if err != nil || res.StatusCode != http.StatusAccepted {
			tr.t.Fatalf("the answer to %q: %v %v", msg, err, res)
		}
		res.Body.Close()
		return true
	})
	tr.wait("tasks/get of "+tool+" done", id, "completed")
}

func legacyTranscript(tr *transcript) {
	tr.log("== 2025-11-25")
	tr.call("tools/call without a session", "tools/call", call("greet", map[string]any{"name": "Ada"}, nil))
	tr.call("initialize", "initialize", map[string]any{"protocolVersion": server.VersionLegacy,
		"capabilities": map[string]any{"elicitation": map[string]any{}}, "clientInfo": map[string]any{"name": "transcript", "version": "1"}})
	tr.send("notifications/initialized", "token-a", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	tr.listenGET()
	tr.call("ping", "ping", nil)
	tr.call("tools/list", "tools/list", map[string]any{})
	tr.call("tools/call greet", "tools/call", call("greet", map[string]any{"name": "Ada"}, nil))
	tr.call("tools/call greet, arguments not an object", "tools/call", map[string]any{"name": "greet", "arguments": 5})
	tr.call("tools/call greet as a task", "tools/call", call("greet", nil, map[string]any{}))
	tr.call("tools/call failing_job without a task", "tools/call", call("failing_job", nil, nil))
	tr.call("tools/call of an unknown tool", "tools/call", call("nope", nil, nil))
	tr.call("tools/call without a name", "tools/call", map[string]any{})
	tr.call("tools/call with a name not a string", "tools/call", map[string]any{"name": 7})
	for _, ttl := range []any{-1, 1.5, "x", map[string]any{"a": 1}, []any{1, 2}, true, 1e300} {
		tr.call(fmt.Sprintf("tools/call with task.ttl %v", ttl), "tools/call", call("long_job", nil, map[string]any{"ttl": ttl}))
	}
	for _, task := range []any{5, nil, "x"} {
		tr.call(fmt.Sprintf("tools/call slow_compute with task %v", task), "tools/call",
			map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}, "task": task})
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		task map[string]any
		want string
	}{
		{"slow_compute", map[string]any{"seconds": 0}, map[string]any{"ttl": 60000}, "completed"},
		{"failing_job", map[string]any{"seconds": 0}, map[string]any{}, "failed"},
		{"protocol_error_job", map[string]any{"seconds": 0}, map[string]any{"ttl": nil}, "failed"},
		{"slow_compute", map[string]any{"seconds": 0}, map[string]any{"ttl": 0}, "completed"},
	} {
		id := taskID(tr.call("tools/call "+tc.tool+" as a task", "tools/call", call(tc.tool, tc.args, tc.task)))
		tr.call("tasks/result of "+tc.tool, "tasks/result", map[string]any{"taskId": id})
		tr.wait("tasks/get of "+tc.tool, id, tc.want)
		tr.call("tasks/cancel of the ended "+tc.tool, "tasks/cancel", map[string]any{"taskId": id})
	}
	id := taskID(tr.call("tools/call long_job as a task", "tools/call", call("long_job", nil, map[string]any{})))
	tr.call("tasks/cancel", "tasks/cancel", map[string]any{"taskId": id})
	tr.call("tasks/cancel again", "tasks/cancel", map[string]any{"taskId": id})
	tr.call("tasks/result of the cancelled task", "tasks/result", map[string]any{"taskId": id})
	tr.call("tasks/get of the cancelled task", "tasks/get", map[string]any{"taskId": id})
	body, _ := tr.body("tasks/get", map[string]any{"taskId": id})
	tr.send("tasks/get by bob in alice's session", "token-b", body, nil)
	// Keys are case-sensitive.
	tr.call("tasks/get with TaskId", "tasks/get", map[string]any{"TaskId": id})
	tr.call("tools/call with Name", "tools/call", map[string]any{"Name": "greet", "arguments": map[string]any{"name": "Ada"}})
	tr.call("tools/call slow_compute with Task", "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}, "Task": map[string]any{}})
	ttl := tr.call("tools/call slow_compute with task.TTL", "tools/call", call("slow_compute", map[string]any{"seconds": 0}, map[string]any{"TTL": -1}))
	tr.call("tasks/result of it", "tasks/result", map[string]any{"taskId": taskID(ttl)})
	for _, p := range []map[string]any{{}, {"taskId": 5}, {"taskId": ""}, {"taskId": "nope"}} {
		for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
			tr.call(fmt.Sprintf("%s %v", m, p), m, p)
		}
	}
	tr.legacyInput("confirm_delete", map[string]any{"item": "x"}, map[string]map[string]any{
		`Delete "x"?`: {"action": "accept", "content": map[string]any{"confirm": true}}})
	tr.legacyInput("multi_input", nil, map[string]map[string]any{
		"First question?":  {"action": "accept", "content": map[string]any{"answer": "one"}},
		"Second question?": {"action": "decline"}})
	tr.legacyInput("test_tool_with_task", map[string]any{"seconds": 0}, map[string]map[string]any{
		"What is your name?": {"action": "accept", "content": map[string]any{"name": "Ada"}}})
	legacyList(tr)
	legacyBadMessages(tr)
	tr.stopGET()
	tr.session = ""
}

func legacyList(tr *transcript) {
	first := tr.call("tasks/list", "tasks/list", map[string]any{})
	c, _ := first["nextCursor"].(string)
	for c != "" {
		c, _ = tr.call("tasks/list, the next page", "tasks/list", map[string]any{"cursor": c})["nextCursor"].(string)
	}
	for _, cur := range []any{"bogus", 5, nil, ""} {
		tr.call(fmt.Sprintf("tasks/list with cursor %v", cur), "tasks/list", map[string]any{"cursor": cur})
	}
	tr.call("tasks/list without params", "tasks/list", nil)
}

func legacyBadMessages(tr *transcript) {
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":""}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":`,
	} {
		tr.send(raw, "token-a", []byte(raw), nil)
	}
	tr.send("an unknown token", "token-z", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)
	tr.call("initialize again in the session", "initialize", map[string]any{"capabilities": map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}})
}

func modernTranscript(tr *transcript) {
	tr.log("== 2026-07-28")
	tr.modern = true
	tasks := map[string]any{"extensions": map[string]any{server.TasksExtension: map[string]any{}}, "elicitation": map[string]any{}}
	tr.caps = tasks
	tr.call("server/discover", "server/discover", nil)
	tr.call("ping", "ping", nil)
	tr.call("tools/list", "tools/list", nil)
	tr.call("tools/call greet", "tools/call", call("greet", map[string]any{"name": "Ada"}, nil))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"slow_compute", map[string]any{"seconds": 0}, "completed"},
		{"failing_job", map[string]any{"seconds": 0}, "completed"},
		{"protocol_error_job", map[string]any{"seconds": 0}, "failed"},
	} {
		id := taskID(tr.call("tools/call "+tc.tool, "tools/call", call(tc.tool, tc.args, nil)))
		tr.wait("tasks/get of "+tc.tool, id, tc.want)
		tr.call("tasks/cancel of the ended "+tc.tool, "tasks/cancel", map[string]any{"taskId": id})
	}
	id := taskID(tr.call("tools/call long_job", "tools/call", call("long_job", nil, nil)))
	modernListen(tr, id)
	tr.wait("tasks/get of the cancelled long_job", id, "cancelled")
	tr.call("tasks/cancel again", "tasks/cancel", map[string]any{"taskId": id})
	tr.call("tasks/update of the cancelled task", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}})
	id = taskID(tr.call("tools/call confirm_delete", "tools/call", call("confirm_delete", map[string]any{"item": "x"}, nil)))
	tr.wait("tasks/get asking input", id, "input_required")
	for _, resp := range []any{nil, 5, "x"} {
		tr.call(fmt.Sprintf("tasks/update with inputResponses %v", resp), "tasks/update", map[string]any{"taskId": id, "inputResponses": resp})
	}
	tr.call("tasks/update without inputResponses", "tasks/update", map[string]any{"taskId": id})
	tr.call("tasks/update", "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	tr.wait("tasks/get once answered", id, "completed")
	for _, p := range []map[string]any{{}, {"taskId": 5}, {"taskId": "nope"}} {
		for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
			tr.call(fmt.Sprintf("%s %v", m, p), m, p)
		}
	}
	for _, m := range []string{"tasks/list", "tasks/result", "nope", "initialize"} {
		tr.call(m, m, nil)
	}
	body, hdr := tr.body("tasks/get", map[string]any{"taskId": id})
	hdr["Mcp-Name"] = "other"
	tr.send("tasks/get with another Mcp-Name", "token-a", body, hdr)
	hdr["Mcp-Method"] = "tools/list"
	tr.send("tasks/get with another Mcp-Method", "token-a", body, hdr)
	modernMRTR(tr)
	tr.caps = map[string]any{}
	tr.call("tools/call failing_job without the extension", "tools/call", call("failing_job", nil, nil))
	tr.call("tools/call slow_compute without the extension", "tools/call", call("slow_compute", map[string]any{"seconds": 0}, nil))
	tr.call("tasks/get without the extension", "tasks/get", map[string]any{"taskId": id})
	tr.call("subscriptions/listen without the extension", "subscriptions/listen", map[string]any{})
	tr.caps = map[string]any{"extensions": 5}
	tr.call("tasks/get, extensions not an object", "tasks/get", map[string]any{"taskId": id})
	tr.caps = map[string]any{"Extensions": map[string]any{server.TasksExtension: map[string]any{}}}
	tr.call("tasks/get, Extensions", "tasks/get", map[string]any{"taskId": id})
	tr.caps = tasks
	tr.modern = false
}

func modernListen(tr *transcript, id string) {
	body, hdr := tr.body("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []any{id, 5, "x"}}})
	acked := false
	tr.stream("subscriptions/listen, then tasks/cancel", body, hdr, func(m map[string]any, _ []byte) bool {
		if !acked {
			acked = true
			tr.call("tasks/cancel", "tasks/cancel", map[string]any{"taskId": id})
			return true
		}
		return false
	})
	hdr["Accept"] = "application/json"
	body, _ = tr.body("subscriptions/listen", map[string]any{})
	tr.send("subscriptions/listen without a stream", "token-a", body, hdr)
	body, hdr = tr.body("subscriptions/listen", map[string]any{"notifications": 5})
	tr.stream("subscriptions/listen, notifications not an object", body, hdr, func(map[string]any, []byte) bool { return false })
}

func modernMRTR(tr *transcript) {
	tr.call("tools/call multi_input as a task", "tools/call", call("multi_input", nil, nil))
	tr.caps = map[string]any{"elicitation": map[string]any{}}
	res := tr.call("tools/call multi_input without a task", "tools/call", call("multi_input", nil, nil))
	state := res["requestState"]
	first := map[string]any{"first": map[string]any{"action": "accept", "content": map[string]any{"answer": "one"}}}
	res = tr.call("the retry, one answer", "tools/call", map[string]any{"name": "multi_input", "inputResponses": first, "requestState": state})
	tr.call("the retry, the other answer", "tools/call", map[string]any{"name": "multi_input", "requestState": res["requestState"],
		"inputResponses": map[string]any{"second": map[string]any{"action": "accept", "content": map[string]any{"answer": 2}}, "extra": map[string]any{}}})
	for i, bad := range []map[string]any{
		{"requestState": 5}, {"requestState": nil}, {"requestState": "forged.sig"}, {"requestState": state, "arguments": map[string]any{"a": 1}},
		{"inputResponses": 5}, {"inputResponses": nil}, {"inputResponses": map[string]any{"first": 5}}, {"inputResponses": map[string]any{}},
	} {
		bad["name"] = "multi_input"
		tr.call(fmt.Sprintf("tools/call multi_input with bad input %d", i), "tools/call", bad)
	}
	tr.caps = map[string]any{"elicitation": map[string]any{"url": map[string]any{}}, "extensions": map[string]any{server.TasksExtension: map[string]any{}}}
	tr.call("tools/call test_tool_with_task, url elicitation only", "tools/call", call("test_tool_with_task", nil, nil))
	tr.caps = map[string]any{"elicitation": map[string]any{"form": nil}, "extensions": map[string]any{server.TasksExtension: nil}}
	res = tr.call("tools/call test_tool_with_task", "tools/call", call("test_tool_with_task", map[string]any{"seconds": 0}, nil))
	res = tr.call("the retry", "tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{"seconds": 0}, "requestState": res["requestState"],
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	tr.wait("tasks/get of test_tool_with_task", taskID(res), "completed")
}

func limitTranscript(tr *transcript) {
	tr.log("== MaxTasksPerPrincipal 1")
	tr.call("initialize", "initialize", map[string]any{"capabilities": map[string]any{}})
	id := taskID(tr.call("tools/call long_job as a task", "tools/call", call("long_job", nil, map[string]any{})))
	tr.call("tools/call long_job as a task, past the limit", "tools/call", call("long_job", nil, map[string]any{}))
	tr.modern = true
	tr.caps = map[string]any{"extensions": map[string]any{server.TasksExtension: map[string]any{}}}
	tr.call("tools/call long_job, past the limit", "tools/call", call("long_job", nil, nil))
	tr.modern = false
	tr.call("tasks/cancel", "tasks/cancel", map[string]any{"taskId": id})
	tr.modern = true
	id = taskID(tr.call("tools/call long_job", "tools/call", call("long_job", nil, nil)))
	tr.call("tasks/cancel", "tasks/cancel", map[string]any{"taskId": id})
	tr.modern = false
}
