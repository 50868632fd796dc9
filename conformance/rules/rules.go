package rules

import (
	"strings"

	"github.com/storecheck/storecheck/conformance/harness"
)

// Level is a rule's force: a MUST decides pass/fail, a SHOULD is reported as a warning
// (and fails under Strict).
type Level string

const (
	Must   Level = "must"
	Should Level = "should"
)

// Part is the part of docs/spec.md a rule belongs to: an era a store implements
// (legacy, modern, sdk), the rules both eras share, or a part checked apart from the
// battery's run against a store.
type Part string

const (
	PartShared  Part = "shared"  // section 0: run in the legacy and modern eras
	PartLegacy  Part = "legacy"  // section 1
	PartModern  Part = "modern"  // section 2
	PartSDK     Part = "sdk"     // section 6: the SDK task-store profile
	PartServer  Part = "server"  // section 7: an MCP server, checked by storecheck probe
	PartFaults  Part = "faults"  // run by storecheck run --faults against a backend it can take away
	PartBattery Part = "battery" // section 3: the battery's checks on itself
)

// Rule is one rule of docs/spec.md.
type Rule struct {
	ID    string
	Level Level
	// Part is the part of docs/spec.md the rule belongs to.
	Part Part
	// Area groups rules for progress output ("owner", "list", "swap", ...).
	Area string
	// Text is the rule in one line.
	Text string
}

// All returns the catalogue of docs/spec.md, in the order of the document.
func All() []Rule { return append([]Rule(nil), Catalogue...) }

// ByID finds a rule by its ID.
func ByID(id string) (Rule, bool) {
	for _, r := range Catalogue {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

func (r Rule) String() string {
	return "[" + r.ID + " " + strings.ToUpper(string(r.Level)) + "] " + r.Text
}

var Catalogue = []Rule{
	{"S-TRANS-1", Must, "shared", "transitions", "ValidTransition answers exactly the transition table; unknown statuses answer false, never panic."},
	{"S-OWN-1", Must, "shared", "owner", "Every scoped operation follows the owner truth table, with and without require_owner."},
	{"S-OWN-2", Must, "shared", "owner", "A denied task is indistinguishable from a missing one: ErrNotFound, the same message, nothing written."},
	{"S-OWN-3", Must, "shared", "owner", "Owner comparison is exact: case, whitespace, homoglyphs, NFC/NFD, wildcards are all distinct owners."},
	{"S-ID-1", Must, "shared", "ids", "GenerateID returns 16 CSPRNG bytes as 22 base64url characters; ids are distinct and show no pattern."},
	{"S-ID-2", Must, "shared", "ids", "Any id of 1..512 bytes of UTF-8 without NUL is accepted and opaque; other ids are refused with ErrInvalid."},
	{"S-VAL-1", Must, "shared", "values", "JSON values round-trip exactly: nesting, null, booleans, 64-bit integers, floats, odd keys, any Unicode."},
	{"S-VAL-2", Must, "shared", "values", "A string containing U+0000 round-trips exactly or the write fails with ErrInvalid and changes nothing."},
	{"S-VAL-3", Should, "shared", "values", "A task of 1 MiB round-trips, or is refused with ErrTooLarge and changes nothing."},
	{"S-VAL-4", Must, "shared", "values", "Values are copies: mutating what a call returned, or passed to it, never changes the stored task."},
	{"S-CONC-1", Must, "shared", "concurrency", "Every method is safe for concurrent use; the history on one task is linearizable against the era's model."},
	{"S-CTX-1", Must, "shared", "context", "A cancelled or expired context returns promptly with the context's error, and the call changed nothing or everything."},
	{"S-SHARE-1", Must, "shared", "sharing", "A write acknowledged by one instance is visible to the next read on any other instance of the namespace."},

	{"L-CREATE-1", Must, "legacy", "create", "Create stores meta with task_id, status working and created_at now, overriding those keys, and returns it."},
	{"L-CREATE-2", Should, "legacy", "create", "Create of an existing id fails with ErrExists and leaves the existing task untouched."},
	{"L-CREATE-3", Must, "legacy", "create", "Create of an existing id never merges: the task is the old one untouched or exactly the new one."},
	{"L-GET-1", Must, "legacy", "get", "Get returns the stored task, or ErrNotFound."},
	{"L-UPDATE-1", Must, "legacy", "update", "Update is a shallow merge: top-level keys replace, nested objects are replaced, null is stored, no key removed."},
	{"L-UPDATE-2", Must, "legacy", "update", "Update of a missing id returns ErrNotFound and creates nothing."},
	{"L-DELETE-1", Must, "legacy", "delete", "Delete succeeds whether or not the id exists; afterwards Get returns ErrNotFound."},
	{"L-OWNER-1", Must, "legacy", "owner", "A task created with owner returns owner at the top level, byte-exact, from Get and List."},
	{"L-LIST-1", Must, "legacy", "list", "List filters by exact status (unknown status yields nothing) and returns each match once."},
	{"L-LIST-2", Must, "legacy", "list", "Limit: absent is unbounded, N > 0 is at most N rows, 0 or negative is no rows."},
	{"L-LIST-3", Must, "legacy", "list", "Owner scope: any, anonymous (unowned only) or principal X (X's plus unowned); RequireOwner drops unowned."},
	{"L-LIST-4", Must, "legacy", "list", "A store honours both Owner and Limit or ignores both; honouring Limit while ignoring Owner is a failure."},
	{"L-LIST-5", Must, "legacy", "list", "When ListAfter is implemented: the rows List would return that come strictly after a (created_at, task_id) position, oldest first, Owner and Limit honoured."},
	{"L-CANCEL-1", Must, "legacy", "cancel", "Cancel sets status cancelled and returns the task; a missing id returns ErrNotFound."},
	{"L-CLEAN-1", Must, "legacy", "cleanup", "Cleanup removes exactly the terminal tasks older than ttl (now − created_at > ttl) and returns the count."},
	{"L-CONC-1", Must, "legacy", "concurrency", "Concurrent Updates of disjoint keys all survive; a concurrent Update and Delete never resurrect the task."},
	{"L-F-CREATE-1", Must, "legacy", "facade", "Facade Create with an owner sets meta.owner (overriding one supplied); without one passes meta unchanged."},
	{"L-F-SCOPE-1", Must, "legacy", "facade", "Facade Get, Cancel and List apply the truth table; a denied Cancel writes nothing."},
	{"L-F-LIST-1", Must, "legacy", "facade", "Facade List scopes by caller, re-checks every row, then applies Limit itself: no leak, at most Limit rows."},
	{"L-F-CANCEL-1", Must, "legacy", "facade", "Facade Cancel uses the store's Cancel when present, otherwise Update(status: cancelled)."},
	{"L-F-FIN-1", Must, "legacy", "facade", "Facade refuses to change a terminal task's status (ErrTerminal) and invalid transitions (ErrInvalidTransition)."},
	{"L-F-FIN-2", Should, "legacy", "facade", "Finality holds under races: a Cancel racing a completion leaves exactly one terminal status."},
	{"L-F-CLEAN-1", Must, "legacy", "facade", "Facade Cleanup uses the store's Cleanup when present and returns 0 otherwise."},

	{"M-CREATE-1", Must, "modern", "create", "Create stores the task with version 1 and returns it; an existing id fails with ErrExists and changes nothing."},
	{"M-CREATE-2", Must, "modern", "create", "Create is durable before return: a Get on this or any instance sharing the backend succeeds."},
	{"M-GET-1", Must, "modern", "get", "Get returns the task, or ErrNotFound when missing, expired (now ≥ created_at + ttl) or owned by another."},
	{"M-SWAP-1", Must, "modern", "swap", "Swap replaces the task atomically iff it exists, is visible and has the expected version; version becomes expected + 1."},
	{"M-SWAP-2", Must, "modern", "swap", "A version mismatch is ErrConflict and changes nothing; a missing, expired or foreign task is ErrNotFound."},
	{"M-SWAP-3", Must, "modern", "swap", "task_id, owner and created_at are immutable: a Swap changing one returns ErrInvalid and changes nothing."},
	{"M-SWAP-4", Must, "modern", "swap", "Of N concurrent Swaps with one expected version exactly one succeeds; 8 goroutines × 50 CAS increments end at 400."},
	{"M-DELETE-1", Must, "modern", "delete", "Delete is idempotent."},
	{"M-SWEEP-1", Must, "modern", "sweep", "Sweep deletes every expired task, and only those, and returns the count; tasks without ttl never expire."},
	{"M-FIELDS-1", Must, "modern", "fields", "Every field round-trips exactly: ms timestamps, ttl and poll interval none vs number, maps, status messages."},
	{"M-F-CREATE-1", Must, "modern", "facade", "Facade Create generates the id, stamps owner, ttl (clamped), poll interval, message, stores working, then calls start."},
	{"M-F-SCOPE-1", Must, "modern", "facade", "Facade Get, Update and Cancel apply the truth table, including require_owner."},
	{"M-F-FIN-1", Must, "modern", "facade", "Terminal is final: writes to a terminal task return ErrTerminal and write nothing; a late Complete after Cancel fails."},
	{"M-F-FIN-2", Must, "modern", "facade", "Under races exactly one terminal status wins, and a completed task's result is never lost or overwritten."},
	{"M-F-INPUT-1", Must, "modern", "facade", "RequireInput adds requests, records issued keys, clears last round's responses, sets input_required; reuse is ErrKeyReused."},
	{"M-F-INPUT-2", Must, "modern", "facade", "Update stages answers; unknown or repeated keys are ignored; the last answer delivers all at once and resumes working."},
	{"M-F-TTL-1", Must, "modern", "facade", "An expired task is not found for every caller, the worker included, before and after Sweep."},
	{"M-F-NOTIFY-1", Must, "modern", "facade", "TaskChanged is called once per successful write, after it, in the writer's goroutine; a panic in it is recovered."},
	{"M-F-LISTEN-1", Must, "modern", "facade", "The listen hub delivers only to subscriptions naming the task whose principal may see it, and never blocks the writer."},

	{"P-ID-1", Must, "sdk", "ids", "CreateTask generates the id: valid, 2000 distinct, at least 122 bits of entropy per the positional estimate."},
	{"P-ID-2", Must, "sdk", "ids", "Concurrent CreateTask calls never return the same id; every task they created reads back."},
	{"P-CREATE-1", Must, "sdk", "create", "A created task is working, createdAt = lastUpdatedAt = now, the ttl requested or kept, and GetTask returns it unchanged."},
	{"P-SESS-1", Must, "sdk", "sessions", "Another session's task is ErrNotFound for every call, changes nothing, and never listed."},
	{"P-SESS-2", Must, "sdk", "sessions", "A caller without a session is treated as the declared policy says: isolated, refused or unrestricted."},
	{"P-SESS-3", Should, "sdk", "sessions", "The declared sessionless policy fails closed (isolated or refused)."},
	{"P-STATUS-1", Must, "sdk", "status", "UpdateTaskStatus refuses unknown statuses with ErrInvalid and changes nothing; working/input_required moves are stored."},
	{"P-FIN-1", Must, "sdk", "finality", "A terminal task is final: UpdateTaskStatus and StoreTaskResult fail with ErrTerminal and change nothing."},
	{"P-FIN-2", Must, "sdk", "finality", "Of concurrent terminal writes on one task exactly one wins; the task ends with its status and result."},
	{"P-RESULT-1", Must, "sdk", "results", "StoreTaskResult takes completed or failed, sets status and result in one step, once; GetTaskResult returns it exactly."},
	{"P-RESULT-2", Must, "sdk", "results", "GetTaskResult answers only for a terminal task with a result; otherwise ErrNoResult."},
	{"P-RESULT-3", Must, "sdk", "results", "Values are copies: mutating a task or result passed or returned never changes the store."},
	{"P-RESULT-4", Must, "sdk", "results", "No task is completed or failed without a result: UpdateTaskStatus to either is ErrInvalid, or a result is kept."},
	{"P-LIST-1", Must, "sdk", "list", "Following nextCursor returns every visible task exactly once, as GetTask returns it, and nothing invisible; a cursor the store never issued fails with ErrInvalid."},
	{"P-LIST-2", Must, "sdk", "list", "A cursor survives its task being deleted or expiring between pages; the listing stays exactly-once."},
	{"P-LIST-3", Must, "sdk", "list", "A page costs O(page): a page at 32000 tasks takes at most 4 times as long as at 1000."},
	{"P-TTL-1", Must, "sdk", "ttl", "A task that is not terminal is never removed by its ttl."},
	{"P-TTL-2", Must, "sdk", "ttl", "A terminal task is kept for its ttl counted as declared (creation or completion) and not after; no restart."},
	{"P-TTL-3", Must, "sdk", "ttl", "The reported ttl is the one kept: null never expires; ttl 0 is gone once terminal."},
	{"P-TTL-4", Should, "sdk", "ttl", "The store counts ttl from creation (MCP 2025-11-25)."},
	{"P-DELETE-1", Must, "sdk", "delete", "After DeleteTask the task is not found by any call; deleting a missing task is ErrNotFound."},
	{"P-CLEAN-1", Must, "sdk", "cleanup", "Cleanup removes every expired task, and only those, and returns the count."},
	{"P-WAIT-1", Must, "sdk", "wait", "WaitForUpdate returns after a status change, waits while none, and is ErrNotFound for an invisible task."},

	{"F-OUTAGE-1", Must, "faults", "outage", "While the backend is away every call returns an error by its context's deadline: no hang, no panic, no success it could not store."},
	{"F-RECOVER-1", Must, "faults", "outage", "Once the backend is back the store's existing clients serve again, without a new client or a restart."},
	{"F-DURABLE-1", Must, "faults", "durability", "Every write acknowledged before or during a pause, kill or failover of the backend is present after it."},
	{"F-ATOMIC-1", Must, "faults", "durability", "A write that returned an error took effect entirely or not at all, and never takes effect after the store served again without it."},
	{"F-DECLARE-1", Must, "faults", "durability", "A store that may lose acknowledged writes on a crash or failover declares it; its losses are reported as declared, never as passed."},

	{"V-AUTH-1", Must, "server", "auth", "A bearer token maps to a principal, none is anonymous, an unknown one is HTTP 401; tasks are owned as the facades' truth table says."},
	{"V-DENY-1", Must, "server", "isolation", "Another principal's (or, with require-owner, an anonymous) task is answered exactly as a missing one by every tasks/* method, and never listed; so is any task to a request without session and credentials, in either era's shape, unless the transport refuses it."},
	{"V-SESSION-1", Must, "server", "isolation", "A 2025-11-25 session is bound to its principal: its id with another token, or an id never issued, is HTTP 404."},
	{"V-LIST-1", Must, "server", "list", "tasks/list pages the caller's tasks with nextCursor whenever more follow (on a last page, only one leading to an empty end), none skipped or repeated under concurrent creation or at a multiple of the page size; a forged, altered or foreign cursor is -32602."},
	{"V-FIN-1", Must, "server", "finality", "A terminal task stays terminal: 2025-11-25 tasks/cancel of it is -32602, the extension's is an acknowledgement; a working task cancelled is cancelled."},
	{"V-RACE-1", Must, "server", "finality", "tasks/cancel racing a task's own end leaves one terminal status, told alike by every later tasks/get and tasks/result; the race never met is inconclusive."},
	{"V-SHAPE-1", Must, "server", "fields", "A task as every answer shows it carries its taskId, a status of the five, createdAt and lastUpdatedAt as ISO 8601 timestamps and its ttl (ms or null; 2025-11-25: in tasks/get); durations are whole milliseconds; the extension's tasks/get inlines the result or error."},
	{"V-TTL-1", Must, "server", "ttl", "The ttl (ttlMs) a task reports is the one it keeps: it is found until that ttl has run from its creation, and after it found still or -32602; a 2025-11-25 ttl it cannot keep (negative, huge) is refused with -32602 or clamped, never expiring the task at once."},
	{"V-RESULT-1", Must, "server", "result", "2025-11-25 tasks/result blocks until the task is terminal and returns the tool's result with the related-task _meta, or its JSON-RPC error."},
	{"V-ERROR-1", Must, "server", "result", "A tool result with isError ends a 2025-11-25 task failed and a 2026-07-28 task completed; a JSON-RPC error fails it in both."},
	{"V-SUPPORT-1", Must, "server", "negotiation", "A plain call of a tool whose execution.taskSupport is required is -32601."},
	{"V-SUPPORT-2", Should, "server", "negotiation", "A task for a tool whose execution.taskSupport is forbidden or absent is -32601."},
	{"V-EXT-1", Must, "server", "negotiation", "Without the tasks extension in the request's capabilities, tasks/* and subscriptions/listen are -32021; tasks/list and tasks/result are -32601."},
	{"V-ROUTE-1", Must, "server", "negotiation", "Mcp-Name must equal params.taskId on tasks/get, tasks/update and tasks/cancel (and Mcp-Method the method), else -32020."},
	{"V-NOTIFY-1", Must, "server", "notify", "Task notifications reach only streams of callers that may see the task."},
	{"V-INPUT-1", Must, "server", "input", "An input_required task shows its inputRequests; tasks/update acknowledges, ignores keys not outstanding, and the task works again once all are answered."},
	{"V-INPUT-2", Must, "server", "input", "2025-11-25: an input tool's task is input_required (SHOULD) while it asks; each of its requests, on any stream, comes once with the related-task _meta; no elicitation to a client that did not declare it."},
	{"V-INPUT-3", Must, "server", "input", "An input request of one principal's task goes to and is answered by those who may see the task only: another's answer (2026-07-28 tasks/update, 2025-11-25 a response to the request) leaves the task input_required and is not in its result; 2025-11-25 tasks/result by a caller that cannot see the task is sent none of its requests."},
	{"V-RUN-1", Must, "server", "finality", "A task nobody cancelled runs to its end: it never ends cancelled, nor failed while its tool succeeds."},
	{"V-LIMIT-1", Should, "server", "limits", "A principal's task limit never refuses another principal's work: with one principal refused a task at its limit, another's task is made; the refusal is a JSON-RPC error, and the refused principal's tasks are all still there."},
	{"V-BAD-1", Must, "server", "input", "Malformed JSON, batches, unknown methods, wrong params and oversized bodies get the spec's codes, and the server keeps serving."},
	{"V-XREAD-1", Must, "server", "deployment", "A task created through one instance of a deployment is found by tasks/get on every other as soon as its CreateTaskResult is answered."},
	{"V-XCANCEL-1", Must, "server", "deployment", "A cancel taken by any instance of a deployment ends the task wherever it runs, within the stated bound, as one taken by its own instance does."},
	{"V-XINPUT-1", Must, "server", "deployment", "2026-07-28: an input_required task shows its inputRequests on every instance, and answers taken by any instance reach the task within the stated bound."},
	{"V-XNOTIFY-1", Must, "server", "deployment", "A listener on any instance hears of a task changed on another, when the instance that runs the task tells its own listeners."},
	{"V-XKILL-1", Must, "server", "deployment", "An instance killed mid-task loses no acknowledged task, and leaves none working untouched past the deployment's stated lease (behind a router: the dead instance's own tasks may go with it)."},

	{"B-POWER-1", Must, "battery", "battery", "Every store in the mutant catalogue fails the battery on the rule it breaks; every honest store passes."},
	{"B-REPRO-1", Must, "battery", "battery", "Every randomised check prints the seed that reproduces it; rerunning with that seed replays the same operations."},
	{"B-ISO-1", Must, "battery", "battery", "Specs never assume an empty backend: each gets a fresh namespace and looks only at what it created."},
}

// Subject is whose code a rule's verdict is about.
type Subject string

const (
	// SubjectStore: the store under test decides the verdict.
	SubjectStore Subject = "store"
	// SubjectLibrary: storecheck's reference library decides it (ValidTransition,
	// GenerateID, the notify and listen hubs); the store is not involved.
	SubjectLibrary Subject = "library"
	// SubjectFacade: the reference facade runs over the store; the verdict is about
	// the facade as much as the store.
	SubjectFacade Subject = "facade"
	// SubjectBattery: the battery's checks on itself.
	SubjectBattery Subject = "battery"
	// SubjectServer: an MCP server, judged over the protocol (storecheck probe).
	SubjectServer Subject = "server"
)

// libraryRules are the rules that test storecheck's own reference library only.
var libraryRules = map[string]bool{"S-TRANS-1": true, "S-ID-1": true, "M-F-NOTIFY-1": true, "M-F-LISTEN-1": true}

// Subject is whose code the rule judges by default; a spec may say otherwise with
// Env.DecidedBy (a facade rule run against the store's own facade is the store's).
func (r Rule) Subject() Subject {
	switch {
	case r.Part == PartBattery:
		return SubjectBattery
	case r.Part == PartServer:
		return SubjectServer
	case libraryRules[r.ID]:
		return SubjectLibrary
	case strings.HasPrefix(r.ID, "L-F-") || strings.HasPrefix(r.ID, "M-F-"):
		return SubjectFacade
	}
	return SubjectStore
}

// SpecLabels are the labels every spec of rule carries in era; selection by rule ID or
// label expression is evaluated against them.
func SpecLabels(rule Rule, era harness.Era) []string {
	return []string{rule.ID, string(rule.Level), string(era), "area:" + rule.Area}
}

// AppliesTo reports whether rule has specs in era: the shared rules run in both eras, and
// so does B-REPRO-1, whose specs replay each era's randomised checks against the store
// (the rerun hint of a failure names it). The SDK profile has rules of its own only.
func AppliesTo(rule Rule, era harness.Era) bool {
	if era == harness.EraSDK {
		return rule.Part == Part(era)
	}
	return rule.Part == PartShared || rule.Part == Part(era) || rule.ID == "B-REPRO-1"
}
