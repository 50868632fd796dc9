package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/probe/client"
)

// errSetup: a client's connection could not be made; the run counts it as an error.
var errSetup = errors.New("the client's session could not be opened")

// session is one client: a principal (or none) in one era, on one endpoint.
type session struct {
	id        int
	run       *run
	principal probe.Principal
	era       conformance.Era
	url       string
	conn      *client.Conn
	spread    []*client.Conn // 2026-07-28 over a deployment: one an instance, called in turn
	calls     int
	meter     *meter
	rand      *rand.Rand
	heard     int      // inbox entries judged
	listening []string // the task ids the open subscriptions/listen names
	cancel    context.CancelFunc

	mu      sync.Mutex
	pending []client.Inbound // notifications about tasks not yet acknowledged when heard
}

func (s *session) who() string {
	if s.principal.Name == "" {
		return fmt.Sprintf("client %d (anonymous, %s)", s.id, s.era)
	}
	return fmt.Sprintf("client %d (principal %s, %s)", s.id, s.principal.Name, s.era)
}

// open connects: the 2025-11-25 handshake with form elicitation declared and the GET
// stream open for notifications, or nothing on the stateless 2026-07-28 wire.
func (s *session) open(ctx context.Context) error {
	hdr := http.Header{"MCP-Protocol-Version": {probe.ProtocolVersion(s.era)}}
	if s.principal.Token != "" {
		hdr.Set("Authorization", "Bearer "+s.principal.Token)
	}
	if err := s.dial(hdr); err != nil {
		return err
	}
	s.conn.OnRequest(s.elicited)
	if s.era == conformance.EraModern {
		return nil
	}
	res, err := s.call(ctx, "initialize", map[string]any{"protocolVersion": probe.ProtocolVersion(s.era),
		"capabilities": map[string]any{"tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{}}, "elicitation": map[string]any{}},
		"clientInfo":   map[string]any{"name": "storecheck-load", "version": "1"}})
	if err != nil || res.Error != nil {
		return fmt.Errorf("%w: initialize as %s: %v %v", errSetup, s.who(), err, res.RPCError())
	}
	_ = s.conn.Notify(ctx, "notifications/initialized", nil, nil)
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	_ = s.conn.Listen(lctx) // a server without a GET stream sends no notifications: nothing to judge
	return nil
}

// dial makes the client's connection: over HTTP with hdr on every request, or a child
// of its own speaking stdio.
func (s *session) dial(hdr http.Header) error {
	if len(s.run.cfg.Exec) == 0 {
		s.conn = client.DialHTTP(s.url, client.HTTPOptions{Header: hdr, Client: sharedHTTP})
		if s.era == conformance.EraModern && len(s.run.cfg.URLs) > 1 {
			// The stateless wire: any instance of a deployment serves any request, so the
			// client's calls go to each in turn.
			s.spread = nil
			for _, u := range s.run.cfg.URLs {
				s.spread = append(s.spread, client.DialHTTP(u, client.HTTPOptions{Header: hdr, Client: sharedHTTP}))
			}
		}
		return nil
	}
	cmd := exec.Command(s.run.cfg.Exec[0], s.run.cfg.Exec[1:]...)
	if s.run.cfg.TokenEnv != "" {
		cmd.Env = append(os.Environ(), s.run.cfg.TokenEnv+"="+s.principal.Token)
	}
	conn, err := client.DialStdio(cmd)
	if err != nil {
		return fmt.Errorf("%w: the server did not start: %w", errSetup, err)
	}
	s.conn = conn
	return nil
}

// sharedHTTP keeps enough idle connections for every client.
var sharedHTTP = &http.Client{Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 30 * time.Second}}

// call sends one request as the era speaks it, timed; a JSON-RPC error is counted by
// code and judged (every error must be one the spec allows).
func (s *session) call(ctx context.Context, method string, params map[string]any) (*client.Response, error) {
	return s.callAs(ctx, method, method, params)
}

// callAs is call with the figures kept under label (a reach for another's task is
// measured and counted apart from the caller's own work).
func (s *session) callAs(ctx context.Context, label, method string, params map[string]any) (*client.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, s.run.cfg.Timeout)
	defer cancel()
	var hdr http.Header
	if method != "initialize" {
		params, hdr = probe.WireRequest(s.era, method, params)
	} else {
		hdr = http.Header{"MCP-Protocol-Version": nil}
	}
	began := time.Now()
	conn := s.conn
	if len(s.spread) > 0 {
		conn = s.spread[s.calls%len(s.spread)]
		s.calls++
	}
	res, err := conn.Call(ctx, method, params, hdr)
	now := time.Now()
	s.meter.record(label, now.Sub(began))
	s.run.timeline.record(now, now.Sub(began))
	switch {
	case err != nil:
		s.count(label, errorKey(err))
	case res.Error != nil:
		s.count(label, fmt.Sprint(res.Error.Code))
		if !allowedCode(res.Error.Code) {
			s.violate("V-BAD-1", "every error is a JSON-RPC error the spec allows", method, params, res)
		}
	}
	return res, err
}

func errorKey(err error) string {
	var he *client.HTTPError
	switch {
	case errors.As(err, &he):
		return fmt.Sprintf("HTTP %d", he.StatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "transport"
}

func (s *session) count(method, code string) {
	s.meter.errors[method+" "+code]++
	s.run.errs.Add(1)
}

func (s *session) violate(rule, check, method string, params map[string]any, res *client.Response) {
	if s.run.cfg.Unjudged {
		return
	}
	req := method
	if id, ok := params["taskId"].(string); ok {
		req += " " + id
	}
	answer := "nothing"
	if res != nil {
		b, _ := json.Marshal(res.Message)
		answer = clip(string(b), 300)
	}
	s.run.judge.fail(Violation{Rule: rule, Check: check, Request: req, Caller: s.who(), Answer: answer})
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// loop makes tasks and follows them until the run's bounds, one cycle at a time.
func (s *session) loop(ctx context.Context) {
	if err := s.open(ctx); err != nil {
		s.count("initialize", "refused")
		return
	}
	for n := 1; ctx.Err() == nil && s.run.more(ctx); n++ {
		s.cycle(ctx)
		s.hear()
		if s.era == conformance.EraLegacy && len(s.run.cfg.Exec) == 0 && n%reopenEvery == 0 && !s.reopen(ctx) {
			return
		}
	}
}

// reopenEvery is how many cycles a 2025-11-25 client keeps its session over HTTP:
// clients come and go, so sessions open while the server is busy. (A stdio client's
// session is its child process: kept.)
const reopenEvery = 5

// reopen ends the client's session and opens another; false when it could not.
func (s *session) reopen(ctx context.Context) bool {
	s.close()
	if err := s.open(ctx); err != nil {
		s.count("initialize", "refused")
		return false
	}
	s.heard = 0
	return true
}

// cycle is one round of the mix: a task of some role followed to its end, with a look
// at the task list or at another principal's task on the side.
func (s *session) cycle(ctx context.Context) {
	m := s.run.cfg.Mix
	switch n := s.rand.IntN(m.total()); {
	case n < m.Quick:
		s.follow(ctx, probe.RoleQuick, false)
	case n < m.Quick+m.Cancel:
		s.follow(ctx, probe.RoleSlow, true)
	case n < m.Quick+m.Cancel+m.Input:
		s.follow(ctx, probe.RoleInput, false)
	case n < m.Quick+m.Cancel+m.Input+m.List && s.era == conformance.EraLegacy:
		s.follow(ctx, probe.RoleQuick, false)
		s.list(ctx)
	default:
		s.follow(ctx, probe.RoleQuick, false)
		s.trespass(ctx)
	}
}

// finish judges the notifications heard and ends the session.
func (s *session) finish() {
	if s.conn == nil {
		return
	}
	s.hear()
	s.mu.Lock()
	late := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, m := range late {
		s.judgeNote(m, true)
	}
	s.close()
}

// close ends the session and its GET stream, keeping what it heard judged.
func (s *session) close() {
	s.hear()
	if s.cancel != nil {
		s.cancel()
	}
	_ = s.conn.Close()
}

func taskIDOf(raw json.RawMessage) string {
	var v struct {
		TaskID string `json:"taskId"`
		Task   struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	_ = json.Unmarshal(raw, &v)
	if v.TaskID != "" {
		return v.TaskID
	}
	return v.Task.TaskID
}

func statusOf(raw json.RawMessage) string {
	var v struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Status
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func notFound(e *client.Error) bool { return e != nil && e.Code == jsonrpc.CodeInvalidParams }
