package gotest_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/schema/schematest"
)

// The rules every command of TestREADMEAcceptance runs: one per era, so that the
// battery is quick and still covers both, and S-CTX-1, which an in-process store
// declared self-contained passes under strict though its harness has no hold.
const acceptanceRules = "L-GET-1,M-GET-1,S-CTX-1"

// TestREADMEAcceptance follows docs/go.md (the README's "Checking a Go store") as a store author
// would, in a new module beside nothing but this repository (required and replaced): a
// store package wrapping reference/memstore, the test file and the main the README
// shows (copied from the blocks marked <!-- acceptance:file PATH -->), a second package
// whose tests do not import conformance, then the README's commands (the block marked
// <!-- acceptance:commands -->, restricted to two rules): the summary at the author's
// test line, the detected capabilities, no colour codes, strict by flag and by variable,
// the JUnit file, and the CLI of the author's own main (<!-- acceptance:cli -->).
func TestREADMEAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module and runs go test and the CLI in it (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "docs", "go.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(string(readme))
	mod := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		path = filepath.Join(mod, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	// What go get and go mod tidy would write: storecheck and, as this repository's go.mod
	// has them, the modules it needs (so that nothing is looked up: GOPROXY=off).
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var requires []string
	for _, block := range strings.Split(string(gomod), "require (")[1:] {
		body, _, _ := strings.Cut(block, ")")
		requires = append(requires, "require ("+body+")\n")
	}
	write("go.mod", fmt.Sprintf("module example.com/mymodule\n\ngo 1.26.0\n\nrequire github.com/storecheck/storecheck v0.0.0\n\n%s\nreplace github.com/storecheck/storecheck => %s\n",
		strings.Join(requires, "\n"), root))
	// The author's store: reference/memstore under another name.
	write("mystore/store.go", `// Package mystore is the store author's in-memory store.
package mystore

import "github.com/storecheck/storecheck/reference/memstore"

type Store = memstore.Store

func New(opts ...memstore.Option) *Store { return memstore.New(opts...) }

var (
	WithClock  = memstore.WithClock
	WithShards = memstore.WithShards
)
`)
	// A package of the module whose tests know nothing of storecheck.
	write("util/util.go", "package util\n\nfunc Double(n int) int { return 2 * n }\n")
	write("util/util_test.go", "package util\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(Double(2))\n\t}\n}\n")
	files := 0
	for marker := range blocks {
		if strings.HasPrefix(marker, "file ") {
			files++
		}
	}
	if files != 2 || blocks["file mystore/battery_test.go"] == "" || blocks["file cmd/mystore-check/main.go"] == "" {
		t.Fatalf("docs/go.md marks %d files (%v); want mystore/battery_test.go and cmd/mystore-check/main.go", files, keys(blocks))
	}
	// The test file now; the main, which links the whole CLI, when the CLI's turn comes
	// (so that go test ./... does not build it first).
	write("mystore/battery_test.go", blocks["file mystore/battery_test.go"])
	callerLine := 0
	for i, l := range strings.Split(blocks["file mystore/battery_test.go"], "\n") {
		if strings.Contains(l, "func TestBattery") && strings.Contains(l, "conformance.Run(") {
			callerLine = i + 1
		}
	}
	if callerLine == 0 {
		t.Fatal("the README's battery_test.go has no one-line TestBattery calling conformance.Run")
	}

	baseEnv := []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOSUMDB=off", "GOTOOLCHAIN=local"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "GOFLAGS" && name != "GOPROXY" && name != "GOWORK" && name != "GOSUMDB" && name != "GOTOOLCHAIN" && !strings.HasPrefix(name, "STORECHECK_") {
			baseEnv = append(baseEnv, kv)
		}
	}
	// run runs a README command line ("VAR=v ... go args"), with extra arguments and
	// variables, in the new module.
	run := func(line string, extraEnv []string, extraArgs ...string) (string, error) {
		t.Helper()
		fields := strings.Fields(line)
		env := append(append([]string(nil), baseEnv...), extraEnv...)
		for len(fields) > 0 && strings.Contains(fields[0], "=") {
			env = append(env, fields[0])
			fields = fields[1:]
		}
		if len(fields) == 0 || fields[0] != "go" {
			t.Fatalf("README command %q does not run go", line)
		}
		started := time.Now()
		cmd := exec.Command(goBin, append(fields[1:], extraArgs...)...)
		cmd.Dir, cmd.Env = mod, env
		out, err := cmd.CombinedOutput()
		t.Logf("%s %s: %v in %s", line, strings.Join(extraArgs, " "), err, time.Since(started).Round(time.Millisecond))
		return string(out), err
	}
	commands := strings.Split(blocks["commands"], "\n")
	if len(commands) < 2 || !strings.HasPrefix(commands[0], "go test -v ./mystore -storecheck.strict -storecheck.junit report.xml") ||
		!strings.HasPrefix(commands[1], "STORECHECK_STRICT=1 STORECHECK_JUNIT=report.xml go test -v ./...") {
		t.Fatalf("the README's commands block should start with the flags form on ./mystore and the variables form on ./...:\n%s", blocks["commands"])
	}
	junit, report := filepath.Join(mod, "mystore", "report.xml"), filepath.Join(mod, "mystore", "report.json")
	check := func(form, out string) {
		t.Helper()
		for _, want := range []string{
			fmt.Sprintf("battery_test.go:%d: storecheck summary:", callerLine), // at the author's line
			"store mystore: eras legacy, modern", "clock control: yes", "optional legacy operations: Cancel (legacy.Canceler) yes",
			"L-GET-1", "M-GET-1", "S-CTX-1", "passed", "seed ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: go test's output lacks %q:\n%s", form, want, out)
			}
		}
		if strings.Contains(out, "\x1b[") {
			t.Errorf("%s: go test's output, not a terminal, has ANSI escape codes:\n%q", form, out)
		}
		x, err := os.ReadFile(junit)
		if err != nil {
			t.Errorf("%s: no JUnit file: %v", form, err)
		} else {
			var suites struct {
				XMLName xml.Name
				Suites  []struct {
					Cases []struct {
						Name string `xml:"name,attr"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(x, &suites); err != nil || suites.XMLName.Local != "testsuites" || len(suites.Suites) == 0 || len(suites.Suites[0].Cases) == 0 {
				t.Errorf("%s: the JUnit file is not a <testsuites> with test cases (%v):\n%s", form, err, x)
			}
		}
		j, err := os.ReadFile(report)
		if err != nil {
			t.Errorf("%s: no JSON report: %v", form, err)
			return
		}
		schematest.Check(t, j)
		var r struct {
			Store  string `json:"store"`
			Strict bool   `json:"strict"`
		}
		if err := json.Unmarshal(j, &r); err != nil || r.Store != "mystore" || !r.Strict {
			t.Errorf("%s: the JSON report (%v) does not say strict mode for mystore:\n%s", form, err, j)
		}
	}

	// The flags form, on the package that runs the battery.
	out, err := run(commands[0], nil, "-storecheck.rules", acceptanceRules, "-storecheck.json", "report.json")
	if err != nil {
		t.Fatalf("%s: %v\n%s", commands[0], err, out)
	}
	check("flags form", out)

	// The variables form, on ./...: the package without conformance runs too.
	for _, f := range []string{junit, report} {
		os.Remove(f)
	}
	out, err = run(commands[1], []string{"STORECHECK_RULES=" + acceptanceRules, "STORECHECK_JSON=report.json"})
	if err != nil {
		t.Fatalf("%s: %v\n%s", commands[1], err, out)
	}
	check("variables form", out)
	if !strings.Contains(out, "--- PASS: TestDouble") {
		t.Errorf("go test -v ./... did not run the package without conformance:\n%s", out)
	}

	// What the README warns of: flags on ./... fail in the package without conformance.
	out, err = run("go test ./... -storecheck.strict", []string{"STORECHECK_RULES=" + acceptanceRules})
	if err == nil || !strings.Contains(out, "flag provided but not defined: -storecheck.strict") {
		t.Errorf("go test ./... -storecheck.strict: err %v; the README says it fails in util with flag provided but not defined:\n%s", err, out)
	}

	// The author's CLI: the README's go run line, built once, run with one rule.
	cli := strings.Fields(blocks["cli"])
	if len(cli) < 4 || strings.Join(cli[:3], " ") != "go run ./cmd/mystore-check" || cli[3] != "run" || !strings.Contains(blocks["cli"], "--rules ") || !strings.Contains(blocks["cli"], "--json ") {
		t.Fatalf("the README's CLI block should be go run ./cmd/mystore-check run --rules ... --json ...: %q", blocks["cli"])
	}
	write("cmd/mystore-check/main.go", blocks["file cmd/mystore-check/main.go"])
	bin := filepath.Join(mod, "mystore-check")
	if out, err := run("go build -o "+bin+" ./cmd/mystore-check", nil); err != nil {
		t.Fatalf("building the README's main: %v\n%s", err, out)
	}
	args := cli[3:]
	for i := range args {
		if i > 0 && args[i-1] == "--rules" {
			args[i] = "L-GET-1"
		}
		if i > 0 && args[i-1] == "--json" {
			args[i] = filepath.Join(mod, "cli.json")
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = mod, baseEnv
	cliOut, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mystore-check %s: %v (want exit 0)\n%s", strings.Join(args, " "), err, cliOut)
	}
	j, err := os.ReadFile(filepath.Join(mod, "cli.json"))
	if err != nil {
		t.Fatalf("mystore-check wrote no JSON report: %v\n%s", err, cliOut)
	}
	schematest.Check(t, j)
	var r struct {
		Store string `json:"store"`
		Rules []struct {
			ID      string `json:"id"`
			Outcome string `json:"outcome"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(j, &r); err != nil || r.Store != "mystore" {
		t.Fatalf("mystore-check's JSON report (%v) is not of mystore:\n%s", err, j)
	}
	found := false
	for _, rule := range r.Rules {
		found = found || rule.ID == "L-GET-1" && rule.Outcome == "passed"
	}
	if !found {
		t.Errorf("mystore-check's JSON report has no passed L-GET-1:\n%s", j)
	}
}

// readmeBlocks returns the body of each fenced block that follows a line
// "<!-- acceptance:NAME -->", by NAME.
func readmeBlocks(readme string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		name, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "<!-- acceptance:")
		if !ok {
			continue
		}
		name = strings.TrimSpace(strings.TrimSuffix(name, "-->"))
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
			j++
		}
		var body []string
		for j++; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			body = append(body, lines[j])
		}
		out[name] = strings.Join(body, "\n") + "\n"
		i = j
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
