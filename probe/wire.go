package probe

import (
	"context"
	"net/http"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe/client"
)

// The wire as the probe speaks it, for the load generator (package load), which sends
// the same requests from many clients at once.

// WireRequest is a request's params and HTTP headers as era speaks it, declaring the
// tasks extension on the 2026-07-28 wire.
func WireRequest(era conformance.Era, method string, params map[string]any) (map[string]any, http.Header) {
	return (&peer{era: era}).request(method, params, true)
}

// ProtocolVersion is the MCP protocol version of era.
func ProtocolVersion(era conformance.Era) string {
	if era == conformance.EraModern {
		return versionModern
	}
	return versionLegacy
}

// CreatedID reads the task id of a task-augmented tools/call's answer.
func CreatedID(era conformance.Era, tool string, res *client.Response) (string, error) {
	return createdID(era, tool, res)
}

// AnswerFor is an accepting answer to a form elicitation: every property of its
// schema filled by type.
func AnswerFor(req map[string]any) map[string]any { return answerFor(req) }

// Start brings dep up as the probe does (the copies started and listening, the router
// running for ShapeRouted) and returns the endpoints a client may reach (the router's
// alone, or every instance's) and how to stop it.
func (dep Deployment) Start(ctx context.Context) (urls []string, stop func(), err error) {
	d, err := startDeployment(ctx, dep)
	if err != nil {
		return nil, nil, err
	}
	if d.router != nil {
		return []string{d.router.url}, d.stop, nil
	}
	for _, in := range d.instances {
		urls = append(urls, in.url)
	}
	return urls, d.stop, nil
}
