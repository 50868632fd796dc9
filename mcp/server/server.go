// Package server is storecheck's reference MCP server: task-augmented tool calls over any
// store, behind the reference facades, in both eras of MCP tasks (the 2025-11-25 tasks
// utility and the 2026-07-28 tasks extension), over Streamable HTTP and stdio.
//
// The JSON-RPC and Streamable HTTP layer is written here by hand. The official Go SDK
// (github.com/modelcontextprotocol/go-sdk) carries Streamable HTTP but no tasks in either
// era, and the Go libraries that have tasks keep them in their own server, behind their
// own store: neither lets a task live in the store under test, behind storecheck's
// reference facades, nor answers the stateless 2026-07-28 wire (per-request _meta, no
// initialize, Mcp-Name routing headers). What is written here is the part of the
// protocol tasks need: one endpoint, JSON or SSE answers, sessions for 2025-11-25,
// bearer tokens mapped to principals.
package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Protocol versions and names this server speaks.
const (
	VersionLegacy  = "2025-11-25"
	VersionModern  = "2026-07-28"
	TasksExtension = "io.modelcontextprotocol/tasks"
)

// Config configures a Server.
type Config struct {
	// Legacy and Modern are the stores of the eras served; nil leaves an era out.
	Legacy legacy.Store
	Modern modern.Store
	// Principals maps bearer tokens to principal names. A request without a token is
	// anonymous; one with a token not in the map is refused with HTTP 401.
	Principals map[string]string
	// RequireOwner is the facades' require_owner: unowned tasks are denied to every
	// caller but the system.
	RequireOwner bool
	Clock        reference.Clock // nil: the real clock
	// DefaultTTL is a task's ttl when the client asks none (0: none); MaxTTL caps every
	// ttl (0: no cap).
	DefaultTTL, MaxTTL time.Duration
	// PollInterval is suggested to clients (0: 500 ms).
	PollInterval time.Duration
	// PageSize is the tasks/list page (0: 10).
	PageSize int
	// MaxBody bounds a request body (0: 1 MiB).
	MaxBody int64
	// MaxTasksPerPrincipal bounds the tasks a principal has running at once, in both
	// eras together (0: no bound); a task counts until it is cancelled or its tool's run
	// ends. A task asked for past it is refused with -32603. Callers without credentials
	// cannot be told apart, so they share one count.
	MaxTasksPerPrincipal int
	// Wrap, when set, is put around the server's handling of every parsed request
	// (after the transport found its caller and session, before its era's handlers):
	// the seam through which a deliberate defect (package mcp/servermutants) or an
	// instrument changes what the server does without a branch in it. Behind the seam
	// results and streamed messages are generic JSON (objects as map[string]any,
	// numbers as json.Number), as the params are.
	Wrap func(next Handler) Handler
	// The hooks below reach what no request's dispatch passes through. They exist so
	// that an instrument (the probe's power checks among them) can see or change one
	// decision of the server without a branch in it; nil keeps the server's own.
	//
	// Middleware is put around the Streamable HTTP endpoint (ServeHTTP).
	Middleware func(next http.Handler) http.Handler
	// LimitKey is whose count of running tasks (MaxTasksPerPrincipal) a task of owner
	// falls in; the server's own is owner.
	LimitKey func(owner string) string
	// TaskSupport is the taskSupport a tools/call of the tool is held to; declared is
	// the one tools/list shows for the request's era.
	TaskSupport func(r *Request, tool, declared string) string
	// Notified is told of every 2025-11-25 task status notification after the server
	// delivered it to the task's sessions: those of owner, or for a task without one the
	// session that made it (sessionID).
	Notified func(owner, sessionID string, note any)
	// Secret signs the tokens the server issues (tasks/list cursors, requestState):
	// instances given the same secret take each other's. nil: a random one per server.
	Secret []byte
	// Signals and Leases make the server one of several instances over one shared store
	// (cluster.go): Signals tells every instance of a task changed on any (for its
	// listeners), Leases lets another instance end the tasks of one that died. nil: a
	// single instance. Lease is how long work stays leased without renewal (0: 10 s).
	Signals cluster.Signals
	Leases  cluster.Leases
	Lease   time.Duration
}

// Server serves MCP with tasks. It is safe for concurrent use.
type Server struct {
	cfg      Config
	serve    Handler      // route, inside cfg.Wrap
	endpoint http.Handler // serveHTTP, inside cfg.Middleware
	legacy   *legacy.Tasks
	modern   *modern.Tasks
	hub      *modern.Hub
	secret   [32]byte

	ctx    context.Context // ends with Close: the workers' context
	cancel context.CancelFunc
	work   sync.WaitGroup

	mu       sync.Mutex
	sessions map[string]*session

	inputMu sync.Mutex
	inputs  map[string]pendingInput // 2025-11-25 input requests sent, by JSON-RPC id

	limitMu sync.Mutex
	running map[string]int    // tasks counted against the limit, by owner ("" for anonymous)
	holding map[string]string // the owner each counted task is counted for, by task id

	peers *peers // the other instances over the store (cluster.go); nil alone
}

// session is one 2025-11-25 client: made by initialize, named by Mcp-Session-Id (on stdio,
// the connection).
type session struct {
	id        string
	principal string // "" = anonymous
	mu        sync.Mutex
	streams   map[chan []byte]struct{} // open GET streams (stdio: its output)
	elicit    bool                     // the client declared form-mode elicitation
}

// declare keeps what the client's initialize declares that the server relies on.
func (ss *session) declare(p initializeParams) {
	ss.mu.Lock()
	ss.elicit = p.Capabilities.elicits("form")
	ss.mu.Unlock()
}

// canElicit reports whether the session's client takes form-mode elicitation requests.
func (ss *session) canElicit() bool {
	if ss == nil {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.elicit
}

// New returns a server over cfg's stores.
func New(cfg Config) (*Server, error) {
	if cfg.Legacy == nil && cfg.Modern == nil {
		return nil, errors.New("server: no store: give Legacy, Modern or both")
	}
	if cfg.Clock == nil {
		cfg.Clock = reference.SystemClock{}
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 10
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 1 << 20
	}
	s := &Server{cfg: cfg, sessions: map[string]*session{}, inputs: map[string]pendingInput{}, running: map[string]int{}, holding: map[string]string{}}
	if _, err := rand.Read(s.secret[:]); err != nil {
		return nil, err
	}
	if cfg.Secret != nil {
		s.secret = sha256.Sum256(cfg.Secret)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.serve = s.route
	if cfg.Wrap != nil {
		s.serve = cfg.Wrap(generic(s.route))
	}
	s.endpoint = http.HandlerFunc(s.serveHTTP)
	if cfg.Middleware != nil {
		s.endpoint = cfg.Middleware(s.endpoint)
	}
	if cfg.Legacy != nil {
		s.legacy = legacy.New(cfg.Legacy, legacy.WithRequireOwner(cfg.RequireOwner))
	}
	if cfg.Modern != nil {
		s.hub = modern.NewHub(modern.HubOptions{RequireOwner: cfg.RequireOwner})
		s.modern = modern.New(modern.Config{Store: cfg.Modern, Notifier: s.modernNotifier(), RequireOwner: cfg.RequireOwner,
			Clock: cfg.Clock, DefaultTTL: cfg.DefaultTTL, MaxTTL: cfg.MaxTTL})
	}
	if err := s.join(); err != nil {
		s.cancel()
		return nil, err
	}
	return s, nil
}

// Close stops the tools still running (their tasks stay as they are) and waits for them.
func (s *Server) Close() error {
	s.cancel()
	s.work.Wait()
	return nil
}

// rpcError is a JSON-RPC error answer.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// missingCapability is the extension's -32021 answer.
func missingCapability() *Error {
	return &Error{Code: jsonrpc.CodeMissingCapability, Message: "Missing required client capability",
		Data: missingCapabilityData{RequiredCapabilities: clientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}}}}
}

// message is one incoming JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// request is one call as the handlers see it.
type Request struct {
	msg message
	// params is the params object as parsed, generic as a Wrap reads and rewrites it;
	// each handler decodes its method's params from it (messages.go).
	params  map[string]any
	caller  reference.Caller
	owner   string // the owner a task it creates gets: the principal, "" for anonymous
	session *session
	header  http.Header // nil on stdio
	// stream, when set, carries messages to the client before the answer (an SSE
	// response); nil answers with one JSON body.
	stream func(v any) error
}

// modernRequest reports whether r speaks the 2026-07-28 wire: its _meta or its
// MCP-Protocol-Version header names it, and no 2025-11-25 session carries it.
func (r *Request) modernRequest() bool {
	if r.session != nil {
		return false
	}
	if v := r.meta().ProtocolVersion; v != "" {
		return v == VersionModern
	}
	return r.header != nil && r.header.Get("MCP-Protocol-Version") == VersionModern
}

// meta is the request's _meta (zero when absent or not an object).
func (r *Request) meta() requestMeta {
	var m requestMeta
	decodeParams(r.params["_meta"], &m)
	return m
}

// declaresTasks reports whether the request's per-request capabilities declare the tasks
// extension.
func (r *Request) declaresTasks() bool {
	_, ok := r.meta().ClientCapabilities.Extensions[TasksExtension]
	return ok
}

// handle answers one request (nil result for a notification).
func (s *Server) handle(ctx context.Context, r *Request) (any, *Error) {
	if r.msg.JSONRPC != "2.0" || r.msg.Method == "" {
		return nil, errorf(jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 request")
	}
	if r.msg.Params != nil && string(r.msg.Params) != "null" {
		if err := json.Unmarshal(r.msg.Params, &r.params); err != nil {
			return nil, errorf(jsonrpc.CodeInvalidParams, "params must be an object: %v", err)
		}
	}
	if r.params == nil {
		r.params = map[string]any{}
	}
	if strings.HasPrefix(r.msg.Method, "notifications/") {
		return nil, nil
	}
	return s.serve(ctx, r)
}

// route sends a parsed request to its era's handlers.
func (s *Server) route(ctx context.Context, r *Request) (any, *Error) {
	if r.modernRequest() {
		if s.modern == nil {
			return nil, errorf(jsonrpc.CodeInvalidRequest, "protocol version %s is not served here", VersionModern)
		}
		return s.handleModern(ctx, r)
	}
	if r.msg.Method != "initialize" && r.session == nil && r.msg.Method != "ping" {
		return nil, errorf(jsonrpc.CodeInvalidRequest, "no session: send initialize first (or use protocol version %s)", VersionModern)
	}
	return s.handleLegacy(ctx, r)
}

// caller maps a principal name to the facades' caller.
func callerOf(principal string) reference.Caller {
	if principal == "" {
		return reference.Anonymous()
	}
	return reference.Principal(principal)
}

// admit reserves a place for a task about to be made for owner, or refuses it when
// owner is at MaxTasksPerPrincipal: the answer is -32603 with the bound in its data
// (2025-11-25 asks receivers to "Document maximum concurrent tasks per requestor"). The
// place is the task's once bound to its id (hold), until it is cancelled or its tool's
// run ends (release); a task never made gives it back (unreserve).
func (s *Server) admit(owner string) *Error {
	if s.cfg.MaxTasksPerPrincipal <= 0 {
		return nil
	}
	key := s.limitKey(owner)
	s.limitMu.Lock()
	defer s.limitMu.Unlock()
	if s.running[key] >= s.cfg.MaxTasksPerPrincipal {
		return &Error{Code: jsonrpc.CodeInternal,
			Message: fmt.Sprintf("Task limit reached: at most %d tasks run at once per requestor; wait for one to end or cancel one", s.cfg.MaxTasksPerPrincipal),
			Data:    limitData{MaxConcurrentTasks: s.cfg.MaxTasksPerPrincipal}}
	}
	s.running[key]++
	return nil
}

// hold binds the place admit reserved for owner to task id.
func (s *Server) hold(owner, id string) {
	if s.cfg.MaxTasksPerPrincipal <= 0 {
		return
	}
	s.limitMu.Lock()
	defer s.limitMu.Unlock()
	s.holding[id] = s.limitKey(owner)
}

// unreserve gives back a place admit reserved for a task that was not made.
func (s *Server) unreserve(owner string) {
	if s.cfg.MaxTasksPerPrincipal <= 0 {
		return
	}
	s.limitMu.Lock()
	defer s.limitMu.Unlock()
	s.free(s.limitKey(owner))
}

// release gives back task id's place, once: a cancel and the end of its tool's run
// both release it.
func (s *Server) release(id string) {
	s.limitMu.Lock()
	defer s.limitMu.Unlock()
	if key, ok := s.holding[id]; ok {
		delete(s.holding, id)
		s.free(key)
	}
}

func (s *Server) free(key string) {
	if s.running[key]--; s.running[key] <= 0 {
		delete(s.running, key)
	}
}

// limitKey is whose count a task of owner falls in.
func (s *Server) limitKey(owner string) string {
	if s.cfg.LimitKey != nil {
		return s.cfg.LimitKey(owner)
	}
	return owner
}

// taskNotFound is the answer for a task that is missing, expired or another's: one
// answer for all three.
func taskNotFound(id string) *Error {
	return errorf(jsonrpc.CodeInvalidParams, "Failed to retrieve task: Task not found: %s", id)
}

// taskID reads the params of a request that names a task: params.taskId, a non-empty
// string.
func taskID(r *Request) (string, *Error) {
	var p taskParams
	decodeParams(r.params, &p)
	return p.TaskID, nonEmpty(p.TaskID, "taskId")
}

// nonEmpty refuses a required string param that is absent, empty or not a string.
func nonEmpty(v, key string) *Error {
	if v == "" {
		return errorf(jsonrpc.CodeInvalidParams, "params.%s must be a non-empty string", key)
	}
	return nil
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x", b)
}

// deliver sends a notification about a task to the open streams of the sessions that own
// it: the owner's sessions, or for a task without an owner the session that made it.
func (s *Server) deliver(owner, sessionID string, note any) {
	b, err := json.Marshal(note)
	if err != nil {
		return
	}
	s.mu.Lock()
	var targets []*session
	for _, ss := range s.sessions {
		if owner != "" && ss.principal == owner || owner == "" && ss.id == sessionID {
			targets = append(targets, ss)
		}
	}
	s.mu.Unlock()
	for _, ss := range targets {
		ss.mu.Lock()
		for ch := range ss.streams {
			select {
			case ch <- b:
			default: // a slow stream loses the notification: they are optional
			}
		}
		ss.mu.Unlock()
	}
	if s.cfg.Notified != nil {
		s.cfg.Notified(owner, sessionID, note)
	}
}
