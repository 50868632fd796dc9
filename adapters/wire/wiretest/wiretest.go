// Package wiretest serves a harness with wire.Serve on pipes inside a test, for the tests
// that speak the wire protocol to it line by line.
package wiretest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance/harness"
)

// Serve runs wire.Serve for h with opts on a pair of pipes until the test ends: in takes
// the request lines, out reads the answer lines. When the test ends in is closed, and
// Serve must then return, without an error, within 5 s.
func Serve(t testing.TB, h harness.Harness, opts wire.ServeOptions) (in io.WriteCloser, out *bufio.Reader) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- wire.Serve(context.Background(), inR, outW, h, opts)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve returned %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after its input ended")
		}
	})
	return inW, bufio.NewReader(outR)
}

// Start starts argv as a wire child with opts for the battery, failing the test when
// the child does not start or answer the handshake within startTimeout, and closes it
// when the test ends: a child that then does not exit cleanly fails the test too.
func Start(t testing.TB, startTimeout time.Duration, argv []string, opts wire.Options) *wire.Harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	h, err := wire.NewHarness(ctx, argv, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("closing the child: %v", err)
		}
	})
	return h
}

// Main is the TestMain of a test binary that is also its own wire child: with env set to
// "memstore" it serves memstore (memharness) on its standard input and output, logging
// on standard error, and exits (1 when Serve fails); otherwise it runs the tests.
func Main(m *testing.M, env string) {
	if os.Getenv(env) == "memstore" {
		if err := wire.Serve(context.Background(), os.Stdin, os.Stdout, memharness.Harness(), wire.ServeOptions{Log: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
