package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/docs"
)

func init() {
	addCommand(&command{
		name:    "list",
		summary: "list the rules of the specification: ID, level, era and the rule in one line; --rule ID prints one in full",
		run:     listRules,
	})
}

func listRules(c *app, args []string) int {
	var asJSON bool
	var era, rule string
	fs := newFlagSet("list", "storecheck list [flags]", func(w io.Writer) {
		fmt.Fprint(w, `Lists every rule of docs/spec.md in one line each. Shared rules run in both eras;
SDK-profile rules (P-*) run with storecheck run --era sdk;
fault rules (F-*) run with storecheck run --faults against a backend storecheck started;
battery rules (B-*) are the battery's checks on itself, made by its own tests, not run
against a store. --rule ID prints that rule's full text from docs/spec.md.

`)
	})
	fs.BoolVar(&asJSON, "json", false, "print the rules as a JSON array")
	fs.StringVar(&era, "era", "", "only rules of this era: shared, legacy, modern, sdk, faults or battery")
	fs.StringVar(&rule, "rule", "", "print this rule's full text (an ID such as L-LIST-4)")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if rule != "" {
		text, err := docs.Rule(strings.ToUpper(strings.TrimSpace(rule)))
		if err != nil {
			code, _ := c.usageError(fs, fmt.Sprintf("--rule %q: %v (storecheck list prints the IDs)", rule, err))
			return code
		}
		fmt.Fprintf(c.stdout, "%s  (docs/spec.md, %s)\n\n", text.ID, text.Section)
		fmt.Fprintln(c.stdout, wrap(text.Text, 88))
		fmt.Fprintln(c.stdout)
		sites := conformance.SpecSites(text.ID)
		if len(sites) == 0 {
			fmt.Fprintln(c.stdout, "Specs: none in the battery ("+siteless(text.ID)+").")
			return exitOK
		}
		fmt.Fprintln(c.stdout, "Specs:")
		for _, s := range sites {
			fmt.Fprintf(c.stdout, "  %s:%d  [%s era] %s\n", s.File, s.Line, s.Era, s.Text)
		}
		return exitOK
	}
	var selected []conformance.Rule
	for _, r := range conformance.Rules() {
		if era == "" || string(r.Part) == era {
			selected = append(selected, r)
		}
	}
	if len(selected) == 0 {
		code, _ := c.usageError(fs, fmt.Sprintf("--era %q: want shared, legacy, modern, sdk, faults or battery", era))
		return code
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(selected); err != nil {
			fmt.Fprintf(c.stderr, "storecheck list: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tLEVEL\tERA\tRULE TEXT")
	for _, r := range selected {
		e := string(r.Part)
		switch r.Part {
		case rules.PartShared:
			e = "shared (both eras)"
		case rules.PartBattery:
			e = "battery self-check"
		case rules.PartFaults:
			e = "faults (run --faults)"
		case rules.PartServer:
			e = "server (MCP server level)"
		case rules.PartSDK:
			e = "sdk (SDK task-store profile)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, strings.ToUpper(string(r.Level)), e, r.Text)
	}
	if err := tw.Flush(); err != nil {
		return exitUsage
	}
	return exitOK
}

// wrap breaks text into lines of at most width columns at spaces, for a terminal.
func wrap(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(text) {
		if col > 0 && col+1+len(w) > width {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// siteless says where a rule with no battery spec is checked.
func siteless(id string) string {
	switch {
	case strings.HasPrefix(id, "F-"):
		return "a fault rule: conformance/faults checks it with storecheck run --faults"
	case strings.HasPrefix(id, "B-"):
		return "a battery rule: the battery's own tests check it (conformance/mutants for B-POWER-1)"
	case strings.HasPrefix(id, "V-"):
		return "a server rule: storecheck probe checks it (probe/)"
	}
	return "not covered"
}
