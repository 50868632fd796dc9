package gotest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEQuotesTheExamples: every region marked "// readme:NAME" … "// readme:end" in
// an example_test.go appears verbatim in README.md or docs/go.md (indentation of the
// region removed), so that their Go snippets are code that compiles and runs.
func TestREADMEQuotesTheExamples(t *testing.T) {
	var readme []byte
	for _, f := range []string{"../../README.md", "../../docs/go.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, b...)
	}
	files := []string{"example_test.go", "../../cli/example_test.go"}
	regions := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for name, body := range readmeRegions(string(src)) {
			regions++
			if !strings.Contains(string(readme), body) {
				t.Errorf("neither README.md nor docs/go.md quotes region %q of %s verbatim; it should contain:\n%s", name, filepath.Clean(f), body)
			}
		}
	}
	if regions < 3 {
		t.Errorf("found %d readme regions, want the harness, configurations and cli-main ones", regions)
	}
}

// readmeRegions returns each marked region, without its common indentation.
func readmeRegions(src string) map[string]string {
	out := map[string]string{}
	var name string
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(trimmed, "// readme:end"):
			out[name] = dedent(lines)
			name, lines = "", nil
		case strings.HasPrefix(trimmed, "// readme:"):
			name = strings.TrimPrefix(trimmed, "// readme:")
		case name != "":
			lines = append(lines, l)
		}
	}
	return out
}

func dedent(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = l
	}
	return strings.Join(out, "\n")
}
