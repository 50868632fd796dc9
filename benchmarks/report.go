package benchmarks

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"
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

// Rows pairs results by target, op and mode, in the order they came. Where a benchmark
// ran several times (Options.Count), the row holds the run with the median ns/op.
func Rows(results []Result) []Row {
	type pair struct{ store, base []Result }
	var rows []Row
	var runs []pair
	index := map[string]int{}
	for _, r := range results {
		key := r.Target + "\x00" + r.Op + "\x00" + string(r.Mode)
		i, ok := index[key]
		if !ok {
			i = len(rows)
			index[key] = i
			rows = append(rows, Row{Target: r.Target, Op: r.Op, Mode: r.Mode})
			runs = append(runs, pair{})
		}
		if r.Failed != "" {
			continue
		}
		switch r.Subject {
		case "store":
			runs[i].store = append(runs[i].store, r)
		case "baseline":
			runs[i].base = append(runs[i].base, r)
		}
	}
	for i := range rows {
		rows[i].Store, rows[i].HasStore = median(runs[i].store)
		rows[i].Base, rows[i].HasB = median(runs[i].base)
	}
	return rows
}

// median is the run with the median ns/op (the lower middle one of an even count).
func median(rs []Result) (Result, bool) {
	if len(rs) == 0 {
		return Result{}, false
	}
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b Result) int { return cmp.Compare(a.NsPerOp, b.NsPerOp) })
	return s[(len(s)-1)/2], true
}

// WriteTable prints one table per target: ns/op, ops/s and allocs/op of the store and of
// its baseline, and their ratio.
func WriteTable(w io.Writer, results []Result) error {
	rows := Rows(results)
	var b strings.Builder
	for k, target := range targetOrder(rows) {
		if k > 0 {
			b.WriteString("\n")
		}
		store, base := whatOf(rows, target)
		fmt.Fprintf(&b, "%s vs %s; ratio = baseline ns/op ÷ store ns/op (> 1: the store is faster)\n", store, base)
		t := [][]string{{"op", "mode", "store ns/op", "ops/s", "allocs/op", "baseline ns/op", "ops/s", "allocs/op", "ratio"}}
		for _, r := range rows {
			if r.Target != target {
				continue
			}
			t = append(t, []string{r.Op, string(r.Mode),
				cell(r.HasStore, r.Store.NsPerOp, fmtNs), cell(r.HasStore, r.Store.OpsPerSec(), fmtOps), cell(r.HasStore, float64(r.Store.AllocsPerOp), fmtCount),
				cell(r.HasB, r.Base.NsPerOp, fmtNs), cell(r.HasB, r.Base.OpsPerSec(), fmtOps), cell(r.HasB, float64(r.Base.AllocsPerOp), fmtCount),
				ratioCell(r)})
		}
		writeColumns(&b, t, 2)
	}
	for _, r := range results {
		if r.Failed != "" {
			fmt.Fprintf(&b, "FAILED %s: %s\n", r.Name(), r.Failed)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSideBySide prints the stores of two targets against each other: ns/op of each
// and b's ns/op ÷ a's (> 1: a is faster).
func WriteSideBySide(w io.Writer, a, b []Result) error {
	ra, rb := Rows(a), Rows(b)
	if len(ra) == 0 || len(rb) == 0 {
		return nil
	}
	an, bn := ra[0].Target, rb[0].Target
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s vs %s; ratio = %s ns/op ÷ %s ns/op (> 1: %s is faster)\n", an, bn, bn, an, an)
	t := [][]string{{"op", "mode", an + " ns/op", bn + " ns/op", "ratio"}}
	for _, x := range ra {
		for _, y := range rb {
			if x.Op != y.Op || x.Mode != y.Mode {
				continue
			}
			ratio := "—"
			if x.HasStore && y.HasStore && x.Store.NsPerOp > 0 {
				ratio = fmt.Sprintf("%.2f×", y.Store.NsPerOp/x.Store.NsPerOp)
			}
			t = append(t, []string{x.Op, string(x.Mode), cell(x.HasStore, x.Store.NsPerOp, fmtNs), cell(y.HasStore, y.Store.NsPerOp, fmtNs), ratio})
		}
	}
	writeColumns(&sb, t, 2)
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeColumns lays out t in columns two spaces apart: the first left columns aligned
// left, the rest (numbers) right.
func writeColumns(b *strings.Builder, t [][]string, left int) {
	widths := map[int]int{}
	for _, row := range t {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range t {
		line := ""
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line += "  "
			}
			if i < left {
				line += c + pad
			} else {
				line += pad + c
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

func targetOrder(rows []Row) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Target) {
			out = append(out, r.Target)
		}
	}
	return out
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
