package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// exitGrace bounds how long, once its stdout has ended, the probe waits for a child to
// exit, and how long Wait waits for a grandchild that holds its stderr.
const exitGrace = 2 * time.Second

// DialStdio starts cmd and speaks newline-delimited JSON-RPC on its stdin and stdout.
// Its stderr is kept (the last 8 KiB) for error messages and for the report of its death.
func DialStdio(cmd *exec.Cmd) (*Conn, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t := &stdioTransport{cmd: cmd, stdin: stdin, pending: map[string]chan Message{},
		done: make(chan struct{}), killed: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = &t.stderr
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = exitGrace
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	c := newConn(t)
	t.conn = c
	go t.read(stdout)
	go t.wait()
	return c, nil
}

type stdioTransport struct {
	cmd    *exec.Cmd
	conn   *Conn
	stderr tail

	wmu   sync.Mutex
	stdin io.WriteCloser

	mu      sync.Mutex
	pending map[string]chan Message
	readErr error
	done    chan struct{} // stdout ended
	killOne sync.Once
	killed  chan struct{} // the probe killed the child
	exited  chan struct{} // the child was waited for: waitErr is its exit
	waitErr error
}

func (t *stdioTransport) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		msgs, err := decodeMessages(line)
		if err != nil {
			t.fail(fmt.Errorf("%w on stdout: %v", ErrMalformed, err))
			continue
		}
		for _, m := range msgs {
			if m.IsResponse() {
				t.mu.Lock()
				ch, ok := t.pending[idKey(m.ID)]
				delete(t.pending, idKey(m.ID))
				t.mu.Unlock()
				if ok {
					ch <- m
					continue
				}
			}
			if reply := t.conn.deliver(m, "stdout"); reply != nil {
				_ = t.write(reply)
			}
		}
	}
	err := sc.Err()
	if err == nil {
		err = ErrNoAnswer
	}
	t.fail(fmt.Errorf("%w: the server's stdout ended (%v); stderr: %s", ErrNoAnswer, err, t.stderr.String()))
	close(t.done)
}

// wait reaps the child once its stdout has ended (Wait closes the pipe, so it must not
// run while output may still be unread), or once the probe killed it.
func (t *stdioTransport) wait() {
	select {
	case <-t.done:
	case <-t.killed:
	}
	t.waitErr = t.cmd.Wait()
	close(t.exited)
}

// fail records the first transport fault; waiters see it when the process ends.
func (t *stdioTransport) fail(err error) {
	t.mu.Lock()
	if t.readErr == nil {
		t.readErr = err
	}
	t.mu.Unlock()
}

func (t *stdioTransport) write(b []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if _, err := t.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%w: write to the server's stdin: %v", ErrClosed, err)
	}
	return nil
}

func (t *stdioTransport) roundTrip(ctx context.Context, id json.RawMessage, body []byte, hdr http.Header) (*Response, error) {
	return t.send(ctx, id, body, hdr)()
}

// send writes body at once (lines are read in the order written) and returns the wait
// for the answer to id.
func (t *stdioTransport) send(ctx context.Context, id json.RawMessage, body []byte, _ http.Header) func() (*Response, error) {
	var ch chan Message
	if id != nil {
		ch = make(chan Message, 1)
		t.mu.Lock()
		t.pending[idKey(id)] = ch
		t.mu.Unlock()
	}
	forget := func() {
		if id != nil {
			t.mu.Lock()
			delete(t.pending, idKey(id))
			t.mu.Unlock()
		}
	}
	if err := t.write(body); err != nil {
		forget()
		return func() (*Response, error) { return nil, t.died(ctx, err) }
	}
	if ch == nil {
		return func() (*Response, error) { return &Response{}, nil }
	}
	return func() (*Response, error) {
		defer forget()
		select {
		case m := <-ch:
			return &Response{Message: m}, nil
		case <-t.done:
			t.mu.Lock()
			err := t.readErr
			t.mu.Unlock()
			return nil, t.died(ctx, err)
		case <-ctx.Done():
			select {
			case m := <-ch: // an answer that came before the wait ended counts
				return &Response{Message: m}, nil
			default:
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.readErr != nil {
				// What the server wrote instead of the answer says more than the wait.
				return nil, fmt.Errorf("%w; before it: %w", ctx.Err(), t.readErr)
			}
			return nil, ctx.Err()
		}
	}
}

// died adds to err, a write or a read that failed, how the child ended, when it did. A
// write fails as soon as the child has gone, before its stdout is seen to end: that end
// is waited for, briefly.
func (t *stdioTransport) died(ctx context.Context, err error) error {
	select {
	case <-t.done:
	case <-time.After(exitGrace):
	case <-ctx.Done():
	}
	if d := t.alive(ctx); d != nil {
		return fmt.Errorf("%w: %w", err, d)
	}
	return err
}

// alive returns nil while the child's stdout is open; after, a *DiedError saying how
// it ended (its exit status, or a stdout closed by a process still running).
func (t *stdioTransport) alive(context.Context) error {
	select {
	case <-t.done:
	default:
		return nil
	}
	select {
	case <-t.exited:
	case <-time.After(exitGrace):
		return &DiedError{How: "closed its stdout (the process still runs)", Stderr: t.stderr.lastLines(stderrLines)}
	}
	how := "exited with status 0"
	var exitErr *exec.ExitError
	switch {
	case errors.As(t.waitErr, &exitErr):
		how = "exited: " + exitErr.ProcessState.String()
	case t.waitErr != nil:
		how = "ended: " + t.waitErr.Error()
	}
	return &DiedError{How: how, Stderr: t.stderr.lastLines(stderrLines)}
}

func (t *stdioTransport) close() error {
	t.stdin.Close()
	select {
	case <-t.done:
	case <-time.After(exitGrace):
		_ = t.cmd.Process.Kill()
		t.killOne.Do(func() { close(t.killed) })
	}
	<-t.exited
	return nil
}

// stderrLines is how many of its last stderr lines a dead child's report quotes.
const stderrLines = 5

// tail keeps the last 8 KiB written to it.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > 8<<10 {
		w.b = w.b[len(w.b)-8<<10:]
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}

// lastLines is the last n lines written, each cut to 200 bytes.
func (w *tail) lastLines(n int) []string {
	lines := strings.Split(strings.TrimRight(w.String(), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	lines = lines[max(len(lines)-n, 0):]
	for i, l := range lines {
		lines[i] = clip([]byte(l), 200)
	}
	return lines
}
