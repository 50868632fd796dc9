package load

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/storecheck/storecheck/schema"
	"github.com/storecheck/storecheck/version"
)

// WriteTable writes the run's figures: tasks a second, each operation's latencies,
// errors by code, and the violations found.
func WriteTable(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "load: %s, %d clients (%d principals, anonymous %v), eras %s: %d tasks in %.1fs, %.0f tasks/s\n",
		r.Subject, r.Clients, r.Principals, r.Anonymous, strings.Join(r.Eras, " "), r.Tasks, r.Seconds, r.TasksPerSec)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\tcount\tp50 ms\tp90 ms\tp99 ms\tmax ms\t")
	for _, op := range r.Ops {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", op.Method, op.Count, op.P50, op.P90, op.P99, op.Max)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	keys := make([]string, 0, len(r.Errors))
	for k := range r.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "errors: %s: %d\n", k, r.Errors[k])
	}
	if r.Listens.Opened+r.Listens.Refused > 0 {
		fmt.Fprintln(w, r.Listens)
	}
	for _, v := range r.Violations {
		fmt.Fprintf(w, "VIOLATION %s\n", v)
	}
	verdict := "passed: no violation"
	switch {
	case r.ViolationCount > 0:
		verdict = fmt.Sprintf("failed: %d violations", r.ViolationCount)
	case r.Tasks == 0:
		verdict = "not exercised: no task was made and followed to its end (see the errors)"
	}
	_, err := fmt.Fprintln(w, "load:", verdict)
	return err
}

// WriteJSON writes the result as JSON, naming its schema and the storecheck that wrote it
// (docs/reports.md).
func WriteJSON(w io.Writer, r *Result) error {
	return writeReport(w, struct {
		header
		*Result
	}{newHeader(schema.Load), r})
}

// header opens every JSON report: its schema and the storecheck that wrote it.
type header struct {
	Schema     string       `json:"schema"`
	Storecheck version.Info `json:"storecheck"`
}

func newHeader(id string) header { return header{id, version.Get()} }

func writeReport(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteSVG plots the run second by second: tasks ended (bars, left scale) and the p99
// latency of every operation (line, right scale), in the plain style of storecheck
// bench's chart.
func WriteSVG(w io.Writer, title string, r *Result) error {
	const width, height, left, right, top, bottom = 720.0, 320.0, 60.0, 60.0, 30.0, 40.0
	pw, ph := width-left-right, height-top-bottom
	maxTasks, maxP99 := 1.0, 1.0
	for _, p := range r.Timeline {
		maxTasks = max(maxTasks, float64(p.Tasks))
		maxP99 = max(maxP99, p.P99)
	}
	n := max(len(r.Timeline), 1)
	bw := pw / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="13">%s</text>`+"\n", left, esc(title))
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`+"\n", left, top+ph, left+pw, top+ph)
	var line []string
	for i, p := range r.Timeline {
		x := left + float64(i)*bw
		h := ph * float64(p.Tasks) / maxTasks
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#4a7ab5"><title>second %d: %d tasks</title></rect>`+"\n",
			x+1, top+ph-h, max(bw-2, 1), h, p.Second, p.Tasks)
		line = append(line, fmt.Sprintf("%.1f,%.1f", x+bw/2, top+ph-ph*p.P99/maxP99))
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#c0392b" stroke-width="2"/>`+"\n", strings.Join(line, " "))
	fmt.Fprintf(&b, `<text x="4" y="%.0f" fill="#4a7ab5">%.0f tasks/s</text>`+"\n", top+10, maxTasks)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="#c0392b">p99 %.1f ms</text>`+"\n", left+pw+4, top+10, maxP99)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">seconds (0–%d); bars: tasks ended a second; line: p99 latency of every operation</text>`+"\n", left, height-12, n)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
