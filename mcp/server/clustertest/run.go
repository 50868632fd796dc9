package clustertest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Open returns a new instance's clients of the deployment's one store and backend.
type Open func(t testing.TB) Instance

// deployment is three instances serving one store.
type deployment struct {
	t     *testing.T
	nodes []*Node
}

// client of principal token on instance i, in the modern era or in a new 2025-11-25
// session (declaring form elicitation).
func (d *deployment) client(i int, modernEra bool) *client {
	c := &client{t: d.t, url: d.nodes[i].URL, token: "token-a", modern: modernEra}
	if !modernEra {
		c.ok("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"elicitation": map[string]any{}},
			"clientInfo": map[string]any{"name": "clustertest", "version": "1"}})
	}
	return c
}

func eraName(modernEra bool) string {
	if modernEra {
		return "2026-07-28"
	}
	return "2025-11-25"
}

// Run checks three instances opened by open as one server: read after create, cancel,
// input and notifications across instances in both eras, and a killed instance's
// tasks ended failed once its lease runs out.
func Run(t *testing.T, open Open) {
	d := &deployment{t: t}
	for range 3 {
		d.nodes = append(d.nodes, Start(t, open(t)))
	}
	for _, modernEra := range []bool{false, true} {
		t.Run(eraName(modernEra), func(t *testing.T) {
			d := &deployment{t: t, nodes: d.nodes}
			t.Run("read after create", func(t *testing.T) { d.t = t; d.readAfterCreate(modernEra) })
			t.Run("cancel", func(t *testing.T) { d.t = t; d.cancel(modernEra) })
			t.Run("input", func(t *testing.T) { d.t = t; d.input(modernEra) })
			t.Run("notifications", func(t *testing.T) { d.t = t; d.notifications(modernEra) })
		})
	}
	t.Run("killed instance", func(t *testing.T) { d.t = t; d.killed(Start(t, open(t))) })
}

// readAfterCreate: a task made on instance 0 is read on 1 and 2 as soon as its creation
// is answered; 2025-11-25 lists it page by page across instances (a cursor of one taken
// by another) and waits on 1 for its result while 0 runs it; 2026-07-28 retries a
// call's multi round-trip input on another instance (its requestState taken there).
func (d *deployment) readAfterCreate(modernEra bool) {
	a, b, c := d.client(0, modernEra), d.client(1, modernEra), d.client(2, modernEra)
	id := a.create("slow_compute", map[string]any{"seconds": 0.3})
	for _, o := range []*client{b, c} {
		if got := o.get(id); got["taskId"] != id {
			d.t.Errorf("tasks/get on another instance right after CreateTaskResult of %s: %v", id, got)
		}
	}
	if modernEra {
		d.requestStateAcross(a, b, c)
		c.waitStatus(id, "completed", 5*time.Second)
		return
	}
	res := b.ok("tasks/result", map[string]any{"taskId": id})
	if content, _ := json.Marshal(res["content"]); !strings.Contains(string(content), "Computed in 0.3 seconds") {
		d.t.Errorf("tasks/result on instance 1 of a task run on instance 0: %v, want its result (Computed in 0.3 seconds)", res)
	}
	a.create("slow_compute", map[string]any{"seconds": 0})
	a.create("slow_compute", map[string]any{"seconds": 0})
	seen := map[string]bool{}
	page := b.ok("tasks/list", nil)
	for on := c; ; on = map[*client]*client{b: c, c: b}[on] {
		for _, t := range page["tasks"].([]any) {
			seen[t.(map[string]any)["taskId"].(string)] = true
		}
		cursor, _ := page["nextCursor"].(string)
		if cursor == "" {
			break
		}
		page = on.ok("tasks/list", map[string]any{"cursor": cursor})
	}
	if !seen[id] || len(seen) < 3 {
		d.t.Errorf("tasks/list paged across instances 1 and 2 (PageSize 2): saw %d tasks %v, want at least the 3 made on instance 0, %s among them", len(seen), seen, id)
	}
}

// requestStateAcross: test_tool_with_task asks its input on instance 0; the retry with
// the answer and the requestState goes to instance 1, which takes the state and makes
// the task; instance 2 reads its end.
func (d *deployment) requestStateAcross(a, b, c *client) {
	asked := a.ok("tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}})
	state, _ := asked["requestState"].(string)
	if asked["resultType"] != "input_required" || state == "" {
		d.t.Fatalf("test_tool_with_task on instance 0: %v, want an InputRequiredResult with requestState", asked)
	}
	made := b.ok("tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}, "requestState": state,
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	id, _ := made["taskId"].(string)
	if made["resultType"] != "task" || id == "" {
		d.t.Fatalf("the retry on instance 1 with instance 0's requestState: %v, want a CreateTaskResult", made)
	}
	done := c.waitStatus(id, "completed", 5*time.Second)
	if b, _ := json.Marshal(done["result"]); !strings.Contains(string(b), "Hello, Ada!") {
		d.t.Errorf("test_tool_with_task answered across instances: %v, want Hello, Ada!", done["result"])
	}
}

// cancel: a task run on instance 0 is cancelled on instance 1; instance 2 reads it
// cancelled and instance 0's work stops (drops its lease) within cancelBound.
func (d *deployment) cancel(modernEra bool) {
	a, b, c := d.client(0, modernEra), d.client(1, modernEra), d.client(2, modernEra)
	id := a.create("long_job", map[string]any{"seconds": 30})
	drain(d.nodes[0].drops)
	at := time.Now()
	b.ok("tasks/cancel", map[string]any{"taskId": id})
	if got := c.get(id)["status"]; got != "cancelled" {
		d.t.Errorf("tasks/get on instance 2 after tasks/cancel on instance 1: status %v, want cancelled", got)
	}
	timeout := time.After(cancelBound)
	for {
		select {
		case key := <-d.nodes[0].drops:
			if strings.HasSuffix(key, id) {
				d.t.Logf("%s: the work on instance 0 stopped %v after the cancel on instance 1", eraName(modernEra), time.Since(at).Round(time.Millisecond))
				return
			}
		case <-timeout:
			d.t.Fatalf("task %s cancelled on instance 1: its work on instance 0 still runs after %v", id, cancelBound)
		}
	}
}

func drain(ch <-chan string) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// input: confirm_delete runs on instance 0; 2026-07-28 answers it with tasks/update on
// instance 1; 2025-11-25 receives the elicitation on a tasks/result stream of a session
// on instance 1 and answers it there (a session's requests go to the instance holding
// it). Instance 2 reads the task completed with the answer.
func (d *deployment) input(modernEra bool) {
	a, b, c := d.client(0, modernEra), d.client(1, modernEra), d.client(2, modernEra)
	id := a.create("confirm_delete", map[string]any{"item": "x"})
	c.waitStatus(id, "input_required", 5*time.Second)
	if modernEra {
		b.ok("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
			"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		lines := stream(d.t, b.request(ctx, "tasks/result", map[string]any{"taskId": id}))
		var ask struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(waitLine(d.t, lines, 5*time.Second, "elicitation/create", id)), &ask)
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}})
		resp, err := http.DefaultClient.Do(respond(b, body))
		if err != nil || resp.StatusCode != http.StatusAccepted {
			d.t.Fatalf("the elicitation's answer POSTed to instance 1: %v (HTTP %v)", err, resp)
		}
		resp.Body.Close()
		waitLine(d.t, lines, 5*time.Second, "Deleted")
	}
	done := c.waitStatus(id, "completed", 5*time.Second)
	if modernEra {
		if b, _ := json.Marshal(done["result"]); !strings.Contains(string(b), "Deleted") {
			d.t.Errorf("confirm_delete answered on instance 1: %v, want Deleted", done["result"])
		}
	}
}

// respond is the POST of a response body on c's session.
func respond(c *client, body []byte) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Mcp-Session-Id", c.session)
	return req
}

// notifications: a listener on instance 1 hears of a task run on instance 0 and
// answered or ended from instance 2: 2026-07-28 subscriptions/listen, 2025-11-25 the GET
// stream of a session (of the task's owner) on instance 1.
func (d *deployment) notifications(modernEra bool) {
	a, b, c := d.client(0, modernEra), d.client(1, modernEra), d.client(2, modernEra)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if !modernEra {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+b.token)
		req.Header.Set("Mcp-Session-Id", b.session)
		lines := stream(d.t, req)
		time.Sleep(50 * time.Millisecond) // the stream is registered
		id := a.create("long_job", map[string]any{"seconds": 30})
		at := time.Now()
		c.ok("tasks/cancel", map[string]any{"taskId": id})
		waitLine(d.t, lines, 5*time.Second, "notifications/tasks/status", id, "cancelled")
		d.t.Logf("2025-11-25: the cancel on instance 2 heard on instance 1 after %v", time.Since(at).Round(time.Millisecond))
		return
	}
	id := a.create("confirm_delete", map[string]any{"item": "y"})
	lines := stream(d.t, b.request(ctx, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id}}}))
	waitLine(d.t, lines, 5*time.Second, "notifications/subscriptions/acknowledged")
	c.waitStatus(id, "input_required", 5*time.Second)
	at := time.Now()
	c.ok("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"confirm": map[string]any{"action": "decline"}}})
	waitLine(d.t, lines, 5*time.Second, `"method":"notifications/tasks"`, id, "completed")
	d.t.Logf("2026-07-28: the answer on instance 2, the work's end on instance 0, heard on instance 1 after %v", time.Since(at).Round(time.Millisecond))
}

// killed: an instance running a task of each era is killed; within deadBound another
// instance ends both failed, saying why.
func (d *deployment) killed(doomed *Node) {
	d.nodes = append(d.nodes, doomed)
	ids := map[bool]string{}
	for _, modernEra := range []bool{false, true} {
		ids[modernEra] = d.client(3, modernEra).create("long_job", map[string]any{"seconds": 60})
	}
	at := time.Now()
	doomed.Kill()
	for _, modernEra := range []bool{false, true} {
		got := d.client(0, modernEra).waitStatus(ids[modernEra], "failed", deadBound)
		why, _ := json.Marshal(got)
		if !strings.Contains(string(why), "lease") {
			d.t.Errorf("%s task of a killed instance ended: %s, want a message saying its instance's lease expired", eraName(modernEra), why)
		}
		d.t.Logf("%s: the killed instance's task failed %v after its death (lease %v)", eraName(modernEra), time.Since(at).Round(time.Millisecond), Lease)
	}
}
