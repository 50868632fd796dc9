package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/storecheck/storecheck/conformance"
)

func init() {
	addCommand(&command{
		name:    "list",
		summary: "list the rules of the specification: ID, level, era and the rule in one line",
		run:     listRules,
	})
}

func listRules(c *cli, args []string) int {
	var asJSON bool
	var era string
	fs := newFlagSet("list", "storecheck list [flags]", func(w io.Writer) {
		fmt.Fprint(w, `Lists every rule of SPEC.md. Shared rules run in both eras; fault rules (F-*) run
with storecheck run --faults against a backend storecheck started; battery rules (B-*)
are the battery's checks on itself, made by its own tests, not run against a store.

`)
	})
	fs.BoolVar(&asJSON, "json", false, "print the rules as a JSON array")
	fs.StringVar(&era, "era", "", "only rules of this era: shared, legacy, modern, faults or battery")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	var rules []conformance.Rule
	for _, r := range conformance.Rules() {
		if era == "" || r.Era == era {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		code, _ := c.usageError(fs, fmt.Sprintf("--era %q: want shared, legacy, modern, faults or battery", era))
		return code
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rules); err != nil {
			fmt.Fprintf(c.stderr, "storecheck list: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tLEVEL\tERA\tRULE TEXT")
	for _, r := range rules {
		e := r.Era
		switch e {
		case "shared":
			e = "shared (both eras)"
		case "battery":
			e = "battery self-check"
		case "faults":
			e = "faults (run --faults)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, strings.ToUpper(string(r.Level)), e, r.Text)
	}
	if err := tw.Flush(); err != nil {
		return exitUsage
	}
	return exitOK
}
