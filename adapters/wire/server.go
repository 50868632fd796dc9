package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonscan"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// Name is the store's name in the hello answer; empty takes the harness's name.
	Name string
	// Log receives the server's own diagnostics (requests it cannot answer); nil
	// discards them. `storecheck serve` passes stderr, as docs/wire.md asks.
	Log io.Writer
	// Protocol, when 1, makes the server a strict version 1 child: it refuses any other
	// offer and serves no facade layer (to check that version 1 children keep working).
	// 0 speaks every version up to ProtocolVersion.
	Protocol int
}

// Serve answers the wire protocol on r and w with the stores of h, until r ends. It is
// the child side of docs/wire.md for Go stores: `storecheck serve` runs it on stdin and
// stdout.
//
// Each reset opens a fresh namespace of h (and closes the previous one), so a harness
// is all a store needs to be served. The stores read a clock that Serve owns: the clock
// op sets it (when h declares clock control) and clock null returns it to real time.
// hello advertises the eras of h's capabilities and the optional legacy operations the
// legacy store implements. Requests other than the session ops (hello, reset, clock,
// delay, facade.configure) are handled concurrently, one goroutine each, and answered
// as they finish, except that a request arriving alone is run by the reading goroutine
// itself when the store has been fast (see request): a store operation must not wait
// for a later request (sdk.wait, which does, always gets its goroutine).
func Serve(ctx context.Context, r io.Reader, w io.Writer, h harness.Harness, opts ServeOptions) error {
	if spinErr != nil {
		return spinErr
	}
	s := &server{h: h, caps: h.Capabilities(), clock: &switchClock{}, bw: bufio.NewWriter(w), log: opts.Log, name: opts.Name, strictV1: opts.Protocol == 1}
	if s.name == "" {
		s.name = h.Name()
	}
	if s.log == nil {
		s.log = io.Discard
	}
	if err := s.reset(ctx); err != nil {
		return fmt.Errorf("wire: serve: opening %s: %w", s.name, err)
	}
	in := s.input(r)
	if c, ok := in.(io.Closer); ok && in != r {
		defer c.Close()
	}
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		switch {
		case tooLong:
			fmt.Fprintf(s.log, "storecheck serve: dropped a request line longer than %d bytes\n", maxLine)
		case len(line) > 0:
			alone := br.Buffered() == 0 && err == nil
			s.lines.note(!alone)
			s.request(ctx, line, alone)
		}
		if err != nil {
			s.wg.Wait()
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.ns != nil {
				_ = s.ns.Close(context.WithoutCancel(ctx))
			}
			if err == io.EOF {
				return s.writeErr()
			}
			return fmt.Errorf("wire: serve: reading requests: %w", err)
		}
		if err := s.writeErr(); err != nil {
			return err
		}
	}
}

// maxDelayMillis bounds the delay op: a hold longer than a request's timeout would only
// get the store process killed as hung.
const maxDelayMillis = 10_000

type server struct {
	h     harness.Harness
	caps  harness.Capabilities
	clock *switchClock
	name  string
	log   io.Writer

	// mu guards the current namespace: requests hold it shared while they run, reset
	// exclusively.
	mu     sync.RWMutex
	ns     harness.Namespace
	legacy legacy.Store
	modern modern.Store
	sdk    sdk.Store // protocol 3: the SDK-profile store, nil without one
	held   heldValues

	// version is the protocol version hello agreed on; facadeCfg the facade
	// configuration facade.configure set (nil: the defaults).
	version   atomic.Int32
	delay     atomic.Int64 // ms the next store request waits before it runs (the delay op)
	facadeCfg atomic.Pointer[harness.FacadeConfig]
	strictV1  bool

	wg sync.WaitGroup
	// opNanos is a moving average of how long the store's operations take, for
	// request's choice of running one inline.
	opNanos atomic.Int64
	running atomic.Int32 // requests running in their own goroutines
	// lines says whether the request lines were read one at a time (spinOK); the reading
	// goroutine's alone.
	lines   oneAtATime
	spawned bool         // the reader started a request's goroutine since it last yielded
	writers atomic.Int32 // replies between taking their turn and writing (see reply)
	wmu     sync.Mutex
	bw      *bufio.Writer
	werr    error
}

// switchClock is the clock the served stores read: a fixed time once the clock op has
// set one, the real time otherwise.
type switchClock struct{ ms atomic.Pointer[int64] }

func (c *switchClock) Now() time.Time {
	if p := c.ms.Load(); p != nil {
		return time.UnixMilli(*p)
	}
	return time.Now()
}

func (s *server) reset(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ns != nil {
		_ = s.ns.Close(ctx)
		s.ns, s.legacy, s.modern, s.sdk = nil, nil, nil, nil
	}
	s.held.reset()
	ns, err := s.h.Open(ctx, s.clock)
	if err != nil {
		return err
	}
	var l legacy.Store
	var m modern.Store
	if s.caps.Legacy {
		if l, err = ns.Legacy(ctx); err != nil {
			_ = ns.Close(ctx)
			return err
		}
	}
	if s.caps.Modern {
		if m, err = ns.Modern(ctx); err != nil {
			_ = ns.Close(ctx)
			return err
		}
	}
	st, err := openSDK(ctx, s.caps, ns)
	if err != nil {
		_ = ns.Close(ctx)
		return err
	}
	s.ns, s.legacy, s.modern, s.sdk = ns, l, m, st
	return nil
}

// requestLine is a request line taken apart: id and op, and args still as JSON.
type requestLine struct {
	ID   json.RawMessage `json:"id"`
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
}

// decodeRequest takes a request line apart. A line that is not a JSON object, or has no
// integer id, cannot be answered: bad says why (for the log). A line with an id but args
// that are not an object gets argsErr, to answer with.
func decodeRequest(line []byte) (id int64, op string, args map[string]any, bad string, argsErr error) {
	if id, op, args, ok := decodeRequestFast(line); ok {
		return id, op, args, "", nil
	}
	return decodeRequestSlow(line)
}

// decodeRequestSlow is decodeRequest through encoding/json.
func decodeRequestSlow(line []byte) (id int64, op string, args map[string]any, bad string, argsErr error) {
	var req requestLine
	// One pass: decoding into the struct fails exactly when the line is not a JSON
	// object (or null, which has no id and is refused just below).
	if err := json.Unmarshal(line, &req); err != nil {
		return 0, "", nil, "a line that is not a JSON object", nil
	}
	if err := json.Unmarshal(req.ID, &id); err != nil {
		return 0, "", nil, "a request without an integer id", nil
	}
	if len(req.Args) > 0 && string(req.Args) != "null" {
		v, err := jsonvalue.Decode(req.Args)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return id, req.Op, nil, "", fmt.Errorf("%w: args must be an object", reference.ErrInvalid)
		}
		args = m
	}
	return id, req.Op, args, "", nil
}

// decodeRequestFast is decodeRequest for the lines storecheck writes: exactly the keys
// id, op and args, once each, an integer id, a plain op string and an object (or null)
// of args. Anything else takes decodeRequest's slow path, whose struct decoding also
// matches keys case-insensitively.
func decodeRequestFast(line []byte) (id int64, op string, args map[string]any, ok bool) {
	var buf [4]jsonscan.Field
	fields, ok := jsonscan.ScanObject(line, buf[:0])
	if !ok || len(fields) != 3 {
		return 0, "", nil, false
	}
	var vals [3][]byte
	if !pickKeys(fields, []string{"id", "op", "args"}, vals[:]) {
		return 0, "", nil, false
	}
	rawID, rawOp, rawArgs := vals[0], vals[1], vals[2]
	if rawID == nil || rawOp == nil || rawArgs == nil {
		return 0, "", nil, false
	}
	// json.Unmarshal into an int64 takes exactly the plain integer literals.
	id, err := strconv.ParseInt(string(rawID), 10, 64)
	if err != nil || rawID[0] == '+' {
		return 0, "", nil, false
	}
	// An op that is not a plain string (an escape in it, or no string at all) takes the
	// slow path.
	v, plain := jsonscan.Scalar(rawOp)
	if op, ok = v.(string); !plain || !ok {
		return 0, "", nil, false
	}
	switch rawArgs[0] {
	case 'n':
		return id, op, nil, true
	case '{':
		v, ok := jsonscan.Value(rawArgs)
		if !ok {
			return 0, "", nil, false
		}
		return id, op, v.(map[string]any), true
	}
	return 0, "", nil, false
}

// inlineNanos is the average store operation time under which request runs a lone
// request inline: a request arriving meanwhile waits at most about that long to be read.
const inlineNanos = 50_000

// input is how Serve reads r. With more than one P, outside the runtime's poller: a
// pipe from exec is a blocking descriptor, and a thread blocked in read(2) wakes on a
// request by a shorter path than a goroutine parked in the poller, which the scheduler
// must wake through epoll (docs/performance.md), while request's goroutines run on the
// other Ps; on Linux the reader also spins before it blocks (spinInput). With one P,
// through the poller (pollable).
func (s *server) input(r io.Reader) io.Reader {
	if runtime.GOMAXPROCS(0) > 1 {
		return spinInput(r, s.spinOK)
	}
	return pollable(r)
}

// spinOK says whether the reader may spin before it blocks for the next request (see
// spinInput): only while the requests come one at a time and none is running. Not
// when requests run in their goroutines (a reader spinning beside them would take a
// CPU they need), and not while clients send requests together, as the race checks'
// clients do: a reader that picked each request up the instant it arrived would find
// it alone and run it inline (request), and the store would see the race's requests
// one after another. Serve's reading goroutine alone calls it.
func (s *server) spinOK() bool { return s.lines.quiet() && s.running.Load() == 0 }

// request handles one request line. alone says that no other request line has been
// read and not yet handled: with the store fast (opNanos under inlineNanos), no delay
// pending and an op that never waits for another request, the reader runs it itself,
// which saves a round trip the start of a goroutine and the wake-up of a second thread.
// Requests that arrive together keep running concurrently, each in its goroutine.
func (s *server) request(ctx context.Context, line []byte, alone bool) {
	id, op, args, bad, argsErr := decodeRequest(line)
	if bad != "" {
		fmt.Fprintf(s.log, "storecheck serve: cannot answer %s: %s\n", bad, quoteLine(line))
		return
	}
	if argsErr != nil {
		s.reply(id, nil, argsErr)
		return
	}
	switch op {
	case opHello, opReset, opClock, opFacadeConfigure, opDelay:
		// Session ops run in order: nothing else is read until they are answered.
		ok, err := s.session(ctx, op, args)
		s.reply(id, ok, err)
		return
	}
	delay := time.Duration(s.delay.Swap(0)) * time.Millisecond // the delay op's, for this request
	if alone && delay == 0 && op != opSDKWait && s.opNanos.Load() < inlineNanos {
		s.run(ctx, id, op, args)
		return
	}
	s.wg.Add(1)
	s.running.Add(1)
	s.spawned = true
	go func() {
		defer s.wg.Done()
		defer s.running.Add(-1)
		if delay > 0 {
			time.Sleep(delay)
		}
		s.run(ctx, id, op, args)
	}()
	if alone && s.spawned {
		// Before the reader blocks in read(2) holding its P, let what it started run.
		s.spawned = false
		runtime.Gosched()
	}
}

// run performs one store request and answers it.
func (s *server) run(ctx context.Context, id int64, op string, args map[string]any) {
	start := time.Now()
	s.mu.RLock()
	ok, err := s.dispatch(ctx, op, args)
	s.mu.RUnlock()
	d := int64(time.Since(start))
	// An average over about the last eight operations: one fast answer (an argument
	// refused) does not make a slow store look fast.
	for {
		old := s.opNanos.Load()
		if s.opNanos.CompareAndSwap(old, old+(d-old)/8) {
			break
		}
	}
	s.reply(id, ok, err)
}

func (s *server) session(ctx context.Context, op string, args map[string]any) (any, error) {
	switch op {
	case opFacadeConfigure:
		return nil, s.configure(args)
	case opDelay:
		if s.strictV1 {
			return nil, fmt.Errorf("%w: unknown op %s", reference.ErrUnsupported, op)
		}
		n, _ := args["ms"].(json.Number)
		ms, err := integer(n)
		if err != nil || ms < 0 || ms > maxDelayMillis {
			return nil, fmt.Errorf("%w: ms must be an integer from 0 to %d, got %v", reference.ErrInvalid, maxDelayMillis, args["ms"])
		}
		s.delay.Store(ms)
		return nil, nil
	case opHello:
		p, _ := args["protocol"].(json.Number)
		v, err := integer(p)
		if s.strictV1 && v != 1 {
			return nil, fmt.Errorf("%w: this store speaks protocol 1, not %v", reference.ErrUnsupported, args["protocol"])
		}
		if err != nil || v < MinProtocolVersion {
			return nil, fmt.Errorf("%w: this store speaks protocol %d to %d, not %v", reference.ErrUnsupported, MinProtocolVersion, ProtocolVersion, args["protocol"])
		}
		version := min(int(v), ProtocolVersion)
		s.version.Store(int32(version))
		eras := []string{}
		if s.caps.Legacy {
			eras = append(eras, "legacy")
		}
		if s.caps.Modern {
			eras = append(eras, "modern")
		}
		s.mu.RLock()
		_, c := s.legacy.(legacy.Canceler)
		_, l := s.legacy.(legacy.Cleaner)
		_, u := s.legacy.(legacy.ConditionalUpdater)
		hello := map[string]any{"protocol": version, "name": s.name, "eras": eras,
			"legacy": map[string]any{"cancel": c, "cleanup": l, "conditional_update": u}, "clock": s.caps.Clock}
		if !s.strictV1 {
			hello["delay"] = true
		}
		s.helloV2(version, hello)
		s.helloV3(version, hello)
		s.mu.RUnlock()
		return hello, nil
	case opReset:
		s.wg.Wait() // abandoned requests finish on the namespace they started on
		s.facadeCfg.Store(nil)
		s.delay.Store(0)
		return nil, s.reset(ctx)
	}
	if !s.caps.Clock {
		return nil, fmt.Errorf("%w: %s does not obey a clock", reference.ErrUnsupported, s.name)
	}
	ms, err := optionalInteger(args["now_ms"], "now_ms")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	s.clock.ms.Store(ms) // nil: the system clock again
	return nil, nil
}

// reply writes one answer; writes are serialised so that lines never interleave. The
// buffer is flushed by the last of the replies that are writing at once: an answer
// finished while others queue for the writer goes out with theirs in one write(2), and
// no answer ever waits for a request still running.
func (s *server) reply(id int64, ok any, err error) {
	line := appendAnswer(make([]byte, 0, 512), id, ok, err)
	s.writers.Add(1)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	last := s.writers.Add(-1) == 0
	if s.werr != nil {
		return
	}
	if _, err := s.bw.Write(line); err != nil {
		s.werr = err
		return
	}
	if last {
		s.werr = s.bw.Flush()
	}
}

// encodeAnswer is the ok value of an answer as appendAnswer writes it.
func encodeAnswer(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: the store returned a value with no JSON form: %v", reference.ErrInternal, err)
	}
	return b, nil
}

// appendAnswer appends the line of an answer, newline included: {"id":…,"ok":…} or
// {"id":…,"error":{"code":…,"message":…}}, in the bytes json.Marshal of the map it
// replaces wrote (keys in sorted order, HTML-escaped strings), without marshalling the
// ok value a second time.
func appendAnswer(b []byte, id int64, ok any, err error) []byte {
	b = append(b, `{`...)
	if err == nil {
		if t, isTask := ok.(modern.Task); isTask {
			head := append(b, `"id":`...)
			head = strconv.AppendInt(head, id, 10)
			head = append(head, `,"ok":`...)
			if line, merr := appendModernTask(head, t); merr == nil {
				return append(line, '}', '\n')
			}
			// json.Marshal below words the error.
		}
		v, verr := encodeAnswer(ok)
		if verr == nil {
			b = append(b, `"id":`...)
			b = strconv.AppendInt(b, id, 10)
			b = append(b, `,"ok":`...)
			b = append(b, v...)
			return append(b, '}', '\n')
		}
		err = verr
	}
	code, _ := json.Marshal(reference.Code(err))
	msg, _ := json.Marshal(err.Error())
	b = append(b, `"error":{"code":`...)
	b = append(b, code...)
	b = append(b, `,"message":`...)
	b = append(b, msg...)
	b = append(b, `},"id":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, '}', '\n')
}

func (s *server) writeErr() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return fmt.Errorf("wire: serve: writing answers: %w", s.werr)
	}
	return nil
}

// errArgs wraps ErrInvalid for a request whose arguments do not have docs/wire.md's shape.
func errArgs(op, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", reference.ErrInvalid, op, fmt.Sprintf(format, args...))
}

func (s *server) dispatch(ctx context.Context, op string, args map[string]any) (any, error) {
	if len(op) > 7 && op[:7] == "legacy." && s.legacy == nil || len(op) > 7 && op[:7] == "modern." && s.modern == nil {
		return nil, fmt.Errorf("%w: %s does not implement the %s era", reference.ErrUnsupported, s.name, op[:6])
	}
	a := opArgs{op: op, args: args}
	switch op {
	case opLegacyCreate, opLegacyUpdate, opLegacyGet, opLegacyDelete, opLegacyCancel,
		opLegacyList, opLegacyCleanup, opLegacyUpdateIf:
		return s.dispatchLegacy(ctx, a)
	case opModernCreate, opModernSwap, opModernGet, opModernDelete, opModernSweep:
		return s.dispatchModern(ctx, a)
	}
	if s.isFacadeOp(op) {
		return s.dispatchFacade(ctx, op, args)
	}
	if isSDKOp(op) {
		return s.dispatchSDK(ctx, op, args)
	}
	return nil, fmt.Errorf("%w: unknown op %q", reference.ErrUnsupported, op)
}

// dispatchLegacy answers one legacy store op.
func (s *server) dispatchLegacy(ctx context.Context, a opArgs) (any, error) {
	switch a.op {
	case opLegacyCreate, opLegacyUpdate:
		id, err := a.str("task_id")
		if err != nil {
			return nil, err
		}
		key := "metadata"
		if a.op == opLegacyUpdate {
			key = "changes"
		}
		m, err := a.object(key, false)
		if err != nil {
			return nil, err
		}
		if a.op == opLegacyCreate {
			return s.legacy.Create(ctx, id, legacy.Task(m))
		}
		return s.legacy.Update(ctx, id, legacy.Task(m))
	case opLegacyGet, opLegacyDelete, opLegacyCancel:
		id, err := a.str("task_id")
		if err != nil {
			return nil, err
		}
		switch a.op {
		case opLegacyGet:
			return s.legacy.Get(ctx, id)
		case opLegacyDelete:
			return nil, s.legacy.Delete(ctx, id)
		}
		c, ok := s.legacy.(legacy.Canceler)
		if !ok {
			return nil, fmt.Errorf("%w: %s has no legacy Cancel", reference.ErrUnsupported, s.name)
		}
		return c.Cancel(ctx, id)
	case opLegacyList:
		return s.legacyList(ctx, a)
	case opLegacyCleanup:
		c, ok := s.legacy.(legacy.Cleaner)
		if !ok {
			return nil, fmt.Errorf("%w: %s has no legacy Cleanup", reference.ErrUnsupported, s.name)
		}
		ms, err := a.num("ttl_ms")
		if err != nil {
			return nil, err
		}
		return c.Cleanup(ctx, time.Duration(ms)*time.Millisecond)
	}
	return s.legacyUpdateIf(ctx, a)
}

// legacyList answers legacy.list.
func (s *server) legacyList(ctx context.Context, a opArgs) (any, error) {
	var o legacy.ListOptions
	switch v := a.args["status"].(type) {
	case nil:
	case string:
		o.Status = &v
	default:
		return nil, errArgs(a.op, "status must be a string or null, got %s", kindOf(v))
	}
	if a.args["limit"] != nil {
		n, err := a.num("limit")
		if err != nil {
			return nil, err
		}
		l := int(n)
		o.Limit = &l
	}
	scope, err := decodeScope(a.args["owner"])
	if err != nil {
		return nil, errArgs(a.op, "%v", err)
	}
	o.Owner = scope
	if got, ok := optional(a.args["require_owner"], &o.RequireOwner); !ok {
		return nil, errArgs(a.op, "require_owner must be a boolean, got %s", got)
	}
	rows, err := s.legacy.List(ctx, o)
	if rows == nil && err == nil {
		rows = []legacy.Task{}
	}
	return rows, err
}

// legacyUpdateIf answers legacy.update_if.
func (s *server) legacyUpdateIf(ctx context.Context, a opArgs) (any, error) {
	u, ok := s.legacy.(legacy.ConditionalUpdater)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no legacy UpdateIf", reference.ErrUnsupported, s.name)
	}
	id, err := a.str("task_id")
	if err != nil {
		return nil, err
	}
	m, err := a.object("changes", false)
	if err != nil {
		return nil, err
	}
	list, ok := a.args["allowed_statuses"].([]any)
	if !ok {
		return nil, errArgs(a.op, "allowed_statuses must be an array of strings, got %s", kindOf(a.args["allowed_statuses"]))
	}
	allowed := make([]reference.Status, 0, len(list))
	for _, e := range list {
		st, ok := e.(string)
		if !ok {
			return nil, errArgs(a.op, "allowed_statuses must be an array of strings, and holds %s", kindOf(e))
		}
		allowed = append(allowed, reference.Status(st))
	}
	return u.UpdateIf(ctx, id, allowed, legacy.Task(m))
}

// dispatchModern answers one modern store op.
func (s *server) dispatchModern(ctx context.Context, a opArgs) (any, error) {
	switch a.op {
	case opModernCreate, opModernSwap:
		m, err := a.object("task", false)
		if err != nil {
			return nil, err
		}
		t, err := modernFromObject(m)
		if err != nil {
			return nil, errArgs(a.op, "task: %v", err)
		}
		if a.op == opModernCreate {
			return s.modern.Create(ctx, t)
		}
		caller, err := decodeCaller(a.args["caller"])
		if err != nil {
			return nil, errArgs(a.op, "%v", err)
		}
		v, err := a.num("expected_version")
		if err != nil {
			return nil, err
		}
		return s.modern.Swap(ctx, caller, v, t)
	case opModernGet:
		id, err := a.str("task_id")
		if err != nil {
			return nil, err
		}
		caller, err := decodeCaller(a.args["caller"])
		if err != nil {
			return nil, errArgs(a.op, "%v", err)
		}
		return s.modern.Get(ctx, id, caller)
	case opModernDelete:
		id, err := a.str("task_id")
		if err != nil {
			return nil, err
		}
		return nil, s.modern.Delete(ctx, id)
	}
	return s.modern.Sweep(ctx)
}

// StoreHarness makes a harness of a constructor, for serving a Go store that has no
// harness of its own: every namespace is a fresh pair from stores, reading the clock it
// is given (clock says whether the stores obey it). A nil store means the era is absent.
func StoreHarness(name string, clock bool, stores func(clock reference.Clock) (legacy.Store, modern.Store)) harness.Harness {
	l, m := stores(reference.SystemClock{})
	return &storeHarness{name: name, stores: stores, caps: harness.Capabilities{Legacy: l != nil, Modern: m != nil, Clock: clock}}
}

type storeHarness struct {
	name   string
	stores func(reference.Clock) (legacy.Store, modern.Store)
	caps   harness.Capabilities
}

func (h *storeHarness) Name() string                       { return h.name }
func (h *storeHarness) Capabilities() harness.Capabilities { return h.caps }
func (h *storeHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, m := h.stores(clock)
	return &storeNamespace{l: l, m: m}, nil
}

type storeNamespace struct {
	l legacy.Store
	m modern.Store
}

var errNoEra = errors.New("era not implemented")

func (n *storeNamespace) Legacy(ctx context.Context) (legacy.Store, error) {
	if n.l == nil {
		return nil, fmt.Errorf("%w: %w", reference.ErrUnsupported, errNoEra)
	}
	return n.l, nil
}

func (n *storeNamespace) Modern(ctx context.Context) (modern.Store, error) {
	if n.m == nil {
		return nil, fmt.Errorf("%w: %w", reference.ErrUnsupported, errNoEra)
	}
	return n.m, nil
}

func (n *storeNamespace) Close(ctx context.Context) error { return nil }
