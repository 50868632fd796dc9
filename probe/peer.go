package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

// MCP protocol versions of the two eras of tasks.
const (
	versionLegacy  = "2025-11-25"
	versionModern  = "2026-07-28"
	tasksExtension = "io.modelcontextprotocol/tasks"
)

// peer is one principal's connection in one era.
type peer struct {
	name string // principal name; "" = no credentials
	era  conformance.Era
	conn *client.Conn
	wait time.Duration // how long a task may take to end
	// timeout bounds the wait for any one answer (tasks/result: wait longer by wait).
	timeout time.Duration
	stdio   bool // a child process of its own, on stdin and stdout
	// caps is what the server declared of tasks to this peer (initialize's
	// capabilities.tasks, or server/discover's extensions).
	caps taskCaps
}

// dial connects a principal in an era: the 2025-11-25 handshake, or nothing for the
// stateless 2026-07-28 wire.
func dial(ctx context.Context, cfg Config, p Principal, era conformance.Era) (_ *peer, err error) {
	timeout := cfg.Timeout
	hdr := http.Header{}
	if p.Token != "" {
		hdr.Set("Authorization", "Bearer "+p.Token)
	}
	version := versionLegacy
	if era == conformance.EraModern {
		version = versionModern
	}
	hdr.Set("MCP-Protocol-Version", version)
	pe := &peer{name: p.Name, era: era, wait: cfg.Wait, timeout: timeout}
	if len(cfg.Exec) > 0 {
		cmd := exec.Command(cfg.Exec[0], cfg.Exec[1:]...)
		if cfg.TokenEnv != "" {
			cmd.Env = append(os.Environ(), cfg.TokenEnv+"="+p.Token)
		}
		conn, err := client.DialStdio(cmd)
		if err != nil {
			return nil, fmt.Errorf("%w: the server did not start: %w", ErrNoAnswer, err)
		}
		pe.conn, pe.stdio = conn, true
		defer func() {
			if err != nil {
				_ = conn.Close() // the caller never sees the child
			}
		}()
	} else {
		pe.conn = client.DialHTTP(cfg.URL, client.HTTPOptions{Header: hdr})
	}
	if era == conformance.EraModern {
		// No handshake on this wire: server/discover says whether the extension is served.
		res, err := pe.call(ctx, "server/discover", nil, true)
		if errors.Is(err, ErrNoAnswer) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("server/discover as %s: %w", who(p.Name), err)
		}
		var disc struct {
			Capabilities struct {
				Extensions map[string]any `json:"extensions"`
			} `json:"capabilities"`
		}
		if err := res.Decode(&disc); err != nil {
			return nil, fmt.Errorf("server/discover as %s: the server does not serve %s: %w", who(p.Name), versionModern, err)
		}
		// A server that does not declare the extension is let in: each check then says
		// it is not exercised, naming the declaration (taskCaps.need).
		pe.caps = taskCaps{modern: true, ext: disc.Capabilities.Extensions[tasksExtension] != nil}
		return pe, nil
	}
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	caps := map[string]any{"tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{}}}
	if !cfg.noElicit {
		// Form elicitation declared ("an empty capabilities object is equivalent to
		// declaring support for form mode only"): V-INPUT-2 answers the requests.
		caps["elicitation"] = map[string]any{}
	}
	res, err := pe.conn.Call(ictx, "initialize", map[string]any{"protocolVersion": versionLegacy,
		"capabilities": caps,
		"clientInfo":   map[string]any{"name": "storecheck-probe", "version": "1"}}, http.Header{"MCP-Protocol-Version": nil})
	if err != nil {
		if err := noAnswer(err, "initialize as "+who(p.Name), timeout); errors.Is(err, ErrNoAnswer) {
			return nil, err
		}
		return nil, fmt.Errorf("initialize as %s: %w", who(p.Name), err)
	}
	var init struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    map[string]any `json:"capabilities"`
	}
	if err := res.Decode(&init); err != nil {
		return nil, fmt.Errorf("initialize as %s: %w", who(p.Name), err)
	}
	if init.ProtocolVersion != versionLegacy {
		return nil, fmt.Errorf("initialize as %s: the server answers protocol version %q, not %s", who(p.Name), init.ProtocolVersion, versionLegacy)
	}
	// A server without tasks, or without some of their methods, is let in: each check
	// says it is not exercised, naming what was not declared (taskCaps.need).
	pe.caps = legacyCaps(init.Capabilities)
	_ = pe.conn.Notify(ictx, "notifications/initialized", nil, nil)
	return pe, nil
}

func who(name string) string {
	if name == "" {
		return "a caller without credentials"
	}
	return "principal " + name
}

// call sends a request as the era speaks it: on the 2026-07-28 wire with the per-request
// _meta (declaring the tasks extension when ext) and the routing headers.
func (p *peer) call(ctx context.Context, method string, params map[string]any, ext bool) (*client.Response, error) {
	timeout := p.timeout
	if method == "tasks/result" {
		timeout += p.wait // it blocks until the task ends
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params, hdr := p.request(method, params, ext)
	res, err := p.conn.Call(ctx, method, params, hdr)
	return res, noAnswer(err, fmt.Sprintf("%s as %s", method, who(p.name)), timeout)
}

// request is a call's params and HTTP headers as the era speaks it.
func (p *peer) request(method string, params map[string]any, ext bool) (map[string]any, http.Header) {
	if params == nil {
		params = map[string]any{}
	}
	var hdr http.Header
	if p.era == conformance.EraModern {
		caps := map[string]any{}
		if ext {
			caps["extensions"] = map[string]any{tasksExtension: map[string]any{}}
		}
		meta := map[string]any{"io.modelcontextprotocol/protocolVersion": versionModern,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "storecheck-probe", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": caps}
		withMeta := map[string]any{"_meta": meta}
		for k, v := range params {
			withMeta[k] = v
		}
		params = withMeta
		hdr = http.Header{"Mcp-Method": {method}}
		if id, ok := params["taskId"].(string); ok {
			hdr.Set("Mcp-Name", id)
		}
	}
	return params, hdr
}

// create starts tool as a task and returns its id.
func (p *peer) create(ctx context.Context, tool string, args map[string]any) (string, error) {
	id, _, err := p.createWith(ctx, tool, args, map[string]any{})
	return id, err
}

// createEnded starts tool as a task and waits for it to end: tasks a check makes only
// to have them listed are made one after another, so that a server's limit of tasks
// running at once per requestor (V-LIMIT-1's, which a server may keep) never refuses them.
func (p *peer) createEnded(ctx context.Context, tool string, args map[string]any) (string, error) {
	id, err := p.create(ctx, tool, args)
	if err != nil {
		return "", err
	}
	if _, err := p.terminal(ctx, id); err != nil {
		return "", err
	}
	return id, nil
}

// createWith starts tool as a task with the 2025-11-25 params.task given (ignored in the
// extension) and returns its id and the answer's result.
func (p *peer) createWith(ctx context.Context, tool string, args, task map[string]any) (string, *client.Response, error) {
	params := map[string]any{"name": tool, "arguments": args}
	if p.era == conformance.EraLegacy {
		params["task"] = task
	}
	res, err := p.call(ctx, "tools/call", params, true)
	if err != nil {
		return "", nil, fmt.Errorf("tools/call %s as a task: %w", tool, err)
	}
	id, err := createdID(p.era, tool, res)
	return id, res, err
}

// createdID reads the task id of a CreateTaskResult.
func createdID(era conformance.Era, tool string, res *client.Response) (string, error) {
	var out struct {
		Task       struct{ TaskID string } `json:"task"`
		TaskID     string                  `json:"taskId"`
		ResultType string                  `json:"resultType"`
	}
	if err := res.Decode(&out); err != nil {
		return "", fmt.Errorf("tools/call %s as a task: %w", tool, err)
	}
	id := out.Task.TaskID
	if era == conformance.EraModern {
		id = out.TaskID
		if out.ResultType != "task" {
			return "", fmt.Errorf("tools/call %s as a task: resultType %q, not a task (%s)", tool, out.ResultType, res.Result)
		}
	}
	if id == "" {
		return "", fmt.Errorf("tools/call %s as a task: no taskId in %s", tool, res.Result)
	}
	return id, nil
}

// task reads a task; a JSON-RPC error comes back as rpcErr.
func (p *peer) task(ctx context.Context, id string) (map[string]any, *client.Error, error) {
	res, err := p.call(ctx, "tasks/get", map[string]any{"taskId": id}, true)
	if err != nil {
		return nil, nil, err
	}
	if res.Error != nil {
		return nil, res.Error, nil
	}
	var t map[string]any
	if err := json.Unmarshal(res.Result, &t); err != nil {
		return nil, nil, fmt.Errorf("%w: tasks/get: %v", client.ErrMalformed, err)
	}
	return t, nil, nil
}

// terminal polls a task until it is terminal and returns it.
func (p *peer) terminal(ctx context.Context, id string) (map[string]any, error) {
	return p.answering(ctx, id, nil)
}

// answering polls a task until it is terminal and returns it, handing each read that
// finds it input_required to answer (when there is one).
func (p *peer) answering(ctx context.Context, id string, answer func(t map[string]any) error) (map[string]any, error) {
	var end map[string]any
	err := p.poll(ctx, id, p.wait, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		switch {
		case rpcErr != nil:
			return true, fmt.Errorf("tasks/get %s by its creator: %w", id, rpcErr)
		case terminalStatus(t["status"]):
			end = t
			return true, nil
		case late:
			return true, fmt.Errorf("task %s still %v after %v", id, t["status"], p.wait)
		case answer != nil && t["status"] == "input_required":
			if err := answer(t); err != nil {
				return true, err
			}
		}
		return false, nil
	})
	return end, err
}

// poll reads a task by its creator every 25 ms and gives each answer to judge, until
// judge says it is done (its error is poll's), a read fails or ctx ends. judge sees the
// task or tasks/get's error answer, and whether within has passed since the first read.
func (p *peer) poll(ctx context.Context, id string, within time.Duration, judge func(t map[string]any, rpcErr *client.Error, late bool) (bool, error)) error {
	deadline := time.Now().Add(within)
	for {
		t, rpcErr, err := p.task(ctx, id)
		if err != nil {
			return err
		}
		if done, err := judge(t, rpcErr, time.Now().After(deadline)); done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func terminalStatus(s any) bool { return s == "completed" || s == "failed" || s == "cancelled" }
