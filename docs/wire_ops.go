package docs

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	// opRow matches a row of an operation table: "| `legacy.create` | ...".
	opRow = regexp.MustCompile("^\\| `([a-z_]+(?:\\.[a-z_]+)*)` \\|")
	// sessionStep matches a numbered step of "Session" that names an op: "1. `hello` — ...".
	sessionStep = regexp.MustCompile("^[0-9]+\\. `([a-z_]+(?:\\.[a-z_]+)*)`")
)

// WireOps returns the op names a wire document defines, in document order: the first
// column of every operation table, and the op each numbered step of the "Session"
// section names (hello, reset, clock, delay, facade.configure). An op defined twice is
// an error, as a rule defined twice is for ParseRules.
func WireOps(wire string) ([]string, error) {
	var (
		out     []string
		seen    = map[string]bool{}
		session bool
	)
	for _, line := range strings.Split(wire, "\n") {
		if strings.HasPrefix(line, "#") {
			session = strings.TrimSpace(strings.TrimLeft(line, "#")) == "Session"
			continue
		}
		m := opRow.FindStringSubmatch(line)
		if m == nil && session {
			m = sessionStep.FindStringSubmatch(line)
		}
		if m == nil {
			continue
		}
		if seen[m[1]] {
			return nil, fmt.Errorf("docs/wire.md defines op %s twice", m[1])
		}
		seen[m[1]] = true
		out = append(out, m[1])
	}
	return out, nil
}

// DiffOps compares the ops a wire document defines with the ops the code speaks. It
// returns the ops only the code has and those only the document has, each sorted; both
// empty means the two agree.
func DiffOps(wire string, code []string) (onlyInCode, onlyInDoc []string, err error) {
	doc, err := WireOps(wire)
	if err != nil {
		return nil, nil, err
	}
	onlyInCode, onlyInDoc = apart(code, doc)
	return onlyInCode, onlyInDoc, nil
}
