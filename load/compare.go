package load

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteComparison writes two runs side by side: tasks a second and each operation's
// p50 and p99, with the ratio of b to a (above 1: a is ahead, faster or quicker).
func WriteComparison(w io.Writer, a, b *Result) error {
	fmt.Fprintf(w, "A: %s\nB: %s\n", a.Subject, b.Subject)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "figure\tA\tB\tA ahead by (×)\t")
	fmt.Fprintf(tw, "tasks/s\t%.0f\t%.0f\t%s\t\n", a.TasksPerSec, b.TasksPerSec, ratio(a.TasksPerSec, b.TasksPerSec))
	bops := map[string]Op{}
	for _, op := range b.Ops {
		bops[op.Method] = op
	}
	for _, op := range a.Ops {
		o, ok := bops[op.Method]
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s p50 ms\t%.2f\t%.2f\t%s\t\n", op.Method, op.P50, o.P50, ratio(o.P50, op.P50))
		fmt.Fprintf(tw, "%s p99 ms\t%.2f\t%.2f\t%s\t\n", op.Method, op.P99, o.P99, ratio(o.P99, op.P99))
	}
	return tw.Flush()
}

// ratio is x/y, or "-" when y is zero.
func ratio(x, y float64) string {
	if y == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x/y)
}
