// Command storecheck checks a task store against the specification: it runs the
// conformance battery against a store (the embedded memstore by default, or one of the
// built-in adapters) and prints a per-rule report. It is package cli with the database
// adapters of cli/builtin added; a Go store's own main gets the same command line with
// cli.WithHarness and links none of their drivers.
package main

import (
	"github.com/storecheck/storecheck/cli"
	"github.com/storecheck/storecheck/cli/builtin"
)

func main() { cli.Main(builtin.Adapters()) }
