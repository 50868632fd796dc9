package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// AreaTime is the battery's own cost in one area: how many specs ran there and their
// summed wall time.
type AreaTime struct {
	Area     string
	Specs    int
	Duration time.Duration
}

// AreaTimes sums the specs' durations by area, slowest area first. Specs without an
// area are under "(none)". What is left of Duration is the suite's own setup and
// teardown (bring-up of the namespaces, Ginkgo).
func (r *Report) AreaTimes() []AreaTime {
	index := map[string]int{}
	var out []AreaTime
	for _, s := range r.Specs {
		area := s.Area
		if area == "" {
			area = "(none)"
		}
		i, ok := index[area]
		if !ok {
			i = len(out)
			index[area] = i
			out = append(out, AreaTime{Area: area})
		}
		out[i].Specs++
		out[i].Duration += s.Duration
	}
	slices.SortStableFunc(out, func(a, b AreaTime) int { return cmp.Compare(b.Duration, a.Duration) })
	return out
}

// WriteAreaTimes prints AreaTimes as a table: area, specs, wall time, share of the run.
func (r *Report) WriteAreaTimes(w io.Writer) error {
	times := r.AreaTimes()
	var sum time.Duration
	for _, t := range times {
		sum += t.Duration
	}
	if _, err := fmt.Fprintf(w, "battery time per area (%s in specs, %s run):\n", sum.Round(time.Millisecond), r.Duration.Round(time.Millisecond)); err != nil {
		return err
	}
	for _, t := range times {
		share := 0.0
		if r.Duration > 0 {
			share = 100 * float64(t.Duration) / float64(r.Duration)
		}
		if _, err := fmt.Fprintf(w, "  %-20s %4d specs %10s %5.1f%%\n", t.Area, t.Specs, t.Duration.Round(time.Millisecond), share); err != nil {
			return err
		}
	}
	return nil
}
