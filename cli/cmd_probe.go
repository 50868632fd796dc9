package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

func init() {
	addCommand(&command{
		name:    "probe",
		summary: "check a live MCP server's tasks over the protocol (server rules V-*), both eras, two principals",
		run:     runProbe,
	})
}

// principalTokens collects --principal NAME=TOKEN in order: the first is the one whose
// tasks the others must not see.
type principalTokens []probe.Principal

func (p *principalTokens) String() string { return fmt.Sprint(*p) }

func (p *principalTokens) Set(v string) error {
	name, token, ok := strings.Cut(v, "=")
	if !ok || name == "" || token == "" {
		return fmt.Errorf("want NAME=TOKEN, got %q", v)
	}
	*p = append(*p, probe.Principal{Name: name, Token: token})
	return nil
}

// probeHelp is storecheck probe's help, after its usage line.
const probeHelp = `Checks a live MCP server's tasks from the outside, over Streamable HTTP or stdio, in the eras it
serves (2025-11-25 tasks and the 2026-07-28 tasks extension), with two or more
principals: the server rules V-* of docs/spec.md section 7. The first principal makes
tasks; the others, and a caller without credentials, must not see them. The report is
the battery's: one row per rule and era.

With --exec (the last flag: every word after it is the server's command line) the server
is a child speaking MCP over stdio, one child per principal (stdio carries no
credentials: --token-env VAR puts each principal's token in its child's environment).
Without --principal, two children without tokens.

Examples:
  storecheck serve --mcp 127.0.0.1:8080 --principal ta=alice --principal tb=bob &
  storecheck probe --principal alice=ta --principal bob=tb http://127.0.0.1:8080/mcp
  storecheck probe --exec storecheck serve --adapter memstore --mcp stdio

A deployment of several instances is probed as one server: several URLs, or --instances N
with the server's command after --exec (its words name each copy's port {port}; the
probe starts the copies on loopback and may kill one). --shape any (every instance
serves every request, over a shared store) or routed (the probe's own router sends
each request to the instance holding its task or session). The ordinary checks go to
the first instance or the router; the V-X* checks create through one instance and read,
cancel, answer and listen through another (docs/mcp.md). With one endpoint they are
not exercised.
  storecheck probe --instances 3 --exec storecheck serve --mcp '127.0.0.1:{port}' --adapter postgres --dsn DSN

Every task is made with a tool mapped to a role (quick, slow, race, failing, erring,
input, long); the defaults are the reference server's tools. Name a server's own with
--ROLE-tool and --ROLE-args, or all at once with --tools FILE (a JSON object:
{"failing": {"tool": "divide", "args": {"by": 0}}, ...}; a flag given overrides the
file). A rule whose tool the server does not list is never passed: not exercised for a
default tool, setup refused for one named.

A check that gets no usable answer (the server hangs past --timeout, answers something
that is not JSON-RPC, refuses or drops the connection) is aborted, its cause named: it
is never passed or failed, and it fails the run.

A line per check on stderr (rule, era, outcome, the check's time and the time since the
start) when stderr is a terminal or -v is given; the summary on stdout lists under the
table each failed, aborted, setup-refused and warned row with what was sent, expected
and got.

Exit status: 0 no rule failed; 1 a rule failed, was aborted or had its setup refused
(or, under --strict, was only partly verified or inconclusive), or no rule was
exercised (a server without tasks, a selection of rules it cannot be checked on:
--allow-empty accepts that); 2 usage error.

`

// addToolFlags adds --ROLE-tool and --ROLE-args for every role, defaulting to the
// reference server's tools: the values are each role's tool and its arguments.
func addToolFlags(fs *flag.FlagSet) map[probe.Role]*[2]string {
	toolFlags := map[probe.Role]*[2]string{}
	for _, role := range probe.Roles {
		name, args := probe.DefaultTools.Tool(role)
		raw, _ := json.Marshal(args)
		f := &[2]string{}
		toolFlags[role] = f
		fs.StringVar(&f[0], string(role)+"-tool", name, role.Kind()+roleUse[role])
		fs.StringVar(&f[1], string(role)+"-args", string(raw), "its arguments, a JSON object ({} when another tool is named without them)")
	}
	return toolFlags
}

// splitProbeArgs parts probe's arguments into the flags, the URLs (which may come
// before or after the flags) and the server's command: --exec takes the rest of the
// line, the command and its own flags.
func splitProbeArgs(args []string) (flags, urls, command []string, err error) {
	for i, a := range args {
		if a == "--exec" || a == "-exec" {
			if i+1 == len(args) {
				return nil, nil, nil, errors.New("--exec: give the server's command")
			}
			words, err := wire.SplitCommand(args[i+1])
			if err != nil {
				return nil, nil, nil, fmt.Errorf("--exec: %w", err)
			}
			args, command = args[:i], append(words, args[i+2:]...)
			break
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
			urls = append(urls, a)
		} else {
			flags = append(flags, a)
		}
	}
	return flags, urls, command, nil
}

func runProbe(c *app, args []string) int {
	fs := newFlagSet("probe", "storecheck probe [flags] URL\n       storecheck probe [flags] --exec CMD [ARGS...]", func(w io.Writer) {
		fmt.Fprint(w, probeHelp)
	})
	var (
		principals     principalTokens
		era, rules     string
		jsonOut, junit string
		strict         bool
		wait, timeout  time.Duration
		toolsFile      string
		tokenEnv       string
		limitTasks     int
		vf             verdictFlags
		df             deployFlags
	)
	fs.Var(&principals, "principal", "a credential `NAME=TOKEN` (a bearer token); give two or more")
	fs.StringVar(&era, "era", "all", "era to probe: legacy (2025-11-25), modern (2026-07-28) or all")
	fs.StringVar(&rules, "rules", "", "probe only these rules: comma-separated V-* IDs")
	fs.String("exec", "", "the server's `CMD [ARGS...]`, spoken to over stdio; the last flag (a single quoted\ncommand line is split like a shell splits words)")
	fs.StringVar(&tokenEnv, "token-env", "", "with --exec: the environment `VAR` that carries each principal's token to its child")
	fs.StringVar(&jsonOut, "json", "", "also write a JSON report to `FILE`")
	fs.StringVar(&junit, "junit", "", "also write a JUnit XML report to `FILE`")
	fs.BoolVar(&strict, "strict", false, "partly verified and inconclusive rules fail the run")
	fs.DurationVar(&wait, "wait", 10*time.Second, "how long a task may take to end")
	fs.DurationVar(&timeout, "timeout", 10*time.Second, "how long to wait for any one answer of the server (tasks/result: --wait more);\na check that gets none is aborted")
	vf.add(fs)
	df.add(fs)
	fs.IntVar(&limitTasks, "limit-tasks", 64, "V-LIMIT-1: how many tasks of the long tool the first principal makes, looking for\nthe server's limit, before the rule reads not exercised")
	toolFlags := addToolFlags(fs)
	fs.StringVar(&toolsFile, "tools", "", "the tool of every role in a JSON `FILE`: {\"quick\": {\"tool\": NAME, \"args\": {...}}, ...},\nroles quick, slow, race, failing, erring, input, long; a --ROLE-tool or --ROLE-args given overrides it")
	rest, urls, command, err := splitProbeArgs(args)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if code, ok := c.parse(fs, rest); !ok {
		return code
	}
	dep, urls, command, err := df.deployment(urls, command)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if tokenEnv != "" && len(command) == 0 {
		code, _ := c.usageError(fs, "--token-env goes with --exec")
		return code
	}
	if limitTasks < 1 {
		code, _ := c.usageError(fs, fmt.Sprintf("--limit-tasks %d: give at least 1", limitTasks))
		return code
	}
	tools, err := toolsGiven(fs, toolsFile, toolFlags)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	cfg := probe.Config{Exec: command, TokenEnv: tokenEnv, Principals: principals, Strict: strict, Wait: wait, Timeout: timeout, Tools: tools,
		LimitTasks: limitTasks, Deployment: dep}
	if len(urls) == 1 {
		cfg.URL = urls[0]
	}
	if cfg.Eras, err = erasFlag(era); err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if rules != "" {
		cfg.Rules = strings.Split(rules, ",")
	}
	if vf.progress(c) {
		cfg.Progress = c.stderr
	}
	return c.probe(fs, cfg, vf, jsonOut, junit)
}

// probe runs the probe of cfg and reports it on stdout and in the report files named.
func (c *app) probe(fs *flag.FlagSet, cfg probe.Config, vf verdictFlags, jsonOut, junit string) int {
	outputs, err := openOutputs(jsonOut, junit)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck probe: %v\n", err)
		return exitUsage
	}
	// After outputs.write (which reports the close) a no-op; on the early returns it
	// releases the files.
	defer func() { _ = outputs.close() }()
	report, err := probe.Run(c.ctx, cfg)
	if err != nil {
		outputs.discard()
		if errors.Is(err, probe.ErrConfig) {
			code, _ := c.usageError(fs, err.Error())
			return code
		}
		fmt.Fprintf(c.stderr, "storecheck probe: %v\n", err)
		return exitUsage
	}
	vf.judge(report)
	if err := report.Summary(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "storecheck probe: writing the summary: %v\n", err)
	}
	if err := outputs.write(report); err != nil {
		fmt.Fprintf(c.stderr, "storecheck probe: %v\n", err)
		return exitUsage
	}
	if causes := abortCauses(report); len(causes) > 0 {
		fmt.Fprintf(c.stderr, "storecheck probe: the server gave no usable answer to %d checks; the verdicts of their rules are unknown:\n", len(causes))
		for _, cause := range causes {
			fmt.Fprintf(c.stderr, "  %s\n", cause)
		}
	}
	return vf.verdict(c, "probe", report)
}

// deployFlags are the flags of a deployment of several instances.
type deployFlags struct {
	instances int
	shape     string
	lease     time.Duration
}

func (d *deployFlags) add(fs *flag.FlagSet) {
	fs.IntVar(&d.instances, "instances", 0, "start `N` copies of the server command given after --exec, each serving Streamable HTTP\non a port of its own: the command names it {port} (its endpoint http://127.0.0.1:{port}/mcp);\nthe probe checks them as one deployment (the V-X* rules) and may kill one (V-XKILL-1)")
	fs.StringVar(&d.shape, "shape", "any", "with several URLs or --instances: how the deployment is reached: any (any instance serves\nany request, over a shared store) or routed (the probe's own router sends each request\nto the instance holding its task, by Mcp-Name, or its session, by Mcp-Session-Id)")
	fs.DurationVar(&d.lease, "lease", 10*time.Second, "with --instances: how long the deployment lets a killed instance's task stay working\nbefore it is taken up again or ended (V-XKILL-1)")
}

// deployment is the deployment the URLs and the command name: several URLs, or a
// command started --instances times; none when one URL or a stdio command is given.
// The URL and command left are those of a server of one endpoint (none for a
// deployment).
func (d *deployFlags) deployment(urls, command []string) (dep probe.Deployment, url, cmd []string, err error) {
	dep = probe.Deployment{Shape: probe.Shape(d.shape), Lease: d.lease}
	switch {
	case d.shape != string(probe.ShapeAny) && d.shape != string(probe.ShapeRouted):
		return dep, nil, nil, fmt.Errorf("--shape %q: want any or routed", d.shape)
	case d.instances < 0 || d.instances == 1:
		return dep, nil, nil, fmt.Errorf("--instances %d: give at least 2", d.instances)
	case d.instances > 0 && (len(command) == 0 || len(urls) > 0):
		return dep, nil, nil, errors.New("--instances goes with the server's command after --exec, and no URL")
	case d.instances > 0:
		dep.Command, dep.Copies = command, d.instances
		return dep, nil, nil, nil
	case len(urls) > 1 && len(command) == 0:
		dep.URLs = urls
		return dep, nil, nil, nil
	case len(urls)+min(len(command), 1) != 1:
		return dep, nil, nil, errors.New("give the server's URL (http://HOST:PORT/mcp), a deployment's URLs, or its command after --exec")
	}
	return dep, urls, command, nil
}

// abortCauses lists the aborted rules of a probe report with the cause each names.
func abortCauses(r *conformance.Report) []string {
	var out []string
	for _, rr := range r.Rules {
		if rr.Outcome != conformance.Aborted {
			continue
		}
		why := "no cause given"
		if len(rr.Reasons) > 0 {
			why, _, _ = strings.Cut(rr.Reasons[0], "\n")
		}
		out = append(out, fmt.Sprintf("%s %s: %s", rr.ID, rr.Era, why))
	}
	return out
}

// roleUse says, after a role's kind in the help, which rules its tool serves.
var roleUse = map[probe.Role]string{
	probe.RoleQuick:   " (most rules), run as a task",
	probe.RoleSlow:    " (V-RESULT-1, V-SHAPE-1, V-NOTIFY-1)",
	probe.RoleRace:    ": V-RACE-1\ncancels it as it ends",
	probe.RoleFailing: " (V-ERROR-1)",
	probe.RoleErring:  " (V-ERROR-1)",
	probe.RoleInput:   "\n(V-INPUT-1, V-INPUT-2, V-INPUT-3)",
	probe.RoleLong:    " (V-LIMIT-1)",
}

// toolMapping is the probe's tools: each role's tool is its --ROLE-tool when given, else
// the tools file's (--tools), else the reference server's; its arguments are its
// --ROLE-args when given, else the file's, else the reference server's for the
// reference server's tool and none for another.
func toolMapping(file string, flags map[probe.Role]*[2]string, given map[string]bool) (probe.Tools, error) {
	var specs map[probe.Role]probe.ToolSpec
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return probe.Tools{}, fmt.Errorf("--tools: %v", err)
		}
		if specs, err = probe.DecodeTools(data); err != nil {
			return probe.Tools{}, fmt.Errorf("--tools %s: %v", file, strings.TrimPrefix(err.Error(), probe.ErrConfig.Error()+": "))
		}
	}
	var tools probe.Tools
	for _, role := range probe.Roles {
		def, defArgs := probe.DefaultTools.Tool(role)
		spec, f := specs[role], flags[role]
		name := def
		if spec.Tool != "" {
			name = spec.Tool
		}
		if given[string(role)+"-tool"] {
			if f[0] == "" {
				return probe.Tools{}, fmt.Errorf("--%s-tool: an empty tool name", role)
			}
			name = f[0]
		}
		var args map[string]any
		switch {
		case given[string(role)+"-args"]:
			a, err := probe.ArgsObject([]byte(f[1]))
			if err != nil {
				return probe.Tools{}, fmt.Errorf("--%s-args: %v", role, err)
			}
			args = a
		case spec.Args != nil:
			args = spec.Args
		case name == def:
			args = defArgs
		}
		tools.SetTool(role, name, args)
	}
	return tools, nil
}
