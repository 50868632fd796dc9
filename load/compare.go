package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/storecheck/storecheck/schema"
)

// Direction says which way the comparison's ratios read.
const Direction = "the first subject ahead by (×): above 1 the first is ahead (more tasks a second, shorter latency)"

// Comparison is the same load run against several subjects in turn.
type Comparison struct {
	Direction string     `json:"ratios"`
	Subjects  []Compared `json:"subjects"`
}

// Compared is one subject's run: its verdict, its figures, and its ratios against
// the first subject's (none for the first).
type Compared struct {
	Name string `json:"name"`
	// Verdict is passed, failed (a violation), not exercised (no task followed to its
	// end) or unreachable (not reached or not started: no run made, Why says why).
	Verdict      string             `json:"verdict"`
	Why          string             `json:"why,omitempty"`
	Result       *Result            `json:"result,omitempty"`
	FirstAheadBy map[string]float64 `json:"first_ahead_by,omitempty"`
}

// Passed reports whether every subject's run passed.
func (c *Comparison) Passed() bool {
	for _, s := range c.Subjects {
		if s.Verdict != verdictPassed {
			return false
		}
	}
	return len(c.Subjects) > 0
}

const (
	verdictPassed      = "passed"
	verdictFailed      = "failed"
	verdictNone        = "not exercised"
	verdictUnreachable = "unreachable"
)

// Compare runs cfg against each subject in turn, each started fresh when it is a
// command and stopped after its run; done, when set, is told of each run as it ends.
// A subject that fails or cannot be reached does not stop the others. An error is a
// configuration no run can be made with.
func Compare(ctx context.Context, cfg Config, subjects []Subject, done func(Compared)) (*Comparison, error) {
	if err := CheckSubjects(subjects); err != nil {
		return nil, err
	}
	for _, s := range subjects {
		if err := s.check(); err != nil {
			return nil, err
		}
	}
	out := &Comparison{Direction: Direction}
	for _, s := range subjects {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "load: subject %s\n", s.Name)
		}
		c, err := runSubject(ctx, cfg, s)
		if err != nil {
			return nil, err
		}
		out.Subjects = append(out.Subjects, c)
		if done != nil {
			done(c)
		}
	}
	first := out.Subjects[0].Result
	for i := range out.Subjects[1:] {
		s := &out.Subjects[i+1]
		if first != nil && s.Result != nil {
			s.FirstAheadBy = map[string]float64{}
			for _, r := range figureRows([]*Result{first, s.Result}) {
				if v := r.ahead(r.vals[0], r.vals[1]); !math.IsNaN(v) {
					s.FirstAheadBy[r.name] = math.Round(v*100) / 100
				}
			}
		}
	}
	return out, nil
}

// runSubject runs cfg against s; an unreachable subject is a Compared, not an error.
func runSubject(ctx context.Context, cfg Config, s Subject) (Compared, error) {
	c := Compared{Name: s.Name}
	scfg, stop, err := s.start(ctx, cfg)
	defer stop()
	if errors.Is(err, errUnreachable) {
		c.Verdict, c.Why = verdictUnreachable, err.Error()
		return c, nil
	}
	r, err := Run(ctx, scfg)
	if err != nil {
		return c, fmt.Errorf("subject %q: %w", s.Name, err)
	}
	c.Result, c.Verdict = r, verdictPassed
	switch {
	case r.ViolationCount > 0:
		c.Verdict, c.Why = verdictFailed, fmt.Sprintf("%d violations", r.ViolationCount)
	case r.Tasks == 0:
		c.Verdict, c.Why = verdictNone, "no task was made and followed to its end"
	}
	return c, nil
}

// row is one figure of every subject (NaN: the subject has none).
type row struct {
	name   string
	vals   []float64
	format string
	more   bool // more is better (a rate); else less is (a latency)
}

// ahead is how far a is ahead of b on the row's figure (NaN when either is missing or
// the divisor is zero).
func (r row) ahead(a, b float64) float64 {
	x, y := a, b
	if !r.more {
		x, y = b, a
	}
	if math.IsNaN(x) || math.IsNaN(y) || y == 0 {
		return math.NaN()
	}
	return x / y
}

// figureRows are the figures compared: tasks a second, then each operation's p50 and
// p99, the operations of every subject in order.
func figureRows(rs []*Result) []row {
	rate := row{name: "tasks/s", format: "%.0f", more: true}
	methods := map[string]bool{}
	for _, r := range rs {
		v := math.NaN()
		if r != nil {
			v = r.TasksPerSec
			for _, op := range r.Ops {
				methods[op.Method] = true
			}
		}
		rate.vals = append(rate.vals, v)
	}
	names := make([]string, 0, len(methods))
	for m := range methods {
		names = append(names, m)
	}
	sort.Strings(names)
	out := []row{rate}
	for _, m := range names {
		p50, p99 := row{name: m + " p50 ms", format: "%.2f"}, row{name: m + " p99 ms", format: "%.2f"}
		for _, r := range rs {
			op, ok := opOf(r, m)
			p50.vals = append(p50.vals, pick(ok, op.P50))
			p99.vals = append(p99.vals, pick(ok, op.P99))
		}
		out = append(out, p50, p99)
	}
	return out
}

func opOf(r *Result, method string) (Op, bool) {
	if r == nil {
		return Op{}, false
	}
	for _, op := range r.Ops {
		if op.Method == method {
			return op, true
		}
	}
	return Op{}, false
}

func pick(ok bool, v float64) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

// WriteComparison writes the subjects side by side: a column each, with the verdict,
// the violations, tasks a second and each operation's p50 and p99; every subject after
// the first carries its ratio against the first (above 1: the first is ahead).
func WriteComparison(w io.Writer, c *Comparison) error {
	first := c.Subjects[0].Name
	fmt.Fprintf(w, "compared; (N×) is how far %s is ahead of the subject: above 1 %s is ahead (more tasks a second, shorter latency)\n", first, first)
	results := make([]*Result, len(c.Subjects))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head, verdicts, violations := []string{"figure"}, []string{"verdict"}, []string{"violations"}
	for i, s := range c.Subjects {
		results[i] = s.Result
		head, verdicts = append(head, s.Name), append(verdicts, s.Verdict)
		subject, v := s.Why, "-"
		if s.Result != nil {
			subject, v = s.Result.Subject, fmt.Sprint(s.Result.ViolationCount)
		}
		violations = append(violations, v)
		fmt.Fprintf(w, "  %s: %s\n", s.Name, subject)
	}
	for _, cells := range [][]string{head, verdicts, violations} {
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	for _, r := range figureRows(results) {
		cells := []string{r.name}
		for i, v := range r.vals {
			cell := "-"
			if !math.IsNaN(v) {
				cell = fmt.Sprintf(r.format, v)
			}
			if a := r.ahead(r.vals[0], v); i > 0 && !math.IsNaN(a) {
				cell += fmt.Sprintf(" (%.2f×)", a)
			}
			cells = append(cells, cell)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	return tw.Flush()
}

// WriteComparisonJSON writes the comparison as JSON: every subject's verdict, result
// and ratios.
func WriteComparisonJSON(w io.Writer, c *Comparison) error {
	return writeReport(w, struct {
		header
		*Comparison
	}{newHeader(schema.LoadComparison), c})
}
