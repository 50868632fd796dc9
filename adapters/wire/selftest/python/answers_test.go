package python

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/adapters/wire/wiretest"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// The answers docs/wire.md gives to the questions a child's author meets, pinned on both
// children this repository ships: the Go serve (`storecheck serve --facade`: the reference
// facades over memstore) and the Python example (examples/python-store). Each test sends
// raw protocol lines to both and wants the same answer from each.

// child is one store process (or the Go server on pipes) driven line by line.
type child struct {
	t    *testing.T
	name string
	w    io.WriteCloser
	r    *bufio.Reader
	id   int
}

// answer is one answer line: ok as raw JSON, or an error's code and message.
type answer struct {
	ok            json.RawMessage
	code, message string
	line          string
}

func (a answer) String() string { return a.line }

// ask sends op with args (JSON text) and returns the answer.
func (c *child) ask(op, args string) answer {
	c.t.Helper()
	c.id++
	line := fmt.Sprintf(`{"id":%d,"op":%q,"args":%s}`, c.id, op, args)
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("%s: writing %s: %v", c.name, line, err)
	}
	return c.read(line)
}

func (c *child) read(request string) answer {
	c.t.Helper()
	got, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("%s: no answer to %s: %v", c.name, request, err)
	}
	var m struct {
		ID    int             `json:"id"`
		OK    json.RawMessage `json:"ok"`
		Error *struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		c.t.Fatalf("%s: answer to %s is not JSON: %q", c.name, request, got)
	}
	a := answer{ok: m.OK, line: strings.TrimSpace(got)}
	if m.Error != nil {
		a.code, a.message = m.Error.Code, m.Error.Message
	}
	return a
}

// must sends op and fails the test unless it succeeds.
func (c *child) must(op, args string) json.RawMessage {
	c.t.Helper()
	a := c.ask(op, args)
	if a.code != "" {
		c.t.Fatalf("%s: %s %s = %s, want success", c.name, op, args, a)
	}
	return a.ok
}

// want checks that op answers error code (or success for "").
func (c *child) want(code, op, args, why string) answer {
	c.t.Helper()
	a := c.ask(op, args)
	if a.code != code {
		w := code
		if w == "" {
			w = "success"
		}
		c.t.Errorf("%s: %s %s = %s; want %s: %s", c.name, op, args, a, w, why)
	}
	return a
}

// ids returns the task_id of each row of a list answer, sorted.
func (c *child) ids(raw json.RawMessage) []string {
	c.t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(raw, &rows); err != nil {
		c.t.Fatalf("%s: a list answer %s: %v", c.name, raw, err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r["task_id"]))
	}
	slices.Sort(out)
	return out
}

// modernCreate creates a modern task through the facade with owner (JSON text) and
// returns its id.
func (c *child) modernCreate(owner string) string {
	c.t.Helper()
	raw := c.must("modern.tasks.create", `{"options":{"owner":`+owner+`,"ttl_ms":null,"poll_interval_ms":null,"status_message":""}}`)
	var task struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal(raw, &task); err != nil {
		c.t.Fatalf("%s: modern.tasks.create answered %s: %v", c.name, raw, err)
	}
	return task.TaskID
}

func (c *child) listIDs(op, args string) []string {
	c.t.Helper()
	return c.ids(c.must(op, args))
}

// children are the two children each answer is pinned on, by name.
type starter func(t *testing.T) *child

// goChild serves h with wire.Serve over pipes, as `storecheck serve` does.
func goChild(h harness.Harness) starter {
	return func(t *testing.T) *child {
		w, r := wiretest.Serve(t, h, wire.ServeOptions{})
		return &child{t: t, name: "go serve", w: w, r: r}
	}
}

// pyChild runs the Python example, or one of its variants (testdata/variants.py).
func pyChild(variant string) starter {
	return func(t *testing.T) *child {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 is not on PATH: the Python example cannot run here")
		}
		_, here, _, _ := runtime.Caller(0)
		argv := []string{filepath.Join(filepath.Dir(here), "..", "..", "..", "..", "examples", "python-store", "store.py")}
		if variant != "" {
			argv = []string{filepath.Join(filepath.Dir(here), "testdata", "variants.py"), variant}
		}
		cmd := exec.Command(py, argv...)
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		r, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			w.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("python %s: %v\n%s", variant, err, stderr.String())
			}
		})
		return &child{t: t, name: "python " + variant, w: w, r: bufio.NewReader(r)}
	}
}

// both runs body against the Go serve of h and the Python example (variant "" for the
// example itself), each after hello (protocol 2) and reset.
func both(t *testing.T, h harness.Harness, variant string, body func(c *child)) {
	for _, s := range []struct {
		name  string
		start starter
	}{{"go", goChild(h)}, {"python", pyChild(variant)}} {
		t.Run(s.name, func(t *testing.T) {
			c := s.start(t)
			c.must("hello", `{"protocol":2}`)
			c.must("reset", `{}`)
			body(c)
		})
	}
}

func facadeHarness() harness.Harness { return harness.WithReferenceFacades(memharness.Harness()) }

// TestAnswerSystemCaller: the system caller is the facade's own unscoped access: it
// sees every task, under require_owner too and whatever the owner (a non-string one
// included), and its List is scope any.
func TestAnswerSystemCaller(t *testing.T) {
	both(t, facadeHarness(), "", func(c *child) {
		c.must("facade.configure", `{"require_owner":true,"default_ttl_ms":null,"max_ttl_ms":null}`)
		c.must("legacy.tasks.create", `{"task_id":"own","metadata":{},"owner":"y"}`)
		c.must("legacy.tasks.create", `{"task_id":"none","metadata":{},"owner":null}`)
		c.must("legacy.create", `{"task_id":"num","metadata":{"owner":7}}`)
		for _, id := range []string{"own", "none", "num"} {
			c.want("", "legacy.tasks.get", fmt.Sprintf(`{"task_id":%q,"caller":{"scope":"system"}}`, id), "the system caller sees every task")
		}
		c.want("not_found", "legacy.tasks.get", `{"task_id":"num","caller":{"scope":"anonymous"}}`, "a non-string owner is no principal's")
		got := c.listIDs("legacy.tasks.list", `{"status":null,"limit":null,"owner":{"scope":"anonymous"},"caller":{"scope":"system"}}`)
		if !slices.Equal(got, []string{"none", "num", "own"}) {
			t.Errorf("%s: system List under require_owner = %v, want every task", c.name, got)
		}
		c.want("", "legacy.tasks.cancel", `{"task_id":"own","caller":{"scope":"system"}}`, "the system caller may cancel any task")
		id := c.modernCreate(`"y"`)
		c.want("", "modern.tasks.get", fmt.Sprintf(`{"task_id":%q,"caller":{"scope":"system"}}`, id), "the system caller sees every task")
	})
}

// TestAnswerListOwnerFilter: legacy.tasks.list carries the request's owner filter, and
// every facade ignores it, for the system caller too: the scope is the caller's alone.
func TestAnswerListOwnerFilter(t *testing.T) {
	both(t, facadeHarness(), "", func(c *child) {
		c.must("legacy.tasks.create", `{"task_id":"p1","metadata":{},"owner":"p"}`)
		c.must("legacy.tasks.create", `{"task_id":"q1","metadata":{},"owner":"q"}`)
		c.must("legacy.tasks.create", `{"task_id":"n1","metadata":{},"owner":""}`)
		for _, tc := range []struct {
			caller string
			want   []string
		}{
			{`{"scope":"system"}`, []string{"n1", "p1", "q1"}},
			{`{"scope":"principal","id":"p"}`, []string{"n1", "p1"}},
			{`{"scope":"anonymous"}`, []string{"n1"}},
		} {
			got := c.listIDs("legacy.tasks.list", `{"status":null,"limit":null,"owner":{"scope":"principal","id":"q"},"caller":`+tc.caller+`}`)
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: legacy.tasks.list with owner filter principal q for caller %s = %v, want %v (the caller's scope, never the filter)", c.name, tc.caller, got, tc.want)
			}
		}
	})
}

// TestAnswerOwnerEmpty: owner "" and owner null both mean no owner at create: nothing
// is stamped over the metadata's own owner, and the task is everyone's under the default
// setting.
func TestAnswerOwnerEmpty(t *testing.T) {
	both(t, facadeHarness(), "", func(c *child) {
		for _, o := range []string{`""`, `null`} {
			id := "kept-" + strings.Trim(o, `"`)
			got := c.must("legacy.tasks.create", fmt.Sprintf(`{"task_id":%q,"metadata":{"owner":"bob"},"owner":%s}`, id, o))
			var m map[string]any
			if err := json.Unmarshal(got, &m); err != nil || m["owner"] != "bob" {
				t.Errorf("%s: legacy.tasks.create with owner %s over metadata owner bob = %s, want owner bob (nothing stamped)", c.name, o, got)
			}
			id = "open-" + strings.Trim(o, `"`)
			c.must("legacy.tasks.create", fmt.Sprintf(`{"task_id":%q,"metadata":{},"owner":%s}`, id, o))
			c.want("", "legacy.tasks.get", fmt.Sprintf(`{"task_id":%q,"caller":{"scope":"principal","id":"x"}}`, id), "a task without an owner is everyone's")
			mid := c.modernCreate(o)
			c.want("", "modern.tasks.get", fmt.Sprintf(`{"task_id":%q,"caller":{"scope":"principal","id":"x"}}`, mid), "a task without an owner is everyone's")
			c.want("", "modern.tasks.get", fmt.Sprintf(`{"task_id":%q,"caller":{"scope":"anonymous"}}`, mid), "a task without an owner is everyone's")
		}
	})
}

// TestAnswerScopedLegacyUpdate: legacy.tasks.update is the worker's unscoped write; a
// non-null caller is invalid and writes nothing.
func TestAnswerScopedLegacyUpdate(t *testing.T) {
	both(t, facadeHarness(), "", func(c *child) {
		c.must("legacy.tasks.create", `{"task_id":"t","metadata":{"n":1},"owner":"y"}`)
		for _, caller := range []string{`{"scope":"principal","id":"y"}`, `{"scope":"system"}`, `{"scope":"anonymous"}`} {
			c.want("invalid", "legacy.tasks.update", `{"task_id":"t","changes":{"n":2},"caller":`+caller+`}`, "the worker's write takes caller null only")
		}
		var m map[string]any
		if err := json.Unmarshal(c.must("legacy.get", `{"task_id":"t"}`), &m); err != nil || fmt.Sprint(m["n"]) != "1" {
			t.Errorf("%s: after refused updates the task is %v, want n 1 (nothing written)", c.name, m)
		}
		c.want("", "legacy.tasks.update", `{"task_id":"t","changes":{"n":3},"caller":null}`, "caller null is the worker's write")
	})
}

// legacyOnlyHarness is memstore's legacy era alone, under the reference facades.
func legacyOnlyHarness() harness.Harness {
	return harness.WithReferenceFacades(harness.InProcess("memstore-legacy", harness.Capabilities{Legacy: true, Clock: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			return memstore.New(memstore.WithClock(clock)).Legacy(), nil
		}))
}

// TestAnswerConfigureUndeclared: a legacy-only facade declares require_owner alone (the
// ttl settings are the modern facade's); facade.configure takes an undeclared setting at
// its default only, answers unsupported otherwise and then changes nothing; a ttl that
// is not positive is invalid.
func TestAnswerConfigureUndeclared(t *testing.T) {
	both(t, legacyOnlyHarness(), "legacy-only", func(c *child) {
		var h struct {
			Eras   []string
			Facade map[string]bool
		}
		if err := json.Unmarshal(c.must("hello", `{"protocol":2}`), &h); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h.Eras, []string{"legacy"}) || !h.Facade["require_owner"] || h.Facade["default_ttl"] || h.Facade["max_ttl"] {
			t.Errorf("%s: hello = %+v, want the legacy era and the facade setting require_owner alone", c.name, h)
		}
		c.must("legacy.tasks.create", `{"task_id":"open","metadata":{},"owner":null}`)
		for _, args := range []string{
			`{"require_owner":true,"default_ttl_ms":60000,"max_ttl_ms":null}`,
			`{"require_owner":true,"default_ttl_ms":null,"max_ttl_ms":60000}`,
		} {
			c.want("unsupported", "facade.configure", args, "a setting hello did not declare, set to other than its default")
		}
		c.want("", "legacy.tasks.get", `{"task_id":"open","caller":{"scope":"principal","id":"x"}}`, "a refused configuration changes nothing (require_owner still off)")
		c.want("", "facade.configure", `{"require_owner":true,"default_ttl_ms":null,"max_ttl_ms":null}`, "undeclared settings at their defaults are accepted")
		c.want("not_found", "legacy.tasks.get", `{"task_id":"open","caller":{"scope":"principal","id":"x"}}`, "require_owner now on")
		c.want("unsupported", "modern.tasks.create", `{"options":{"owner":null,"ttl_ms":null,"poll_interval_ms":null,"status_message":""}}`, "an era the child does not serve")
	})
	both(t, facadeHarness(), "", func(c *child) {
		for _, args := range []string{
			`{"require_owner":false,"default_ttl_ms":0,"max_ttl_ms":null}`,
			`{"require_owner":false,"default_ttl_ms":null,"max_ttl_ms":-5}`,
		} {
			c.want("invalid", "facade.configure", args, "a ttl that is not positive")
		}
	})
}

// TestAnswerScopeForms: owner scopes (legacy.list's owner) are any, anonymous and
// principal; callers are system, anonymous and principal; a principal needs a non-empty
// id; any other form is invalid.
func TestAnswerScopeForms(t *testing.T) {
	both(t, facadeHarness(), "", func(c *child) {
		c.must("legacy.create", `{"task_id":"y1","metadata":{"owner":"y"}}`)
		c.must("legacy.create", `{"task_id":"x1","metadata":{"owner":"x"}}`)
		c.must("legacy.create", `{"task_id":"n1","metadata":{}}`)
		for _, tc := range []struct {
			scope string
			want  []string
		}{
			{`{"scope":"any"}`, []string{"n1", "x1", "y1"}},
			{`{"scope":"anonymous"}`, []string{"n1"}},
			{`{"scope":"principal","id":"y"}`, []string{"n1", "y1"}},
		} {
			got := c.listIDs("legacy.list", `{"status":null,"limit":null,"require_owner":false,"owner":`+tc.scope+`}`)
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: legacy.list with owner %s = %v, want %v", c.name, tc.scope, got, tc.want)
			}
		}
		for _, scope := range []string{`{"scope":"principal","id":""}`, `{"scope":"principal"}`, `{"scope":"system"}`, `{"scope":"everyone"}`} {
			c.want("invalid", "legacy.list", `{"status":null,"limit":null,"require_owner":false,"owner":`+scope+`}`, "not an owner scope")
		}
		for _, caller := range []string{`{"scope":"any"}`, `{"scope":"principal","id":""}`, `null`} {
			c.want("invalid", "legacy.tasks.get", `{"task_id":"n1","caller":`+caller+`}`, "not a caller")
		}
	})
}

// TestAnswerRequireOwnerApart: the store's List takes require_owner per call and the
// facade keeps its configured one; neither changes the other.
func TestAnswerRequireOwnerApart(t *testing.T) {
	both(t, facadeHarness(), "", func(c *child) {
		c.must("legacy.create", `{"task_id":"x1","metadata":{"owner":"x"}}`)
		c.must("legacy.create", `{"task_id":"n1","metadata":{}}`)
		storeList := func(require string) []string {
			return c.listIDs("legacy.list", `{"status":null,"limit":null,"owner":{"scope":"principal","id":"x"},"require_owner":`+require+`}`)
		}
		facadeList := func() []string {
			return c.listIDs("legacy.tasks.list", `{"status":null,"limit":null,"owner":{"scope":"any"},"caller":{"scope":"principal","id":"x"}}`)
		}
		c.must("facade.configure", `{"require_owner":true,"default_ttl_ms":null,"max_ttl_ms":null}`)
		if got := storeList("false"); !slices.Equal(got, []string{"n1", "x1"}) {
			t.Errorf("%s: store legacy.list require_owner false, facade configured require_owner = %v, want [n1 x1] (the call's value)", c.name, got)
		}
		if got := facadeList(); !slices.Equal(got, []string{"x1"}) {
			t.Errorf("%s: facade list with require_owner configured, after a store list without = %v, want [x1]", c.name, got)
		}
		c.must("facade.configure", `{"require_owner":false,"default_ttl_ms":null,"max_ttl_ms":null}`)
		if got := storeList("true"); !slices.Equal(got, []string{"x1"}) {
			t.Errorf("%s: store legacy.list require_owner true, facade configured without = %v, want [x1] (the call's value)", c.name, got)
		}
		if got := facadeList(); !slices.Equal(got, []string{"n1", "x1"}) {
			t.Errorf("%s: facade list without require_owner, after a store list with it = %v, want [n1 x1]", c.name, got)
		}
	})
}

// TestAnswerNumbersVerbatim: a child that stores values itself keeps every number's
// exact value: what it answers carries the same decimal text for 64-bit integers and
// long decimals, through the store and through the facade.
func TestAnswerNumbersVerbatim(t *testing.T) {
	const values = `{"max":9223372036854775807,"min":-9223372036854775808,"long":0.1000000000000000055511151231257827,"tiny":1e-7}`
	texts := []string{"9223372036854775807", "-9223372036854775808", "0.1000000000000000055511151231257827"}
	both(t, facadeHarness(), "", func(c *child) {
		c.must("legacy.create", `{"task_id":"n","metadata":{"v":`+values+`}}`)
		c.must("legacy.tasks.create", `{"task_id":"f","metadata":{"v":`+values+`},"owner":null}`)
		mid := c.modernCreate("null")
		c.must("modern.tasks.complete", fmt.Sprintf(`{"task_id":%q,"result":{"v":%s}}`, mid, values))
		for _, read := range []struct{ op, args string }{
			{"legacy.get", `{"task_id":"n"}`},
			{"legacy.tasks.get", `{"task_id":"f","caller":{"scope":"system"}}`},
			{"modern.tasks.status", fmt.Sprintf(`{"task_id":%q}`, mid)},
		} {
			got := string(c.must(read.op, read.args))
			for _, text := range texts {
				if !strings.Contains(got, text) {
					t.Errorf("%s: %s answered %s, want the number %s verbatim", c.name, read.op, got, text)
				}
			}
			if !strings.Contains(got, "1e-7") && !strings.Contains(got, "1e-07") && !strings.Contains(got, "0.0000001") {
				t.Errorf("%s: %s answered %s, want 1e-7 exactly", c.name, read.op, got)
			}
		}
	})
}

// failingGet is a legacy store whose Get fails as a database driver does.
type failingGet struct{ legacy.Store }

var errBackend = errors.New("SQLSTATE 08006: connection to the database was lost")

func (failingGet) Get(context.Context, string) (legacy.Task, error) { return nil, errBackend }

// TestAnswerBackendError: an error of the backend that the store contract has no
// sentinel for answers internal with the backend's text, and the child keeps serving.
func TestAnswerBackendError(t *testing.T) {
	h := harness.InProcess("memstore-failing", harness.Capabilities{Legacy: true, Clock: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			return failingGet{memstore.New(memstore.WithClock(clock)).Legacy()}, nil
		})
	both(t, h, "backend-error", func(c *child) {
		a := c.want("internal", "legacy.get", `{"task_id":"t"}`, "a backend error without a sentinel")
		if !strings.Contains(a.message, "SQLSTATE 08006") {
			t.Errorf("%s: the internal answer %s does not carry the backend's text", c.name, a)
		}
		c.want("", "legacy.create", `{"task_id":"t","metadata":{}}`, "the child keeps serving after a backend error")
	})
}

// TestAnswerConcurrentChild: the Go serve runs requests concurrently and answers each
// as it finishes (a held request does not hold up the next), which is what lets the
// race checks reach an asynchronous store; the Python example, whose store has no await
// between a read and its write, answers in order, one at a time.
func TestAnswerConcurrentChild(t *testing.T) {
	both(t, facadeHarness(), "", func(c *child) {
		c.must("legacy.create", `{"task_id":"t","metadata":{}}`)
		c.must("delay", `{"ms":300}`)
		held, next := c.id+1, c.id+2
		// One write: the Go side's pipe has no buffer, and the second request must be
		// there to read while the first is held.
		lines := fmt.Sprintf("{\"id\":%d,\"op\":\"legacy.get\",\"args\":{\"task_id\":\"t\"}}\n{\"id\":%d,\"op\":\"legacy.get\",\"args\":{\"task_id\":\"t\"}}\n", held, next)
		if _, err := io.WriteString(c.w, lines); err != nil {
			t.Fatal(err)
		}
		c.id = next
		first := c.read("two pipelined legacy.get, the first held 300 ms")
		var order []int
		for _, a := range []answer{first, c.read("the second answer")} {
			var m struct{ ID int }
			_ = json.Unmarshal([]byte(a.line), &m)
			order = append(order, m.ID)
		}
		want := []int{held, next}
		if c.name == "go serve" {
			want = []int{next, held}
		}
		if !slices.Equal(order, want) {
			t.Errorf("%s: answers in order %v, want %v", c.name, order, want)
		}
	})
}
