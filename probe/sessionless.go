package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/probe/client"
)

// bare is a caller that sends each request alone, in the era's shape, with no session
// header and no credentials: a 2025-11-25 request that skipped initialize, or a
// 2026-07-28 one (which has no sessions).
func (r *eraRun) bare(era conformance.Era) *peer {
	version := versionLegacy
	if era == conformance.EraModern {
		version = versionModern
	}
	conn := client.DialHTTP(r.cfg.URL, client.HTTPOptions{Header: http.Header{"MCP-Protocol-Version": {version}}})
	return &peer{era: era, conn: conn, wait: r.cfg.Wait, timeout: r.cfg.Timeout}
}

// shapeName says how a bare caller's requests look, for a failure message.
func shapeName(era conformance.Era) string {
	if era == conformance.EraModern {
		return "a 2026-07-28-shaped request (per-request _meta) without credentials"
	}
	return "a 2025-11-25-shaped request without Mcp-Session-Id and without credentials"
}

// sessionless (V-DENY-1) tries the first principal's task id with requests that carry no
// session and no credentials, in both eras' shapes, whatever the era the task was made
// in: each tasks/* method must be answered as for a task that does not exist, or refused
// by the transport (an HTTP 4xx; -32600, a request without its session), and
// tasks/list must not show the task. Over stdio every request rides a connection, so
// there is no request without one to try.
func (r *eraRun) sessionless(ctx context.Context, id string) error {
	if r.stdio {
		r.note("no request without a session was tried: over stdio every request rides its connection")
		return nil
	}
	for _, era := range bothEras {
		p := r.bare(era)
		err := sessionlessShape(ctx, p, id, r.owner.name)
		_ = p.conn.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func sessionlessShape(ctx context.Context, p *peer, id, owner string) error {
	methods := []string{"tasks/get", "tasks/result", "tasks/cancel"}
	if p.era == conformance.EraModern {
		methods = []string{"tasks/get", "tasks/cancel", "tasks/update"}
	}
	for _, m := range methods {
		params := func(id string) map[string]any {
			out := map[string]any{"taskId": id}
			if m == "tasks/update" {
				out["inputResponses"] = map[string]any{}
			}
			return out
		}
		in := fmt.Sprintf("%s: %s of %s's task %s", shapeName(p.era), m, owner, id)
		dres, refused, err := sessionlessCall(ctx, p, m, params(id))
		if err != nil {
			return err
		}
		if refused {
			continue
		}
		missing := missingID()
		mres, refused, err := sessionlessCall(ctx, p, m, params(missing))
		if err != nil {
			return err
		}
		if refused {
			return faultf(in, fmt.Sprintf("the answer the same request gets for the id %s, which no server issued: refused by the transport", missing), answer(dres))
		}
		if !missingLike(dres, mres, id, missing) {
			return faultf(in, "the transport's refusal (an HTTP 4xx, or -32600 for a request without its session), or the answer for a task that does not exist: "+answer(mres), answer(dres))
		}
	}
	if p.era == conformance.EraModern {
		return nil // no tasks/list in the extension
	}
	res, refused, err := sessionlessCall(ctx, p, "tasks/list", nil)
	if err != nil || refused {
		return err
	}
	if res.Error == nil && strings.Contains(string(res.Result), id) {
		return faultf(shapeName(p.era)+": tasks/list", fmt.Sprintf("no trace of %s's task %s", owner, id), answer(res))
	}
	return nil
}

// sessionlessCall sends one request of a bare caller; refused is true when the
// transport turned it away (an HTTP 4xx, with or without a JSON-RPC body, or -32600).
func sessionlessCall(ctx context.Context, p *peer, method string, params map[string]any) (*client.Response, bool, error) {
	res, err := p.call(ctx, method, params, true)
	var httpErr *client.HTTPError
	switch {
	case errors.As(err, &httpErr) && httpErr.StatusCode >= 400 && httpErr.StatusCode < 500:
		return nil, true, nil
	case err != nil:
		return nil, false, err
	case res.HTTPStatus >= 400 && res.HTTPStatus < 500, res.Error != nil && res.Error.Code == jsonrpc.CodeInvalidRequest:
		return res, true, nil
	}
	return res, false, nil
}

// missingLike reports whether dres, the answer for the task id, is an error and the one
// mres, the same call's answer for the id missing, is: the same code and message, the
// ids aside.
func missingLike(dres, mres *client.Response, id, missing string) bool {
	return dres.Error != nil && mres.Error != nil && dres.Error.Code == mres.Error.Code &&
		strings.ReplaceAll(dres.Error.Message, id, "ID") == strings.ReplaceAll(mres.Error.Message, missing, "ID")
}
