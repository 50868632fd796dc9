package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/servermutants"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/schema"
	"github.com/storecheck/storecheck/version"
)

// serverMutantRun is the probe's run against the reference MCP server with one defect.
type serverMutantRun struct {
	name, rules string
	killed      bool // for an honest run: passed
	honest      bool
	why         string
	took        time.Duration
	// rows are the probe's rows that did not pass ("ID era outcome"): the kill set.
	rows []string
}

// runServerMutants probes the reference MCP server over memstore, honest and with each of
// its deliberate defects (servermutants.Catalogue), on loopback: the honest server must pass
// strict, and each mutant must fail exactly the rules it declares.
func runServerMutants(c *app, only string, parallel int, list bool, jsonPath string) int {
	var picked []mutant.Mutant[servermutants.Build]
	for _, name := range strings.Split(only, ",") {
		if _, ok := servermutants.ByName(strings.TrimSpace(name)); only != "" && !ok {
			fmt.Fprintf(c.stderr, "storecheck mutants --server: --only: no server mutant %q\n", name)
			return exitUsage
		}
	}
	for _, m := range servermutants.Catalogue() {
		// A defect of stdio only is the honest server over HTTP, where these runs serve:
		// the probe's stdio tests run it.
		if (only == "" || slices.Contains(strings.Split(only, ","), m.Name)) && !m.Build.StdioOnly {
			picked = append(picked, m)
		}
	}
	if list {
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVER MUTANT\tBREAKS")
		for _, m := range picked {
			fmt.Fprintf(tw, "%s\t%s\n", m.Name, breaks(m))
		}
		tw.Flush()
		return exitOK
	}
	picked = append([]mutant.Mutant[servermutants.Build]{{Name: honestServer, Build: servermutants.Build{Honest: true}}}, picked...)
	runs := make([]serverMutantRun, len(picked))
	var g errgroup.Group
	g.SetLimit(max(parallel, 1))
	for i, m := range picked {
		g.Go(func() error {
			runs[i] = probeMutant(c.ctx, m)
			if c.progress {
				fmt.Fprintf(c.stderr, "  %-24s %s\n", runs[i].name, serverVerdict(runs[i]))
			}
			return nil
		})
	}
	_ = g.Wait() // every run records its own failure
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER MUTANT\tBREAKS\tVERDICT\tTOOK")
	code, killed := exitOK, 0
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\n", r.name, r.rules, serverVerdict(r), r.took.Round(100*time.Millisecond))
		switch {
		case r.killed && !r.honest:
			killed++
		case !r.killed:
			code = exitFailed
		}
	}
	tw.Flush()
	fmt.Fprintf(c.stdout, "\nserver mutants killed: %d/%d\n", killed, len(runs)-honest(runs))
	if err := writeServerVerdicts(jsonPath, runs); err != nil {
		fmt.Fprintf(c.stderr, "storecheck mutants --server: --json: %v\n", err)
		return exitUsage
	}
	return code
}

// writeServerVerdicts writes each run's verdict and kill set as JSON to path ("" none):
// what scripts/compare-behaviour compares between two revisions.
func writeServerVerdicts(path string, runs []serverMutantRun) error {
	if path == "" {
		return nil
	}
	type verdict struct {
		Mutant    string   `json:"mutant"`
		Breaks    string   `json:"breaks"`
		Verdict   string   `json:"verdict"`
		Why       string   `json:"why,omitempty"`
		NotPassed []string `json:"not_passed"`
	}
	out := struct {
		Schema     string       `json:"schema"`
		Storecheck version.Info `json:"storecheck"`
		Verdicts   []verdict    `json:"verdicts"`
	}{Schema: schema.ServerMutants, Storecheck: version.Get()}
	for _, r := range runs {
		word, _, _ := strings.Cut(serverVerdict(r), ":")
		out.Verdicts = append(out.Verdicts, verdict{Mutant: r.name, Breaks: r.rules, Verdict: strings.ToLower(word), Why: r.why, NotPassed: r.rows})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// rowsOutside lists r's rows ("ID era outcome") whose outcome is none of keep.
func rowsOutside(r *conformance.Report, keep ...conformance.Outcome) []string {
	var out []string
	for _, rr := range r.Rules {
		if !slices.Contains(keep, rr.Outcome) {
			out = append(out, fmt.Sprintf("%s %s %s", rr.ID, rr.Era, rr.Outcome))
		}
	}
	return out
}

// causes is rows as a run's why ("" for none).
func causes(rows []string) string {
	if len(rows) == 0 {
		return ""
	}
	return strings.Join(rows, "; ") + "; "
}

// honestServer names the honest server's row.
const honestServer = "(honest)"

// breaks is what the list says a mutant breaks.
func breaks(m mutant.Mutant[servermutants.Build]) string {
	if m.Build.Honest {
		return "- (honest twin: must pass)"
	}
	if m.Build.Empty {
		return "- (no tasks: must exercise no rule)"
	}
	if m.Build.LoadOnly {
		return "- (load only: must pass; storecheck load fails " + strings.Join(m.Breaks, " ") + ")"
	}
	return strings.Join(m.Breaks, " ")
}

// honest counts the runs that must pass.
func honest(runs []serverMutantRun) int {
	n := 0
	for _, r := range runs {
		if r.honest {
			n++
		}
	}
	return n
}

func serverVerdict(r serverMutantRun) string {
	switch {
	case r.honest && r.killed:
		return "passed"
	case r.honest:
		return "FAILED: " + r.why
	case r.killed:
		return "killed"
	}
	return "NOT KILLED: " + r.why
}

// probeMutant serves the reference server with the defect of m (none for the honest
// server) on a loopback port and probes it in both eras under strict. An honest run
// (the server, or an honest twin) "killed" means it passed.
func probeMutant(ctx context.Context, m mutant.Mutant[servermutants.Build]) (out serverMutantRun) {
	// A load-only defect must pass the probe's sequential checks (storecheck load fails it).
	out = serverMutantRun{name: m.Name, rules: breaks(m), honest: m.Build.Honest || m.Build.LoadOnly}
	if m.Name == honestServer {
		out.rules = "-"
	}
	started := time.Now()
	defer func() { out.took = time.Since(started) }()
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		out.why = err.Error()
		return out
	}
	hs := &http.Server{}
	var once sync.Once
	die := func() { once.Do(func() { _ = hs.Close() }) }
	// A task limit per principal, so that V-LIMIT-1 meets one: far above what any other
	// check keeps running at once.
	srv, err := server.New(m.Build.Configure(server.Config{Legacy: st.Legacy(), Modern: st.Modern(),
		Principals: map[string]string{"storecheck-a": "alice", "storecheck-b": "bob"}, MaxTasksPerPrincipal: 16}, die))
	if err != nil {
		ln.Close()
		out.why = err.Error()
		return out
	}
	defer srv.Close()
	hs.Handler = srv
	go func() { _ = hs.Serve(ln) }()
	defer die()
	r, err := probe.Run(ctx, probe.Config{URL: "http://" + ln.Addr().String() + "/mcp", Strict: true,
		Principals: []probe.Principal{{Name: "alice", Token: "storecheck-a"}, {Name: "bob", Token: "storecheck-b"}}})
	if err != nil {
		out.why = err.Error()
		return out
	}
	out.rows = rowsOutside(r, conformance.Passed)
	if out.honest {
		out.why = causes(rowsOutside(r, conformance.Passed, conformance.NotExercised))
		out.killed = r.OK() && out.why == ""
		return out
	}
	if m.Build.Empty {
		// Nothing to exercise: killed when the run fails for having exercised no rule.
		_, none := r.NoneExercised()
		out.why = causes(rowsOutside(r, conformance.NotExercised))
		out.killed = none && !r.OK() && out.why == ""
		return out
	}
	out.killed, out.why = probe.Killed(r, m.Breaks)
	return out
}
