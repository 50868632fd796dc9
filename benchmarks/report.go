package benchmarks

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
)

// Row is a case in a mode for one target: its store and its baseline side by side.
type Row struct {
	Target         string
	Op             string
	Mode           Mode
	Store, Base    Result
	HasStore, HasB bool
}

// Ratio is baseline ns/op ÷ store ns/op: above 1 the store is faster than its baseline.
// It is 0 when either side is missing.
func (r Row) Ratio() float64 {
	if !r.HasStore || !r.HasB || r.Store.NsPerOp <= 0 || r.Base.NsPerOp <= 0 {
		return 0
	}
	return r.Base.NsPerOp / r.Store.NsPerOp
}

// Rows pairs results by target, op and mode, in the order they came.
func Rows(results []Result) []Row {
	var rows []Row
	index := map[string]int{}
	for _, r := range results {
		key := r.Target + "\x00" + r.Op + "\x00" + string(r.Mode)
		i, ok := index[key]
		if !ok {
			i = len(rows)
			index[key] = i
			rows = append(rows, Row{Target: r.Target, Op: r.Op, Mode: r.Mode})
		}
		if r.Failed != "" {
			continue
		}
		switch r.Subject {
		case "store":
			rows[i].Store, rows[i].HasStore = r, true
		case "baseline":
			rows[i].Base, rows[i].HasB = r, true
		}
	}
	return rows
}

// WriteTable prints one table per target: ns/op, ops/s and allocs/op of the store and of
// its baseline, and their ratio.
func WriteTable(w io.Writer, results []Result) error {
	rows := Rows(results)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	target := ""
	for _, r := range rows {
		if r.Target != target {
			if target != "" {
				fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t")
			}
			target = r.Target
			store, base := whatOf(rows, target)
			fmt.Fprintf(tw, "%s vs %s — ratio = baseline ns/op ÷ store ns/op (> 1: faster than the baseline)\t\t\t\t\t\t\t\t\t\n", store, base)
			fmt.Fprintln(tw, "op\tmode\tstore ns/op\tops/s\tallocs/op\tbaseline ns/op\tops/s\tallocs/op\tratio\t")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Op, r.Mode,
			cell(r.HasStore, r.Store.NsPerOp, fmtNs), cell(r.HasStore, r.Store.OpsPerSec(), fmtOps), cell(r.HasStore, float64(r.Store.AllocsPerOp), fmtCount),
			cell(r.HasB, r.Base.NsPerOp, fmtNs), cell(r.HasB, r.Base.OpsPerSec(), fmtOps), cell(r.HasB, float64(r.Base.AllocsPerOp), fmtCount),
			ratioCell(r))
	}
	for _, r := range results {
		if r.Failed != "" {
			fmt.Fprintf(tw, "FAILED %s: %s\t\t\t\t\t\t\t\t\t\n", r.Name(), r.Failed)
		}
	}
	return tw.Flush()
}

// WriteSideBySide prints the stores of two targets against each other: ns/op of each
// and b's ns/op ÷ a's (> 1: a is faster).
func WriteSideBySide(w io.Writer, a, b []Result) error {
	ra, rb := Rows(a), Rows(b)
	if len(ra) == 0 || len(rb) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	an, bn := ra[0].Target, rb[0].Target
	fmt.Fprintf(tw, "%s vs %s — ratio = %s ns/op ÷ %s ns/op (> 1: %s is faster)\t\t\t\t\t\n", an, bn, bn, an, an)
	fmt.Fprintf(tw, "op\tmode\t%s ns/op\t%s ns/op\tratio\t\n", an, bn)
	for _, x := range ra {
		for _, y := range rb {
			if x.Op != y.Op || x.Mode != y.Mode {
				continue
			}
			ratio := "—"
			if x.HasStore && y.HasStore && x.Store.NsPerOp > 0 {
				ratio = fmt.Sprintf("%.2f×", y.Store.NsPerOp/x.Store.NsPerOp)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", x.Op, x.Mode, cell(x.HasStore, x.Store.NsPerOp, fmtNs), cell(y.HasStore, y.Store.NsPerOp, fmtNs), ratio)
		}
	}
	return tw.Flush()
}

func whatOf(rows []Row, target string) (store, base string) {
	store, base = target, "baseline"
	for _, r := range rows {
		if r.Target != target {
			continue
		}
		if r.HasStore {
			store = r.Store.What
		}
		if r.HasB {
			base = r.Base.What
		}
	}
	return store, base
}

func cell(ok bool, v float64, f func(float64) string) string {
	if !ok {
		return "—"
	}
	return f(v)
}

func ratioCell(r Row) string {
	if q := r.Ratio(); q > 0 {
		return fmt.Sprintf("%.2f×", q)
	}
	return "—"
}

func fmtNs(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func fmtOps(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.1f", v)
}

func fmtCount(v float64) string { return fmt.Sprintf("%.0f", v) }

// WriteBenchstat writes results in the format of `go test -bench` that benchstat reads:
// the goos/goarch/pkg/cpu header, then one line per benchmark with ns/op, B/op and
// allocs/op. Failed benchmarks are left out.
func WriteBenchstat(w io.Writer, results []Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "goos: %s\ngoarch: %s\npkg: github.com/storecheck/storecheck/benchmarks\n", runtime.GOOS, runtime.GOARCH)
	if cpu := CPUModel(); cpu != "" {
		fmt.Fprintf(bw, "cpu: %s\n", cpu)
	}
	procs := Procs()
	for _, r := range results {
		if r.Failed != "" {
			continue
		}
		name := r.Name()
		if procs > 1 {
			name = fmt.Sprintf("%s-%d", name, procs)
		}
		fmt.Fprintf(bw, "%s\t%8d\t%10.1f ns/op\t%8d B/op\t%8d allocs/op\n", name, r.N, r.NsPerOp, r.BytesPerOp, r.AllocsPerOp)
	}
	return bw.Flush()
}

// CPUModel is the processor's model name as `go test` prints it, "" when unknown.
func CPUModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// WriteSVG draws the results as a bar chart: for every target, op and mode one bar per
// subject, length the ns/op on a log scale (shorter is faster), labelled with ns/op and
// the ratio to the baseline.
func WriteSVG(w io.Writer, title string, results []Result) error {
	rows := Rows(results)
	const (
		left, labelW, barMax, right = 10.0, 230.0, 520.0, 170.0
		barH, gap, top              = 14.0, 10.0, 56.0
	)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, x := range []struct {
			ok bool
			v  float64
		}{{r.HasStore, r.Store.NsPerOp}, {r.HasB, r.Base.NsPerOp}} {
			if x.ok && x.v > 0 {
				lo, hi = math.Min(lo, x.v), math.Max(hi, x.v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	scale := func(v float64) float64 {
		return barMax * (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
	}
	width := left + labelW + barMax + right
	height := top + float64(len(rows))*(2*barH+gap) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", left, esc(title))
	fmt.Fprintf(&b, `<text x="%.0f" y="34" fill="#555">ns/op, log scale (shorter is faster); ratio = baseline ns/op ÷ store ns/op</text>`+"\n", left)
	fmt.Fprintf(&b, `<rect x="%.0f" y="40" width="10" height="10" fill="#3b6fb6"/><text x="%.0f" y="49">store</text>`, left+labelW, left+labelW+14)
	fmt.Fprintf(&b, `<rect x="%.0f" y="40" width="10" height="10" fill="#bbbbbb"/><text x="%.0f" y="49">baseline</text>`+"\n", left+labelW+60, left+labelW+74)
	// Decade grid lines.
	x0 := left + labelW
	for d := lo; d <= hi*1.0001; d *= 10 {
		x := x0 + scale(d)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#e4e4e4"/>`, x, top-4, x, height-26)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#777">%s</text>`+"\n", x, height-12, fmtDecade(d))
	}
	y := top
	for _, r := range rows {
		label := r.Op + " " + string(r.Mode)
		if len(targetsOf(rows)) > 1 {
			label = r.Target + " " + label
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f">%s</text>`, left, y+barH+3, esc(label))
		for i, s := range []struct {
			ok    bool
			ns    float64
			fill  string
			extra string
		}{{r.HasStore, r.Store.NsPerOp, "#3b6fb6", ratioCell(r)}, {r.HasB, r.Base.NsPerOp, "#bbbbbb", ""}} {
			by := y + float64(i)*barH
			if !s.ok || s.ns <= 0 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#999">—</text>`, x0+2, by+barH-3)
				continue
			}
			bw := math.Max(scale(s.ns), 1)
			text := fmtNs(s.ns) + " ns"
			if s.extra != "" && s.extra != "—" {
				text += "  " + s.extra
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" fill="%s"><title>%s</title></rect>`, x0, by+1, bw, barH-2, s.fill, esc(text))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`, x0+bw+4, by+barH-3, esc(text))
		}
		b.WriteString("\n")
		y += 2*barH + gap
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func targetsOf(rows []Row) map[string]bool {
	m := map[string]bool{}
	for _, r := range rows {
		m[r.Target] = true
	}
	return m
}

func fmtDecade(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%gs", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%gms", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%gµs", v/1e3)
	}
	return fmt.Sprintf("%gns", v)
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
