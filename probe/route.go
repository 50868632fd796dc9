package probe

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/mcp/jsonrpc"
)

// checkRoute (V-ROUTE-1, the extension over Streamable HTTP): a request whose routing
// headers disagree with its body is refused -32020 (HeaderMismatch): an intermediary
// routes by the header, so a server acting on the body would serve a task the route did
// not name. The owner's own ended task is named in the body and another id in Mcp-Name
// (tasks/get, tasks/cancel, tasks/update), then the right Mcp-Name with another method in
// Mcp-Method; the task is unchanged after.
func checkRoute(ctx context.Context, r *eraRun) error {
	if r.stdio {
		return fmt.Errorf("%w: stdio carries no HTTP headers", errNone)
	}
	id, t, err := r.finished(ctx)
	if err != nil {
		return err
	}
	p := r.owner
	other := missingID()
	type trial struct{ method, name, header string }
	trials := []trial{
		{"tasks/get", other, "tasks/get"}, {"tasks/cancel", other, "tasks/cancel"}, {"tasks/update", other, "tasks/update"},
		{"tasks/get", id, "tasks/cancel"},
	}
	for _, tr := range trials {
		params := map[string]any{"taskId": id}
		if tr.method == "tasks/update" {
			params["inputResponses"] = map[string]any{}
		}
		params, hdr := p.request(tr.method, params, true)
		hdr.Set("Mcp-Name", tr.name)
		hdr.Set("Mcp-Method", tr.header)
		cctx, cancel := context.WithTimeout(ctx, p.timeout)
		res, err := p.conn.Call(cctx, tr.method, params, hdr)
		cancel()
		in := fmt.Sprintf("%s of the task %s with the headers Mcp-Name: %s, Mcp-Method: %s", tr.method, id, tr.name, tr.header)
		if err := noAnswer(err, in, p.timeout); err != nil {
			return err
		}
		if res.Error == nil || res.Error.Code != jsonrpc.CodeHeaderMismatch {
			return faultf(in, `-32020 HeaderMismatch (the extension: "the client MUST set the Mcp-Name header to the value of params.taskId"; headers that disagree with the body are refused)`, answer(res))
		}
	}
	after, rpcErr, err := p.task(ctx, id)
	if err != nil {
		return err
	}
	if rpcErr != nil || after["status"] != t["status"] {
		return faultf("tasks/get with matching headers after the mismatched requests on task "+id, fmt.Sprintf("the task, status %v as before", t["status"]), fmt.Sprint(after["status"], rpcErr))
	}
	return nil
}
