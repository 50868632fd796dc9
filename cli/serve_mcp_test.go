package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/internal/childproc"
)

// TestServeMCPStdioTokenEnv: over stdio the client's token comes from the environment
// (--token-env), mapped by --principal. With --require-owner an anonymous task is denied
// to every caller, a principal's is listed to it: so the tasks/list of a task just made
// tells which principal the connection had. A token --principal does not map is a usage
// error.
func TestServeMCPStdioTokenEnv(t *testing.T) {
	listed := func(token string) int {
		t.Helper()
		cmd := exec.Command(os.Args[0], "serve", "--adapter", "memstore", "--mcp", "stdio", "--require-owner",
			"--principal", "tok-a=alice", "--token-env", "MCP_TOKEN")
		cmd.Env = append(os.Environ(), childEnv+"=1", "MCP_TOKEN="+token)
		in, out, stderr := childproc.Start(t, cmd)
		defer func() { in.Close(); _ = cmd.Wait() }()
		lines := bufio.NewScanner(out)
		lines.Buffer(make([]byte, 1<<20), 1<<20)
		call := func(id int, method string, params map[string]any) map[string]any {
			t.Helper()
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
			fmt.Fprintf(in, "%s\n", b)
			for lines.Scan() {
				var m map[string]any
				if json.Unmarshal(lines.Bytes(), &m) == nil && m["id"] == float64(id) {
					return m
				}
			}
			t.Fatalf("token %q: no answer to %s; stderr:\n%s", token, method, stderr.String())
			return nil
		}
		call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		fmt.Fprintf(in, "%s\n", b)
		made := call(2, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}, "task": map[string]any{}})
		if made["result"] == nil {
			t.Fatalf("token %q: tools/call as a task: %v", token, made)
		}
		list := call(3, "tasks/list", map[string]any{})
		result, _ := list["result"].(map[string]any)
		tasks, _ := result["tasks"].([]any)
		if result == nil {
			t.Fatalf("token %q: tasks/list: %v", token, list)
		}
		return len(tasks)
	}
	if n := listed("tok-a"); n != 1 {
		t.Errorf("serve --mcp stdio --token-env with alice's token: tasks/list holds %d tasks, want the 1 alice made (the connection is alice's)", n)
	}
	if n := listed(""); n != 0 {
		t.Errorf("serve --mcp stdio --require-owner without a token: tasks/list holds %d tasks, want 0 (an anonymous task is denied to every caller)", n)
	}
	code, _, errOut := func() (int, string, string) {
		t.Setenv("MCP_TOKEN", "nobody's")
		return cliRun(t, "serve", "--adapter", "memstore", "--mcp", "stdio", "--principal", "tok-a=alice", "--token-env", "MCP_TOKEN")
	}()
	if code != exitUsage || !strings.Contains(errOut, "--token-env MCP_TOKEN") {
		t.Errorf("serve --mcp stdio with a token --principal does not map: exit %d, stderr %q; want %d naming --token-env", code, errOut, exitUsage)
	}
}

// TestServeMCPPprof: --pprof serves Go's profiles on the loopback address given (the
// index lists the goroutine profile), and refuses an address off loopback.
func TestServeMCPPprof(t *testing.T) {
	code, _, errOut := cliRun(t, "serve", "--adapter", "memstore", "--mcp", "stdio", "--pprof", "192.0.2.1:6060")
	if code != exitUsage || !strings.Contains(errOut, "loopback") {
		t.Errorf("serve --mcp --pprof 192.0.2.1:6060: exit %d, stderr %q; want %d naming loopback", code, errOut, exitUsage)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // free again, for the child to take
	cmd := exec.Command(os.Args[0], "serve", "--adapter", "memstore", "--mcp", "stdio", "--pprof", addr)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	in, _, stderr := childproc.Start(t, cmd)
	defer func() { in.Close(); _ = cmd.Wait() }()
	url := "http://" + addr + "/debug/pprof/"
	res, err := http.Get(url)
	for deadline := time.Now().Add(10 * time.Second); err != nil && time.Now().Before(deadline); res, err = http.Get(url) {
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		in.Close()
		_ = cmd.Wait()
		t.Fatalf("serve --mcp stdio --pprof %s: GET %s: %v within 10s; stderr:\n%s", addr, url, err, stderr.String())
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Errorf("GET %s: status %d, body %.200q; want 200 listing the goroutine profile", url, res.StatusCode, body)
	}
}
