// Command storecheck checks a task store against the specification: it runs the
// conformance battery against a store (the embedded memstore by default, or one of the
// built-in adapters) and prints a per-rule report. It is package cli with nothing added;
// a Go store's own main gets the same command line with cli.WithHarness.
package main

import "github.com/storecheck/storecheck/cli"

func main() { cli.Main() }
