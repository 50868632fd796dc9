package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// TestStdioBadInputKeepsServing: over stdio a line that is not JSON is -32700, a batch
// and a line over MaxBody -32600, each with a null id, and the next line is still served.
func TestStdioBadInputKeepsServing(t *testing.T) {
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	srv, err := server.New(server.Config{Legacy: st.Legacy(), Modern: st.Modern(), MaxBody: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, inR, outW, ""); outW.Close() }()
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
