package benchmarks

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
)

func sample() []Result {
	r := func(subject string, ns float64, allocs int64) Result {
		return Result{Target: "memstore", Op: "legacy-get", Mode: Serial, Subject: subject, What: subject + "-what", N: 100, NsPerOp: ns, BytesPerOp: 64, AllocsPerOp: allocs}
	}
	// Three rounds each: medians are 100 (store) and 200 (baseline).
	return []Result{r("store", 100, 4), r("baseline", 200, 4), r("store", 90, 4), r("baseline", 900, 4), r("store", 500, 4), r("baseline", 150, 4)}
}

func TestRowsTakeTheMedianAndRatioIsBaselineOverStore(t *testing.T) {
	rows := Rows(sample())
	if len(rows) != 1 {
		t.Fatalf("Rows(3 rounds of one case) = %d rows, want 1", len(rows))
	}
	r := rows[0]
	if r.Store.NsPerOp != 100 || r.Base.NsPerOp != 200 {
		t.Errorf("medians: store %.0f, baseline %.0f ns/op; want 100 and 200", r.Store.NsPerOp, r.Base.NsPerOp)
	}
	if got := r.Ratio(); got != 2 {
		t.Errorf("Ratio() = %v, want 2 (baseline 200 ns/op ÷ store 100 ns/op)", got)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, sample()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ratio = baseline ns/op ÷ store ns/op", "2.00×", "10.00M", "5.00M"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestBenchstatFormat(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchstat(&b, sample()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	header := regexp.MustCompile(`^(goos|goarch|pkg|cpu): \S`)
	line := regexp.MustCompile(`^BenchmarkMemstore/op=legacy-get/mode=serial/subject=(store|baseline)(-\d+)?\s+\d+\s+[\d.]+ ns/op\s+\d+ B/op\s+\d+ allocs/op$`)
	n := 0
	for _, l := range lines {
		switch {
		case header.MatchString(l):
		case line.MatchString(l):
			n++
		default:
			t.Errorf("line benchstat would not read: %q", l)
		}
	}
	if n != len(sample()) {
		t.Errorf("%d benchmark lines, want %d:\n%s", n, len(sample()), b.String())
	}
}

func TestSVGIsWellFormed(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, "a <title> & more", sample()); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(&b)
	rects := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if s, ok := tok.(xml.StartElement); ok && s.Name.Local == "rect" {
			rects++
		}
	}
	// Background, two legend swatches, two bars.
	if rects != 5 {
		t.Errorf("SVG has %d rects, want 5 (background, 2 legend, store and baseline bars)", rects)
	}
}

func TestFuncName(t *testing.T) {
	for in, want := range map[string]string{"memstore": "BenchmarkMemstore", "ets-like": "BenchmarkEtsLike", "redis-cluster": "BenchmarkRedisCluster"} {
		if got := FuncName(in); got != want {
			t.Errorf("FuncName(%q) = %q, want %q", in, got, want)
		}
	}
}
