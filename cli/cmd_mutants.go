package cli

import (
	"context"
	"encoding/json"
	"flag"
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
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/schema"
	"github.com/storecheck/storecheck/version"
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

// mutantsHelp is storecheck mutants' help, after its usage line.
func mutantsHelp() string {
	return `Runs the conformance battery (strict: SHOULD faults count) against every store of
the mutant catalogue, each with one deliberate defect, and against the honest store
they are all variants of. A mutant is killed when a spec labelled with a rule it
breaks fails on an assertion; a crash, a timeout or an unrelated rule does not count
(B-POWER-1). Once a spec is aborted (the store process died, hung or broke the
protocol, or a namespace could not be brought up) nothing later counts: such a
mutant reads "aborted", never "killed". Exit status 0 when every mutant is killed
and the honest store passes; 1 otherwise; 2 for a usage error.

`
}

// register declares the flags on fs.
func (f *mutantsFlags) register(fs *flag.FlagSet) {
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
}

func runMutants(c *app, args []string) int {
	var f mutantsFlags
	fs := newFlagSet("mutants", "storecheck mutants [flags]", func(w io.Writer) {
		fmt.Fprint(w, mutantsHelp())
	})
	f.register(fs)
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if f.server {
		return runServerMutants(c, f.only, f.parallel, f.list, f.json)
	}
	catalogue, code, ok := c.pickMutants(fs, f)
	if !ok {
		return code
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
		catalogue = overWire(c.stdout, catalogue)
	}
	honest, _ := mutants.Lookup(mutants.HonestName)
	all := append([]mutant.Mutant[mutants.Build]{honest}, catalogue...)
	return reportMutants(c, all, c.runAllMutants(self, dir, all, f), f.json)
}

// pickMutants is the catalogue --only and --natural-races leave; ok is false after a
// usage error, with the exit code.
func (c *app) pickMutants(fs *flag.FlagSet, f mutantsFlags) (catalogue []mutant.Mutant[mutants.Build], code int, ok bool) {
	catalogue = mutants.Catalogue()
	if f.only != "" {
		var picked []mutant.Mutant[mutants.Build]
		for _, name := range strings.Split(f.only, ",") {
			m, ok := mutants.Lookup(strings.TrimSpace(name))
			if !ok {
				code, _ := c.usageError(fs, fmt.Sprintf("--only: no mutant %q", name))
				return nil, code, false
			}
			if m.Name != mutants.HonestName { // the honest store always runs
				picked = append(picked, m)
			}
		}
		catalogue = picked
	}
	if f.races {
		var picked []mutant.Mutant[mutants.Build]
		for _, m := range catalogue {
			if m.Build.NaturalRace() {
				picked = append(picked, m)
			}
		}
		catalogue = picked
	}
	return catalogue, 0, true
}

// overWire is the mutants of catalogue that can be served over the wire; the others are
// named on w.
func overWire(w io.Writer, catalogue []mutant.Mutant[mutants.Build]) []mutant.Mutant[mutants.Build] {
	var served []mutant.Mutant[mutants.Build]
	for _, m := range catalogue {
		if m.Build.InProcessOnly() != "" {
			fmt.Fprintf(w, "not judged over the wire: %s (%s)\n", m.Name, m.Build.InProcessOnly())
			continue
		}
		served = append(served, m)
	}
	return served
}

// runAllMutants runs the battery --runs times against each of all, --parallel at once:
// runs[i][k] is run k of all[i].
func (c *app) runAllMutants(self, dir string, all []mutant.Mutant[mutants.Build], f mutantsFlags) [][]mutantRun {
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
	return runs
}

// runMutant runs the battery against m once: run k of --runs, with seed --seed+k when
// a seed is given and a fresh one otherwise.
func runMutant(ctx context.Context, self, dir string, m mutant.Mutant[mutants.Build], f mutantsFlags, k int) mutantRun {
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
	if len(m.Build.Eras) == 1 {
		args = append(args, "--era", string(m.Build.Eras[0]))
	}
	if only := mutants.OnlyRules(m); len(only) > 0 {
		args = append(args, "--rules", strings.Join(only, ","))
	} else if f.declared && m.Name != mutants.HonestName {
		args = append(args, "--rules", strings.Join(mutants.JudgedRules(m), ","))
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

func verdictWord(m mutant.Mutant[mutants.Build], r mutantRun) string {
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

// mutantRunJSON is one run of a mutant in --json's verdicts (with --runs above 1).
type mutantRunJSON struct {
	Seed        int64    `json:"seed"`
	Killed      bool     `json:"killed"`
	Passed      bool     `json:"passed"`
	KilledBy    []string `json:"killed_by,omitempty"`
	FailedRules []string `json:"failed_rules,omitempty"`
	Crashes     []string `json:"crashes,omitempty"`
	Aborted     string   `json:"aborted,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// mutantVerdictJSON is one mutant's verdict over its runs in --json's output.
type mutantVerdictJSON struct {
	Mutant       string          `json:"mutant"`
	Defect       string          `json:"defect"`
	Breaks       []string        `json:"breaks"`
	Killed       bool            `json:"killed"` // in every run
	Kills        int             `json:"kills"`
	Runs         int             `json:"runs"`
	KilledBy     []string        `json:"killed_by,omitempty"`
	KillingRules []string        `json:"killing_rules,omitempty"`
	FailedRules  []string        `json:"failed_rules,omitempty"`
	Crashes      []string        `json:"crashes,omitempty"`
	Aborted      string          `json:"aborted,omitempty"`
	AbortedSpecs int             `json:"aborted_specs,omitempty"`
	Error        string          `json:"error,omitempty"`
	EachRun      []mutantRunJSON `json:"each_run,omitempty"`
}

// mutantTally is one mutant's runs summed: its verdict, and what its row of the table
// says besides.
type mutantTally struct {
	mutantVerdictJSON
	passes        int           // runs that passed whole, without error
	took          time.Duration // a run's mean time
	errs          []string      // the runs that failed to run
	survivedSeeds []string      // the seeds of the runs a mutant survived
}

// tallyMutant sums the runs of m.
func tallyMutant(m mutant.Mutant[mutants.Build], runs []mutantRun) mutantTally {
	n := len(runs)
	t := mutantTally{mutantVerdictJSON: mutantVerdictJSON{Mutant: m.Name, Defect: m.Defect, Breaks: m.Breaks, Runs: n}}
	for _, r := range runs {
		v := r.verdict
		t.took += r.took
		if v.Killed {
			t.Kills++
		}
		if r.passed && r.err == "" {
			t.passes++
		}
		if r.err != "" {
			t.errs = append(t.errs, r.err)
		} else if !v.Killed && m.Name != mutants.HonestName {
			t.survivedSeeds = append(t.survivedSeeds, fmt.Sprint(r.seed))
		}
		if t.KilledBy == nil {
			t.KilledBy = v.KilledBy
		}
		t.KillingRules = union(t.KillingRules, v.KillingRules)
		t.FailedRules = union(t.FailedRules, v.FailedRules)
		t.Crashes = union(t.Crashes, v.Crashes)
		if t.Aborted == "" {
			t.Aborted = v.Aborted
		}
		t.AbortedSpecs += v.AbortedSpecs
		if n > 1 {
			t.EachRun = append(t.EachRun, mutantRunJSON{r.seed, v.Killed, r.passed, v.KilledBy, v.FailedRules, v.Crashes, v.Aborted, r.err})
		}
	}
	t.Killed = t.Kills == n
	if len(t.errs) > 0 {
		t.Error = t.errs[0]
	}
	t.took /= time.Duration(n)
	return t
}

// honestNote is the honest store's note in the table; passed is whether it passed every
// run, as it must.
func honestNote(m mutant.Mutant[mutants.Build], first mutantRun, t mutantTally) (note string, passed bool) {
	note = verdictWord(m, first)
	if t.Runs > 1 {
		note = fmt.Sprintf("passes %d/%d (must pass all)", t.passes, t.Runs)
		if t.passes < t.Runs {
			note = fmt.Sprintf("FAILS: passes only %d/%d; failed rules %s", t.passes, t.Runs, strings.Join(t.FailedRules, ", "))
		}
	}
	return note, t.passes == t.Runs
}

// mutantNote is a mutant's note in the table: the spec that killed it, else why it was
// not killed; with the seeds it survived when some runs killed it and some did not.
func mutantNote(m mutant.Mutant[mutants.Build], first mutantRun, t mutantTally) string {
	note := verdictWord(m, first)
	switch {
	case t.Kills > 0:
		note = t.KilledBy[0]
		if len(t.KilledBy) > 1 {
			note += fmt.Sprintf(" (+%d more)", len(t.KilledBy)-1)
		}
	case len(t.errs) > 0:
		note = "ERROR " + t.errs[0]
	default:
		if len(t.FailedRules) > 0 {
			note += ": failed only " + strings.Join(t.FailedRules, ", ")
		}
		if len(t.Crashes) > 0 {
			note += fmt.Sprintf("; %d crashed or timed out", len(t.Crashes))
		}
		if t.AbortedSpecs > 0 {
			note += fmt.Sprintf("; %d specs aborted", t.AbortedSpecs)
		}
	}
	if t.Kills < t.Runs && t.Kills > 0 {
		note = fmt.Sprintf("survived seeds %s; %s", strings.Join(t.survivedSeeds, ","), note)
	}
	return note
}

// killedWord is the KILLED column: yes or no for one run, k/N for several.
func killedWord(kills, n int) string {
	switch {
	case n > 1:
		return fmt.Sprintf("%d/%d", kills, n)
	case kills == 0:
		return "no"
	}
	return "yes"
}

func reportMutants(c *app, all []mutant.Mutant[mutants.Build], runs [][]mutantRun, jsonPath string) int {
	n := len(runs[0])
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tBREAKS\tKILLED\tKILLED BY / NOTE\tTIME")
	killed, total := 0, 0
	ok := true
	minKills, minName := n, ""
	var verdicts []mutantVerdictJSON
	for i, m := range all {
		t := tallyMutant(m, runs[i])
		verdicts = append(verdicts, t.mutantVerdictJSON)
		if m.Name == mutants.HonestName {
			note, passed := honestNote(m, runs[i][0], t)
			ok = ok && passed
			fmt.Fprintf(tw, "%s\t-\t-\t%s\t%s\n", m.Name, truncate(note, 90), t.took.Round(time.Millisecond))
			continue
		}
		total++
		if t.Kills < minKills || minName == "" {
			minKills, minName = t.Kills, m.Name
		}
		if t.Killed {
			killed++
		} else {
			ok = false
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Name, truncate(strings.Join(m.Breaks, ","), 40), killedWord(t.Kills, n), truncate(mutantNote(m, runs[i][0], t), 90), t.took.Round(time.Millisecond))
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
		out := map[string]any{"schema": schema.Mutants, "storecheck": version.Get(), "killed": killed, "total": total, "runs": n, "verdicts": verdicts}
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

func listMutants(w io.Writer, catalogue []mutant.Mutant[mutants.Build]) int {
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
