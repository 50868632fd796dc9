package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBenchPaging: the paging benchmark lists memstore's SDK store in process, over the
// wire, and an --exec store process (this binary serving memstore again), and writes
// the table, the benchstat lines and the chart.
func TestBenchPaging(t *testing.T) {
	dir := t.TempDir()
	svg, out := filepath.Join(dir, "paging.svg"), filepath.Join(dir, "paging.txt")
	code, stdout, stderr := cliProcess(t, "bench", "--paging", "--paging-max", "2048", "--count", "1",
		"--exec", strconv.Quote(os.Args[0])+" serve --adapter memstore", "--svg", svg, "-o", out)
	if code != exitOK {
		t.Fatalf("bench --paging: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"memstore (in process)", "memstore (wire)", "memstore (wire) --exec", "1024", "2048", "(21 pages)", "(41 pages)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "4096") {
		t.Errorf("--paging-max 2048 listed 4096 tasks:\n%s", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil || strings.Count(string(b), "<circle") != 6 {
		t.Errorf("chart: %v, %d points; want 2 sizes × 3 stores", err, strings.Count(string(b), "<circle"))
	}
	if b, err := os.ReadFile(out); err != nil || strings.Count(string(b), "BenchmarkPaging/") != 6 {
		t.Errorf("benchstat lines: %v\n%s", err, b)
	}
	code, _, stderr = cliProcess(t, "bench", "--paging", "--paging-max", "10")
	if code != exitUsage || !strings.Contains(stderr, "--paging-max 10") {
		t.Errorf("--paging-max below 1024: exit %d, stderr %q; want a usage error", code, stderr)
	}
}
