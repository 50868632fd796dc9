package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/probe/client"
)

// relatedTask is the _meta key that ties a message to its task.
const relatedTask = "io.modelcontextprotocol/related-task"

// awaitInput polls the task until it asks for input: it is input_required, or (w not
// nil) a request of the server's came on one of the session's streams, whatever the
// task's status. A task that ends or keeps working without asking leaves the rule not
// exercised (the tool mapped asks nothing here).
func awaitInput(ctx context.Context, p *peer, id, tool string, w *inputWatch) (map[string]any, error) {
	var asking map[string]any
	err := p.poll(ctx, id, p.wait, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		switch {
		case w != nil && len(w.all()) > 0:
			asking = t
			return true, nil
		case rpcErr != nil:
			return true, fmt.Errorf("%w: tasks/get %s by its creator: %w", errSetup, id, rpcErr)
		case t["status"] == "input_required":
			asking = t
			return true, nil
		case terminalStatus(t["status"]) || late:
			if err := cutShort(id, tool, t); err != nil {
				return true, err
			}
			return true, fmt.Errorf("%w: the task %s of the tool %s never asked for input (status %v)", errNone, id, tool, t["status"])
		}
		return false, nil
	})
	return asking, err
}

// heard is a request the server sent during an input check, with the status the task
// showed while it was outstanding.
type heard struct {
	client.Message
	status any
	via    string // the stream it came on: post (a POST's answer), get or stdout
}

// asking is the grace the server gets to show a task input_required once one of its
// requests came: the request is held unanswered meanwhile, so the task still needs it.
const asking = 500 * time.Millisecond

// inputWatch takes the requests the server sends a session while an input check runs,
// on every stream of the session ("clients SHOULD expect messages to be delivered on any
// SSE stream, including the HTTP GET stream"), from before the task is made: each
// elicitation/create is logged with the status its task showed (read by reader), then
// answered with fill, or (fill nil) handed to held for the check to answer.
type inputWatch struct {
	reader *peer
	fill   func(map[string]any) map[string]any
	held   chan heard
	known  chan struct{} // closed once the task's id is set
	id     string
	stop   func()
	taking sync.WaitGroup // the requests being logged

	mu  sync.Mutex
	log []heard
}

// watchInput starts taking the requests the server sends p; done ends it.
func (p *peer) watchInput(ctx context.Context, reader *peer, fill func(map[string]any) map[string]any) *inputWatch {
	w := &inputWatch{reader: reader, fill: fill, held: make(chan heard, 16), known: make(chan struct{})}
	lctx, stop := context.WithCancel(ctx)
	w.stop = func() {
		stop()
		p.conn.OnRequest(nil)
	}
	p.conn.OnRequest(func(m client.Message) (any, *client.Error) {
		if m.Method != "elicitation/create" {
			return nil, &client.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the probe answers elicitation/create only"}
		}
		w.taking.Add(1)
		go w.take(lctx, p, m)
		return nil, client.Unanswered
	})
	_ = p.conn.Listen(lctx)
	return w
}

// task names the task whose status the watch reads.
func (w *inputWatch) task(id string) {
	w.id = id
	close(w.known)
}

func (w *inputWatch) done() { w.stop() }

// settle waits until every request that came is logged (and, with fill, answered).
func (w *inputWatch) settle() { w.taking.Wait() }

// take logs m with its task's status and answers or holds it.
func (w *inputWatch) take(ctx context.Context, p *peer, m client.Message) {
	defer w.taking.Done()
	select {
	case <-w.known:
	case <-ctx.Done():
		return
	}
	h := heard{Message: m}
	for _, in := range p.conn.Inbox() {
		if in.Method == m.Method && string(in.ID) == string(m.ID) {
			h.via = in.Via
		}
	}
	_ = w.reader.poll(ctx, w.id, asking, func(t map[string]any, _ *client.Error, late bool) (bool, error) {
		h.status = t["status"]
		return h.status == "input_required" || late, nil
	})
	w.mu.Lock()
	w.log = append(w.log, h)
	w.mu.Unlock()
	if w.fill == nil {
		w.held <- h
		return
	}
	var params map[string]any
	_ = json.Unmarshal(m.Params, &params)
	_ = p.conn.Respond(ctx, m.ID, w.fill(map[string]any{"params": params}), nil)
}

// all is a copy of the requests logged so far.
func (w *inputWatch) all() []heard {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]heard(nil), w.log...)
}

// requestLog is the requests a server sent a session, in the order they came.
type requestLog struct {
	mu   sync.Mutex
	msgs []client.Message
}

// recordRequests answers each request the server sends p's session with answer and
// logs it.
func (p *peer) recordRequests(answer func(client.Message) (any, *client.Error)) *requestLog {
	l := &requestLog{}
	p.conn.OnRequest(func(m client.Message) (any, *client.Error) {
		l.mu.Lock()
		l.msgs = append(l.msgs, m)
		l.mu.Unlock()
		return answer(m)
	})
	return l
}

// all is a copy of the requests logged so far.
func (l *requestLog) all() []client.Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]client.Message(nil), l.msgs...)
}

// answerFor is an accepting answer to an input request: for a form elicitation, content
// that fills every property of its schema by type.
func answerFor(req map[string]any) map[string]any {
	return formFill{true, 1, "storecheck-probe"}.accept(req)
}

// formFill is what an accepting answer puts in a form's properties, by their type.
type formFill struct {
	boolean bool
	number  int
	text    string
}

// accept is an accepting answer to req whose content fills every property of its
// form's schema with f.
func (f formFill) accept(req map[string]any) map[string]any {
	params, _ := req["params"].(map[string]any)
	schema, _ := params["requestedSchema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	content := map[string]any{}
	for k, v := range props {
		prop, _ := v.(map[string]any)
		switch prop["type"] {
		case "boolean":
			content[k] = f.boolean
		case "number", "integer":
			content[k] = f.number
		default:
			content[k] = f.text
		}
	}
	return map[string]any{"action": "accept", "content": content}
}

// inputTask makes a task of the input tool as the owner.
func (r *eraRun) inputTask(ctx context.Context) (*peer, string, error) {
	id, err := r.owner.create(ctx, r.tools.Input, r.tools.InputArgs)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", errSetup, err)
	}
	return r.owner, id, nil
}

// checkInputModern (V-INPUT-1): an input tool's task is input_required with its
// inputRequests; tasks/update with a key never issued is acknowledged and changes
// nothing; answering every key acknowledged, after which the task leaves input_required.
func checkInputModern(ctx context.Context, r *eraRun) error {
	p, id, err := r.inputTask(ctx)
	if err != nil {
		return err
	}
	t, err := awaitInput(ctx, p, id, r.tools.Input, nil)
	if err != nil {
		return err
	}
	reqs, _ := t["inputRequests"].(map[string]any)
	if len(reqs) == 0 {
		return faultf(fmt.Sprintf("tasks/get of the input_required task %s (tool %s)", id, r.tools.Input),
			`its inputRequests ("If the status is input_required, the server MUST return a Task object with status input_required and an inputRequests field")`, clip(fmt.Sprint(t), 300))
	}
	update := func(responses map[string]any, what string, fault func(string, string, any) *fault) error {
		res, err := p.call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": responses}, true)
		if err != nil {
			return err
		}
		var ack map[string]any
		if res.Error != nil || json.Unmarshal(res.Result, &ack) != nil || ack["resultType"] != "complete" {
			return fault(fmt.Sprintf("tasks/update of the input_required task %s %s", id, what),
				`an empty acknowledgement, resultType "complete" ("On success, the server MUST acknowledge the request with an empty result")`, answer(res))
		}
		return nil
	}
	never := "storecheck-probe-never-issued"
	if err := update(map[string]any{never: map[string]any{"action": "accept", "content": map[string]any{}}}, "answering the key "+never+" it never issued", shouldf); err != nil {
		return err
	}
	after, rpcErr, err := p.task(ctx, id)
	if err != nil {
		return err
	}
	if rpcErr != nil || after["status"] != "input_required" {
		return shouldf(fmt.Sprintf("tasks/get of the task %s after a tasks/update answering only the key %s, never issued", id, never),
			`still input_required ("A server SHOULD ignore any inputResponses responses mapped to a key that is not currently outstanding")`, fmt.Sprint(after["status"], rpcErr))
	}
	answers := map[string]any{}
	for k, v := range reqs {
		req, _ := v.(map[string]any)
		answers[k] = answerFor(req)
	}
	if err := update(answers, "answering every key it asked", faultf); err != nil {
		return err
	}
	return p.poll(ctx, id, p.wait, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		switch {
		case rpcErr != nil:
			return true, faultf(fmt.Sprintf("tasks/get of the task %s after its every input request was answered", id), "the task", rpcErr)
		case t["status"] != "input_required":
			return true, nil
		case late:
			return true, shouldf(fmt.Sprintf("tasks/get of the task %s %v after tasks/update answered every key of %v", id, p.wait, keys(reqs)),
				"the task working again or ended (every outstanding request answered; the server \"MAY accept a partial set of responses ... in that case the task remains in input_required until the remaining responses arrive\")", "still input_required: "+clip(fmt.Sprint(t), 200))
		}
		return false, nil
	})
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkInputLegacy (V-INPUT-2): an input tool's task asks for input; each request it
// sends, on the stream of tasks/result or the session's GET stream, comes once, with the
// related-task _meta, while the task is input_required (SHOULD); the probe answers each,
// and tasks/result returns the tool's result. The session listens on its GET stream from
// before the task is made, so a request sent there while the task shows working is
// judged, never missed.
func checkInputLegacy(ctx context.Context, r *eraRun) error {
	w := r.owner.watchInput(ctx, r.owner, answerFor)
	defer w.done()
	p, id, err := r.inputTask(ctx)
	if err != nil {
		return err
	}
	w.task(id)
	if _, err := awaitInput(ctx, p, id, r.tools.Input, w); err != nil {
		return err
	}
	res, err := p.call(ctx, "tasks/result", map[string]any{"taskId": id}, true)
	if err != nil {
		return err
	}
	in := fmt.Sprintf("tasks/result of the task %s (tool %s), answering each request it sends on any stream of the session", id, r.tools.Input)
	got := w.all()
	if len(got) == 0 {
		return faultf(in, `the task's input requests, on the stream of tasks/result or the GET stream ("input_required: ... The requestor should call tasks/result to receive input requests")`, "none; then "+answer(res))
	}
	seen := map[string]bool{}
	var working *fault
	for _, m := range got {
		if err := related(in, id, m); err != nil {
			return err
		}
		key := m.Method + string(m.Params)
		if seen[key] {
			return faultf(in, "each outstanding request sent once", fmt.Sprintf("%s sent again: %s", m.Method, clip(string(m.Params), 200)))
		}
		seen[key] = true
		if m.status != "input_required" && working == nil {
			working = shouldf(fmt.Sprintf("tasks/get of the task %s (tool %s) while its request %s %s was outstanding, unanswered for %v", id, r.tools.Input, m.Method, m.ID, asking),
				`status input_required ("When the task receiver has messages for the requestor that are necessary to complete the task, the receiver SHOULD move the task to the input_required status")`,
				fmt.Sprintf("status %v", m.status))
		}
	}
	if res.Error != nil {
		return faultf(in, "the tool's result once its input was given", answer(res))
	}
	t, rpcErr, err := p.task(ctx, id)
	if err != nil {
		return err
	}
	if rpcErr != nil || t["status"] != "completed" {
		return faultf("tasks/get after "+in, "status completed, as tasks/result told", fmt.Sprint(t["status"], rpcErr))
	}
	if err := checkUndeclared(ctx, r); err != nil || working == nil {
		return err
	}
	return working
}

// related is a fault when the request m of task id lacks the related-task _meta naming it.
func related(in, id string, m heard) error {
	var params struct {
		Meta map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &params)
	if params.Meta[relatedTask].TaskID != id {
		return faultf(in, fmt.Sprintf(`_meta["%s"].taskId = %q in the request ("The receiver MUST include the io.modelcontextprotocol/related-task metadata in the request to associate it with the task")`, relatedTask, id),
			fmt.Sprintf("%s %s, on the %s stream while the task was %v", m.Method, clip(string(m.Params), 300), m.via, m.status))
	}
	return nil
}

// undeclaredWait is how long a session that declared no elicitation waits on tasks/result
// of an input task for a request that must not come.
const undeclaredWait = time.Second

// checkUndeclared: a session of the same principal whose initialize declared no
// elicitation is never sent one ("Servers MUST NOT send elicitation requests with modes
// that are not supported by the client"): the input tool's task is refused, or its
// tasks/result sends no elicitation/create.
func checkUndeclared(ctx context.Context, r *eraRun) error {
	cfg := r.cfg
	cfg.noElicit = true
	p, err := dial(ctx, cfg, cfg.Principals[0], r.era)
	r.track(p)
	if err != nil {
		return fmt.Errorf("%w: a session of %s declaring no elicitation: %w", errSetup, r.owner.name, err)
	}
	asked := p.recordRequests(func(client.Message) (any, *client.Error) {
		return nil, &client.Error{Code: jsonrpc.CodeMethodNotFound, Message: "this session declared no elicitation"}
	})
	id, res, err := p.createWith(ctx, r.tools.Input, r.tools.InputArgs, map[string]any{})
	if res != nil && res.Error != nil {
		r.note(fmt.Sprintf("a session declaring no elicitation is refused a task of %s: %s", r.tools.Input, answer(res)))
		return nil
	}
	if err != nil {
		return err
	}
	lctx, stop := context.WithCancel(ctx)
	_ = p.conn.Listen(lctx)
	wctx, cancel := context.WithTimeout(lctx, undeclaredWait)
	params, hdr := p.request("tasks/result", map[string]any{"taskId": id}, true)
	_, _ = p.conn.Call(wctx, "tasks/result", params, hdr)
	cancel()
	stop()
	_, _ = p.call(ctx, "tasks/cancel", map[string]any{"taskId": id}, true) // it waits for an answer that will not come
	for _, m := range asked.all() {
		if m.Method == "elicitation/create" {
			return faultf(fmt.Sprintf("tasks/result of the task %s of %s, made by a session of %s whose initialize declared no elicitation", id, r.tools.Input, r.owner.name),
				`no elicitation/create ("Servers MUST NOT send elicitation requests with modes that are not supported by the client")`, clip(string(m.Params), 300))
		}
	}
	r.note(fmt.Sprintf("a session declaring no elicitation got a task of %s, and no elicitation within %v of its tasks/result", r.tools.Input, undeclaredWait))
	return nil
}

// foreignMark fills the string fields of another principal's answer, so that a result
// that carries it shows it.
const foreignMark = "storecheck-probe-answer-of-another-principal"

// foreignWatch is how long the owner's task is watched after another principal answered
// its input request: it must stay input_required.
const foreignWatch = 500 * time.Millisecond

// foreignAnswer is another principal's answer to an input request: accepting, every
// property of its form filled otherwise than the owner's answer fills it.
func foreignAnswer(req map[string]any) map[string]any {
	return formFill{false, 2, foreignMark}.accept(req)
}

// checkInputForeign (V-INPUT-3): an input request of the first principal's task,
// answered by another principal, does not reach the task: it stays input_required while
// watched, and once its owner answers, its result does not carry the other's answer.
// 2026-07-28: the other's tasks/update answers every key the task shows; 2025-11-25: the
// other sends a response to the elicitation/create request that came on the owner's
// tasks/result stream, its JSON-RPC id copied.
func checkInputForeign(ctx context.Context, r *eraRun) error {
	if r.stdio {
		r.note("over stdio every principal is a child process of its own: children that share no store keep their tasks apart by construction")
	}
	var w *inputWatch
	if r.era == conformance.EraLegacy {
		// The owner's requests are held for the check to answer, whichever stream brings them.
		w = r.owner.watchInput(ctx, r.owner, nil)
		defer w.done()
	}
	p, id, err := r.inputTask(ctx)
	if err != nil {
		return err
	}
	if w != nil {
		w.task(id)
	}
	// The task is cancelled when the check leaves it running.
	defer func() {
		if t, rpcErr, err := p.task(ctx, id); err == nil && rpcErr == nil && !terminalStatus(t["status"]) {
			_, _ = p.call(ctx, "tasks/cancel", map[string]any{"taskId": id}, true)
		}
	}()
	t, err := awaitInput(ctx, p, id, r.tools.Input, w)
	if err != nil {
		return err
	}
	var end ended
	if r.era == conformance.EraModern {
		end, err = foreignModern(ctx, r, p, id, t)
	} else {
		end, err = foreignLegacy(ctx, r, p, id, w)
	}
	if err != nil || end.result == "" {
		return err
	}
	if err := carriesForeign(id, end.what, end.result); err != nil {
		return err
	}
	return r.comparedResult(ctx, id, end)
}

// ended is how the owner's input task ended after another principal had answered its
// request: what happened, and its result (or error) as the owner read it, normalized.
type ended struct {
	what, result string
}

// comparedResult judges the result of the task another principal answered against two
// tasks of the same tool the owner answers alone: one with the owner's answer, one with
// the other's. When those two results differ, the tool tells the answers apart, and the
// task must end as the owner's answer makes it, not as the other's would (a server that
// keeps the other's answer and applies it once the owner answers, whose result need
// not echo any text of it). When they do not differ, or the task ends as neither, the
// mark alone judges it (carriesForeign), and the row says so.
func (r *eraRun) comparedResult(ctx context.Context, id string, end ended) error {
	own, err := r.ownerRun(ctx, answerFor)
	if err != nil {
		r.note(fmt.Sprintf("the result was looked at for the other's text only: a task of %s answered by its owner alone did not end: %v", r.tools.Input, err))
		return nil
	}
	theirs, err := r.ownerRun(ctx, foreignAnswer)
	if err != nil {
		r.note(fmt.Sprintf("the result was looked at for the other's text only: a task of %s answered by its owner with the other's answer did not end: %v", r.tools.Input, err))
		return nil
	}
	switch {
	case own == theirs:
		r.note(fmt.Sprintf("the result of %s is the same whichever answer it takes (%s): it was looked at for the other's text only", r.tools.Input, clip(own, 120)))
	case end.result == theirs:
		return faultf(fmt.Sprintf("the result of the task %s, %s", id, end.what),
			fmt.Sprintf("the result its owner's answer gives (%s, as a task answered by its owner alone ends): the task goes on with its owner's answer, never the other's", clip(own, 200)),
			fmt.Sprintf("the result the other principal's answer gives (%s, as a task its owner answers with the other's answer ends)", clip(end.result, 200)))
	case end.result != own:
		r.note(fmt.Sprintf("the result matches neither task of %s answered by its owner alone (the tool's result varies): it was looked at for the other's text only", r.tools.Input))
	}
	return nil
}

// ownerRun makes a task of the input tool as the owner, answers every request it makes
// with fill, and returns how it ended (its result or error, normalized).
func (r *eraRun) ownerRun(ctx context.Context, fill func(map[string]any) map[string]any) (string, error) {
	var w *inputWatch
	if r.era == conformance.EraLegacy {
		w = r.owner.watchInput(ctx, r.owner, fill)
		defer w.done()
	}
	p, id, err := r.inputTask(ctx)
	if err != nil {
		return "", err
	}
	if w != nil {
		w.task(id)
	}
	if _, err := awaitInput(ctx, p, id, r.tools.Input, w); err != nil {
		return "", err
	}
	if r.era == conformance.EraModern {
		end, err := p.answering(ctx, id, func(t map[string]any) error {
			reqs, _ := t["inputRequests"].(map[string]any)
			answers := map[string]any{}
			for k, v := range reqs {
				req, _ := v.(map[string]any)
				answers[k] = fill(req)
			}
			_, err := p.call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": answers}, true)
			return err
		})
		if err != nil {
			return "", err
		}
		out := end["result"]
		if out == nil {
			out = end["error"]
		}
		raw, _ := json.Marshal(out)
		return normalized(string(raw), id), nil
	}
	res, err := p.call(ctx, "tasks/result", map[string]any{"taskId": id}, true)
	if err != nil {
		return "", err
	}
	return legacyEnd(res, id), nil
}

// legacyEnd is what a 2025-11-25 tasks/result answered, normalized: the result, or the
// error's message.
func legacyEnd(res *client.Response, id string) string {
	if res.Error != nil {
		return normalized(res.Error.Message, id)
	}
	return normalized(string(res.Result), id)
}

// normalized is an ended task's result with its own id put aside (2025-11-25's carries
// it in the related-task _meta), so that two tasks' results compare: JSON re-encoded
// with its keys sorted.
func normalized(raw, id string) string {
	var v any
	if json.Unmarshal([]byte(raw), &v) == nil {
		b, _ := json.Marshal(v)
		raw = string(b)
	}
	return strings.ReplaceAll(raw, id, "TASK")
}

// Why another principal's answer must not reach a task, by era.
const (
	foreignWhyLegacy = `2025-11-25: "When an authorization context is provided, receivers MUST bind tasks to said context"; "any party that can guess or obtain a task ID could potentially ... manipulate tasks they did not create"`
	foreignWhyModern = `the extension: "Servers MUST perform authentication and authorization checks on each task-related request to ensure that the client has permission to access a task"`
)

// stillAsking watches the owner's task for foreignWatch after what: it must stay as it
// was while its request was outstanding (status: input_required, or what a server that
// asks while working shows), and (2026-07-28) keep asking every key of keys.
func stillAsking(ctx context.Context, p *peer, id, what string, keys []string, status any) error {
	why := foreignWhyLegacy
	if p.era == conformance.EraModern {
		why = foreignWhyModern
	}
	return p.poll(ctx, id, foreignWatch, func(t map[string]any, rpcErr *client.Error, late bool) (bool, error) {
		switch {
		case rpcErr != nil:
			return true, fmt.Errorf("%w: tasks/get %s by its creator: %w", errSetup, id, rpcErr)
		case t["status"] != status:
			return true, faultf(fmt.Sprintf("tasks/get of the task %s by its creator, after %s", id, what),
				fmt.Sprintf("still %v: the answer is not its owner's (%s)", status, why),
				fmt.Sprintf("status %v: %s", t["status"], clip(fmt.Sprint(t), 300)))
		}
		asked, _ := t["inputRequests"].(map[string]any)
		for _, k := range keys {
			if _, ok := asked[k]; !ok {
				return true, faultf(fmt.Sprintf("tasks/get of the task %s by its creator, after %s", id, what),
					fmt.Sprintf("the key %s still outstanding: the answer is not its owner's (%s)", k, why), clip(fmt.Sprint(t), 300))
			}
		}
		return late, nil
	})
}

// carriesForeign is a fault when the ended task's result carries the other's answer.
func carriesForeign(id, what, result string) error {
	if strings.Contains(result, foreignMark) {
		return faultf(fmt.Sprintf("the result of the task %s, %s", id, what),
			fmt.Sprintf("nothing of the other principal's answer (its text fields read %q): the task goes on with its owner's", foreignMark), clip(result, 300))
	}
	return nil
}

func foreignModern(ctx context.Context, r *eraRun, p *peer, id string, t map[string]any) (ended, error) {
	reqs, _ := t["inputRequests"].(map[string]any)
	if len(reqs) == 0 {
		return ended{}, fmt.Errorf("%w: the input_required task %s shows no inputRequests: no key for another principal to answer (V-INPUT-1 judges that)", errNone, id)
	}
	other := r.others[0]
	theirs, ours := map[string]any{}, map[string]any{}
	for k, v := range reqs {
		req, _ := v.(map[string]any)
		theirs[k], ours[k] = foreignAnswer(req), answerFor(req)
	}
	res, err := other.call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": theirs}, true)
	if err != nil {
		return ended{}, err
	}
	what := fmt.Sprintf("%s's tasks/update answering its every key %v (answered: %s)", who(other.name), keys(reqs), answer(res))
	if err := stillAsking(ctx, p, id, what, keys(reqs), "input_required"); err != nil {
		return ended{}, err
	}
	if _, err := p.call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": ours}, true); err != nil {
		return ended{}, err
	}
	end, err := p.terminal(ctx, id)
	if err != nil {
		r.note(fmt.Sprintf("the task %s did not end after its owner answered (V-INPUT-1 judges that): %v", id, err))
		return ended{}, nil
	}
	out := end["result"]
	if out == nil {
		out = end["error"]
	}
	raw, _ := json.Marshal(out)
	return ended{fmt.Sprintf("answered by %s and then by its owner", who(other.name)), normalized(string(raw), id)}, nil
}

func foreignLegacy(ctx context.Context, r *eraRun, p *peer, id string, w *inputWatch) (ended, error) {
	other := r.others[0]
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	type outcome struct {
		res *client.Response
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := p.call(lctx, "tasks/result", map[string]any{"taskId": id}, true)
		done <- outcome{res, err}
	}()
	var first heard
	select {
	case first = <-w.held:
	case o := <-done:
		return ended{}, fmt.Errorf("%w: tasks/result of the input_required task %s answered before any input request came (%s): nothing for another principal to answer (V-INPUT-2 judges that)", errNone, id, answerOr(o.res, o.err))
	case <-time.After(p.timeout):
		return ended{}, fmt.Errorf("%w: no input request of the task %s came within %v of its tasks/result: nothing for another principal to answer (V-INPUT-2 judges that)", errNone, id, p.timeout)
	case <-ctx.Done():
		return ended{}, ctx.Err()
	}
	if err := strangersAsk(ctx, r, p, id, first); err != nil {
		return ended{}, err
	}
	var params map[string]any
	_ = json.Unmarshal(first.Params, &params)
	req := map[string]any{"params": params}
	err := other.conn.Respond(ctx, first.ID, foreignAnswer(req), nil)
	var refused *client.HTTPError
	if err != nil && !errors.As(err, &refused) {
		return ended{}, noAnswer(err, fmt.Sprintf("a response to the request %s as %s", first.ID, who(other.name)), p.timeout)
	}
	what := fmt.Sprintf("%s sent a response to the elicitation/create request %s that came on %s's %s stream", who(other.name), first.ID, r.owner.name, first.via)
	if err := stillAsking(ctx, p, id, what, nil, first.status); err != nil {
		return ended{}, err
	}
	// The owner answers the request, and any that follow, until tasks/result answers.
	answerOwn := func(m heard) error {
		var params map[string]any
		_ = json.Unmarshal(m.Params, &params)
		return noAnswer(p.conn.Respond(ctx, m.ID, answerFor(map[string]any{"params": params}), nil), "a response to the request "+string(m.ID), p.timeout)
	}
	if err := answerOwn(first); err != nil {
		return ended{}, err
	}
	for {
		select {
		case m := <-w.held:
			if err := answerOwn(m); err != nil {
				return ended{}, err
			}
		case o := <-done:
			if o.err != nil {
				r.note(fmt.Sprintf("tasks/result of the task %s after its owner answered: %v (V-INPUT-2 judges it)", id, o.err))
				return ended{}, nil
			}
			return ended{what + ", then its owner answered", legacyEnd(o.res, id)}, nil
		case <-ctx.Done():
			return ended{}, ctx.Err()
		}
	}
}

// strangerWait bounds a tasks/result of the owner's task by a caller that cannot see it:
// a server that rejects it answers at once.
const strangerWait = time.Second

// strangersAsk (2025-11-25): while the owner's input request asked is outstanding, the
// callers that cannot see the task (another principal, a caller without credentials, a
// second session of the owner's principal when the server binds tasks to sessions) each
// call its tasks/result: none may be sent the request, nor have an answer taken. One
// that can see the task shares its authorization context and may be sent it: noted.
func strangersAsk(ctx context.Context, r *eraRun, p *peer, id string, asked heard) error {
	type stranger struct {
		p     *peer
		label string
	}
	var strangers []stranger
	for _, o := range r.others {
		strangers = append(strangers, stranger{o, who(o.name)})
	}
	if r.anon != nil {
		strangers = append(strangers, stranger{r.anon, who("")})
	}
	second, err := dial(ctx, r.cfg, r.cfg.Principals[0], r.era)
	r.track(second)
	if err != nil {
		return fmt.Errorf("%w: a second session of %s: %w", errSetup, r.owner.name, err)
	}
	strangers = append(strangers, stranger{second, "a second session of " + who(r.owner.name)})
	for _, s := range strangers {
		_, hidden, err := s.p.task(ctx, id)
		if err != nil {
			return err
		}
		if hidden == nil {
			r.note(fmt.Sprintf("%s sees the task %s (tasks/get): it shares the task's authorization context, and may be sent its input requests", s.label, id))
			continue
		}
		sw := s.p.watchInput(ctx, p, foreignAnswer)
		sw.task(id)
		wctx, cancel := context.WithTimeout(ctx, strangerWait)
		params, hdr := s.p.request("tasks/result", map[string]any{"taskId": id}, true)
		res, callErr := s.p.conn.Call(wctx, "tasks/result", params, hdr)
		cancel()
		sw.settle()
		sw.done()
		got := sw.all()
		if len(got) == 0 {
			continue
		}
		after, rpcErr, err := p.task(ctx, id)
		if err != nil {
			return err
		}
		return faultf(fmt.Sprintf("%s's tasks/result of %s's task %s, which it cannot see (its tasks/get: %s), while the task's request %s was outstanding", s.label, r.owner.name, id, hidden.Message, asked.ID),
			`no input request of the task, and no answer of the caller's taken (2025-11-25: "receivers MUST reject tasks/get, tasks/result, and tasks/cancel requests for tasks that do not belong to the same authorization context"; an input request goes to those who may see its task)`,
			fmt.Sprintf("%s %s on its %s stream; answered with %q in its text fields, the task then %v%v; tasks/result: %s", got[0].Method, clip(string(got[0].Params), 200), got[0].via, foreignMark, after["status"], errText(rpcErr), answerOr(res, callErr)))
	}
	return nil
}

// errText renders a JSON-RPC error, or nothing.
func errText(e *client.Error) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf(" (error %d %q)", e.Code, e.Message)
}
