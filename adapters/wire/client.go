package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// DefaultTimeout bounds one request when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// maxLine bounds one line of a child's stdout (a 1 MiB task is far below it).
const maxLine = 256 << 20

// Options configure a Client.
type Options struct {
	// Timeout bounds each request from the call to its answer; 0 means DefaultTimeout.
	// A child that misses it while silent is considered hung: it is killed, and this and
	// every later call fail with ErrTimeout. Silent means that no answer line came for
	// as long, none waits unread in its stdout, and this process was running to see it
	// (docs/wire.md, "Timeouts").
	Timeout time.Duration
	// StartTimeout bounds the handshake, which includes the child's start-up (a `mix
	// run` or a JVM may compile or warm up first); 0 means 60 s, and never less than
	// Timeout.
	StartTimeout time.Duration
	// CloseGrace is how long Close waits for the child to exit after closing its
	// stdin before killing it; 0 means 5 s.
	CloseGrace time.Duration
	// Stderr, when set, receives a live copy of the child's stderr.
	Stderr io.Writer
	// Dir and Env are the child's working directory and environment (empty: inherit).
	Dir string
	Env []string
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	o.StartTimeout = max(o.StartTimeout, o.Timeout)
	if o.CloseGrace <= 0 {
		o.CloseGrace = 5 * time.Second
	}
	return o
}

// Hello is what the child declared in the handshake.
type Hello struct {
	Protocol int
	Name     string
	// Legacy and Modern are the eras the child implements.
	Legacy, Modern bool
	// The optional legacy operations the child implements.
	Cancel, Cleanup, ConditionalUpdate bool
	// Clock is true when the child obeys the clock op.
	Clock bool
	// Delay is true when the child obeys the delay op: it holds its next store
	// operation back (S-CTX-1 then cancels a call while the child sleeps on it).
	Delay bool
	// Store and Facade are the layers the child serves (version 2; a version 1 child
	// serves the store only).
	Store, Facade bool
	// FacadeConfig is the facade configuration the child accepts in facade.configure.
	FacadeConfig FacadeSupport
	// SDK is true when the child serves the SDK task-store profile (version 3,
	// profiles ["sdk"]); SDKSupport is what its store declared.
	SDK        bool
	SDKSupport SDKSupport
}

// FacadeSupport says which settings of docs/spec.md 2.2 a child's facade can take.
type FacadeSupport struct {
	RequireOwner, DefaultTTL, MaxTTL bool
}

// Client is a running child process speaking the wire protocol. It is safe for
// concurrent use; concurrent calls are pipelined.
type Client struct {
	opts    Options
	argv    []string
	cmd     *exec.Cmd
	stdin   *os.File
	rawIn   syscall.RawConn // stdin's, for the writer's non-blocking attempt
	src     source          // the child's stdout; read by the reader role's holder only
	br      *bufio.Reader   // over src, likewise
	stderr  *tail
	hello   Hello
	nextID  atomic.Int64
	quit    chan struct{} // closed by Close: the writer closes stdin
	dead    chan struct{} // closed when fatal is set
	exited  chan struct{} // closed when the process has exited; exitErr is then set
	exitErr error
	readEnd chan struct{} // closed when stdout reached EOF

	mu      sync.Mutex
	pending map[int64]*call
	// unsettled are the abandoned calls still unanswered. A call whose context ended
	// returns at once, but the child may still apply it; later requests wait for its
	// answer first, so that nothing a returned call did can land after a later one.
	unsettled map[int64]*call
	fatal     error
	fatalOps  []string // the ops in flight when fatal was set, with their request ids
	closing   bool
	killed    bool
	// peak is the most requests pending at once since PeakInFlight last read it.
	peak int
	// answers counts the answer lines handled; heard is when the watchdog last saw the
	// child answer (or could not tell that it was silent): silence is judged from it.
	answers uint64
	heard   time.Time
	// nPending is len(pending), for solo to read without c.mu (addPendingLocked and
	// dropPendingLocked keep it); soloFn is c.solo, made once (a method value handed out
	// per call would allocate). calls says whether the calls came one at a time, and
	// serial is calls.quiet() for solo, which runs without c.mu.
	nPending atomic.Int32
	calls    oneAtATime
	serial   atomic.Bool
	soloFn   func() bool

	// The reader role: whoever holds it reads stdout and hands each answer to its call.
	// A caller that finds the role free takes it and reads until its own answer is in
	// (a serial round trip then has no goroutine hand-off at all); leaving, it passes
	// the role to a call still waiting, or to the background reader (readLoop) when only
	// abandoned calls are due, when the child has exited (drain: stdout is read to its
	// end) or the session has failed. partial is a line a holder was interrupted in.
	role        roleState
	roleCall    *call // the call holding the role (or handed it) when role is roleCaller
	drain       bool
	bgKick      chan struct{}
	partial     []byte
	partialLong bool

	// The request lines go out from the callers themselves: a caller appends its line
	// to wbuf and, when no one is writing, writes wbuf with one non-blocking write(2),
	// taking along the lines others appended meanwhile. Only when the pipe is full does
	// writeLoop (woken by wkick) finish the backlog with blocking writes.
	wmu     sync.Mutex
	wbuf    []byte
	wspare  []byte
	writing bool  // a caller or writeLoop owns the pipe
	werr    error // the first write error: later lines are dropped
	wkick   chan struct{}
	// nUnsettled is len(unsettled), read without mu by the calls' fast path.
	nUnsettled atomic.Int32

	closeOnce sync.Once
	closeErr  error

	// clockMu serialises clock forwarding: a request waits until the time it must see
	// has been acknowledged by the child.
	clockMu  sync.Mutex
	clockSrc *reference.ManualClock // the clock last forwarded; nil after SetClock
	clockGen uint64

	facadeCfg facadeConfigState // version 2: the facade configuration last sent
}

type call struct {
	op string
	// ch carries exactly one result, and before it at most one hand-off of the reader
	// role (result.turn): buffered for both, so no sender ever blocks.
	ch chan result
	// deadline is when the watchdog declares the child hung unless the call has been
	// answered or abandoned; timeout is the duration it was set from, for the message.
	deadline time.Time
	timeout  time.Duration
	// done, made when the call is abandoned, is closed when it leaves pending (answered
	// or failed); settle waits on it.
	done      chan struct{}
	abandoned bool // the caller's context ended; the answer is discarded
}

// leave closes done, if the call has one; with c.mu held.
func (cl *call) leave() {
	if cl.done != nil {
		close(cl.done)
	}
}

type result struct {
	ok   json.RawMessage
	err  error
	turn bool // not a result: the call now holds the reader role
}

// roleState says who holds the reader role (see Client.role).
type roleState uint8

const (
	roleNone       roleState = iota // nobody: no answer is due
	roleCaller                      // roleCall
	roleBackground                  // readLoop
	roleEnded                       // stdout has ended; nobody reads again
)

// Start starts argv as a child process and does the hello handshake within ctx and the
// request timeout. It fails when the child does not start, dies, or does not speak
// a protocol version storecheck knows; the error then shows the tail of the child's
// stderr.
func Start(ctx context.Context, argv []string, opts Options) (*Client, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("wire: empty command")
	}
	if spinErr != nil {
		return nil, spinErr
	}
	opts = opts.withDefaults()
	c := &Client{
		opts: opts, argv: append([]string(nil), argv...),
		stderr:    &tail{copyTo: opts.Stderr},
		wkick:     make(chan struct{}, 1),
		bgKick:    make(chan struct{}, 1),
		quit:      make(chan struct{}),
		dead:      make(chan struct{}),
		exited:    make(chan struct{}),
		readEnd:   make(chan struct{}),
		pending:   map[int64]*call{},
		unsettled: map[int64]*call{},
		heard:     time.Now(),
	}
	c.soloFn = c.solo
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	cmd.Stderr = c.stderr
	// A grandchild holding stderr open must not keep Wait from returning.
	cmd.WaitDelay = 2 * time.Second
	setProcessGroup(cmd)
	// stdin is our own pipe too, rather than cmd.StdinPipe: the writer needs the
	// *os.File for its non-blocking attempt (exec hands the child a blocking end).
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	cmd.Stdin = stdinR
	rawIn, err := stdin.SyscallConn()
	if err != nil {
		stdinR.Close()
		stdin.Close()
		return nil, fmt.Errorf("wire: %w", err)
	}
	// stdout is our own pipe, not cmd.StdoutPipe: Wait must not close it while answers
	// the child wrote before exiting are still unread (and see newStdout).
	w, src, err := newStdout()
	if err != nil {
		stdinR.Close()
		stdin.Close()
		return nil, fmt.Errorf("wire: %w", err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		src.Close()
		w.Close()
		stdinR.Close()
		stdin.Close()
		return nil, fmt.Errorf("wire: starting %s: %w", c.command(), err)
	}
	w.Close()
	stdinR.Close()
	c.cmd, c.stdin, c.rawIn, c.src, c.br = cmd, stdin, rawIn, src, bufio.NewReaderSize(src, 64<<10)
	if !src.leads() {
		c.toBackgroundLocked() // for good: no caller can take the role
	}
	go c.readLoop()
	go c.writeLoop()
	go c.waitLoop()
	go c.watchdog()

	c.hello, err = c.handshake(ctx)
	if err != nil {
		c.kill()
		_ = c.Close()
		tail := ""
		if !errors.Is(err, ErrChildExited) && !errors.Is(err, ErrTimeout) { // those show it already
			tail = c.stderr.describe()
		}
		return nil, fmt.Errorf("wire: handshake with %s failed: %w%s", c.command(), err, tail)
	}
	if c.hello.Name == "" {
		c.hello.Name = argv[0]
	}
	return c, nil
}

// handshake offers ProtocolVersion; the child answers with the version it speaks. A
// version 1 child that refuses the offer with an error answer is asked again with 1,
// so strict version 1 shims keep working.
func (c *Client) handshake(ctx context.Context) (Hello, error) {
	offer := ProtocolVersion
	for {
		raw, err := c.send(ctx, opHello, map[string]any{"protocol": offer}, nil, c.opts.StartTimeout)
		var remote *RemoteError
		if errors.As(err, &remote) && offer > MinProtocolVersion {
			offer--
			continue
		}
		if err != nil {
			return Hello{}, err
		}
		h, err := parseHello(raw)
		if err == nil && h.Protocol > offer {
			err = fmt.Errorf("%w: hello: storecheck offered protocol %d, the store process answered %d", ErrProtocol, offer, h.Protocol)
		}
		if err != nil {
			return Hello{}, &OpError{Op: opHello, Err: err}
		}
		return h, nil
	}
}

// command renders argv for messages, quoting words the way SplitCommand reads them.
func (c *Client) command() string {
	words := make([]string, len(c.argv))
	for i, a := range c.argv {
		words[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`|&;<>(){}*?#~") {
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// Hello returns what the child declared in the handshake.
func (c *Client) Hello() Hello { return c.hello }

// StderrTail returns the last lines (up to 200) the child wrote to stderr.
func (c *Client) StderrTail() []string { return c.stderr.Lines() }

// Err returns the fatal error that ended the session, or nil while it is healthy.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fatal
}

// PeakInFlight returns the most requests that were in flight at once (handed to the
// child's stdin and not yet answered) since the previous call, and starts counting
// afresh. The battery reads it to know how many requests really reached the store
// together.
func (c *Client) PeakInFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.peak
	c.peak = len(c.pending)
	return p
}

// Failure is Err for a report: nil while the session is healthy or after Close ended it,
// else the fatal error with the ops that were in flight when it happened, named on its
// first line (the rest is the child's stderr tail).
func (c *Client) Failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fatal == nil || errors.Is(c.fatal, ErrClosed) {
		return nil
	}
	inFlight := "no request in flight"
	if len(c.fatalOps) > 0 {
		inFlight = "in flight: " + strings.Join(c.fatalOps, ", ")
	}
	first, rest, _ := strings.Cut(c.fatal.Error(), "\n")
	msg := first + " (" + inFlight + ")"
	if rest != "" {
		msg += "\n" + rest
	}
	return &sessionError{msg: msg, err: c.fatal}
}

// sessionError is a fatal session error reworded for a report; errors.Is still sees
// ErrChildExited, ErrTimeout or ErrProtocol through it.
type sessionError struct {
	msg string
	err error
}

func (e *sessionError) Error() string { return e.msg }
func (e *sessionError) Unwrap() error { return e.err }

// Reset asks the child to drop every task of both eras.
func (c *Client) Reset(ctx context.Context) error {
	// reset also returns the child's facade to its default configuration.
	c.facadeCfg.forget()
	_, err := c.roundTrip(ctx, opReset, map[string]any{}, nil)
	return err
}

// SetClock sets the child's clock to ms milliseconds since the Unix epoch, or back to
// the real clock when ms is nil. It fails with reference.ErrUnsupported when the child
// did not declare clock control.
func (c *Client) SetClock(ctx context.Context, ms *int64) error {
	if !c.hello.Clock {
		return fmt.Errorf("wire: clock: %w: the store process did not declare clock control", reference.ErrUnsupported)
	}
	c.clockMu.Lock()
	defer c.clockMu.Unlock()
	c.clockSrc = nil
	_, err := c.roundTrip(ctx, opClock, map[string]any{"now_ms": ms}, nil)
	return err
}

// Delay asks the child to hold its next store operation back by d before running it
// (the delay op). It fails with reference.ErrUnsupported when the child did not declare
// delay.
func (c *Client) Delay(ctx context.Context, d time.Duration) error {
	if !c.hello.Delay {
		return fmt.Errorf("wire: delay: %w: the store process did not declare the delay op", reference.ErrUnsupported)
	}
	_, err := c.roundTrip(ctx, opDelay, map[string]any{"ms": d.Milliseconds()}, nil)
	return err
}

// follow forwards clk's time to the child now, and makes every later call through a
// store bound to clk forward it again whenever clk has moved.
func (c *Client) follow(ctx context.Context, clk *reference.ManualClock) error {
	c.clockMu.Lock()
	defer c.clockMu.Unlock()
	c.clockSrc = nil
	return c.sendClockLocked(ctx, clk)
}

// syncClock forwards clk's time when it moved since it was last forwarded.
func (c *Client) syncClock(ctx context.Context, clk *reference.ManualClock) error {
	c.clockMu.Lock()
	defer c.clockMu.Unlock()
	if c.clockSrc == clk && c.clockGen == clk.Generation() {
		return nil
	}
	return c.sendClockLocked(ctx, clk)
}

func (c *Client) sendClockLocked(ctx context.Context, clk *reference.ManualClock) error {
	// Read the generation before the time: a move in between only causes a resend.
	gen := clk.Generation()
	ms := clk.Now().UnixMilli()
	if _, err := c.roundTrip(ctx, opClock, map[string]any{"now_ms": ms}, nil); err != nil {
		return err
	}
	c.clockSrc, c.clockGen = clk, gen
	return nil
}

// Legacy returns the child's legacy store. The value implements legacy.Canceler,
// legacy.Cleaner and legacy.ConditionalUpdater exactly when the child declared them.
func (c *Client) Legacy() legacy.Store { return c.legacyStore(nil) }

// Modern returns the child's modern store.
func (c *Client) Modern() modern.Store { return &modernStore{c: c} }

// doAnswer is a call by do whose ok value dec decodes: that value, or T's zero value and
// the call's error.
func doAnswer[T any](ctx context.Context, c *Client, clk *reference.ManualClock, op string, args any, dec func(json.RawMessage) (T, error)) (T, error) {
	return answer(dec, func(decode func(json.RawMessage) error) error { return c.do(ctx, clk, op, args, decode) })
}

// answer runs send with a decode callback that keeps dec's value.
func answer[T any](dec func(json.RawMessage) (T, error), send func(decode func(json.RawMessage) error) error) (T, error) {
	var v T
	err := send(func(raw json.RawMessage) (err error) {
		v, err = dec(raw)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// do is one call of a store operation: the caller's context is checked first (a call
// with a dead context sends nothing, so it changes nothing), the clock is forwarded if
// it moved, then the request goes out and decode reads the answer's ok value. An ok
// value decode refuses fails the call with ErrProtocol, naming the op.
func (c *Client) do(ctx context.Context, clk *reference.ManualClock, op string, args any, decode func(json.RawMessage) error) error {
	if err := ctx.Err(); err != nil {
		return &OpError{Op: op, Err: err}
	}
	if clk != nil {
		if err := c.syncClock(ctx, clk); err != nil {
			return err
		}
	}
	var id int64
	raw, err := c.roundTrip(ctx, op, args, &id)
	if err != nil {
		return err
	}
	if decode == nil {
		return nil
	}
	if err := decode(raw); err != nil {
		return &OpError{Op: op, ID: id, Err: fmt.Errorf("%w: bad answer: %v: ok was %s", ErrProtocol, err, quoteLine(raw))}
	}
	return nil
}

// roundTrip sends one request and waits for its answer, the context's end or the
// request timeout, whichever comes first. idOut, when set, receives the request id.
func (c *Client) roundTrip(ctx context.Context, op string, args any, idOut *int64) (json.RawMessage, error) {
	return c.send(ctx, op, args, idOut, c.opts.Timeout)
}

func (c *Client) send(ctx context.Context, op string, args any, idOut *int64, timeout time.Duration) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, &OpError{Op: op, Err: err}
	}
	var argBuf [256]byte
	rawArgs, err := appendArgs(argBuf[:0], args)
	if err != nil {
		return nil, &OpError{Op: op, Err: fmt.Errorf("%w: arguments have no JSON form: %v", reference.ErrInvalid, err)}
	}
	if c.nUnsettled.Load() != 0 {
		if err := c.settle(ctx, timeout); err != nil {
			return nil, &OpError{Op: op, Err: err}
		}
	}
	id := c.nextID.Add(1)
	if idOut != nil {
		*idOut = id
	}
	// No timer per call: a timer a caller blocks on is put in the runtime's heap and
	// wakes a thread to watch it, on every call. The watchdog checks deadlines instead.
	cl := &call{op: op, ch: make(chan result, 2), deadline: time.Now().Add(timeout), timeout: timeout}
	c.mu.Lock()
	if c.fatal != nil {
		f := c.fatal
		c.mu.Unlock()
		return nil, &OpError{Op: op, ID: id, Err: f}
	}
	c.addPendingLocked(id, cl)
	c.mu.Unlock()

	c.write(id, op, rawArgs)
	return c.await(ctx, cl, id)
}

// await waits for cl's answer, reading stdout itself when the reader role is free or
// handed to it (see Client.role).
func (c *Client) await(ctx context.Context, cl *call, id int64) (json.RawMessage, error) {
	c.mu.Lock()
	lead := c.role == roleNone && c.fatal == nil
	if lead {
		c.role, c.roleCall = roleCaller, cl
	}
	c.mu.Unlock()
	for {
		if lead {
			lead = false
			r, answered, cancelled := c.lead(ctx, cl, id)
			switch {
			case answered:
				return r.ok, r.err
			case cancelled:
				return nil, &OpError{Op: cl.op, ID: id, Err: ctx.Err()}
			}
		}
		select {
		case r := <-cl.ch: // an answer, the failure of the session (a timeout among them), or the role
			if r.turn {
				lead = true
				continue
			}
			return r.ok, r.err
		case <-ctx.Done():
			c.abandon(id, cl)
			return nil, &OpError{Op: cl.op, ID: id, Err: ctx.Err()}
		}
	}
}

// lead reads stdout for cl, which holds the reader role, until cl's answer (or the
// session's failure) is in, handing the other answers it reads to their calls; then it
// passes the role on. cancelled: cl's context ended first, and cl is abandoned. Neither:
// stdout ended, the background reader finishes the session, and cl's result follows.
func (c *Client) lead(ctx context.Context, cl *call, id int64) (r result, answered, cancelled bool) {
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, c.src.interrupt)
		defer stop()
	}
	c.src.allowSpin(c.soloFn)
	for {
		select {
		case r := <-cl.ch:
			c.mu.Lock()
			c.passRoleLocked()
			c.mu.Unlock()
			return r, true, false
		default:
		}
		line, tooLong, err := c.readLine()
		if errors.Is(err, errInterrupted) {
			if ctx.Err() != nil {
				c.abandon(id, cl)
				return result{}, false, true
			}
			continue // the session failed (its result is in cl.ch), or a stale interrupt
		}
		c.take(line, tooLong, err)
		if err != nil {
			c.mu.Lock()
			c.toBackgroundLocked()
			c.mu.Unlock()
			return result{}, false, false
		}
	}
}

// solo reports whether one request alone is in flight and the calls before it came one
// at a time too: the reader role's holder may then spin for its answer (see allowSpin).
// Not while callers overlap, as the race checks' clients do: a holder spinning for its
// answer takes a CPU the other clients need to send theirs, and the answer it gets
// sooner closes its call before the next client's opens, so the calls overlap less and
// the race has less power (docs/performance.md, "Spinning before blocking").
func (c *Client) solo() bool { return c.serial.Load() && c.nPending.Load() == 1 }

// addPendingLocked puts cl in pending as id, keeping what is counted of pending (peak,
// nPending, whether the calls come one at a time) in step; with c.mu held.
func (c *Client) addPendingLocked(id int64, cl *call) {
	c.pending[id] = cl
	c.nPending.Store(int32(len(c.pending)))
	c.peak = max(c.peak, len(c.pending))
	c.calls.note(len(c.pending) > 1)
	c.serial.Store(c.calls.quiet())
}

// dropPendingLocked takes id out of pending; with c.mu held.
func (c *Client) dropPendingLocked(id int64) {
	delete(c.pending, id)
	c.nPending.Store(int32(len(c.pending)))
}

// passRoleLocked gives the reader role up: to a call still waiting for its answer, to
// nobody when no answer is due, or to the background reader when only abandoned calls'
// answers are due, stdout is being drained, or the session failed. With c.mu held, by
// the role's holder.
func (c *Client) passRoleLocked() {
	if c.role == roleEnded {
		return
	}
	c.roleCall = nil
	if c.fatal == nil && !c.drain {
		for _, p := range c.pending {
			if !p.abandoned {
				c.role, c.roleCall = roleCaller, p
				p.ch <- result{turn: true}
				return
			}
		}
		if len(c.pending) == 0 {
			c.role = roleNone
			return
		}
	}
	c.toBackgroundLocked()
}

// toBackgroundLocked hands the reader role to readLoop; with c.mu held (or before the
// client is shared).
func (c *Client) toBackgroundLocked() {
	if c.role == roleEnded {
		return
	}
	c.role, c.roleCall = roleBackground, nil
	select {
	case c.bgKick <- struct{}{}:
	default:
	}
}

// watchdogTick is how often the watchdog looks for calls past their deadline: a tenth
// of the request timeout, within 1 ms to 100 ms, so a hung child is declared so at most
// that late.
func watchdogTick(timeout time.Duration) time.Duration {
	return min(max(timeout/10, time.Millisecond), 100*time.Millisecond)
}

// watchdog declares the child hung when a call that is still waiting passes its
// deadline while the child is silent (see timeout), until the session ends.
func (c *Client) watchdog() {
	tick := watchdogTick(c.opts.Timeout)
	t := time.NewTicker(tick)
	defer t.Stop()
	prev := time.Now()
	var seen uint64
	for {
		select {
		case <-c.dead:
			return
		case <-t.C:
		}
		now := time.Now()
		unread := c.src.backlog() > 0
		var late *call
		var lateID int64
		c.mu.Lock()
		// The child counts as heard from now when it answered since the last tick, when
		// an answer waits unread (this process is behind, not the child), or when this
		// tick came half a timeout late: this process was not running (a loaded machine,
		// a paused VM), and silence is judged only over time it watched.
		if c.answers != seen || unread || now.Sub(prev) > c.opts.Timeout/2 {
			seen, c.heard = c.answers, now
		}
		prev = now
		for id, cl := range c.pending {
			if !cl.abandoned && now.After(cl.deadline) && now.Sub(c.heard) >= cl.timeout && (late == nil || cl.deadline.Before(late.deadline)) {
				late, lateID = cl, id
			}
		}
		c.mu.Unlock()
		if late != nil {
			c.timeout(late.op, lateID, late.timeout)
		}
	}
}

// write sends one request line (see wbuf). A line is never lost to the pipe being full;
// a write error ends the session (writeFailed), failing every pending call.
func (c *Client) write(id int64, op string, rawArgs []byte) {
	c.wmu.Lock()
	if c.werr != nil {
		c.wmu.Unlock()
		return
	}
	c.wbuf = appendRequest(c.wbuf, id, op, rawArgs)
	if c.writing {
		c.wmu.Unlock()
		return // the writer takes this line along
	}
	c.writing = true
	for {
		buf := c.wbuf
		c.wbuf = c.wspare[:0]
		c.wmu.Unlock()
		n, err := tryWrite(c.rawIn, buf)
		c.wmu.Lock()
		if err != nil {
			c.werr = err
			c.writing = false
			c.wbuf = nil
			c.wmu.Unlock()
			go c.writeFailed(err)
			return
		}
		if n < len(buf) {
			// The pipe is full: writeLoop finishes with blocking writes, in order.
			c.wbuf = append(append(make([]byte, 0, len(buf)-n+len(c.wbuf)), buf[n:]...), c.wbuf...)
			c.wspare = nil
			c.wmu.Unlock()
			select {
			case c.wkick <- struct{}{}:
			default:
			}
			return
		}
		c.wspare = buf[:0]
		if len(c.wbuf) == 0 {
			c.writing = false
			c.wmu.Unlock()
			return
		}
	}
}

// settle waits until every abandoned request has been answered (see unsettled). A
// child that never answers one trips the timeout as if the caller had waited for it.
func (c *Client) settle(ctx context.Context, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		c.mu.Lock()
		var wait *call
		var wid int64
		for id, cl := range c.unsettled {
			wait, wid = cl, id
			break
		}
		c.mu.Unlock()
		if wait == nil {
			return nil
		}
		select {
		case <-wait.done:
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			if left := c.silenceLeft(timeout); left > 0 {
				timer.Reset(left) // the child is answering: slow, not hung
				continue
			}
			c.timeout(wait.op, wid, timeout)
			return nil // the session is over: the caller fails with the timeout
		}
	}
}

// silenceLeft is how much longer the child must stay silent (see watchdog) before it
// has been silent for d.
func (c *Client) silenceLeft(d time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return d - time.Since(c.heard)
}

// abandon marks a request whose caller gave up: its answer, when it comes, is dropped
// rather than taken for an answer to an unknown id. A call holding the reader role (or
// handed it) passes it on.
func (c *Client) abandon(id int64, cl *call) {
	c.mu.Lock()
	if p, ok := c.pending[id]; ok && p == cl {
		cl.abandoned = true
		cl.done = make(chan struct{})
		c.unsettled[id] = cl
		c.nUnsettled.Store(int32(len(c.unsettled)))
	}
	if c.role == roleCaller && c.roleCall == cl {
		c.passRoleLocked()
	}
	c.mu.Unlock()
}

// timeout declares the child hung: every pending and later call fails, and the child is
// killed so that it cannot answer into a session that has moved on.
func (c *Client) timeout(op string, id int64, d time.Duration) {
	c.fail(fmt.Errorf("%w: no answer to %s (request %d) within %s, and nothing else from the store process for as long%s; the store process was killed (set a longer per-request timeout if it is merely slow)%s",
		ErrTimeout, op, id, d, c.stdinState(), c.stderr.describe()))
	c.kill()
}

// fail records the session's fatal error (the first one wins) and fails every pending
// call with it, each naming its own op.
func (c *Client) fail(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failLocked(cause)
}

func (c *Client) failLocked(cause error) {
	if c.fatal != nil {
		return
	}
	c.fatal = cause
	close(c.dead)
	switch c.role {
	case roleNone:
		c.toBackgroundLocked() // to drain stdout, so that the child never blocks on it
	case roleCaller:
		c.src.interrupt() // its holder takes its failure and passes the role on
	}
	clear(c.unsettled)
	c.nUnsettled.Store(0)
	for id, cl := range c.pending {
		// Named with its request id: the request the child died on is the first
		// place to look in its log.
		if op := fmt.Sprintf("%s (request %d)", cl.op, id); !slices.Contains(c.fatalOps, op) {
			c.fatalOps = append(c.fatalOps, op)
		}
	}
	slices.Sort(c.fatalOps)
	for id, cl := range c.pending {
		c.dropPendingLocked(id)
		cl.leave()
		if !cl.abandoned {
			cl.ch <- result{err: &OpError{Op: cl.op, ID: id, Err: cause}}
		}
	}
}

// stdinState says, for a timeout's message, whether the child had read the requests
// sent to it: a child that stopped reading its stdin differs from one that read a
// request and never answered it.
func (c *Client) stdinState() string {
	n := -1
	_ = c.rawIn.Control(func(fd uintptr) { n = pipeUnread(int(fd)) })
	switch {
	case n > 0:
		return fmt.Sprintf(" (%d bytes of requests were still unread in its stdin)", n)
	case n == 0:
		return " (it had read every request sent to it)"
	}
	return ""
}

func (c *Client) kill() {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	killProcess(c.cmd)
}

// handle dispatches one line of the child's stdout.
func (c *Client) handle(line []byte) {
	a, err := DecodeAnswer(line) // outside mu: the callers need it to send
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answers++
	if c.fatal != nil {
		return // the session is over; keep draining so the child never blocks
	}
	if err != nil {
		if cl, ok := c.pending[a.ID]; ok && a.ID != 0 {
			err = fmt.Errorf("answer to %s (request %d): %w", cl.op, a.ID, err)
		}
		c.failLocked(err)
		return
	}
	cl, ok := c.pending[a.ID]
	if !ok {
		c.failLocked(fmt.Errorf("%w: answer to unknown request id %d: %s", ErrProtocol, a.ID, quoteLine(line)))
		return
	}
	c.dropPendingLocked(a.ID)
	cl.leave()
	if cl.abandoned {
		delete(c.unsettled, a.ID)
		c.nUnsettled.Store(int32(len(c.unsettled)))
		return
	}
	r := result{ok: a.OK}
	if a.Err != nil {
		r.err = a.Err
		if a.Err.err == nil {
			r.err = &OpError{Op: cl.op, ID: a.ID, Err: fmt.Errorf("%w: unknown error code %q (message %q); the codes of docs/wire.md are %s: %s",
				ErrProtocol, a.Err.Code, a.Err.Message, codeList, quoteLine(line))}
		}
	}
	cl.ch <- r
}

// readLoop is the background reader. It holds the reader role when no caller does
// and answers are still due (abandoned calls'), when the child has exited or the session
// failed (stdout is read to its end, so that the child never blocks writing it), and for
// the whole session when the source cannot be interrupted (fileSource). It ends the
// session when stdout ends.
func (c *Client) readLoop() {
	for {
		<-c.bgKick
		c.src.allowSpin(nil) // no caller waits on this read's behalf
		for {
			line, tooLong, err := c.readLine()
			if errors.Is(err, errInterrupted) {
				continue // meant for a caller holding the role before
			}
			c.take(line, tooLong, err)
			if err != nil {
				c.endOfRead()
				return
			}
			c.mu.Lock()
			idle := c.src.leads() && c.fatal == nil && !c.drain && len(c.pending) == 0
			if idle {
				c.role = roleNone
			}
			c.mu.Unlock()
			if idle {
				break
			}
		}
	}
}

// endOfRead ends the session after stdout ended (EOF, or shutdown by waitLoop).
func (c *Client) endOfRead() {
	c.mu.Lock()
	c.role, c.roleCall = roleEnded, nil
	c.mu.Unlock()
	_ = c.src.Close()
	close(c.readEnd)
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
	}
	c.fail(c.deathError(nil))
}

// readLine reads the next line of stdout for the role's holder, keeping what it had of
// a line when interrupted.
func (c *Client) readLine() ([]byte, bool, error) {
	line, tooLong, err := readLineFrom(c.br, c.partial, c.partialLong)
	if errors.Is(err, errInterrupted) {
		c.partial, c.partialLong = line, tooLong
		return nil, false, err
	}
	c.partial, c.partialLong = nil, false
	return line, tooLong, err
}

// take dispatches one line the role's holder read (err: what ended the read with it).
func (c *Client) take(line []byte, tooLong bool, err error) {
	if tooLong {
		c.fail(fmt.Errorf("%w: a line of the store process's stdout is longer than %d bytes: %s", ErrProtocol, maxLine, quoteLine(line)))
	} else if len(line) > 0 || err == nil {
		c.handle(line)
	}
}

// readLine reads one line without its newline. A line over maxLine is consumed and
// reported as tooLong with its beginning.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	return readLineFrom(br, nil, false)
}

// readLineFrom is readLine continuing a line of which line (tooLong: over maxLine) was
// read before an error.
func readLineFrom(br *bufio.Reader, line []byte, tooLong bool) ([]byte, bool, error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > maxLine {
				tooLong = true
				line = line[:min(len(line), maxQuote)]
			} else {
				line = append(line, frag...)
			}
		}
		switch {
		case err == nil:
			return trimNewline(line), tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, tooLong, err
		}
	}
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// writeLoop finishes a backlog write left it because the pipe was full (see wbuf), and
// closes stdin when Close asks.
func (c *Client) writeLoop() {
	for {
		select {
		case <-c.quit:
			_ = c.stdin.Close()
			return
		case <-c.wkick:
		}
		for {
			c.wmu.Lock()
			buf := c.wbuf
			c.wbuf = nil
			if len(buf) == 0 || c.werr != nil {
				c.writing = false
				c.wmu.Unlock()
				break
			}
			c.wmu.Unlock()
			if _, err := c.stdin.Write(buf); err != nil {
				c.wmu.Lock()
				c.werr = err
				c.writing = false
				c.wbuf = nil
				c.wmu.Unlock()
				c.writeFailed(err)
				return
			}
		}
	}
}

// writeFailed ends the session after a write to the child's stdin failed.
func (c *Client) writeFailed(err error) {
	// The child stopped reading: report its exit if it is on its way.
	select {
	case <-c.exited:
	case <-c.quit:
	case <-time.After(time.Second):
	}
	c.fail(c.deathError(err))
}

func (c *Client) waitLoop() {
	err := c.cmd.Wait()
	c.exitErr = err
	close(c.exited)
	// Let the reader take the answers the child wrote before exiting: whoever holds the
	// role reads on to the end (drain), the background reader if nobody does.
	c.mu.Lock()
	c.drain = true
	if c.role == roleNone {
		c.toBackgroundLocked()
	}
	c.mu.Unlock()
	select {
	case <-c.readEnd:
	case <-time.After(time.Second):
	}
	c.fail(c.deathError(nil))
	c.src.shutdown() // unblocks the reader if a grandchild still holds the pipe
}

// deathError describes why the session ended without a protocol violation.
func (c *Client) deathError(writeErr error) error {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return ErrClosed
	}
	select {
	case <-c.exited:
		status := "exit status 0"
		if c.exitErr != nil {
			status = c.exitErr.Error()
		}
		return fmt.Errorf("%w unexpectedly (%s)%s", ErrChildExited, status, c.stderr.describe())
	default:
	}
	if writeErr != nil {
		return fmt.Errorf("%w: it stopped reading its stdin (%v)%s", ErrChildExited, writeErr, c.stderr.describe())
	}
	return fmt.Errorf("%w: it closed its stdout%s", ErrChildExited, c.stderr.describe())
}

// Close ends the session as docs/wire.md says: it closes the child's stdin and waits for it
// to exit, killing it after the grace period. Pending calls fail with ErrClosed. It
// reports a child that had to be killed or exited with a non-zero status.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		// A session that already ended (the child died, hung or broke the protocol)
		// has reported why; its exit is not a second fault.
		ended := c.fatal != nil
		c.mu.Unlock()
		c.fail(ErrClosed)
		close(c.quit)
		_ = c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(c.opts.CloseGrace):
			c.kill()
			<-c.exited
			c.closeErr = fmt.Errorf("wire: %s did not exit within %s of its stdin closing and was killed%s", c.command(), c.opts.CloseGrace, c.stderr.describe())
			return
		}
		c.mu.Lock()
		killed := c.killed
		c.mu.Unlock()
		if c.exitErr != nil && !killed && !ended {
			c.closeErr = fmt.Errorf("wire: %s exited with %v after its stdin closed (docs/wire.md: it must exit 0)%s", c.command(), c.exitErr, c.stderr.describe())
		}
	})
	return c.closeErr
}
