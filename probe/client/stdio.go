package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"time"
)

// DialStdio starts cmd and speaks newline-delimited JSON-RPC on its stdin and stdout.
// Its stderr is kept (the last 8 KiB) for error messages.
func DialStdio(cmd *exec.Cmd) (*Conn, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t := &stdioTransport{cmd: cmd, stdin: stdin, pending: map[string]chan Message{}, done: make(chan struct{})}
	cmd.Stderr = &t.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	c := newConn(t)
	t.conn = c
	go t.read(stdout)
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
	done    chan struct{}
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

func (t *stdioTransport) roundTrip(ctx context.Context, id json.RawMessage, body []byte, _ http.Header) (*Response, error) {
	var ch chan Message
	if id != nil {
		ch = make(chan Message, 1)
		t.mu.Lock()
		t.pending[idKey(id)] = ch
		t.mu.Unlock()
		defer func() {
			t.mu.Lock()
			delete(t.pending, idKey(id))
			t.mu.Unlock()
		}()
	}
	if err := t.write(body); err != nil {
		return nil, err
	}
	if ch == nil {
		return &Response{}, nil
	}
	select {
	case m := <-ch:
		return &Response{Message: m}, nil
	case <-t.done:
		t.mu.Lock()
		defer t.mu.Unlock()
		return nil, t.readErr
	case <-ctx.Done():
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.readErr != nil {
			// What the server wrote instead of the answer says more than the wait.
			return nil, fmt.Errorf("%w; before it: %w", ctx.Err(), t.readErr)
		}
		return nil, ctx.Err()
	}
}

func (t *stdioTransport) close() error {
	t.stdin.Close()
	select {
	case <-t.done:
	case <-time.After(2 * time.Second):
		_ = t.cmd.Process.Kill()
	}
	_ = t.cmd.Wait()
	return nil
}

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
