package load

import (
	"fmt"
	"io"
	"strings"
)

// palette colours the subjects of a plot in turn.
var palette = []string{"#4a7ab5", "#c0392b", "#27ae60", "#8e44ad", "#d68910", "#17a589", "#555555"}

// WriteComparisonSVG plots every subject's run second by second on one chart: tasks
// ended a second, a line each, with each subject's verdict and mean rate in the legend.
func WriteComparisonSVG(w io.Writer, title string, c *Comparison) error {
	const width, left, right, top, bottom, lineH = 720.0, 60.0, 20.0, 30.0, 40.0, 14.0
	ph := 240.0
	height := top + ph + bottom + lineH*float64(len(c.Subjects))
	pw := width - left - right
	maxTasks, secs := 1.0, 1
	for _, s := range c.Subjects {
		if s.Result == nil {
			continue
		}
		secs = max(secs, len(s.Result.Timeline))
		for _, p := range s.Result.Timeline {
			maxTasks = max(maxTasks, float64(p.Tasks))
		}
	}
	step := pw / float64(secs)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="13">%s</text>`+"\n", left, esc(title))
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`+"\n", left, top+ph, left+pw, top+ph)
	fmt.Fprintf(&b, `<text x="4" y="%.0f">%.0f tasks/s</text>`+"\n", top+10, maxTasks)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">seconds (0–%d); a line a subject: tasks ended a second</text>`+"\n", left, top+ph+16, secs)
	for i, s := range c.Subjects {
		colour := palette[i%len(palette)]
		legend := s.Verdict
		if s.Result != nil {
			var pts []string
			for j, p := range s.Result.Timeline {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", left+(float64(j)+0.5)*step, top+ph-ph*float64(p.Tasks)/maxTasks))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), colour)
			legend = fmt.Sprintf("%s, %.0f tasks/s over %.0fs", s.Verdict, s.Result.TasksPerSec, s.Result.Seconds)
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="%s">%s: %s</text>`+"\n", left, top+ph+bottom+lineH*float64(i), colour, esc(s.Name), esc(legend))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
