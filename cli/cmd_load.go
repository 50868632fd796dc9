package cli

import (
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/load"
	"github.com/storecheck/storecheck/probe"
)

func init() {
	addCommand(&command{
		name:    "load",
		summary: "load a live MCP server (or a deployment) with many clients and principals, judged and measured while it runs",
		run:     runLoad,
	})
}

const loadHelp = `
Runs --clients clients at once against an MCP server's Streamable HTTP endpoint, or
against every URL given (the instances of a deployment over a shared store, clients
spread across them), across the --principal credentials and anonymous callers, in
each era: task-augmented tools/call of the probe's tools by role, tasks/get polling,
tasks/result, tasks/cancel, tasks/list, input rounds, and reaches for other
principals' tasks. Every answer is judged as it comes (docs/spec.md 7.1, "Under
load"): a violation names its rule, the request, the caller and the answer, and fails
the run (exit 1). Bounded by --duration and --tasks; every task made is followed to
its end. A progress line a second; at the end tasks/s, p50/p90/p99/max of each
operation, errors by code; --json and --svg write the report and a plot.

Several servers side by side, the same load against each in turn (each command
started fresh for its run and stopped after), in one table with a column a subject and
the ratios against the first (above 1: the first is ahead): --subject NAME=URL[,URL...]
repeated, or --compare FILE naming servers already running or commands to start,
N instances of one or a stdio server, each with its own eras if need be:
  [{"name": "memstore", "urls": ["http://127.0.0.1:8080/mcp"]},
   {"name": "postgres x3", "exec": "storecheck serve --mcp 127.0.0.1:{port} --adapter postgres ...", "instances": 3},
   {"name": "ts-sdk", "urls": ["http://127.0.0.1:8081/mcp"], "eras": ["legacy"]}]
A subject that fails (a violation), ends no task, or cannot be reached or started
fails the run (exit 1); the others still run. --json and --svg then write every
subject's report and one plot. --vs URL compares the loaded server (A) with URL (B).

--ceiling runs the same load against an in-process stub that answers at once: the
generator's own ceiling on this machine.

Example:
  storecheck serve --mcp 127.0.0.1:8080 --principal ta=alice --principal tb=bob --principal tc=carol --principal td=dave &
  storecheck load --clients 64 --duration 60s --principal alice=ta --principal bob=tb \
    --principal carol=tc --principal dave=td http://127.0.0.1:8080/mcp
`

func runLoad(c *app, args []string) int {
	fs := newFlagSet("load", "storecheck load [flags] URL...", func(w io.Writer) { fmt.Fprint(w, loadHelp) })
	var (
		principals   principalTokens
		era, jsonOut string
		mix          string
		svg          string
		noAnon, ceil bool
		cfg          load.Config
		toolsFile    string
		cf           compareFlags
		tokenEnv     string
		df           deployFlags
	)
	fs.Var(&principals, "principal", "a credential `NAME=TOKEN` (a bearer token); give four or more")
	fs.BoolVar(&noAnon, "no-anonymous", false, "no client calls without credentials")
	fs.IntVar(&cfg.Clients, "clients", 64, "`N` clients at once")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "make no task past this time (0: --tasks bounds the run)")
	fs.IntVar(&cfg.Tasks, "tasks", 0, "make at most `N` tasks (0: --duration bounds the run)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "begin at most `N` tasks a second across all clients (0: as fast as the clients go);\nservers compared at one rate meet the same offered load")
	fs.StringVar(&mix, "mix", load.DefaultMix.String(), "the weight of each kind of round: `KIND=W,...`, kinds quick, cancel, input, list, reach\n(kinds not named: none)")
	fs.StringVar(&era, "era", "all", "era: legacy (2025-11-25), modern (2026-07-28) or all (clients in turn)")
	fs.DurationVar(&cfg.Wait, "wait", 30*time.Second, "how long a task may take to end")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "how long to wait for any one answer")
	fs.StringVar(&jsonOut, "json", "", "write the JSON report to `FILE`")
	fs.StringVar(&svg, "svg", "", "write an SVG plot (tasks/s and p99 over time) to `FILE`")
	cf.add(fs)
	fs.BoolVar(&ceil, "ceiling", false, "load an in-process stub that answers at once instead of a URL: the generator's ceiling")
	toolFlags := addToolFlags(fs)
	fs.StringVar(&toolsFile, "tools", "", "the tool of every role in a JSON `FILE`, as storecheck probe takes it")
	fs.String("exec", "", "the server's `CMD [ARGS...]` over stdio, one child a client; the last flag")
	fs.StringVar(&tokenEnv, "token-env", "", "with --exec: the environment `VAR` that carries each client's token to its child")
	df.add(fs)
	rest, urls, command, err := splitProbeArgs(joinVs(args))
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if code, ok := c.parse(fs, rest); !ok {
		return code
	}
	dep, urls, command, err := cf.loaded(ceil, &df, urls, command)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if dep.Copies > 0 || len(dep.URLs) > 0 {
		var stop func()
		if urls, stop, err = dep.Start(c.ctx); err != nil {
			fmt.Fprintf(c.stderr, "storecheck load: %v\n", err)
			return exitUsage
		}
		defer stop()
	}
	tools, err := toolsGiven(fs, toolsFile, toolFlags)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	cfg.Tools, cfg.Principals, cfg.Anonymous, cfg.URLs, cfg.Progress = tools, principals, !noAnon, urls, c.stderr
	cfg.Exec, cfg.TokenEnv = command, tokenEnv
	if cfg.Mix, err = load.ParseMix(mix); err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if cfg.Eras, err = erasFlag(era); err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if ceil {
		stub := httptest.NewServer(load.Stub())
		defer stub.Close()
		cfg.URLs, cfg.Unjudged = []string{stub.URL + "/mcp"}, true
	}
	if cf.comparing() {
		return c.compare(fs, cfg, &cf, urls, command, df.instances > 0, jsonOut, svg)
	}
	return c.load(fs, cfg, jsonOut, svg)
}

// joinVs writes "--vs URL" as "--vs=URL", so that the URL is not taken for the loaded
// server's.
func joinVs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if f := strings.TrimLeft(args[i], "-"); f == "vs" && args[i] != f && i+1 < len(args) {
			out = append(out, args[i]+"="+args[i+1])
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// toolsGiven is the tool of every role as the flags given on fs (and the tools file)
// map them.
func toolsGiven(fs *flag.FlagSet, file string, flags map[probe.Role]*[2]string) (probe.Tools, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return toolMapping(file, flags, given)
}

// erasFlag reads --era: nil for all.
func erasFlag(era string) ([]conformance.Era, error) {
	switch era {
	case "all":
		return nil, nil
	case "legacy", "modern":
		return []conformance.Era{conformance.Era(era)}, nil
	}
	return nil, fmt.Errorf("--era %q: want legacy, modern or all", era)
}

// urlList collects a repeated URL flag.
type urlList []string

func (u *urlList) String() string     { return strings.Join(*u, " ") }
func (u *urlList) Set(v string) error { *u = append(*u, v); return nil }

// load runs cfg and writes its table on stdout and the files named.
func (c *app) load(fs *flag.FlagSet, cfg load.Config, jsonOut, svg string) int {
	r, err := load.Run(c.ctx, cfg)
	if err != nil {
		return c.loadRefused(fs, err)
	}
	_ = load.WriteTable(c.stdout, r)
	if code := writeOut(c, jsonOut, func(w io.Writer) error { return load.WriteJSON(w, r) }); code != exitOK {
		return code
	}
	if code := writeOut(c, svg, func(w io.Writer) error { return load.WriteSVG(w, "storecheck load: "+r.Subject, r) }); code != exitOK {
		return code
	}
	if !r.Passed() {
		return exitFailed
	}
	return exitOK
}
