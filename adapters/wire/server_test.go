package wire_test

import (
	"encoding/json"
	"fmt"
	"io"
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

// served runs Serve over pipes and returns a function that sends one request line and
// returns the answer line.
func served(t *testing.T, h harness.Harness) func(line string) map[string]any {
	t.Helper()
	var log strings.Builder
	inW, br := wiretest.Serve(t, h, wire.ServeOptions{Log: &log})
	return func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("writing %s: %v", line, err)
		}
		ans, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %s: %v (server log: %s)", line, err, log.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(ans), &m); err != nil {
			t.Fatalf("answer to %s is not JSON: %q", line, ans)
		}
		return m
	}
}

func code(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestServe(t *testing.T) {
	ask := served(t, memharness.Harness())
	hello := ask(`{"id":1,"op":"hello","args":{"protocol":1}}`)
	want := `{"clock":true,"delay":true,"eras":["legacy","modern"],"legacy":{"cancel":true,"cleanup":true,"conditional_update":true},"name":"memstore","protocol":1}`
	if got, _ := json.Marshal(hello["ok"]); string(got) != want {
		t.Errorf("hello = %s, want %s", got, want)
	}
	// Offers are answered with the newest version both speak; memstore has no facade,
	// and from version 3 it serves the SDK profile.
	for _, offer := range []int{2, 3, 4} {
		hello := ask(fmt.Sprintf(`{"id":2,"op":"hello","args":{"protocol":%d}}`, offer))
		ok, _ := hello["ok"].(map[string]any)
		want := float64(min(offer, 3))
		if layers, _ := json.Marshal(ok["layers"]); ok["protocol"] != want || string(layers) != `["store"]` {
			t.Errorf("hello protocol %d = %v, want protocol %v, layers [store]", offer, hello, want)
		}
		profiles, _ := json.Marshal(ok["profiles"])
		if offer >= 3 && string(profiles) != `["sdk"]` || offer < 3 && ok["profiles"] != nil {
			t.Errorf("hello protocol %d: profiles %s, want [\"sdk\"] from version 3 only", offer, profiles)
		}
	}
	if c := code(ask(`{"id":2,"op":"hello","args":{"protocol":0}}`)); c != "unsupported" {
		t.Errorf("hello protocol 0 answered code %q, want unsupported", c)
	}
	if c := code(ask(`{"id":2,"op":"legacy.tasks.get","args":{"task_id":"t1","caller":{"scope":"system"}}}`)); c != "unsupported" {
		t.Errorf("legacy.tasks.get on a store without a facade answered code %q, want unsupported", c)
	}
	ask(`{"id":3,"op":"clock","args":{"now_ms":1764400000000}}`)
	created := ask(`{"id":4,"op":"legacy.create","args":{"task_id":"t1","metadata":{"n":9223372036854775807,"f":1e-7}}}`)
	task, _ := created["ok"].(map[string]any)
	if created["id"] != 4.0 || task["created_at"] != 1764400000000.0 || task["status"] != "working" {
		t.Errorf("legacy.create = %v", created)
	}
	for _, tc := range []struct{ line, code string }{
		{`{"id":5,"op":"legacy.create","args":{"task_id":"t1","metadata":{}}}`, "exists"},
		{`{"id":6,"op":"legacy.get","args":{"task_id":"nope"}}`, "not_found"},
		{`{"id":7,"op":"legacy.get","args":{"task_id":7}}`, "invalid"},
		{`{"id":8,"op":"legacy.list","args":{"owner":{"scope":"everyone"}}}`, "invalid"},
		{`{"id":9,"op":"modern.get","args":{"task_id":"x","caller":{"scope":"principal"}}}`, "invalid"},
		{`{"id":10,"op":"modern.create","args":{"task":{"task_id":"x"}}}`, "invalid"},
		{`{"id":11,"op":"legacy.frobnicate","args":{}}`, "unsupported"},
		{`{"id":12,"op":"legacy.update_if","args":{"task_id":"t1","allowed_statuses":["completed"],"changes":{}}}`, "conflict"},
		{`{"id":13,"op":"legacy.get","args":[1]}`, "invalid"},
	} {
		if got := ask(tc.line); code(got) != tc.code || got["ok"] != nil {
			t.Errorf("%s answered %v, want code %s", tc.line, got, tc.code)
		}
	}
	ask(`{"id":14,"op":"reset","args":{}}`)
	if c := code(ask(`{"id":15,"op":"legacy.get","args":{"task_id":"t1"}}`)); c != "not_found" {
		t.Errorf("after reset, legacy.get of t1 answered code %q, want not_found", c)
	}
}

// TestServeStoreHarness: a store without optional operations or clock control says so
// in hello and answers those ops unsupported.
func TestServeStoreHarness(t *testing.T) {
	h := wire.StoreHarness("plain", false, func(clock reference.Clock) (legacy.Store, modern.Store) {
		return plainLegacy{memstore.New(memstore.WithClock(clock)).Legacy()}, nil
	})
	ask := served(t, h)
	hello, _ := json.Marshal(ask(`{"id":1,"op":"hello","args":{"protocol":1}}`)["ok"])
	want := `{"clock":false,"delay":true,"eras":["legacy"],"legacy":{"cancel":false,"cleanup":false,"conditional_update":false},"name":"plain","protocol":1}`
	if string(hello) != want {
		t.Errorf("hello = %s, want %s", hello, want)
	}
	for i, op := range []string{
		`"clock","args":{"now_ms":1}`,
		`"legacy.cancel","args":{"task_id":"t"}`,
		`"legacy.cleanup","args":{"ttl_ms":1}`,
		`"modern.sweep","args":{}`,
	} {
		line := fmt.Sprintf(`{"id":%d,"op":%s}`, i+2, op)
		if c := code(ask(line)); c != "unsupported" {
			t.Errorf("%s answered code %q, want unsupported", line, c)
		}
	}
}

// plainLegacy hides memstore's optional operations.
type plainLegacy struct{ legacy.Store }

// TestServeFacade: a harness with its own facade is served as protocol 2's facade layer,
// with the facade errors' own codes; a version 1 session has no facade layer.
func TestServeFacade(t *testing.T) {
	ask := served(t, harness.WithReferenceFacades(memharness.Harness()))
	if c := code(ask(`{"id":1,"op":"hello","args":{"protocol":1}}`)); c != "" {
		t.Fatalf("hello protocol 1 answered code %q", c)
	}
	if c := code(ask(`{"id":2,"op":"facade.configure","args":{"require_owner":true}}`)); c != "unsupported" {
		t.Errorf("facade.configure in a version 1 session answered code %q, want unsupported", c)
	}
	hello := ask(`{"id":3,"op":"hello","args":{"protocol":2}}`)
	ok, _ := hello["ok"].(map[string]any)
	if layers, _ := json.Marshal(ok["layers"]); string(layers) != `["store","facade"]` || ok["facade"] == nil {
		t.Fatalf("hello protocol 2 = %v, want layers [store, facade] and the facade's settings", hello)
	}
	for _, tc := range []struct{ line, code string }{
		{`{"id":4,"op":"legacy.tasks.create","args":{"task_id":"t1","metadata":{"owner":"mallory"},"owner":"alice"}}`, ""},
		{`{"id":5,"op":"legacy.tasks.get","args":{"task_id":"t1","caller":{"scope":"anonymous"}}}`, "not_found"},
		{`{"id":6,"op":"legacy.tasks.update","args":{"task_id":"t1","changes":{"status":"bogus"},"caller":null}}`, "invalid_transition"},
		{`{"id":7,"op":"legacy.tasks.cancel","args":{"task_id":"t1","caller":{"scope":"principal","id":"alice"}}}`, ""},
		{`{"id":8,"op":"legacy.tasks.cancel","args":{"task_id":"t1","caller":{"scope":"principal","id":"alice"}}}`, "terminal"},
		{`{"id":9,"op":"legacy.tasks.list","args":{"status":null,"limit":null,"caller":{"scope":"nobody"}}}`, "invalid"},
		{`{"id":10,"op":"facade.configure","args":{"require_owner":true,"default_ttl_ms":0}}`, "invalid"},
		{`{"id":11,"op":"facade.configure","args":{"require_owner":true,"default_ttl_ms":null,"max_ttl_ms":60000}}`, ""},
		{`{"id":12,"op":"modern.tasks.create","args":{"options":{"owner":null,"ttl_ms":-1,"poll_interval_ms":null,"status_message":""}}}`, "invalid"},
		{`{"id":13,"op":"modern.tasks.frobnicate","args":{"task_id":"x"}}`, "unsupported"},
	} {
		if got := ask(tc.line); code(got) != tc.code {
			t.Errorf("%s answered %v, want code %q", tc.line, got, tc.code)
		}
	}
	created := ask(`{"id":14,"op":"modern.tasks.create","args":{"options":{"owner":"alice","ttl_ms":null,"poll_interval_ms":null,"status_message":"go"}}}`)
	task, _ := created["ok"].(map[string]any)
	id, _ := task["task_id"].(string)
	if task["ttl_ms"] != 60000.0 || len(id) != 22 {
		t.Fatalf("modern.tasks.create under max_ttl_ms 60000 = %v, want ttl_ms 60000 and a 22-character id", created)
	}
	ask(fmt.Sprintf(`{"id":15,"op":"modern.tasks.require_input","args":{"task_id":%q,"requests":{"k":"?"}}}`, id))
	if c := code(ask(fmt.Sprintf(`{"id":16,"op":"modern.tasks.require_input","args":{"task_id":%q,"requests":{"k":"?"}}}`, id))); c != "key_reused" {
		t.Errorf("require_input of a reused key answered code %q, want key_reused", c)
	}
	failed := ask(fmt.Sprintf(`{"id":17,"op":"modern.tasks.start_failed","args":{"task_id":%q,"message":"boom"}}`, id))
	ft, _ := failed["ok"].(map[string]any)
	if e, _ := ft["error"].(map[string]any); ft["status"] != "failed" || e["code"] != -32603.0 || e["message"] != "boom" {
		t.Errorf("modern.tasks.start_failed = %v, want failed with {code: -32603, message: boom}", failed)
	}
	// reset returns the facade to its defaults: no max ttl any more.
	ask(`{"id":18,"op":"reset","args":{}}`)
	created = ask(`{"id":19,"op":"modern.tasks.create","args":{"options":{"owner":null,"ttl_ms":null,"poll_interval_ms":null,"status_message":""}}}`)
	if task, _ := created["ok"].(map[string]any); task["ttl_ms"] != nil {
		t.Errorf("modern.tasks.create after reset = %v, want ttl_ms null (default configuration)", created)
	}
}
