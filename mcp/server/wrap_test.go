package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// TestWrapSeesGenericJSON: behind Config.Wrap a result and the messages streamed before it
// are generic JSON (objects as map[string]any, numbers as json.Number), whatever types the
// server writes them from, so that a wrapper reads and rewrites them as it does the params.
func TestWrapSeesGenericJSON(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf(format, args...))
	}
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	s, err := New(Config{Legacy: st.Legacy(), Modern: st.Modern(), Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) (any, *Error) {
			if send := r.Stream(); send != nil {
				r.SetStream(func(v any) error {
					record("%s streamed %T", r.Method(), v)
					return send(v)
				})
			}
			res, e := next(ctx, r)
			record("%s answered %T", r.Method(), res)
			if m, ok := res.(map[string]any); ok && r.Method() == "tools/call" {
				record("tools/call's pollIntervalMs %T", m["pollIntervalMs"])
			}
			return res, e
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	call := func(ctx context.Context, method string, params map[string]any, stream func(any) error) {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": VersionModern,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}}
		r := &Request{msg: message{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: method}, params: params,
			caller: callerOf("alice"), owner: "alice", stream: stream}
		if _, e := s.handle(ctx, r); e != nil {
			t.Fatalf("%s: %v", method, e)
		}
	}
	call(t.Context(), "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}}, nil)
	ctx, stop := context.WithCancel(t.Context())
	call(ctx, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []any{"x"}}}, func(any) error {
		stop() // the acknowledgement: the listen may end
		return nil
	})
	want := []string{
		"tools/call answered map[string]interface {}",
		"tools/call's pollIntervalMs json.Number",
		"subscriptions/listen streamed map[string]interface {}",
		"subscriptions/listen answered map[string]interface {}",
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("what the wrapper saw:\n%q\nwant generic JSON:\n%q", seen, want)
	}
}
