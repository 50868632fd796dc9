package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// serverMutantRun is the probe's run against the reference MCP server with one defect.
type serverMutantRun struct {
	name, rules string
	killed      bool
	why         string
	took        time.Duration
}

// runServerMutants probes the reference MCP server over memstore, honest and with each of
// its deliberate defects (server.Mutants), on loopback: the honest server must pass
// strict, and each mutant must fail exactly the rules it declares.
func runServerMutants(c *app, only string, parallel int, list bool) int {
	names := []string{""}
	for _, name := range strings.Split(only, ",") {
		if _, ok := server.Mutants[strings.TrimSpace(name)]; only != "" && !ok {
			fmt.Fprintf(c.stderr, "storecheck mutants --server: --only: no server mutant %q\n", name)
			return exitUsage
		}
	}
	for name := range server.Mutants {
		if only == "" || slices.Contains(strings.Split(only, ","), name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if list {
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVER MUTANT\tBREAKS")
		for _, name := range names[1:] {
			fmt.Fprintf(tw, "%s\t%s\n", name, server.Mutants[name])
		}
		tw.Flush()
		return exitOK
	}
	runs := make([]serverMutantRun, len(names))
	var g errgroup.Group
	g.SetLimit(max(parallel, 1))
	for i, name := range names {
		g.Go(func() error {
			runs[i] = probeMutant(c.ctx, name)
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
		case r.killed && r.name != "(honest)":
			killed++
		case !r.killed:
			code = exitFailed
		}
	}
	tw.Flush()
	fmt.Fprintf(c.stdout, "\nserver mutants killed: %d/%d\n", killed, len(runs)-1)
	return code
}

func serverVerdict(r serverMutantRun) string {
	switch {
	case r.name == "(honest)" && r.killed:
		return "passed"
	case r.name == "(honest)":
		return "FAILED: " + r.why
	case r.killed:
		return "killed"
	}
	return "NOT KILLED: " + r.why
}

// probeMutant serves the reference server with mutant ("" = honest) on a loopback port
// and probes it in both eras under strict.
func probeMutant(ctx context.Context, mutant string) (out serverMutantRun) {
	out = serverMutantRun{name: mutant, rules: server.Mutants[mutant]}
	if mutant == "" {
		out.name, out.rules = "(honest)", "-"
	}
	started := time.Now()
	defer func() { out.took = time.Since(started) }()
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	// A task limit per principal, so that V-LIMIT-1 meets one: far above what any other
	// check keeps running at once.
	srv, err := server.New(server.Config{Legacy: st.Legacy(), Modern: st.Modern(), Mutant: mutant,
		Principals: map[string]string{"storecheck-a": "alice", "storecheck-b": "bob"}, MaxTasksPerPrincipal: 16})
	if err != nil {
		out.why = err.Error()
		return out
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		out.why = err.Error()
		return out
	}
	hs := &http.Server{Handler: srv}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	r, err := probe.Run(ctx, probe.Config{URL: "http://" + ln.Addr().String() + "/mcp", Strict: true,
		Principals: []probe.Principal{{Name: "alice", Token: "storecheck-a"}, {Name: "bob", Token: "storecheck-b"}}})
	if err != nil {
		out.why = err.Error()
		return out
	}
	if mutant == "" {
		out.killed = r.OK()
		for _, rr := range r.Rules {
			if rr.Outcome != conformance.Passed && rr.Outcome != conformance.NotExercised {
				out.why += fmt.Sprintf("%s %s %s; ", rr.ID, rr.Era, rr.Outcome)
			}
		}
		out.killed = out.killed && out.why == ""
		return out
	}
	out.killed, out.why = probe.Killed(r, strings.Fields(out.rules))
	return out
}
