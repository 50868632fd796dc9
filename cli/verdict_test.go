package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/server/servertest"
	"github.com/storecheck/storecheck/mcp/servermutants"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/schema/schematest"
)

// withoutTasks serves the reference server as one that has no tasks: it declares none
// in either era, answers tasks/* -32601 and runs every tool call plainly.
func withoutTasks(next server.Handler) server.Handler {
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if strings.HasPrefix(r.Method(), "tasks/") {
			return nil, &server.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + r.Method()}
		}
		if r.Method() == "tools/call" { // the task asked for, in either era, goes unseen
			delete(r.Params(), "task")
			meta, _ := r.Params()["_meta"].(map[string]any)
			if caps, ok := meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any); ok {
				delete(caps, "extensions")
			}
		}
		res, e := next(ctx, r)
		if m, ok := res.(map[string]any); ok {
			if caps, ok := m["capabilities"].(map[string]any); ok {
				delete(caps, "tasks")
				delete(caps, "extensions")
			}
		}
		return res, e
	}
}

// probeServer serves the reference server over memstore on loopback for two principals.
func probeServer(t *testing.T, cfg server.Config) string {
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	cfg.Legacy, cfg.Modern, cfg.Principals = st.Legacy(), st.Modern(), map[string]string{"ta": "alice", "tb": "bob"}
	return servertest.Start(t, cfg).URL + "/mcp"
}

var principals = []string{"--principal", "alice=ta", "--principal", "bob=tb"}

// TestProbeNothingExercisedFails: a server without tasks leaves every row not exercised;
// the run says "no rule exercised" with the rows' cause and exits 1 (--strict too), the
// JSON and JUnit reports say it; --allow-empty lets it pass, still saying it.
func TestProbeNothingExercisedFails(t *testing.T) {
	url := probeServer(t, server.Config{Wrap: withoutTasks})
	dir := t.TempDir()
	jsonPath, junitPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	for _, extra := range [][]string{nil, {"--strict"}} {
		args := append(append([]string{"probe", "--json", jsonPath, "--junit", junitPath}, principals...), extra...)
		code, stdout, stderr := cliRun(t, append(args, url)...)
		if code != exitFailed || !regexp.MustCompile(`(?m)^no rule exercised: .*tasks`).MatchString(stdout) || !strings.Contains(stdout, "FAIL: server rules 0 passed") {
			t.Errorf("probe %q of a server without tasks: exit %d, want %d and the line \"no rule exercised: <cause>\"\n%s\n%s", extra, code, exitFailed, stdout, stderr)
		}
		if !strings.Contains(stderr, "--allow-empty") {
			t.Errorf("stderr does not say how to accept the empty run:\n%s", stderr)
		}
		schematest.CheckFile(t, jsonPath)
		var r struct {
			NoRuleExercised string `json:"no_rule_exercised"`
		}
		if raw, err := os.ReadFile(jsonPath); err != nil || json.Unmarshal(raw, &r) != nil || !strings.Contains(r.NoRuleExercised, "tasks") {
			t.Errorf("JSON report: no_rule_exercised %q (%v); want the cause", r.NoRuleExercised, err)
		}
		if raw, err := os.ReadFile(junitPath); err != nil || !strings.Contains(string(raw), `<error message="no rule exercised: `) {
			t.Errorf("JUnit report has no error for the empty run (%v):\n%s", err, raw)
		}
	}
	code, stdout, stderr := cliRun(t, append(append([]string{"probe", "--allow-empty"}, principals...), url)...)
	if code != exitOK || !strings.Contains(stdout, "no rule exercised (allowed): ") || strings.Contains(stderr, "no rule exercised") {
		t.Errorf("probe --allow-empty: exit %d, want %d, the summary still saying it\n%s\n%s", code, exitOK, stdout, stderr)
	}
}

// TestRunNothingExercisedFails: a --rules selection the store cannot be checked on
// (S-SHARE-1 on a store of one instance per namespace: skipped) fails the run, saying
// why; --allow-empty accepts it.
func TestRunNothingExercisedFails(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := cliProcess(t, "run", "--rules", "S-SHARE-1", "--json", jsonPath)
	want := "no rule exercised: not applicable: the store has a single instance per namespace"
	if code != exitFailed || !strings.Contains(stdout, "\n"+want+"\n") || !strings.Contains(stderr, "--allow-empty") {
		t.Errorf("run --rules S-SHARE-1: exit %d, want %d and %q\n%s\n%s", code, exitFailed, want, stdout, stderr)
	}
	schematest.CheckFile(t, jsonPath)
	if raw, err := os.ReadFile(jsonPath); err != nil || !strings.Contains(string(raw), `"no_rule_exercised": "not applicable`) {
		t.Errorf("JSON report lacks no_rule_exercised (%v):\n%s", err, raw)
	}
	if code, stdout, stderr := cliProcess(t, "run", "--rules", "S-SHARE-1", "--allow-empty"); code != exitOK {
		t.Errorf("run --rules S-SHARE-1 --allow-empty: exit %d, want %d\n%s\n%s", code, exitOK, stdout, stderr)
	}
}

// TestProbeSummaryShowsFailures: a failed row's detail, what was sent, expected and got,
// is in the text summary under the table, not only in --json; the table's note is the
// fault, not the era line.
func TestProbeSummaryShowsFailures(t *testing.T) {
	m, _ := servermutants.ByName("foreign-sees-tasks")
	url := probeServer(t, m.Build.Configure(server.Config{}, func() {}))
	code, stdout, stderr := cliRun(t, append(append([]string{"probe", "--rules", "V-DENY-1"}, principals...), url)...)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	for _, want := range []string{"Failures (2 specs):", "--- [V-DENY-1] ", "(legacy era)", "(modern era)", "server: legacy era", "input:", "expected:", "got:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary lacks %q:\n%s", want, stdout)
		}
	}
	if regexp.MustCompile(`V-DENY-1 .*FAILED +server: `).MatchString(stdout) {
		t.Errorf("the table's note is the era line, not the fault:\n%s", stdout)
	}
}

// TestProbeProgress: -v draws a line per check on stderr (rule, era, outcome, the check's
// time, the time since the start) though stderr is not a terminal; without it, none.
func TestProbeProgress(t *testing.T) {
	url := probeServer(t, server.Config{})
	args := append([]string{"probe", "--rules", "V-FIN-1"}, principals...)
	code, stdout, stderr := cliRun(t, append(append(args, "-v"), url)...)
	line := regexp.MustCompile(`(?m)^probe: V-FIN-1 +(legacy|modern) +passed +[0-9.]+m?s \(at [0-9.]+m?s\)$`)
	if code != exitOK || len(line.FindAllString(stderr, -1)) != 2 {
		t.Errorf("probe -v: exit %d, want %d and a progress line per era on stderr:\n%s\n%s", code, exitOK, stderr, stdout)
	}
	if _, _, stderr := cliRun(t, append(args, url)...); strings.Contains(stderr, "probe: ") {
		t.Errorf("progress without -v on a stderr that is not a terminal:\n%s", stderr)
	}
}

// TestRunProgress: run -v draws its progress off a terminal, each area's line ended by its
// times, as the probe's line per check.
func TestRunProgress(t *testing.T) {
	code, stdout, stderr := cliProcess(t, "run", "--rules", "L-GET-1", "--era", "legacy", "-v")
	if code != exitOK || !regexp.MustCompile(`(?m)^legacy/\S+ +\.+  [0-9.]+m?s \(at [0-9.]+m?s\)$`).MatchString(stderr) {
		t.Errorf("run -v: exit %d, want %d and a progress line with times on stderr:\n%s\n%s", code, exitOK, stderr, stdout)
	}
}

// TestNullIsNoTerminal: progress is drawn on a terminal, and /dev/null, a character
// device, is not one.
func TestNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
}
