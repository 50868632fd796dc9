package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/storecheck/storecheck/version"
)

func init() {
	addCommand(&command{
		name:    "version",
		summary: "print storecheck's version, revision, Go version, the protocol versions and the rule catalogue it checks",
		run:     printVersion,
	})
}

func printVersion(c *app, args []string) int {
	var asJSON bool
	fs := newFlagSet("version", "storecheck version [--json]", func(w io.Writer) {
		fmt.Fprint(w, `Prints the module version and VCS revision storecheck was built from, the Go that
built it, the MCP protocol version of each era it checks, and its rule catalogue (the
count and a digest of the IDs and levels: two builds checking different rules differ).
Every JSON report carries the same block under "storecheck".

`)
	})
	fs.BoolVar(&asJSON, "json", false, "print it as JSON")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	info := version.Get()
	var err error
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(info)
	} else {
		err = info.Write(c.stdout)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck version: %v\n", err)
		return exitUsage
	}
	return exitOK
}
