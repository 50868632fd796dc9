package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance/harness"
)

func init() {
	addCommand(&command{
		name:    "serve",
		summary: "serve a built-in store over the wire protocol on stdin/stdout (a child for run --exec)",
		run:     serve,
	})
}

func serve(c *app, args []string) int {
	fs := newFlagSet("serve", "storecheck serve --adapter NAME [flags]", func(w io.Writer) {
		fmt.Fprint(w, `Serves a built-in store over the wire protocol (docs/wire.md): JSON Lines requests on
stdin, answers on stdout, diagnostics on stderr, until stdin ends. It is the Go side of
the protocol, for checking the protocol itself and for trying a shim against a known
store:

  storecheck run --exec "storecheck serve --adapter memstore"
  storecheck run --exec "storecheck serve --adapter mutant:deep-merge"

With --mcp it serves MCP instead (docs/mcp.md): tools/call as tasks in both eras of MCP
tasks (2025-11-25 and the 2026-07-28 tasks extension), over Streamable HTTP on a
loopback address or over stdio, the adapter's store behind the reference facades:

  storecheck serve --mcp 127.0.0.1:8080 --principal s3cret=alice --principal t0ken=bob

Each reset opens a fresh namespace of the adapter; the clock op drives the store's
clock when the adapter's store obeys one. With --facade the child also serves a facade
layer (protocol 2): storecheck's reference facades over the store, so that the facade
rules run over the wire. A facade mutant (mutant:facade-*) serves its own broken facade.

`)
	})
	var spec string
	var facade bool
	fs.StringVar(&spec, "adapter", c.defaultAdapter, "the store to serve: NAME or NAME:ARG (storecheck help lists them)")
	var protocol int
	fs.BoolVar(&facade, "facade", false, "also serve storecheck's reference facades over the store (wire protocol 2 facade layer)")
	fs.IntVar(&protocol, "protocol", 0, "1: behave as a strict version 1 child (store operations only, refuses other offers); 0: speak every version")
	var mcp mcpFlags
	mcp.register(fs)
	c.addAdapterFlags(fs)
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	a, arg, err := c.lookupAdapter(spec)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	h, cleanup, ok := c.bringUp("storecheck serve", spec, a.open, arg)
	if !ok {
		return exitUsage
	}
	defer cleanup()
	if mcp.addr != "" {
		return c.serveMCP(h, mcp)
	}
	if facade && h.Capabilities().Facade != harness.FacadeOwn {
		h = harness.WithReferenceFacades(h)
	}
	if err := wire.Serve(c.ctx, os.Stdin, c.stdout, h, wire.ServeOptions{Log: c.stderr, Protocol: protocol}); err != nil {
		fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}
