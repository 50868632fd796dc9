// Package wiretest serves a harness with wire.Serve on pipes inside a test, for the tests
// that speak the wire protocol to it line by line.
package wiretest

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

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
