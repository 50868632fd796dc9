package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/probe/client"
)

// minGrace is the least time a request sent before an answered ping is given, after the
// ping's answer, to be answered itself: JSON-RPC lets a server answer out of order.
const minGrace = 500 * time.Millisecond

// owed is call for a request whose answer the rule itself orders (an error code): over
// stdio a ping follows it on the same connection, and the request left unanswered while
// the ping was answered is a fault of the rule, not an abort (see ordered).
func (p *peer) owed(ctx context.Context, method string, params map[string]any, ext bool, in, want string) (*client.Response, error) {
	if !p.stdio {
		return p.call(ctx, method, params, ext)
	}
	params, hdr := p.request(method, params, ext)
	return p.ordered(ctx, method, in, want, func(ctx context.Context) func() (*client.Response, error) {
		return p.conn.Start(ctx, method, params, hdr)
	})
}

// ordered sends a message (start) and, over stdio, a ping right after it. A stdio server
// reads its lines in order, so one that answers the ping has read the message: if the
// message is still unanswered once the ping is (after a grace as long again as the ping
// took, at least minGrace, for a server that answers out of order), its silence is its
// answer, a fault naming the silence and the later answer. Only when the ping goes
// unanswered too is the silence the probe's to report (ErrNoAnswer: aborted).
func (p *peer) ordered(ctx context.Context, what, in, want string, start func(ctx context.Context) func() (*client.Response, error)) (*client.Response, error) {
	rctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	wait := start(rctx)
	if !p.stdio {
		res, err := wait()
		return res, noAnswer(err, in, p.timeout)
	}
	sent := time.Now()
	pparams, hdr := p.request("ping", nil, false)
	pctx, pcancel := context.WithTimeout(ctx, p.timeout)
	pres, perr := p.conn.Start(pctx, "ping", pparams, hdr)()
	pcancel()
	if perr == nil {
		timer := time.AfterFunc(max(time.Since(sent), minGrace), cancel)
		defer timer.Stop()
	}
	res, err := wait()
	switch {
	case err == nil:
		return res, nil
	case perr == nil && ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		got := fmt.Sprintf("no answer to %s, while the ping sent after it was answered (%s): stdio is read in order, so the server had read it", what, answer(pres))
		if errors.Is(err, client.ErrMalformed) {
			got += "; it wrote instead: " + err.Error()
		}
		return nil, faultf(in, want, got)
	}
	return nil, noAnswer(err, in, p.timeout)
}
