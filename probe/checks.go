package probe

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/probe/client"
)

// errSetup marks a check that could not make the tasks it needed (the tool mapping, or
// the server, refused): its rule reads "setup refused", never passed or failed.
var errSetup = errors.New("setup")

// errNone marks a check the server gave nothing to run on (no tool of the kind it
// needs): its rule reads "not exercised".
var errNone = errors.New("nothing to check")

// checks is the probe's table of contents: every check, the rule it judges and the eras
// it runs in.
var checks = []check{
	{"V-DENY-1", "another principal, a caller without credentials, and requests without a session in either era's shape get exactly the missing-task answer (or the transport's refusal) for the first principal's task, and never list it", bothEras, roles(RoleQuick), needs(checkDeny, capCall)},
	{"V-FIN-1", "a completed task stays completed through tasks/cancel", bothEras, roles(RoleQuick), needs(checkFinal, capCall, capCancel)},
	{"V-LIST-1", "tasks/list returns each of the caller's tasks once across pages, nextCursor on every page more follow, also at a page size's multiple, one fewer and one more; a forged cursor (random bytes in an issued one's encoding, an issued one altered), or another principal's or session's, is -32602", legacyEra, roles(RoleQuick), needs(checkList, capCall, capList)},
	{"V-RESULT-1", "tasks/result waits for a working task to end and returns its result with the related-task _meta", legacyEra, roles(RoleSlow), needs(checkResult, capCall)},
	{"V-SESSION-1", "a session id never issued, or another principal's, is HTTP 404", legacyEra, nil, needs(checkSession, capTasks)},
	{"V-SUPPORT-1", "a plain call of a tool whose taskSupport is required is -32601", legacyEra, nil, needs(checkSupport("required"), capCall)},
	{"V-SUPPORT-2", "a task for a tool whose taskSupport is forbidden or absent is -32601", legacyEra, nil, needs(checkSupport("forbidden"), capCall)},
	{"V-EXT-1", "without the tasks extension tasks/get is -32021; tasks/list and tasks/result are -32601", modernEra, roles(RoleQuick), needs(checkExtension)},
	{"V-RACE-1", "tasks/cancel racing the task's own end: one terminal status, told alike by every later tasks/get and tasks/result", bothEras, roles(RoleRace), needs(checkRace, capCall, capCancel)},
	{"V-SHAPE-1", "a task as tools/call, tasks/get (working and ended) and tasks/list show it: taskId, status, createdAt and lastUpdatedAt in ISO 8601, ttl, pollInterval", bothEras, roles(RoleSlow), needs(checkShape, capCall)},
	{"V-TTL-1", "the ttl reported is the one kept: the task is found until it has run from the creation, and -32602 (or still found) after", bothEras, roles(RoleQuick), needs(checkTTL, capCall)},
	{"V-NOTIFY-1", "status notifications about the first principal's task reach its streams and no other caller's, though the others listen and name its id", bothEras, roles(RoleSlow), needs(checkNotify, capCall)},
	{"V-ERROR-1", "a task whose tool ends with isError true is failed in 2025-11-25 and completed in the extension; one whose tool ends with a JSON-RPC error is failed in both", bothEras, roles(RoleFailing, RoleErring), needs(checkError, capCall)},
	{"V-ROUTE-1", "an Mcp-Name other than params.taskId, or an Mcp-Method other than the method, is -32020 and the task is untouched", modernEra, roles(RoleQuick), needs(checkRoute)},
	{"V-INPUT-1", "an input tool's task shows its inputRequests; tasks/update acknowledges, ignores a key never issued, and answering every key ends input_required", modernEra, roles(RoleInput), needs(checkInputModern)},
	{"V-INPUT-2", "an input tool's task is input_required; tasks/result sends each request once with the related-task _meta, and returns the result once they are answered", legacyEra, roles(RoleInput), needs(checkInputLegacy, capCall)},
	{"V-INPUT-3", "another principal's answer to an input request of the first principal's task does not reach it: the task stays input_required, and its result does not carry that answer", bothEras, roles(RoleInput), needs(checkInputForeign, capCall)},
	{"V-AUTH-1", "a bearer token the server never issued is HTTP 401 when the server tells callers apart by token; what it binds tasks to is noted", bothEras, roles(RoleQuick), needs(checkAuth, capCall)},
	{"V-RUN-1", "a task of the quick tool and one of the slow tool, which nobody cancels, end neither cancelled nor failed while their tool succeeds", bothEras, roles(RoleQuick, RoleSlow), needs(checkRun, capCall)},
	// tasks/cancel is only V-LIMIT-1's cleanup, yet it needs it declared: the long tasks
	// it makes would hold the server's limit through the rest of the run.
	{"V-LIMIT-1", "the first principal makes tasks until the server refuses one: the refusal is a JSON-RPC error, its tasks are all still there, and another principal's task is made", bothEras, roles(RoleLong), needs(checkLimit, capCall, capCancel)},
	{"V-BAD-1", "malformed JSON is -32700, an unknown method -32601, and the server keeps serving", bothEras, roles(RoleQuick), needs(checkBad, capCall)},
	// A deployment's checks spread their calls across its instances; with one endpoint
	// they are not exercised. The kill check comes last: it ends an instance.
	{"V-XREAD-1", "a task created through one instance is found by tasks/get on every other as soon as its CreateTaskResult is answered", bothEras, roles(RoleQuick), needs(checkCrossRead, capCall)},
	{"V-XCANCEL-1", "a task of the long tool made through one instance and cancelled through another ends cancelled within 5 s, as one cancelled through its own instance does", bothEras, roles(RoleLong), needs(checkCrossCancel, capCall, capCancel)},
	{"V-XINPUT-1", "an input task made through one instance shows its inputRequests through another, takes the answers sent there, and leaves input_required within 5 s", modernEra, roles(RoleInput), needs(checkCrossInput)},
	{"V-XNOTIFY-1", "a listener on another instance hears of a task made through one instance as the listener on that instance does", bothEras, roles(RoleSlow), needs(checkCrossNotify, capCall)},
	{"V-XKILL-1", "an instance the probe started is killed with tasks on it: every task is found through another instance, and none stays working untouched past the lease", bothEras, roles(RoleLong, RoleQuick), needs(checkCrossKill, capCall, capCancel)},
}

var (
	bothEras  = []conformance.Era{conformance.EraLegacy, conformance.EraModern}
	legacyEra = []conformance.Era{conformance.EraLegacy}
	modernEra = []conformance.Era{conformance.EraModern}
)

// check is one check of a rule.
type check struct {
	rule, name string
	eras       []conformance.Era
	// uses are the roles of the tools it makes tasks with: a server that does not list
	// one of them leaves the check unrun (needTools).
	uses []Role
	run  func(ctx context.Context, r *eraRun) error // nil: passed; a *fault: failed
}

func roles(r ...Role) []Role { return r }

// eraRun is what a check works with in one era: the first principal, the others, and a
// caller without credentials (nil when the server refuses one).
type eraRun struct {
	era    conformance.Era
	owner  *peer
	others []*peer
	anon   *peer
	tools  Tools
	// authenticates is true when the server refused an unknown bearer token (HTTP 401
	// or 403): then tokens are principals to it, else it has sessions only.
	authenticates bool
	notes         []string
	toolNames     []string // tools/list, once read
	cfg           Config
	strangerErr   error    // how the server answered a connection with a token it never issued
	stdio         bool     // the server is a child per principal, on stdio
	children      []*peer  // to end when the era is done
	members       []member // the first principal on each instance of a deployment (spread)
}

// track keeps a stdio peer, whose child must be ended.
func (r *eraRun) track(p *peer) {
	if p != nil && p.stdio {
		r.children = append(r.children, p)
	}
}

// close ends the era's children (HTTP sessions are left to the server's own expiry: a
// DELETE to a server that hangs would hang the probe).
func (r *eraRun) close() {
	for _, p := range r.children {
		_ = p.conn.Close()
	}
	r.children = nil
}

// note records a remark for the check's rule that does not decide its outcome.
func (r *eraRun) note(msg string) { r.notes = append(r.notes, msg) }

// fault is a rule broken: the input, what was expected and what came back. should marks
// a fault against a SHOULD of the specification inside a MUST rule: warned, unless strict.
type fault struct {
	input, want, got string
	should           bool
}

func (f *fault) Error() string {
	return fmt.Sprintf("input:    %s\n  expected: %s\n  got:      %s", f.input, f.want, f.got)
}

func faultf(input, want string, got any) *fault {
	return &fault{input: input, want: want, got: fmt.Sprint(got)}
}

// shouldf is faultf for what the specification asks with SHOULD.
func shouldf(input, want string, got any) *fault {
	f := faultf(input, want, got)
	f.should = true
	return f
}

// answerOr renders a response, or the error that came instead.
func answerOr(res *client.Response, err error) string {
	if err != nil || res == nil {
		return fmt.Sprint(err)
	}
	return answer(res)
}

// answer renders a response for a failure message.
func answer(res *client.Response) string {
	if res.Error != nil {
		return fmt.Sprintf("error %d %q", res.Error.Code, res.Error.Message)
	}
	return "result " + clip(string(res.Result), 300)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// finished creates a task with the quick tool and waits for it to end.
func (r *eraRun) finished(ctx context.Context) (string, map[string]any, error) {
	id, err := r.owner.create(ctx, r.tools.Quick, r.tools.QuickArgs)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", errSetup, err)
	}
	t, err := r.owner.terminal(ctx, id)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", errSetup, err)
	}
	return id, t, nil
}

// missingID is an id no server issued.
func missingID() string { return fmt.Sprintf("storecheck-probe-missing-%d", time.Now().UnixNano()) }

func checkDeny(ctx context.Context, r *eraRun) error {
	id, _, err := r.finished(ctx)
	if err != nil {
		return err
	}
	methods := r.taskMethods()
	if r.stdio {
		r.note("over stdio every principal is a child process of its own: children that share no store keep their tasks apart by construction")
	}
	if r.era == conformance.EraLegacy && !r.owner.caps.list {
		r.note("tasks/list not tried: " + r.owner.caps.lack(capList))
	}
	strangers := append([]*peer(nil), r.others...)
	if r.anon != nil {
		strangers = append(strangers, r.anon)
	}
	for _, s := range strangers {
		for _, m := range methods {
			params := func(id string) map[string]any {
				p := map[string]any{"taskId": id}
				if m == "tasks/update" {
					p["inputResponses"] = map[string]any{}
				}
				return p
			}
			missing := missingID()
			mres, err := s.call(ctx, m, params(missing), true)
			if err != nil {
				return err
			}
			dres, err := s.call(ctx, m, params(id), true)
			if err != nil {
				return err
			}
			in := fmt.Sprintf("%s %s of %s's task %s, beside the same call for the id %s no server issued", who(s.name), m, r.owner.name, id, missing)
			if dres.Error == nil {
				return faultf(in, "the answer for a missing task (an error)", answer(dres))
			}
			if mres.Error == nil {
				return faultf(in, "an error for a task that does not exist (-32602)", "for the missing id: "+answer(mres))
			}
			if !missingLike(dres, mres, id, missing) {
				return faultf(in, "the same answer as for the missing id: "+answer(mres), answer(dres))
			}
		}
		if r.era == conformance.EraLegacy && r.owner.caps.list {
			res, err := s.call(ctx, "tasks/list", nil, true)
			if err != nil {
				return err
			}
			if strings.Contains(string(res.Result), id) {
				return faultf(fmt.Sprintf("%s tasks/list", who(s.name)), fmt.Sprintf("no trace of %s's task %s", r.owner.name, id), answer(res))
			}
		}
	}
	return r.sessionless(ctx, id)
}

func checkFinal(ctx context.Context, r *eraRun) error {
	id, t, err := r.finished(ctx)
	if err != nil {
		return err
	}
	res, err := r.owner.call(ctx, "tasks/cancel", map[string]any{"taskId": id}, true)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("tasks/cancel of the %v task %s by its creator", t["status"], id)
	if r.era == conformance.EraLegacy && (res.Error == nil || res.Error.Code != jsonrpc.CodeInvalidParams) {
		return faultf(in, "-32602 (2025-11-25: receivers MUST reject cancellation requests for tasks already in a terminal status) "+r.owner.caps.declared("tasks/cancel"), answer(res))
	}
	if r.era == conformance.EraModern && res.Error != nil {
		return faultf(in, "an acknowledgement (the extension: on success the server MUST acknowledge with an empty result)", answer(res))
	}
	after, rpcErr, err := r.owner.task(ctx, id)
	if err != nil {
		return err
	}
	if rpcErr != nil || after["status"] != t["status"] {
		return faultf("tasks/get after "+in, fmt.Sprintf("status %v, as before", t["status"]), fmt.Sprint(after["status"], rpcErr))
	}
	return nil
}

func checkList(ctx context.Context, r *eraRun) error {
	const n = 12
	want := map[string]bool{}
	for range n {
		id, err := r.owner.createEnded(ctx, r.tools.Quick, r.tools.QuickArgs)
		if err != nil {
			return fmt.Errorf("%w: %w", errSetup, err)
		}
		want[id] = true
	}
	l, err := r.pageThrough(ctx)
	if err != nil {
		return err
	}
	if err := l.judge(r, want); err != nil {
		return err
	}
	if len(l.cursors) == 0 {
		r.note("every task fitted on one page: no task was created between pages")
	}
	res, err := r.owner.call(ctx, "tasks/list", map[string]any{"cursor": "storecheck-probe-forged"}, true)
	if err != nil {
		return err
	}
	if res.Error == nil || res.Error.Code != jsonrpc.CodeInvalidParams {
		return faultf("tasks/list with the cursor \"storecheck-probe-forged\", never issued", wantInvalidCursor, answer(res))
	}
	own := map[string]bool{}
	for id := range l.seen {
		own[id] = true
	}
	if len(l.cursors) > 0 {
		if err := r.checkForged(ctx, l.cursors[0], own); err != nil {
			return err
		}
	}
	return r.checkBoundaries(ctx, own, l.size)
}

// listing is what the owner's tasks/list saw from the first page to the last.
type listing struct {
	seen    map[string]int  // times each task was listed
	cursors []string        // the cursors followed, in order
	size    int             // the page size the server revealed: the first page's length, when more follow
	added   string          // the owner's task created after the first page
	foreign map[string]bool // the other principal's tasks created after the first page
	during  string          // those creations, for messages
}

// pageThrough lists the owner's tasks page by page. Between the first two pages the
// other principal creates tasks, and the caller one: pages must neither skip nor repeat
// a task while anybody creates tasks.
func (r *eraRun) pageThrough(ctx context.Context) (*listing, error) {
	l := &listing{seen: map[string]int{}, foreign: map[string]bool{}}
	params := map[string]any{}
	for page := 1; ; page++ {
		res, err := r.owner.call(ctx, "tasks/list", params, true)
		if err != nil {
			return nil, err
		}
		var out struct {
			Tasks      []struct{ TaskID string } `json:"tasks"`
			NextCursor *string                   `json:"nextCursor"`
		}
		if res.Error != nil || json.Unmarshal(res.Result, &out) != nil {
			return nil, faultf(fmt.Sprintf("tasks/list page %d", page), "a page of tasks "+r.owner.caps.declared("tasks/list"), answer(res))
		}
		for _, t := range out.Tasks {
			l.seen[t.TaskID]++
		}
		if out.NextCursor == nil || *out.NextCursor == "" || page > 1000 {
			return l, nil
		}
		if page == 1 {
			l.size = len(out.Tasks)
		}
		l.cursors = append(l.cursors, *out.NextCursor)
		params = map[string]any{"cursor": *out.NextCursor}
		if page == 1 && len(r.others) > 0 {
			if err := r.createBetweenPages(ctx, l); err != nil {
				return nil, err
			}
		}
	}
}

// createBetweenPages has the other principal create 3 tasks and the owner 1.
func (r *eraRun) createBetweenPages(ctx context.Context, l *listing) error {
	for range 3 {
		id, err := r.others[0].create(ctx, r.tools.Quick, r.tools.QuickArgs)
		if err != nil {
			return fmt.Errorf("%w: %w", errSetup, err)
		}
		l.foreign[id] = true
	}
	added, err := r.owner.create(ctx, r.tools.Quick, r.tools.QuickArgs)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	l.added = added
	l.during = fmt.Sprintf(", %s creating 3 tasks and %s 1 (%s) after the first page", r.others[0].name, r.owner.name, added)
	return nil
}

// judge checks the listing: each of the owner's tasks in want exactly once, its task
// made while paging at most once, none of the other principal's.
func (l *listing) judge(r *eraRun, want map[string]bool) error {
	in := fmt.Sprintf("tasks/list by %s from the first page to the last (%d pages)%s", r.owner.name, len(l.cursors)+1, l.during)
	for id := range want {
		if l.seen[id] != 1 {
			return faultf(in, `each of the caller's tasks exactly once ("no task skipped or repeated": the pages are one listing)`, fmt.Sprintf("task %s listed %d times", id, l.seen[id]))
		}
	}
	if l.seen[l.added] > 1 {
		return faultf(in, fmt.Sprintf("the task %s, made while paging, at most once", l.added), fmt.Sprintf("listed %d times", l.seen[l.added]))
	}
	for id := range l.foreign {
		if l.seen[id] > 0 {
			return faultf(in, fmt.Sprintf("none of %s's tasks", r.others[0].name), fmt.Sprintf("its task %s listed", id))
		}
	}
	return nil
}

func checkResult(ctx context.Context, r *eraRun) error {
	id, err := r.owner.create(ctx, r.tools.Slow, r.tools.SlowArgs)
	if err != nil {
		return fmt.Errorf("%w: %w", errSetup, err)
	}
	res, err := r.owner.call(ctx, "tasks/result", map[string]any{"taskId": id}, true)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("tasks/result of the working task %s (tool %s)", id, r.tools.Slow)
	t, rpcErr, err := r.owner.task(ctx, id)
	if err != nil {
		return err
	}
	if rpcErr != nil || !terminalStatus(t["status"]) {
		return faultf("tasks/get right after "+in+" answered", "a terminal status: tasks/result MUST block until the task is terminal", fmt.Sprint(t["status"], rpcErr))
	}
	if res.Error != nil {
		if t["status"] == "completed" {
			return faultf(in, "the tool's result (the task completed)", answer(res))
		}
		return nil // the call's JSON-RPC error, returned as the spec asks
	}
	var out struct {
		Meta map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res.Result, &out); err != nil || out.Meta["io.modelcontextprotocol/related-task"].TaskID != id {
		return faultf(in, fmt.Sprintf("_meta[\"io.modelcontextprotocol/related-task\"].taskId = %q", id), answer(res))
	}
	return nil
}

func checkExtension(ctx context.Context, r *eraRun) error {
	id, _, err := r.finished(ctx)
	if err != nil {
		return err
	}
	res, err := r.owner.call(ctx, "tasks/get", map[string]any{"taskId": id}, false)
	if err != nil {
		return err
	}
	if res.Error == nil || res.Error.Code != jsonrpc.CodeMissingCapability {
		return faultf(fmt.Sprintf("tasks/get %s without the tasks extension in the request's capabilities", id), "-32021 (Missing Required Client Capability)", answer(res))
	}
	for _, m := range []string{"tasks/list", "tasks/result"} {
		res, err := r.owner.call(ctx, m, map[string]any{"taskId": id}, true)
		if err != nil {
			return err
		}
		if res.Error == nil || res.Error.Code != jsonrpc.CodeMethodNotFound {
			return faultf(m+" on the 2026-07-28 wire", "-32601 (removed by the tasks extension)", answer(res))
		}
	}
	return nil
}

func checkBad(ctx context.Context, r *eraRun) error {
	p := r.owner
	// The same task made before the bad input: a server that cannot serve it even then
	// says nothing about keeping serving after it.
	if _, _, err := r.finished(ctx); err != nil {
		return err
	}
	if r.stdio {
		if err := badLine(ctx, p); err != nil {
			return err
		}
	} else if err := badPost(ctx, p); err != nil {
		return err
	}
	res, err := p.owed(ctx, "storecheck/no-such-method", nil, true, "the method storecheck/no-such-method", "-32601 (Method not found)")
	if err != nil {
		return err
	}
	if res.Error == nil || res.Error.Code != jsonrpc.CodeMethodNotFound {
		return faultf("the method storecheck/no-such-method", "-32601 (Method not found)", answer(res))
	}
	if _, _, err := r.finished(ctx); err != nil {
		return faultf("a task made after the bad input", "the server still serving", err)
	}
	return nil
}

// badLine writes a line of malformed JSON to a stdio server: JSON-RPC 2.0 answers it
// with a -32700 error whose id is null. A ping follows it: a server that answers the ping
// and never the line has read the line and kept silent (see ordered).
func badLine(ctx context.Context, p *peer) error {
	in, want := "a line of malformed JSON on the server's stdin", "a -32700 (Parse error) answer with id null, and the server still serving"
	res, err := p.ordered(ctx, "the line that is not JSON", in, want, func(ctx context.Context) func() (*client.Response, error) {
		return p.conn.StartRaw(ctx, nil, []byte(`{"jsonrpc":"2.0","id":1,"method":`), nil)
	})
	switch {
	case errors.Is(err, client.ErrNoAnswer):
		return faultf(in, want, err)
	case err != nil:
		return err
	case res.Error == nil || res.Error.Code != jsonrpc.CodeParse:
		return faultf(in, "-32700 (Parse error)", answer(res))
	}
	return nil
}

// badPost posts malformed JSON.
func badPost(ctx context.Context, p *peer) error {
	// Malformed JSON: an HTTP 4xx, with a JSON-RPC -32700 in the body or no JSON-RPC body
	// at all (transports: "it MUST return an HTTP error status code (e.g., 400 Bad
	// Request). The HTTP response body MAY comprise a JSON-RPC error response").
	rctx, cancel := context.WithTimeout(ctx, p.timeout)
	res, err := p.conn.SendRaw(rctx, nil, []byte(`{"jsonrpc":"2.0","id":1,"method":`), nil)
	cancel()
	err = noAnswer(err, "a POST of malformed JSON", p.timeout)
	var status int
	if res != nil {
		status = res.HTTPStatus
	}
	switch {
	case err != nil && !errors.Is(err, client.ErrHTTP):
		return err
	case status < 400 || status > 499:
		return faultf("a POST of malformed JSON", "an HTTP 4xx (e.g. 400 Bad Request), its body a -32700 Parse error or none", fmt.Sprintf("HTTP %d, %v", status, answerOr(res, err)))
	case err == nil && (res.Error == nil || res.Error.Code != jsonrpc.CodeParse):
		return faultf("a POST of malformed JSON", "-32700 (Parse error) as the JSON-RPC answer", answer(res))
	}
	return nil
}

func checkSession(ctx context.Context, r *eraRun) error {
	if r.stdio {
		return fmt.Errorf("%w: stdio has no session ids (a session is the connection)", errNone)
	}
	own := r.owner.conn.SessionID()
	if own == "" {
		return nil // no sessions: nothing to bind
	}
	tries := []struct {
		who     *peer
		session string
		what    string
	}{{r.owner, "storecheck-probe-never-issued", "a session id never issued"}}
	switch {
	case len(r.others) > 0 && r.authenticates:
		tries = append(tries, struct {
			who     *peer
			session string
			what    string
		}{r.others[0], own, fmt.Sprintf("%s's session id", r.owner.name)})
	case len(r.others) > 0:
		r.note("another principal's token with the first's session id was not tried: the server accepts a bearer token it was never given, so it has sessions, not principals")
	}
	for _, tr := range tries {
		saved := tr.who.conn.SessionID()
		tr.who.conn.SetSessionID(tr.session)
		// Any tasks/* method will do: the session is refused before the method counts.
		method, params := "tasks/list", map[string]any(nil)
		if !r.owner.caps.list {
			method, params = "tasks/get", map[string]any{"taskId": missingID()}
		}
		res, err := tr.who.call(ctx, method, params, true)
		tr.who.conn.SetSessionID(saved)
		if err != nil && !errors.Is(err, client.ErrHTTP) {
			return err
		}
		if res == nil || res.HTTPStatus != 404 {
			status := 0
			if res != nil {
				status = res.HTTPStatus
			}
			return faultf(fmt.Sprintf("%s %s with %s", who(tr.who.name), method, tr.what), "HTTP 404 Not Found", fmt.Sprintf("HTTP %d, %s", status, answerOr(res, err)))
		}
	}
	return nil
}

// checkSupport calls, against their declared taskSupport, the tools of kind "required"
// (plainly) or "forbidden" (as tasks; absent counts as forbidden).
func checkSupport(kind string) func(ctx context.Context, r *eraRun) error {
	return func(ctx context.Context, r *eraRun) error {
		res, err := r.owner.call(ctx, "tools/list", nil, true)
		if err != nil {
			return err
		}
		var list struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		}
		if err := res.Decode(&list); err != nil {
			return faultf("tools/list", "a list of tools", answer(res))
		}
		tried := 0
		for _, t := range list.Tools {
			support := cmp.Or(t.Execution.TaskSupport, "forbidden")
			if support != kind {
				continue
			}
			params, what := map[string]any{"name": t.Name, "arguments": map[string]any{}}, "without a task, its taskSupport required"
			if kind == "forbidden" {
				params["task"] = map[string]any{}
				what = "as a task, its taskSupport " + cmp.Or(t.Execution.TaskSupport, "absent")
			}
			tried++
			res, err := r.owner.call(ctx, "tools/call", params, true)
			if err != nil {
				return err
			}
			if res.Error == nil || res.Error.Code != jsonrpc.CodeMethodNotFound {
				return faultf(fmt.Sprintf("tools/call %s %s", t.Name, what), "-32601 (Method not found)", answer(res))
			}
		}
		if tried == 0 {
			return fmt.Errorf("%w: no tool of the server's tools/list has taskSupport %s", errNone, kind)
		}
		return nil
	}
}
