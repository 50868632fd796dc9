package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/server/servertest"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/schema/schematest"
)

// TestProbeSilentServerExits1: a server that never answers ends the probe within its
// timeouts, with exit status 1 and the cause of every aborted rule on stderr.
func TestProbeSilentServerExits1(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read, so that the server sees the client leave
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	defer hs.Close()
	code, stdout, stderr := cliRun(t, "probe", "--timeout", "200ms", "--principal", "alice=ta", "--principal", "bob=tb", hs.URL+"/mcp")
	if code != exitFailed {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	if !strings.Contains(stderr, "the server gave no usable answer to") || !strings.Contains(stderr, "V-DENY-1 legacy: no usable answer from the server: timeout (no answer within 200ms)") {
		t.Errorf("stderr does not name the cause:\n%s", stderr)
	}
	if !regexp.MustCompile(`0 passed, \d+ aborted`).MatchString(stdout) || strings.Contains(stdout, "  passed") {
		t.Errorf("the summary:\n%s", stdout)
	}
}

// TestProbeExec: storecheck probe --exec starts `storecheck serve --mcp stdio`, a child
// per principal, and the reference server passes; V-SESSION-1 is not exercised.
func TestProbeExec(t *testing.T) {
	t.Setenv(childEnv, "1") // the child is this binary acting as storecheck
	code, stdout, stderr := cliRun(t, "probe", "--strict", "--exec", os.Args[0], "serve", "--adapter", "memstore", "--mcp", "stdio")
	if code != exitOK || !regexp.MustCompile(`V-SESSION-1 +server +MUST +legacy +not exercised`).MatchString(stdout) ||
		!regexp.MustCompile(`V-FIN-1 +server +MUST +modern +passed`).MatchString(stdout) || !strings.Contains(stdout, "storecheck: stdio: ") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"probe", "http://127.0.0.1:1/mcp", "--exec", "true"},
		{"probe", "--exec"},
		{"probe", "--token-env", "T", "http://127.0.0.1:1/mcp"},
		{"probe", "--exec", "storecheck-no-such-command"},
	} {
		if code, _, stderr := cliRun(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}

// TestProbeToolMapping: each role's tool and arguments come from its flags when given,
// else from the tools file, else from the reference server's; a role mapped to another
// tool without arguments gets none.
func TestProbeToolMapping(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, []byte(`{"failing": {"tool": "file_fail", "args": {"a": 2}},
		"input": {"tool": "file_ask"}, "quick": {"args": {"seconds": 0.1}}, "erring": {"tool": "protocol_error_job"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	type want struct {
		name string
		args string
	}
	for _, tc := range []struct {
		name  string
		file  string
		flags map[string]string
		want  map[probe.Role]want
	}{
		{"defaults", "", nil, map[probe.Role]want{
			probe.RoleQuick: {"slow_compute", `{"seconds":0}`}, probe.RoleRace: {"slow_compute", `{"seconds":0.15}`},
			probe.RoleFailing: {"failing_job", `{}`}, probe.RoleErring: {"protocol_error_job", `{"seconds":0}`},
			probe.RoleInput: {"confirm_delete", `{"item":"storecheck-probe"}`}}},
		{"flags", "", map[string]string{"failing-tool": "my_fail", "failing-args": `{"x":1}`, "input-tool": "ask", "slow-args": `{"seconds":2}`},
			map[probe.Role]want{probe.RoleFailing: {"my_fail", `{"x":1}`}, probe.RoleInput: {"ask", `{}`},
				probe.RoleSlow: {"slow_compute", `{"seconds":2}`}, probe.RoleErring: {"protocol_error_job", `{"seconds":0}`}}},
		{"file", file, nil, map[probe.Role]want{probe.RoleFailing: {"file_fail", `{"a":2}`}, probe.RoleInput: {"file_ask", `{}`},
			probe.RoleQuick: {"slow_compute", `{"seconds":0.1}`}, probe.RoleErring: {"protocol_error_job", `{"seconds":0}`},
			probe.RoleSlow: {"slow_compute", `{"seconds":0.5}`}}},
		{"flags over the file", file, map[string]string{"failing-tool": "flag_fail", "input-args": `{"q":"y"}`, "quick-tool": "flag_quick"},
			map[probe.Role]want{probe.RoleFailing: {"flag_fail", `{"a":2}`}, probe.RoleInput: {"file_ask", `{"q":"y"}`},
				probe.RoleQuick: {"flag_quick", `{"seconds":0.1}`}}},
	} {
		flags := map[probe.Role]*[2]string{}
		given := map[string]bool{}
		for _, role := range probe.Roles {
			flags[role] = &[2]string{}
		}
		for k, v := range tc.flags {
			role, part, _ := strings.Cut(k, "-")
			i := map[string]int{"tool": 0, "args": 1}[part]
			flags[probe.Role(role)][i] = v
			given[k] = true
		}
		tools, err := toolMapping(tc.file, flags, given)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for role, w := range tc.want {
			name, args := tools.Tool(role)
			raw, _ := json.Marshal(args)
			if name != w.name || string(raw) != w.args {
				t.Errorf("%s: %s tool %s %s, want %s %s", tc.name, role, name, raw, w.name, w.args)
			}
		}
	}
}

// TestProbeBadToolsIsUsage: a tools file or an -args flag that is not what the help
// says is a usage error (exit 2) naming the fault, before any server is called.
func TestProbeBadToolsIsUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, flag, want string
	}{
		{"unknown role", `{"fast": {"tool": "x"}}`, "", `unknown role "fast"`},
		{"bad JSON", `{"quick": {"tool": "x"`, "", "not a JSON object"},
		{"args not an object", `{"input": {"tool": "ask", "args": [1]}}`, "", `"input": args: not a JSON object`},
		{"unknown field", `{"input": {"name": "ask"}}`, "", `unknown field "name"`},
		{"tool not a string", `{"input": {"tool": 3}}`, "", `"input"`},
		{"not an object", `[]`, "", "not a JSON object"},
		{"no file", "", "", "no such file"},
		{"args flag", "", "--erring-args=[1]", "--erring-args: not a JSON object"},
		{"empty tool flag", "", "--race-tool=", "--race-tool: an empty tool name"},
	} {
		args := []string{"probe", "--principal", "a=ta", "--principal", "b=tb"}
		if tc.flag != "" {
			args = append(args, tc.flag)
		} else {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if tc.content != "" {
				if err := os.WriteFile(file, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args = append(args, "--tools", file)
		}
		code, _, stderr := cliRun(t, append(args, "http://127.0.0.1:1/mcp")...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d naming %q:\n%s", tc.name, code, exitUsage, tc.want, stderr)
		}
	}
}

// TestProbeMissingToolNamed: a tools file mapping a role to a tool the server does not
// list leaves the rules that need it setup refused, the tool named, never passed; the
// run fails.
func TestProbeMissingToolNamed(t *testing.T) {
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	hs := servertest.Start(t, server.Config{Legacy: st.Legacy(), Modern: st.Modern(), Principals: map[string]string{"ta": "alice", "tb": "bob"}})
	dir := t.TempDir()
	file, out := filepath.Join(dir, "tools.json"), filepath.Join(dir, "report.json")
	if err := os.WriteFile(file, []byte(`{"failing": {"tool": "storecheck_no_such_tool"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cliRun(t, "probe", "--principal", "alice=ta", "--principal", "bob=tb", "--rules", "V-ERROR-1",
		"--tools", file, "--json", out, hs.URL+"/mcp")
	if code != exitFailed {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	schematest.CheckFile(t, out)
	report, err := readReport(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Rules) != 2 {
		t.Fatalf("%d rows, want V-ERROR-1 in both eras: %+v", len(report.Rules), report.Rules)
	}
	for _, rr := range report.Rules {
		if rr.Outcome != conformance.SetupRefused || !strings.Contains(strings.Join(rr.Reasons, " "), `"storecheck_no_such_tool"`) {
			t.Errorf("V-ERROR-1 %s: %s %q; want setup refused naming storecheck_no_such_tool", rr.Era, rr.Outcome, rr.Reasons)
		}
	}
}
