package typescriptsdk

import (
	"bufio"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// probePins are storecheck probe's verdicts on the TypeScript SDK's own MCP server with
// tasks (server.mjs: McpServer, StreamableHTTPServerTransport, InMemoryTaskStore), by
// rule and era, and for a failure a piece of its report naming the finding. It binds
// tasks to the session, so another session sees nothing of them, and ignores bearer
// tokens (it has sessions, not principals); it speaks 2025-11-25 only, so the 2026-07-28
// rules are not exercised.
var probePins = map[string]struct {
	outcome conformance.Outcome
	finding string
}{
	"V-DENY-1 legacy":    {outcome: conformance.Passed},
	"V-FIN-1 legacy":     {outcome: conformance.Passed},
	"V-LIST-1 legacy":    {outcome: conformance.Passed},
	"V-RESULT-1 legacy":  {outcome: conformance.Passed},
	"V-SESSION-1 legacy": {outcome: conformance.Passed},
	// A cancel met the task's end (the store refuses a result for a cancelled task).
	"V-RACE-1 legacy": {outcome: conformance.Passed},
	// InMemoryTaskStore keeps task.ttl as asked (`taskParams.ttl ?? null`) and deletes
	// the task in a setTimeout of that ttl: a negative ttl is reported as given and the
	// task is gone on the timer's next tick: tasks/get finds it gone, or, when it comes
	// first (a loaded machine), there with ttl -1000. (A 1.5 s ttl is kept and reported
	// as asked.)
	"V-TTL-1 legacy":   {conformance.Failed, "as a task with task.ttl -1000"},
	"V-SHAPE-1 legacy": {outcome: conformance.Passed},
	// A plain call of a tool registered with registerToolTask (taskSupport required) is
	// answered with a result whose isError text holds the -32601, not the JSON-RPC error.
	"V-SUPPORT-1 legacy": {conformance.Failed, `"isError":true`},
	// Every tool of server.mjs is a task tool: none forbidden.
	"V-SUPPORT-2 legacy": {outcome: conformance.NotExercised},
	"V-BAD-1 legacy":     {outcome: conformance.Passed},
	// The SDK sends notifications/tasks/status through the Protocol instance whose
	// request made the task (requestTaskStore(...).storeTaskResult calls
	// this.notification), and server.mjs makes one McpServer per session: alice's GET
	// stream hears of her task, bob's and the anonymous session's hear nothing.
	"V-NOTIFY-1 legacy": {outcome: conformance.Passed},
	// The SDK's task store keeps a Result for an ended task, never a JSON-RPC error
	// (storeTaskResult(taskId, status, result)), and its tasks/result answers that result:
	// protocol_error_job, whose run ends with McpError -32603, is stored failed with a
	// result carrying isError, as the SDK's examples store errors, and tasks/result
	// answers that result, not the error. (failing_job's isError result ends failed,
	// its result returned: right.)
	"V-ERROR-1 legacy":  {conformance.Failed, "the JSON-RPC error the call ended with"},
	"V-NOTIFY-1 modern": {outcome: conformance.NotExercised},
	"V-ERROR-1 modern":  {outcome: conformance.NotExercised},
	"V-ROUTE-1 modern":  {outcome: conformance.NotExercised},
	// confirm_delete asks through the handler's sendRequest with the task as
	// relatedTask, on which the SDK moves the task to input_required and queues the
	// request for tasks/result: the request comes once with the related-task _meta and
	// the answer completes the task. That path checks no client capability
	// (Protocol.request checks only under enforceStrictCapabilities, off by default;
	// Server.elicitInput checks form elicitation but sets no input_required), so a
	// session whose initialize declared no elicitation is sent the form.
	"V-INPUT-2 legacy": {conformance.Failed, "whose initialize declared no elicitation"},
	"V-INPUT-1 modern": {outcome: conformance.NotExercised},
	// Another session's response to alice's elicitation/create reaches another
	// McpServer (one per session), whose request ids it does not match: ignored.
	"V-INPUT-3 legacy": {outcome: conformance.Passed},
	"V-INPUT-3 modern": {outcome: conformance.NotExercised},
	"V-TTL-1 modern":   {outcome: conformance.NotExercised},
	// server.mjs takes any bearer token and binds tasks to the session (a new session
	// with alice's token reads none of hers): no token to refuse.
	"V-AUTH-1 legacy":  {outcome: conformance.NotExercised},
	"V-AUTH-1 modern":  {outcome: conformance.NotExercised},
	"V-DENY-1 modern":  {outcome: conformance.NotExercised},
	"V-FIN-1 modern":   {outcome: conformance.NotExercised},
	"V-EXT-1 modern":   {outcome: conformance.NotExercised},
	"V-BAD-1 modern":   {outcome: conformance.NotExercised},
	"V-SHAPE-1 modern": {outcome: conformance.NotExercised},
	"V-RACE-1 modern":  {outcome: conformance.NotExercised},
	// A task nobody cancelled runs to its end.
	"V-RUN-1 legacy": {outcome: conformance.Passed},
	"V-RUN-1 modern": {outcome: conformance.NotExercised},
	// server.mjs lists no long tool (long_job) to keep tasks running until a limit.
	"V-LIMIT-1 legacy": {outcome: conformance.NotExercised},
	"V-LIMIT-1 modern": {outcome: conformance.NotExercised},
	// One endpoint: the cross-instance rules have no other instance to spread calls over
	// (or, before that, the era is not served or no long tool is offered).
	"V-XREAD-1 legacy":   {outcome: conformance.NotExercised},
	"V-XREAD-1 modern":   {outcome: conformance.NotExercised},
	"V-XCANCEL-1 legacy": {outcome: conformance.NotExercised},
	"V-XCANCEL-1 modern": {outcome: conformance.NotExercised},
	"V-XINPUT-1 modern":  {outcome: conformance.NotExercised},
	"V-XNOTIFY-1 legacy": {outcome: conformance.NotExercised},
	"V-XNOTIFY-1 modern": {outcome: conformance.NotExercised},
	"V-XKILL-1 legacy":   {outcome: conformance.NotExercised},
	"V-XKILL-1 modern":   {outcome: conformance.NotExercised},
}

// TestProbeTypeScriptServer probes the SDK's server and compares every verdict with its
// pin: a verdict that changes fails the test.
func TestProbeTypeScriptServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the SDK's server under node (-short)")
	}
	needStore(t)
	cmd := exec.Command("node", "server.mjs", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("server.mjs did not say its port: %q %v", line, err)
	}
	r, err := probe.Run(t.Context(), probe.Config{URL: fmt.Sprintf("http://127.0.0.1:%s/mcp", port), Strict: true,
		Principals: []probe.Principal{{Name: "alice", Token: "token-a"}, {Name: "bob", Token: "token-b"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]conformance.RuleResult{}
	for _, rr := range r.Rules {
		got[rr.ID+" "+string(rr.Era)] = rr
	}
	for key, want := range probePins {
		rr, ran := got[key]
		if !ran || rr.Outcome != want.outcome || want.finding != "" && !strings.Contains(strings.Join(rr.Reasons, "\n"), want.finding) {
			t.Errorf("%s: pinned %s (%q), got %q %v", key, want.outcome, want.finding, rr.Outcome, rr.Reasons)
		}
		delete(got, key)
	}
	for key, rr := range got {
		t.Errorf("%s: %s, but it has no pin (a new check: pin it)", key, rr.Outcome)
	}
}
