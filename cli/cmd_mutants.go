package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/mutants"
)

func init() {
	addCommand(&command{
		name:    "mutants",
		summary: "run the battery against every broken store of the mutant catalogue and print the kill rate",
		run:     runMutants,
	})
}

type mutantsFlags struct {
	list     bool
	only     string
	races    bool
	parallel int
	seed     int64
	checks   int
	ops      int
	wire     bool
	json     string
	focus    string
	runs     int
	declared bool
	server   bool
}

// mutantRun is one mutant's battery run, in a child storecheck process: Ginkgo runs
// once per process, and a mutant that crashes or hangs must not take the others down.
type mutantRun struct {
	verdict mutants.Verdict
	passed  bool   // the whole run passed (what the honest store must do)
	err     string // the run itself failed (exit 2, no report)
	seed    int64  // the battery's seed (from its report)
	took    time.Duration
}

func runMutants(c *app, args []string) int {
	var f mutantsFlags
	fs := newFlagSet("mutants", "storecheck mutants [flags]", func(w io.Writer) {
		fmt.Fprint(w, `Runs the conformance battery (strict: SHOULD faults count) against every store of
the mutant catalogue, each with one deliberate defect, and against the honest store
they are all variants of. A mutant is killed when a spec labelled with a rule it
breaks fails on an assertion; a crash, a timeout or an unrelated rule does not count
(B-POWER-1). Once a spec is aborted (the store process died, hung or broke the
protocol, or a namespace could not be brought up) nothing later counts: such a
mutant reads "aborted", never "killed". Exit status 0 when every mutant is killed
and the honest store passes; 1 otherwise; 2 for a usage error.

`)
	})
	fs.BoolVar(&f.list, "list", false, "list the catalogue and exit")
	fs.StringVar(&f.only, "only", "", "run only these mutants (comma-separated names)")
	fs.BoolVar(&f.races, "natural-races", false, "run only the natural race mutants (no sleep widens their window: a run kills one only when\nits racers land in it, so judge them with --runs)")
	fs.IntVar(&f.parallel, "parallel", runtime.GOMAXPROCS(0), "mutants run at once")
	fs.Int64Var(&f.seed, "seed", 0, "seed of the randomised checks (0 picks one per mutant)")
	fs.IntVar(&f.checks, "checks", 0, "rapid checks per state machine (0 = the battery's default)")
	fs.IntVar(&f.ops, "ops", 0, "operations per race history (0 = the battery's default)")
	fs.BoolVar(&f.wire, "wire", false, "serve each mutant over the wire protocol (storecheck serve) and check it through --exec")
	fs.StringVar(&f.json, "json", "", "also write the verdicts as JSON to `FILE`")
	fs.IntVar(&f.runs, "runs", 1, "run the battery against each mutant `N` times, each with its own seed, and print k/N killed;\nthe overall figure is the least k/N (the honest store must pass all N)")
	fs.StringVar(&f.focus, "focus", "", "judge with only the specs whose text matches this regular expression\n(e.g. the property checks: 'state machine|linearizable|racing|increments')")
	fs.BoolVar(&f.declared, "declared", false, "judge each mutant with only the specs of the rules it breaks (and B-REPRO-1's replay):\nthe same kills in a fraction of the time; the honest store still meets the whole battery")
	fs.BoolVar(&f.server, "server", false, "judge the reference MCP server's deliberate defects instead: storecheck probe against each\n(on loopback, both eras, strict), each killed by exactly the rules it breaks (--only names some)")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if f.server {
		return runServerMutants(c, f.only, f.parallel, f.list)
	}
	catalogue := mutants.Catalogue()
	if f.only != "" {
		var picked []mutants.Mutant
		for _, name := range strings.Split(f.only, ",") {
			m, ok := mutants.Lookup(strings.TrimSpace(name))
			if !ok {
				code, _ := c.usageError(fs, fmt.Sprintf("--only: no mutant %q", name))
				return code
			}
			if m.Name != mutants.HonestName { // the honest store always runs
				picked = append(picked, m)
			}
		}
		catalogue = picked
	}
	if f.races {
		var picked []mutants.Mutant
		for _, m := range catalogue {
			if m.NaturalRace() {
				picked = append(picked, m)
			}
		}
		catalogue = picked
	}
	if f.list {
		return listMutants(c.stdout, catalogue)
	}
	if f.runs < 1 {
		code, _ := c.usageError(fs, "--runs must be at least 1")
		return code
	}
	if f.parallel < 1 {
		code, _ := c.usageError(fs, "--parallel must be at least 1")
		return code
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck mutants: cannot find my own binary: %v\n", err)
		return exitUsage
	}
	dir, err := os.MkdirTemp("", "storecheck-mutants-")
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck mutants: %v\n", err)
		return exitUsage
	}
	defer os.RemoveAll(dir)

	if f.wire {
		var overWire []mutants.Mutant
		for _, m := range catalogue {
			if m.InProcessOnly() != "" {
				fmt.Fprintf(c.stdout, "not judged over the wire: %s (%s)\n", m.Name, m.InProcessOnly())
				continue
			}
			overWire = append(overWire, m)
		}
		catalogue = overWire
	}
	honest, _ := mutants.Lookup(mutants.HonestName)
	all := append([]mutants.Mutant{honest}, catalogue...)
	runs := make([][]mutantRun, len(all))
	for i := range runs {
		runs[i] = make([]mutantRun, f.runs)
	}
	var g errgroup.Group
	g.SetLimit(f.parallel)
	for k := range f.runs {
		for i, m := range all {
			g.Go(func() error {
				r := runMutant(c.ctx, self, dir, m, f, k)
				runs[i][k] = r
				if c.progress {
					fmt.Fprintf(c.stderr, "  %-26s run %d/%d: %s\n", m.Name, k+1, f.runs, verdictWord(m, r))
				}
				return nil
			})
		}
	}
	_ = g.Wait() // every run records its own failure
	return reportMutants(c, all, runs, f.json)
}

// runMutant runs the battery against m once: run k of --runs, with seed --seed+k when
// a seed is given and a fresh one otherwise.
func runMutant(ctx context.Context, self, dir string, m mutants.Mutant, f mutantsFlags, k int) mutantRun {
	out := filepath.Join(dir, fmt.Sprintf("%s-%d.json", m.Name, k))
	if f.seed != 0 {
		f.seed += int64(k)
	}
	args := []string{"run", "--strict", "--json", out, "--run-timeout", "10m"}
	if f.wire {
		args = append(args, "--adapter", "exec", "--exec", strconv.Quote(self)+" serve --facade --adapter mutant:"+m.Name)
	} else {
		args = append(args, "--adapter", "mutant:"+m.Name)
	}
	if len(m.Eras) == 1 {
		args = append(args, "--era", string(m.Eras[0]))
	}
	if only := m.OnlyRules(); len(only) > 0 {
		args = append(args, "--rules", strings.Join(only, ","))
	} else if f.declared && m.Name != mutants.HonestName {
		args = append(args, "--rules", strings.Join(m.JudgedRules(), ","))
	}
	if f.focus != "" {
		args = append(args, "--focus", f.focus)
	}
	for flagName, v := range map[string]int64{"seed": f.seed, "checks": int64(f.checks), "ops": int64(f.ops)} {
		if v != 0 {
			args = append(args, "--"+flagName, strconv.FormatInt(v, 10))
		}
	}
	started := time.Now()
	cmd := exec.CommandContext(ctx, self, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	run := mutantRun{took: time.Since(started), passed: err == nil}
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		run.err = fmt.Sprintf("no report (%v): %s", err, lastLines(stderr.String(), 5))
		return run
	}
	var report conformance.Report
	if jerr := json.Unmarshal(data, &report); jerr != nil {
		run.err = fmt.Sprintf("unreadable report: %v", jerr)
		return run
	}
	run.verdict = mutants.Judge(m, &report)
	run.seed = report.Seed
	if m.Name == mutants.HonestName {
		// The honest store must draw no false alarm; a race check that could not tell
		// on a busy machine (inconclusive) is not one.
		run.passed = len(report.Alarms()) == 0
	}
	return run
}

func verdictWord(m mutants.Mutant, r mutantRun) string {
	switch {
	case r.err != "":
		return "ERROR " + r.err
	case m.Name == mutants.HonestName && r.passed:
		return "passes (as it must)"
	case m.Name == mutants.HonestName:
		return "FAILS: the honest store must pass (rules " + strings.Join(r.verdict.FailedRules, ", ") + ")"
	case r.verdict.Killed:
		return "killed"
	case r.verdict.Aborted != "":
		return "ABORTED (not killed): " + firstLineOf(r.verdict.Aborted)
	}
	return "SURVIVED"
}

func reportMutants(c *app, all []mutants.Mutant, runs [][]mutantRun, jsonPath string) int {
	n := len(runs[0])
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tBREAKS\tKILLED\tKILLED BY / NOTE\tTIME")
	killed, total := 0, 0
	ok := true
	minKills, minName := n, ""
	type jsonRun struct {
		Seed        int64    `json:"seed"`
		Killed      bool     `json:"killed"`
		Passed      bool     `json:"passed"`
		KilledBy    []string `json:"killed_by,omitempty"`
		FailedRules []string `json:"failed_rules,omitempty"`
		Crashes     []string `json:"crashes,omitempty"`
		Aborted     string   `json:"aborted,omitempty"`
		Error       string   `json:"error,omitempty"`
	}
	type jsonVerdict struct {
		Mutant       string    `json:"mutant"`
		Defect       string    `json:"defect"`
		Breaks       []string  `json:"breaks"`
		Killed       bool      `json:"killed"` // in every run
		Kills        int       `json:"kills"`
		Runs         int       `json:"runs"`
		KilledBy     []string  `json:"killed_by,omitempty"`
		KillingRules []string  `json:"killing_rules,omitempty"`
		FailedRules  []string  `json:"failed_rules,omitempty"`
		Crashes      []string  `json:"crashes,omitempty"`
		Aborted      string    `json:"aborted,omitempty"`
		AbortedSpecs int       `json:"aborted_specs,omitempty"`
		Error        string    `json:"error,omitempty"`
		EachRun      []jsonRun `json:"each_run,omitempty"`
	}
	var verdicts []jsonVerdict
	for i, m := range all {
		kills, passes := 0, 0
		var took time.Duration
		var errs, survivedSeeds []string
		jv := jsonVerdict{Mutant: m.Name, Defect: m.Defect, Breaks: m.Breaks, Runs: n}
		for _, r := range runs[i] {
			v := r.verdict
			took += r.took
			if v.Killed {
				kills++
			}
			if r.passed && r.err == "" {
				passes++
			}
			if r.err != "" {
				errs = append(errs, r.err)
			} else if !v.Killed && m.Name != mutants.HonestName {
				survivedSeeds = append(survivedSeeds, fmt.Sprint(r.seed))
			}
			if jv.KilledBy == nil {
				jv.KilledBy = v.KilledBy
			}
			jv.KillingRules = union(jv.KillingRules, v.KillingRules)
			jv.FailedRules = union(jv.FailedRules, v.FailedRules)
			jv.Crashes = union(jv.Crashes, v.Crashes)
			if jv.Aborted == "" {
				jv.Aborted = v.Aborted
			}
			jv.AbortedSpecs += v.AbortedSpecs
			if n > 1 {
				jv.EachRun = append(jv.EachRun, jsonRun{r.seed, v.Killed, r.passed, v.KilledBy, v.FailedRules, v.Crashes, v.Aborted, r.err})
			}
		}
		jv.Kills, jv.Killed = kills, kills == n
		if len(errs) > 0 {
			jv.Error = errs[0]
		}
		verdicts = append(verdicts, jv)
		took /= time.Duration(n)
		if m.Name == mutants.HonestName {
			note := verdictWord(m, runs[i][0])
			if n > 1 {
				note = fmt.Sprintf("passes %d/%d (must pass all)", passes, n)
				if passes < n {
					note = fmt.Sprintf("FAILS: passes only %d/%d; failed rules %s", passes, n, strings.Join(jv.FailedRules, ", "))
				}
			}
			if passes < n {
				ok = false
			}
			fmt.Fprintf(tw, "%s\t-\t-\t%s\t%s\n", m.Name, truncate(note, 90), took.Round(time.Millisecond))
			continue
		}
		total++
		if kills < minKills || minName == "" {
			minKills, minName = kills, m.Name
		}
		note := verdictWord(m, runs[i][0])
		switch {
		case kills > 0:
			note = jv.KilledBy[0]
			if len(jv.KilledBy) > 1 {
				note += fmt.Sprintf(" (+%d more)", len(jv.KilledBy)-1)
			}
		case len(errs) > 0:
			note = "ERROR " + errs[0]
		default:
			if len(jv.FailedRules) > 0 {
				note += ": failed only " + strings.Join(jv.FailedRules, ", ")
			}
			if len(jv.Crashes) > 0 {
				note += fmt.Sprintf("; %d crashed or timed out", len(jv.Crashes))
			}
			if jv.AbortedSpecs > 0 {
				note += fmt.Sprintf("; %d specs aborted", jv.AbortedSpecs)
			}
		}
		if kills < n && kills > 0 {
			note = fmt.Sprintf("survived seeds %s; %s", strings.Join(survivedSeeds, ","), note)
		}
		if kills == n {
			killed++
		} else {
			ok = false
		}
		word := "yes"
		switch {
		case n > 1:
			word = fmt.Sprintf("%d/%d", kills, n)
		case kills == 0:
			word = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Name, truncate(strings.Join(m.Breaks, ","), 40), word, truncate(note, 90), took.Round(time.Millisecond))
	}
	tw.Flush()
	rate := 100.0
	if total > 0 {
		rate = 100 * float64(killed) / float64(total)
	}
	if n > 1 {
		fmt.Fprintf(c.stdout, "\nkilled in every one of %d runs: %d/%d mutants (%.1f%%); least kills: %d/%d (%s)\n", n, killed, total, rate, minKills, n, minName)
	} else {
		fmt.Fprintf(c.stdout, "\nkill rate: %d/%d (%.1f%%)\n", killed, total, rate)
	}
	if jsonPath != "" {
		out := map[string]any{"killed": killed, "total": total, "runs": n, "verdicts": verdicts}
		if total > 0 {
			out["least_kills"] = minKills
			out["least_killed"] = minName
		}
		data, _ := json.MarshalIndent(out, "", "  ")
		if err := os.WriteFile(jsonPath, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintf(c.stderr, "storecheck mutants: %v\n", err)
			return exitUsage
		}
	}
	if !ok {
		return exitFailed
	}
	return exitOK
}

// union adds the strings of b missing from a, keeping a's order.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

func listMutants(w io.Writer, catalogue []mutants.Mutant) int {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tBREAKS\tDEFECT")
	for _, m := range catalogue {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Name, strings.Join(m.Breaks, ","), m.Defect)
	}
	tw.Flush()
	return exitOK
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func firstLineOf(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
