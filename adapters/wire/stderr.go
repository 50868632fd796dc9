package wire

import (
	"io"
	"strconv"
	"strings"
	"sync"
)

// tailLines is how many lines of a child's stderr are kept (docs/wire.md).
const tailLines = 200

// maxStderrLine cuts absurdly long stderr lines so that a child cannot fill memory.
const maxStderrLine = 4096

// tail keeps the last tailLines lines written to it, and copies everything to an
// optional writer (a verbose CLI shows the child's log live).
type tail struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
	copyTo  io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.copyTo != nil {
		_, _ = t.copyTo.Write(p) // a failing copy must not stop the child
	}
	for _, b := range p {
		if b == '\n' {
			t.push()
			continue
		}
		if len(t.partial) < maxStderrLine {
			t.partial = append(t.partial, b)
		}
	}
	return len(p), nil
}

func (t *tail) push() {
	t.lines = append(t.lines, strings.TrimSuffix(string(t.partial), "\r"))
	t.partial = t.partial[:0]
	if len(t.lines) > tailLines {
		t.lines = append(t.lines[:0], t.lines[len(t.lines)-tailLines:]...)
	}
}

// Lines returns the kept lines, an unterminated last line included.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if len(t.partial) > 0 {
		out = append(out, string(t.partial))
	}
	if len(out) > tailLines {
		out = out[len(out)-tailLines:]
	}
	return out
}

// describe renders the tail for an error message.
func (t *tail) describe() string {
	lines := t.Lines()
	if len(lines) == 0 {
		return "\n(the store process wrote nothing to stderr)"
	}
	return "\n--- last " + strconv.Itoa(len(lines)) + " lines of the store process's stderr ---\n" +
		strings.Join(lines, "\n") + "\n--- end of stderr ---"
}
