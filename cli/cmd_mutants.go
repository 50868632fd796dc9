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
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

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
	parallel int
	seed     int64
	checks   int
	ops      int
	wire     bool
	json     string
	focus    string
}

// mutantRun is one mutant's battery run, in a child storecheck process: Ginkgo runs
// once per process, and a mutant that crashes or hangs must not take the others down.
type mutantRun struct {
	verdict mutants.Verdict
	passed  bool   // the whole run passed (what the honest store must do)
	err     string // the run itself failed (exit 2, no report)
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
	fs.IntVar(&f.parallel, "parallel", runtime.GOMAXPROCS(0), "mutants run at once")
	fs.Int64Var(&f.seed, "seed", 0, "seed of the randomised checks (0 picks one per mutant)")
	fs.IntVar(&f.checks, "checks", 0, "rapid checks per state machine (0 = the battery's default)")
	fs.IntVar(&f.ops, "ops", 0, "operations per race history (0 = the battery's default)")
	fs.BoolVar(&f.wire, "wire", false, "serve each mutant over the wire protocol (storecheck serve) and check it through --exec")
	fs.StringVar(&f.json, "json", "", "also write the verdicts as JSON to `FILE`")
	fs.StringVar(&f.focus, "focus", "", "judge with only the specs whose text matches this regular expression\n(e.g. the property checks: 'state machine|linearizable|racing|increments')")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	catalogue := mutants.Catalogue()
	if f.list {
		return listMutants(c.stdout, catalogue)
	}
	if f.only != "" {
		var picked []mutants.Mutant
		for _, name := range strings.Split(f.only, ",") {
			m, ok := mutants.Lookup(strings.TrimSpace(name))
			if !ok {
				code, _ := c.usageError(fs, fmt.Sprintf("--only: no mutant %q", name))
				return code
			}
			picked = append(picked, m)
		}
		catalogue = picked
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
	runs := make([]mutantRun, len(all))
	var wg sync.WaitGroup
	sem := make(chan struct{}, f.parallel)
	for i, m := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i] = runMutant(c.ctx, self, dir, m, f)
			if c.progress {
				fmt.Fprintf(c.stderr, "  %-26s %s\n", m.Name, verdictWord(m, runs[i]))
			}
		}()
	}
	wg.Wait()
	return reportMutants(c, all, runs, f.json)
}

func runMutant(ctx context.Context, self, dir string, m mutants.Mutant, f mutantsFlags) mutantRun {
	out := filepath.Join(dir, m.Name+".json")
	args := []string{"run", "--strict", "--json", out, "--run-timeout", "10m"}
	if f.wire {
		args = append(args, "--adapter", "exec", "--exec", strconv.Quote(self)+" serve --facade --adapter mutant:"+m.Name)
	} else {
		args = append(args, "--adapter", "mutant:"+m.Name)
	}
	if len(m.Eras) == 1 {
		args = append(args, "--era", string(m.Eras[0]))
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

func reportMutants(c *app, all []mutants.Mutant, runs []mutantRun, jsonPath string) int {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tBREAKS\tKILLED\tKILLED BY / NOTE\tTIME")
	killed, total := 0, 0
	ok := true
	type jsonVerdict struct {
		Mutant       string   `json:"mutant"`
		Defect       string   `json:"defect"`
		Breaks       []string `json:"breaks"`
		Killed       bool     `json:"killed"`
		KilledBy     []string `json:"killed_by,omitempty"`
		KillingRules []string `json:"killing_rules,omitempty"`
		FailedRules  []string `json:"failed_rules,omitempty"`
		Crashes      []string `json:"crashes,omitempty"`
		Aborted      string   `json:"aborted,omitempty"`
		AbortedSpecs int      `json:"aborted_specs,omitempty"`
		Error        string   `json:"error,omitempty"`
	}
	var verdicts []jsonVerdict
	for i, m := range all {
		r := runs[i]
		v := r.verdict
		verdicts = append(verdicts, jsonVerdict{m.Name, m.Defect, m.Breaks, v.Killed, v.KilledBy, v.KillingRules, v.FailedRules, v.Crashes, v.Aborted, v.AbortedSpecs, r.err})
		if m.Name == mutants.HonestName {
			if !r.passed || r.err != "" {
				ok = false
			}
			fmt.Fprintf(tw, "%s\t-\t-\t%s\t%s\n", m.Name, verdictWord(m, r), r.took.Round(time.Millisecond))
			continue
		}
		total++
		note := verdictWord(m, r)
		if v.Killed {
			killed++
			note = v.KilledBy[0]
			if len(v.KilledBy) > 1 {
				note += fmt.Sprintf(" (+%d more)", len(v.KilledBy)-1)
			}
		} else {
			ok = false
			if len(v.FailedRules) > 0 {
				note += ": failed only " + strings.Join(v.FailedRules, ", ")
			}
			if len(v.Crashes) > 0 {
				note += fmt.Sprintf("; %d crashed or timed out", len(v.Crashes))
			}
			if v.AbortedSpecs > 0 {
				note += fmt.Sprintf("; %d specs aborted", v.AbortedSpecs)
			}
		}
		yes := "no"
		if v.Killed {
			yes = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Name, truncate(strings.Join(m.Breaks, ","), 40), yes, truncate(note, 90), r.took.Round(time.Millisecond))
	}
	tw.Flush()
	rate := 100.0
	if total > 0 {
		rate = 100 * float64(killed) / float64(total)
	}
	fmt.Fprintf(c.stdout, "\nkill rate: %d/%d (%.1f%%)\n", killed, total, rate)
	if jsonPath != "" {
		data, _ := json.MarshalIndent(map[string]any{"killed": killed, "total": total, "verdicts": verdicts}, "", "  ")
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
