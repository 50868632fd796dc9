// Package childproc starts a child process that speaks a line protocol over its
// standard input and output, for tests that talk to one.
package childproc

import (
	"io"
	"os/exec"
	"strings"
	"testing"
)

// Start starts cmd with its standard input and output piped and its standard error
// collected, failing t when it cannot; waiting for cmd is the caller's.
func Start(t testing.TB, cmd *exec.Cmd) (in io.WriteCloser, out io.ReadCloser, stderr *strings.Builder) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, out, stderr
}
