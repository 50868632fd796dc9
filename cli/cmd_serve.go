package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/storecheck/storecheck/adapters/wire"
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

Each reset opens a fresh namespace of the adapter; the clock op drives the store's
clock when the adapter's store obeys one.

`)
	})
	var spec string
	fs.StringVar(&spec, "adapter", c.defaultAdapter, "the store to serve: NAME or NAME:ARG (storecheck help lists them)")
	c.addAdapterFlags(fs)
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	a, arg, err := c.lookupAdapter(spec)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	h, cleanup, err := a.open(c.ctx, arg)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck serve: bring-up of adapter %s failed: %v\n", spec, err)
		return exitUsage
	}
	if cleanup != nil {
		defer cleanup()
	}
	if err := wire.Serve(c.ctx, os.Stdin, c.stdout, h, wire.ServeOptions{Log: c.stderr}); err != nil {
		fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}
