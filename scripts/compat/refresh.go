package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// errRefresh: a target could not be run again; its pinned report stays.
var errRefresh = errors.New("compat: targets not refreshed")

// target is one implementation the refresh runs storecheck against.
type target struct {
	entry
	// args are storecheck's arguments without --json; for a server, the probe's, its URL
	// appended once the server is up.
	args []string
	// server starts the server a probe checks (nil for a store): its URL, and how to stop it.
	server func(ctx context.Context, bin string, log io.Writer) (string, func(), error)
	// version is the implementation's version, found on this machine.
	version func(ctx context.Context, storecheck string) string
}

// The principals of the probes: the reference server is started with their tokens.
var (
	serveAuth = []string{"--principal", "ta=alice", "--principal", "tb=bob", "--max-tasks-per-principal", "16"}
	probeAuth = []string{"--principal", "alice=ta", "--principal", "bob=tb"}
)

var adapters = []string{"memstore", "ets-like", "postgres", "redis", "redis-cluster", "river-sqlite", "river-postgres"}

// targets is every implementation of the table, in its order.
func targets() []target {
	var ts []target
	for _, a := range adapters {
		ts = append(ts, target{entry: entry{Key: a, Implementation: "storecheck adapter " + a, Kind: "store"},
			args: []string{"run", "--adapter", a}, version: ofStorecheck})
	}
	ts = append(ts,
		execStore("python-example", "Python example (examples/python-store)", "python3 examples/python-store/store.py",
			commandVersion(`Python \S+`, "python3", "--version")),
		execStore("elixir-example", "Elixir example (examples/elixir-store)", "elixir examples/elixir-store/shim.exs",
			commandVersion(`(?m)^(Elixir \S+|Erlang/OTP \d+)`, "elixir", "--version")),
		execStore("typescript-sdk-store", "TypeScript SDK InMemoryTaskStore (examples/typescript-sdk)", "node examples/typescript-sdk/shim.mjs", sdkVersion))
	for _, a := range adapters {
		ts = append(ts, target{entry: entry{Key: "server-" + a, Implementation: "storecheck serve --mcp over " + a, Kind: "server"},
			args: append([]string{"probe"}, probeAuth...), server: referenceServer(a), version: ofStorecheck})
	}
	return append(ts, target{entry: entry{Key: "server-typescript-sdk", Implementation: "TypeScript SDK McpServer (examples/typescript-sdk/server.mjs)", Kind: "server"},
		args: []string{"probe", "--principal", "alice=token-a", "--principal", "bob=token-b"}, server: sdkServer, version: sdkVersion})
}

// display is the command line that made t's report, as the table prints it.
func (t target) display() string {
	words := make([]string, len(t.args))
	for i, a := range t.args {
		words[i] = a
		if strings.Contains(a, " ") {
			words[i] = strconv.Quote(a)
		}
	}
	probe := "storecheck " + strings.Join(words, " ")
	switch {
	case t.server == nil:
		return probe
	case t.Key == "server-typescript-sdk":
		return "node examples/typescript-sdk/server.mjs PORT & " + probe + " http://127.0.0.1:PORT/mcp"
	}
	serve := append([]string{"storecheck", "serve", "--mcp", "127.0.0.1:PORT", "--adapter", strings.TrimPrefix(t.Key, "server-")}, serveAuth...)
	return strings.Join(serve, " ") + " & " + probe + " http://127.0.0.1:PORT/mcp"
}

func execStore(key, impl, cmd string, version func(context.Context, string) string) target {
	return target{entry: entry{Key: key, Implementation: impl, Kind: "store"}, args: []string{"run", "--exec", cmd}, version: version}
}

// refreshReports runs every target (or those only names) and rewrites index.json.
func refreshReports(ctx context.Context, dir, only string) error {
	tmp, err := os.MkdirTemp("", "compat")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := build(ctx, tmp)
	if err != nil {
		return err
	}
	var index []entry
	_ = readJSON(filepath.Join(dir, "index.json"), &index) // none yet: every target is new
	var failed []string
	for _, t := range targets() {
		if only != "" && !slices.Contains(strings.Split(only, ","), t.Key) {
			continue
		}
		if err := refreshOne(ctx, t, bin, dir, tmp); err != nil {
			fmt.Fprintf(os.Stderr, "compat: %s: %v (its pinned report stays)\n", t.Key, err)
			failed = append(failed, t.Key)
			continue
		}
		t.Version = t.version(ctx, bin)
		t.Command = t.display()
		index = upsert(index, t.entry)
	}
	if err := writeIndex(dir, index); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%w: %s", errRefresh, strings.Join(failed, ", "))
	}
	return nil
}

// build builds storecheck from a clone of the checkout's HEAD, so that the reports name
// a commit anyone can build (uncommitted changes are not in it), with its revision
// recorded whatever GOFLAGS says.
func build(ctx context.Context, tmp string) (string, error) {
	src, bin := filepath.Join(tmp, "src"), filepath.Join(tmp, "storecheck")
	steps := [][]string{
		{"git", "clone", "-q", "--shared", ".", src},
		{"go", "build", "-buildvcs=true", "-o", bin, "./cmd/storecheck"},
	}
	for i, step := range steps {
		cmd := exec.CommandContext(ctx, step[0], step[1:]...)
		if i > 0 {
			cmd.Dir = src
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("compat: %s: %w\n%s", strings.Join(step, " "), err, out)
		}
	}
	return bin, nil
}

// refreshOne runs t and moves its report into dir; t.Command is set to what ran.
func refreshOne(ctx context.Context, t target, bin, dir, tmp string) error {
	start := time.Now()
	log, err := os.Create(filepath.Join(tmp, t.Key+".log"))
	if err != nil {
		return err
	}
	defer log.Close()
	args := slices.Clone(t.args)
	if t.server != nil {
		url, stop, err := t.server(ctx, bin, log)
		if err != nil {
			return err
		}
		defer stop()
		args = append(args, url)
	}
	out := filepath.Join(tmp, t.Key+".json")
	cmd := exec.CommandContext(ctx, bin, append(args[:1:1], append([]string{"--json", out}, args[1:]...)...)...)
	cmd.Stdout, cmd.Stderr = log, log
	runErr := cmd.Run()
	fmt.Fprintf(os.Stderr, "compat: %s: %v in %s\n", t.Key, exitOf(runErr), time.Since(start).Round(time.Second))
	var exit *exec.ExitError
	if runErr != nil && (!errors.As(runErr, &exit) || exit.ExitCode() != 1) {
		return fmt.Errorf("storecheck %s: %w (its log: %s)", strings.Join(args, " "), runErr, tail(log.Name()))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, t.Key+".json"), b, 0o644)
}

func exitOf(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// tail is the last lines of a log, for an error.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

func upsert(index []entry, e entry) []entry {
	for i := range index {
		if index[i].Key == e.Key {
			index[i] = e
			return index
		}
	}
	return append(index, e)
}

// writeIndex writes the index in the order of targets(), entries it does not know last.
func writeIndex(dir string, index []entry) error {
	order := map[string]int{}
	for i, t := range targets() {
		order[t.Key] = i
	}
	slices.SortStableFunc(index, func(a, b entry) int {
		return rankOf(order, a.Key) - rankOf(order, b.Key)
	})
	b, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "index.json"), append(b, '\n'), 0o644)
}

func rankOf(order map[string]int, key string) int {
	if i, ok := order[key]; ok {
		return i
	}
	return len(order)
}

// listening matches the line storecheck serve --mcp writes once it listens.
var listening = regexp.MustCompile(`MCP on (http://\S+/mcp)`)

// referenceServer starts storecheck serve --mcp over adapter on a port of its choosing.
func referenceServer(adapter string) func(context.Context, string, io.Writer) (string, func(), error) {
	return func(ctx context.Context, bin string, log io.Writer) (string, func(), error) {
		args := append([]string{"serve", "--mcp", "127.0.0.1:0", "--adapter", adapter}, serveAuth...)
		return startServer(ctx, exec.Command(bin, args...), listening, false, log)
	}
}

// sdkServer starts the TypeScript SDK's server, which says its port on stdout.
func sdkServer(ctx context.Context, _ string, log io.Writer) (string, func(), error) {
	cmd := exec.Command("node", "server.mjs", "0")
	cmd.Dir = "examples/typescript-sdk"
	url, stop, err := startServer(ctx, cmd, regexp.MustCompile(`^listening (\d+)`), true, log)
	return "http://127.0.0.1:" + url + "/mcp", stop, err
}

// startServer starts cmd and waits (3 minutes at most: a container may be pulled up) for
// the first submatch of ready on its stdout or stderr; stop interrupts it and waits for
// it to close what it opened.
func startServer(ctx context.Context, cmd *exec.Cmd, ready *regexp.Regexp, stdout bool, log io.Writer) (string, func(), error) {
	pipe, err := cmd.StderrPipe()
	if stdout {
		cmd.Stderr = log
		pipe, err = cmd.StdoutPipe()
	} else {
		cmd.Stdout = log
	}
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
		_ = cmd.Wait()
		timer.Stop()
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if m := ready.FindStringSubmatch(sc.Text()); m != nil && len(found) == 0 {
				found <- m[1]
			}
		}
	}()
	select {
	case addr := <-found:
		return addr, stop, nil
	case <-time.After(3 * time.Minute):
	case <-ctx.Done():
	}
	stop()
	return "", nil, fmt.Errorf("%s did not say where it listens", strings.Join(cmd.Args, " "))
}

// ofStorecheck is the version of the storecheck that ran: a storecheck adapter's.
func ofStorecheck(ctx context.Context, bin string) string {
	out, err := exec.CommandContext(ctx, bin, "version", "--json").Output()
	var v struct{ Version, Revision string }
	if err != nil || json.Unmarshal(out, &v) != nil {
		return "unknown"
	}
	return "storecheck " + shortVersion(v.Version, v.Revision)
}

// commandVersion is what of name args' output matches pattern, each match once.
func commandVersion(pattern, name string, args ...string) func(context.Context, string) string {
	re := regexp.MustCompile(pattern)
	return func(ctx context.Context, _ string) string {
		out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
		if err != nil {
			return "unknown"
		}
		return strings.Join(slices.Compact(re.FindAllString(string(out), -1)), ", ")
	}
}

// sdkVersion is the TypeScript SDK version examples/typescript-sdk pins.
func sdkVersion(context.Context, string) string {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if readJSON("examples/typescript-sdk/package.json", &pkg) != nil {
		return "unknown"
	}
	return "@modelcontextprotocol/sdk " + pkg.Dependencies["@modelcontextprotocol/sdk"]
}
