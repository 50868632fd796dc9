// Package docs ships storecheck's normative documents inside the binary: the
// specification (spec.md) and the wire protocol (wire.md), so `storecheck list --rule`
// prints a rule's full text wherever the binary runs.
package docs

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Spec is docs/spec.md, the normative specification.
//
//go:embed spec.md
var Spec string

// Wire is docs/wire.md, the wire protocol.
//
//go:embed wire.md
var Wire string

// ErrNoRule is returned for an ID that spec.md does not define.
var ErrNoRule = errors.New("no such rule in docs/spec.md")

// RuleText is one rule as spec.md states it.
type RuleText struct {
	ID    string
	Level string // "MUST" or "SHOULD"
	// Section is the heading the rule sits under ("1.1 Store contract (`legacy.Store`)").
	Section string
	// Text is the whole list item, continuation lines joined with single spaces.
	Text string
}

// ruleStart matches the first line of a rule item: "- **L-LIST-4** MUST ...".
var ruleStart = regexp.MustCompile(`^- \*\*([A-Z]+(?:-[A-Z]+)*-[0-9]+)\*\* (MUST|SHOULD)\b`)

// ParseRules returns every rule item of a spec document in document order. An ID defined
// twice is an error: the catalogue sync check would otherwise hide one of the two texts.
func ParseRules(spec string) ([]RuleText, error) {
	var (
		out     []RuleText
		cur     *RuleText
		section string
		seen    = map[string]bool{}
	)
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, line := range strings.Split(spec, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			flush()
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "|"):
			flush()
			if m := ruleStart.FindStringSubmatch(line); m != nil {
				if seen[m[1]] {
					return nil, fmt.Errorf("docs/spec.md defines %s twice", m[1])
				}
				seen[m[1]] = true
				cur = &RuleText{ID: m[1], Level: m[2], Section: section, Text: strings.TrimSpace(line[2:])}
			}
		case cur != nil:
			cur.Text += " " + strings.TrimSpace(line)
		}
	}
	flush()
	return out, nil
}

// Rule returns the full text of one rule of the embedded spec.md.
func Rule(id string) (RuleText, error) {
	rules, err := ParseRules(Spec)
	if err != nil {
		return RuleText{}, err
	}
	for _, r := range rules {
		if r.ID == id {
			return r, nil
		}
	}
	return RuleText{}, fmt.Errorf("%w: %q", ErrNoRule, id)
}

// Diff compares the rule IDs a spec document defines with a catalogue's IDs. It returns
// the IDs only the catalogue has and those only the document has, each sorted; both
// empty means the two agree.
func Diff(spec string, catalogue []string) (onlyInCatalogue, onlyInSpec []string, err error) {
	rules, err := ParseRules(spec)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	onlyInCatalogue, onlyInSpec = apart(catalogue, ids)
	return onlyInCatalogue, onlyInSpec, nil
}

// apart returns the names only a has and those only b has, each sorted.
func apart(a, b []string) (onlyA, onlyB []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, s := range b {
		inB[s] = true
	}
	for _, s := range a {
		inA[s] = true
		if !inB[s] {
			onlyA = append(onlyA, s)
		}
	}
	for _, s := range b {
		if !inA[s] {
			onlyB = append(onlyB, s)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}
