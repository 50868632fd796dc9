// Package mutants is the battery's proof of power (B-POWER-1): a catalogue of task
// stores, each with one deliberate defect drawn from real failures, and the honest store
// they are all variants of. The battery must fail every mutant on the rule it breaks and
// pass the honest store.
//
// Every mutant is the same small store (a mutex and two maps, store.go) with one defect
// switched on, so that a mutant differs from an obviously correct store in exactly one
// place.
package mutants

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

type defect int

const (
	honest defect = iota
	anonymousFailsOpen
	ownerCaseInsensitive
	ownerPrefix
	ownerWildcard
	ownerNotPromoted
	deniedDiffers
	limitIgnoresOwner
	statusPrefix
	cleanupGE
	cleanupFromCompletion
	cleanupTTLInt32
	cleanupRemovesLive
	deepMerge
	updateKeepsStamps
	cleanupCreateTime
	updateCreates
	createMerges
	createKeepsMetaKeys
	deleteMissingFails
	getMissingEmpty
	cancelMissingSucceeds
	lostUpdate
	checkThenAct
	casIgnoresVersion
	foreignConflicts
	swapOwnerMutable
	swapCreatedAtMutable
	expiredVisible
	expiryOffByOne
	expiryDouble
	sweepRemovesLive
	createVersionZero
	createOverwrites
	dropsTTL
	floatNumbers
	sniffsStrings
	cutsAtNUL
	secondsTimestamps
	aliasesValues
	ignoresContext
	waitIgnoresContext
	trimsIDs
	strictIDs
	staleInstance
	limitZeroUnbounded
	toctouCAS
	checkThenInsert
	updateResurrects
	ownerFirst12
	principalsIgnoreScope
	acceptsEmptyID
	swapVersionFromNext
	sleepsHoldingLock
	queuesOnChannel
	getCachesMisses
	limitInt32
	deleteKeepsOwner

	// The SDK task-store profile's defects (sdk_store.go).
	sdkSequentialIDs
	sdkRacyIDs
	sdkCreateNoLastUpdated
	sdkSessionFold
	sdkSessionlessSeesAll
	sdkAliases
	sdkCursorByID
	sdkQuadraticPaging
	sdkTTLRemovesWorking
	sdkTTLRestarts
	sdkTTLZeroKept
	sdkUnknownStatusStored
	sdkCompleteWithoutResult
	sdkTerminalOverwritable
	sdkTOCTOUFinish
	sdkResultAnyStatus
	sdkNoResultNotFound
	sdkListStale
	sdkListsExpired
	sdkCursorCarriesSession
	sdkCleanupTTLInt32
	sdkDeleteMissingSucceeds
	sdkCleanupRemovesTerminal
	sdkWaitReturnsAtOnce
	sdkTTLRestartsDeclared
	sdkSessionsIgnored
	sdkListLosesBoundary
	sdkCursorGarbageRestarts
	sdkKeepsNegativeTTL
	sdkTTLTimerOverflow
	sdkSessionPrefix255
	sdkSessionNormalized
	sdkResultWrittenApart
	sdkDeleteForeignSucceeds
	sdkDeleteExpiredSucceeds
	sdkDeleteRecyclesID

	diesMidRunDefect
	tornUpdate
	refusesUpdateDefect
	panicsInRaceDefect

	// Honest variants: stores that take a freedom the specification gives them. They
	// are not mutants; the battery must pass them (Variants).
	listIgnoresBoth
	swapOwnNotFound
)

// Mutant is one broken store of the catalogue.
type Mutant struct {
	// Name is the mutant's stable name (storecheck mutants, --adapter mutant:NAME).
	Name string
	// Breaks lists the rule IDs the defect breaks; the battery must fail at least one
	// spec labelled with one of them.
	Breaks []string
	// Defect says what is wrong, in one line.
	Defect string
	// Eras are the eras the defect lives in; the battery need only run those.
	Eras []harness.Era

	d defect
}

var (
	both       = []harness.Era{harness.EraLegacy, harness.EraModern}
	legacyOnly = []harness.Era{harness.EraLegacy}
	modernOnly = []harness.Era{harness.EraModern}
	sdkOnly    = []harness.Era{harness.EraSDK}
)

// catalogue is every mutant, listed here once: the store's defects, then the facade's, the
// Oban guide's and the wrapped ones (facade.go, oban_guide.go, wrapped.go).
var catalogue = slices.Concat(storeMutants, facadeMutants, obanGuideMutants, wrappedMutants)

// storeMutants are the store's defects.
var storeMutants = []Mutant{
	{"anonymous-fails-open", []string{"S-OWN-1", "L-LIST-3", "M-GET-1"}, "a caller without a principal sees owned tasks (isolation fails open)", both, anonymousFailsOpen},
	{"owner-case-insensitive", []string{"S-OWN-3", "S-OWN-1", "L-LIST-3", "M-GET-1"}, "owners compared case-insensitively (Alice sees alice's tasks)", both, ownerCaseInsensitive},
	{"owner-prefix", []string{"S-OWN-3", "S-OWN-1", "L-LIST-3", "M-GET-1"}, "owners compared by prefix (alice sees alice2's tasks)", both, ownerPrefix},
	{"owner-wildcard", []string{"S-OWN-3", "S-OWN-1", "L-LIST-3", "M-GET-1"}, "% and * in an owner act as wildcards (an unescaped LIKE)", both, ownerWildcard},
	{"owner-not-promoted", []string{"L-OWNER-1"}, "owner comes back nested under metadata, not at the top level", legacyOnly, ownerNotPromoted},
	{"denied-differs", []string{"S-OWN-2", "M-GET-1", "M-SWAP-2"}, "a foreign task answers 'access denied' where a missing one answers 'not found'", modernOnly, deniedDiffers},
	{"limit-ignores-owner", []string{"L-LIST-4", "L-LIST-2"}, "List honours Limit but ignores the Owner scope", legacyOnly, limitIgnoresOwner},
	{"limit-zero-unbounded", []string{"L-LIST-2"}, "a Limit of 0 or less means no limit (if limit > 0 { LIMIT n })", legacyOnly, limitZeroUnbounded},
	{"status-prefix", []string{"L-LIST-1"}, "the status filter matches by prefix", legacyOnly, statusPrefix},
	{"cleanup-ge", []string{"L-CLEAN-1"}, "Cleanup removes tasks whose age equals the ttl (>= instead of >)", legacyOnly, cleanupGE},
	{"cleanup-from-completion", []string{"L-CLEAN-1"}, "Cleanup measures age from the last status change, not created_at", legacyOnly, cleanupFromCompletion},
	{"cleanup-ttl-int32", []string{"L-CLEAN-1"}, "Cleanup's ttl in milliseconds goes through a 32-bit integer: 2^31 ms becomes negative and every terminal task goes", legacyOnly, cleanupTTLInt32},
	{"cleanup-removes-working", []string{"L-CLEAN-1"}, "Cleanup removes old working and input_required tasks", legacyOnly, cleanupRemovesLive},
	{"update-keeps-stamps", []string{"L-UPDATE-1", "L-CLEAN-1"}, "Update ignores created_at and task_id in the changes (the values Create stamped stay)", legacyOnly, updateKeepsStamps},
	{"cleanup-create-time", []string{"L-CLEAN-1"}, "Cleanup ages a task from the time Create stamped (a column Update never writes), not from the created_at it holds", legacyOnly, cleanupCreateTime},
	{"deep-merge", []string{"L-UPDATE-1"}, "Update merges nested objects instead of replacing them", legacyOnly, deepMerge},
	{"update-creates", []string{"L-UPDATE-2"}, "Update of a missing id creates the task (an upsert)", legacyOnly, updateCreates},
	{"create-merges", []string{"L-CREATE-3", "L-CREATE-2"}, "Create of an existing id merges the new metadata into the old task", legacyOnly, createMerges},
	{"create-keeps-meta-keys", []string{"L-CREATE-1"}, "Create lets status and created_at from the metadata override its own", legacyOnly, createKeepsMetaKeys},
	{"delete-missing-fails", []string{"L-DELETE-1", "M-DELETE-1"}, "Delete of a missing id fails with not found", both, deleteMissingFails},
	{"get-missing-empty", []string{"L-GET-1"}, "Get of a missing id returns an empty task and no error", legacyOnly, getMissingEmpty},
	{"cancel-missing-succeeds", []string{"L-CANCEL-1"}, "Cancel of a missing id answers success", legacyOnly, cancelMissingSucceeds},
	{"lost-update", []string{"L-CONC-1", "S-CONC-1"}, "Update reads under a read lock, merges, then writes the merged task under the write lock (natural race: no sleep)", legacyOnly, lostUpdate},
	{"check-then-act", []string{"L-F-FIN-2"}, "UpdateIf checks the status under a read lock, then writes under the write lock (natural race: no sleep)", legacyOnly, checkThenAct},
	{"toctou-cas", []string{"M-SWAP-4", "M-SWAP-1", "S-CONC-1", "M-F-FIN-2"}, "Swap checks the version under a read lock, then writes under the write lock (natural race: no sleep)", modernOnly, toctouCAS},
	{"check-then-insert", []string{"M-CREATE-1", "L-CREATE-2"}, "Create looks for the id under a read lock, then inserts under the write lock: concurrent Creates of one id both succeed (natural race)", both, checkThenInsert},
	{"torn-update", []string{"S-CONC-1"}, "Update writes the merged task key by key, each key under its own lock acquisition: a concurrent Get or List sees half of one write (natural race: no sleep)", legacyOnly, tornUpdate},
	{"update-resurrects", []string{"L-CONC-1", "S-CONC-1"}, "read-modify-write calls hold their own lock, Delete only the map lock: a task deleted mid-update is written back (natural race)", both, updateResurrects},
	{"cas-ignores-version", []string{"M-SWAP-1", "M-SWAP-2", "M-SWAP-4", "S-CONC-1", "M-F-FIN-2"}, "Swap does not compare versions", modernOnly, casIgnoresVersion},
	{"foreign-conflicts", []string{"M-SWAP-2", "S-OWN-2"}, "Swap of a foreign task with a stale version answers conflict (existence leak)", modernOnly, foreignConflicts},
	{"swap-owner-mutable", []string{"M-SWAP-3"}, "Swap lets the owner change", modernOnly, swapOwnerMutable},
	{"swap-created-at-mutable", []string{"M-SWAP-3"}, "Swap lets created_at change", modernOnly, swapCreatedAtMutable},
	{"swap-version-from-next", []string{"M-SWAP-1"}, "Swap stores the version the new task carries plus one, not expected + 1", modernOnly, swapVersionFromNext},
	{"expired-visible", []string{"M-GET-1", "M-F-TTL-1", "M-SWAP-2"}, "expired tasks stay visible until swept", modernOnly, expiredVisible},
	{"expiry-off-by-one", []string{"M-GET-1", "M-F-TTL-1"}, "a task expires one millisecond late (now > created_at + ttl)", modernOnly, expiryOffByOne},
	{"expiry-double", []string{"M-GET-1"}, "created_at + ttl summed in a double: past 2^53 ms the expiry instant is off by a millisecond", modernOnly, expiryDouble},
	{"sweep-removes-live", []string{"M-SWEEP-1"}, "Sweep removes every task with a ttl, expired or not", modernOnly, sweepRemovesLive},
	{"create-version-zero", []string{"M-CREATE-1"}, "Create stores version 0", modernOnly, createVersionZero},
	{"create-overwrites", []string{"M-CREATE-1"}, "Create of an existing id overwrites it", modernOnly, createOverwrites},
	{"drops-ttl", []string{"M-FIELDS-1", "M-SWEEP-1", "M-GET-1"}, "the ttl is not stored: every task lives forever", modernOnly, dropsTTL},
	{"float-numbers", []string{"S-VAL-1", "M-FIELDS-1"}, "numbers pass through float64 (9223372036854775807 comes back rounded)", both, floatNumbers},
	{"sniffs-strings", []string{"S-VAL-1", "L-UPDATE-1", "M-FIELDS-1"}, `strings that parse as JSON come back parsed: "123" as the number 123, "true" as true, "null" as null (a status message "null" as none)`, both, sniffsStrings},
	{"cuts-at-nul", []string{"S-VAL-2"}, "strings are cut at U+0000 without an error", both, cutsAtNUL},
	{"seconds-timestamps", []string{"L-CREATE-1", "M-FIELDS-1", "M-CREATE-1"}, "timestamps are stored in seconds, not milliseconds", both, secondsTimestamps},
	{"aliases-values", []string{"S-VAL-4"}, "returns the store's own maps: a caller's mutation changes the stored task", both, aliasesValues},
	{"ignores-context", []string{"S-CTX-1"}, "a cancelled context is ignored and the call goes through", both, ignoresContext},
	{"wait-ignores-context", []string{"S-CTX-1"}, "the context is checked when a call starts, not while it waits on a lock someone else holds (a blocking call without the context)", both, waitIgnoresContext},
	{"limit-int32", []string{"L-LIST-2"}, "Limit goes through a 32-bit integer: 2^31 becomes negative (no rows), 2^32+1 becomes 1", legacyOnly, limitInt32},
	{"delete-keeps-owner", []string{"M-CREATE-1", "M-DELETE-1", "M-GET-1", "M-SWAP-1", "M-SWAP-2"}, "Delete leaves the task's owner in an owner index, and a later Create of the id takes the owner from there: another owner's task of a reused id belongs to the first", modernOnly, deleteKeepsOwner},
	{"get-caches-misses", []string{"M-CREATE-1"}, "Get remembers the ids it did not find and answers not found for them ever after: a task created after a Get of its id is never found", modernOnly, getCachesMisses},
	{"sleeps-holding-lock", []string{"S-CTX-1"}, "a call checks its context on entry, then takes the store's I/O lock without it and holds it across its I/O (2 ms, 100 ms when other calls are in the store): callers queue, ignoring their contexts (no harness.Blocker; declared self-contained)", both, sleepsHoldingLock},
	{"queues-on-channel", []string{"S-CTX-1"}, "a call checks its context on entry, then hands itself to a single worker over an unbuffered channel (2 ms a call, 100 ms when others are in the store) and waits for its reply, ignoring its context (no harness.Blocker; declared self-contained)", both, queuesOnChannel},
	{"trims-ids", []string{"S-ID-2"}, "ids are trimmed and case-folded (A and a are one task)", both, trimsIDs},
	{"strict-ids", []string{"S-ID-2"}, "ids with : { } % _ * or over 255 bytes are refused", both, strictIDs},
	{"owner-first-12-bytes", []string{"L-LIST-3", "S-OWN-1", "S-OWN-3", "L-LIST-4"}, "List compares owners on their first 12 bytes (a CHAR(12) index column): tenant-acme-corp-1 sees tenant-acme-corp-2's rows", legacyOnly, ownerFirst12},
	{"principals-ignore-scope", []string{"L-LIST-3", "S-OWN-1", "L-LIST-4", "L-LIST-2"}, "List ignores Owner and Limit for principals only, and scopes anonymous callers", legacyOnly, principalsIgnoreScope},
	{"accepts-empty-id", []string{"S-ID-2"}, "Create accepts the empty id \"\"", both, acceptsEmptyID},
	{"stale-instance", []string{"S-SHARE-1", "M-CREATE-2"}, "a second instance reads its own stale copy of the backend", both, staleInstance},

	// The SDK task-store profile. Those marked (TS) are the TypeScript SDK's
	// InMemoryTaskStore's own defects, found by the profile.
	{"sdk-sequential-ids", []string{"P-ID-1"}, "CreateTask numbers its tasks: task-1, task-2, ... (distinct, guessable)", sdkOnly, sdkSequentialIDs},
	{"sdk-racy-ids", []string{"P-ID-2"}, "the next id is drawn ahead and replaced only after the insert: concurrent creates share it (natural race)", sdkOnly, sdkRacyIDs},
	{"sdk-create-no-last-updated", []string{"P-CREATE-1"}, "a created task has no lastUpdatedAt until its first write", sdkOnly, sdkCreateNoLastUpdated},
	{"sdk-session-case-insensitive", []string{"P-SESS-1"}, "sessions are compared case-insensitively (session ABC sees session abc's tasks)", sdkOnly, sdkSessionFold},
	{"sdk-sessionless-sees-all", []string{"P-SESS-2"}, "(TS) a caller without a session sees and writes every session's task, while the store declares sessionless callers isolated", sdkOnly, sdkSessionlessSeesAll},
	{"sdk-aliases", []string{"P-RESULT-3"}, "(TS) CreateTask and GetTask hand out the stored task, StoreTaskResult keeps the caller's map, GetTaskResult returns the stored one", sdkOnly, sdkAliases},
	{"sdk-cursor-by-id", []string{"P-LIST-2"}, "(TS) the cursor is the last task's id: once that task is deleted or expired, ListTasks fails with invalid cursor", sdkOnly, sdkCursorByID},
	{"sdk-quadratic-paging", []string{"P-LIST-3"}, "(TS) every page copies all of the caller's tasks first: O(tasks) per page, O(tasks²) per listing", sdkOnly, sdkQuadraticPaging},
	{"sdk-ttl-removes-working", []string{"P-TTL-1"}, "(TS) the ttl removes a task whatever its status, working ones included", sdkOnly, sdkTTLRemovesWorking},
	{"sdk-ttl-restarts-at-completion", []string{"P-TTL-2"}, "(TS) the ttl is counted again from the terminal status while the store declares it counts from creation", sdkOnly, sdkTTLRestarts},
	{"sdk-ttl-zero-kept", []string{"P-TTL-3"}, "(TS) a task reports ttl 0 and never expires (if (ttl) is false for 0)", sdkOnly, sdkTTLZeroKept},
	{"sdk-unknown-status-stored", []string{"P-STATUS-1"}, "(TS) UpdateTaskStatus stores any status, bogus included", sdkOnly, sdkUnknownStatusStored},
	{"sdk-complete-without-result", []string{"P-RESULT-4"}, "(TS) UpdateTaskStatus(completed) is taken without a result: GetTaskResult can never answer", sdkOnly, sdkCompleteWithoutResult},
	{"sdk-terminal-overwritable", []string{"P-FIN-1", "P-FIN-2"}, "UpdateTaskStatus does not check for a terminal status: a completed task can be cancelled or resumed", sdkOnly, sdkTerminalOverwritable},
	{"sdk-toctou-finish", []string{"P-FIN-2"}, "terminal writes check the status under the lock, then write under it again later: racing writers both win (natural race)", sdkOnly, sdkTOCTOUFinish},
	{"sdk-result-any-status", []string{"P-RESULT-1"}, "(TS) StoreTaskResult takes any status: a working task gets a result", sdkOnly, sdkResultAnyStatus},
	{"sdk-no-result-not-found", []string{"P-RESULT-2"}, "GetTaskResult of a task without a result answers not found, as if the task were gone", sdkOnly, sdkNoResultNotFound},
	{"sdk-list-stale", []string{"P-LIST-1"}, "ListTasks shows each task as it was created, not as it is", sdkOnly, sdkListStale},
	{"sdk-lists-expired", []string{"P-LIST-1"}, "ListTasks keeps listing a task whose ttl ended, which GetTask no longer finds", sdkOnly, sdkListsExpired},
	{"sdk-cursor-carries-session", []string{"P-SESS-1"}, "a cursor names the session it was issued to, and ListTasks goes on as that session: another session holding it reads the first one's tasks", sdkOnly, sdkCursorCarriesSession},
	{"sdk-cleanup-ttl-int32", []string{"P-CLEAN-1"}, "Cleanup passes the ttl as a 32-bit integer: a task kept 2^31 ms or more is swept at once", sdkOnly, sdkCleanupTTLInt32},
	{"sdk-delete-missing-succeeds", []string{"P-DELETE-1"}, "DeleteTask of a missing task answers success", sdkOnly, sdkDeleteMissingSucceeds},
	{"sdk-cleanup-removes-terminal", []string{"P-CLEAN-1"}, "Cleanup removes every terminal task with a ttl, expired or not", sdkOnly, sdkCleanupRemovesTerminal},
	{"sdk-wait-returns-at-once", []string{"P-WAIT-1"}, "WaitForUpdate returns at once, whether or not the task changed", sdkOnly, sdkWaitReturnsAtOnce},
	// At the edges: a page boundary, a cursor never issued, ttls a store cannot hold.
	{"sdk-list-loses-boundary", []string{"P-LIST-1"}, "has-more off by one: a full page gets a nextCursor only when more than one task is left, so a listing of page+1 tasks loses the last", sdkOnly, sdkListLosesBoundary},
	{"sdk-cursor-garbage-restarts", []string{"P-LIST-1"}, "a cursor it cannot read lists from the first page again instead of failing with ErrInvalid", sdkOnly, sdkCursorGarbageRestarts},
	{"sdk-keeps-negative-ttl", []string{"P-CREATE-1"}, "(TS) a negative ttl is kept and reported as is", sdkOnly, sdkKeepsNegativeTTL},
	{"sdk-session-prefix-255", []string{"P-SESS-1"}, "sessions are compared on their first 255 bytes (a VARCHAR(255) column): two sessions that differ after that share their tasks", sdkOnly, sdkSessionPrefix255},
	{"sdk-session-normalized", []string{"P-SESS-1"}, "sessions are compared after Unicode normalisation: \"café\" composed and decomposed are one session", sdkOnly, sdkSessionNormalized},
	{"sdk-result-written-apart", []string{"P-RESULT-1"}, "StoreTaskResult writes the status, then the result in a second write: a reader between them sees a completed task with no result (natural race)", sdkOnly, sdkResultWrittenApart},
	{"sdk-delete-foreign-succeeds", []string{"P-DELETE-1"}, "DeleteTask looks the id up without the session, then deletes by id and session: another session's task answers success and is left in place", sdkOnly, sdkDeleteForeignSucceeds},
	{"sdk-delete-expired-succeeds", []string{"P-DELETE-1"}, "DeleteTask finds a task whose ttl has passed but that no read or sweep has dropped yet, and answers success (a DELETE whose WHERE has no expiry)", sdkOnly, sdkDeleteExpiredSucceeds},
	{"sdk-delete-recycles-id", []string{"P-DELETE-1"}, "DeleteTask hands the deleted id back to a pool CreateTask draws from first: a later task takes the deleted one's id (a slot allocator)", sdkOnly, sdkDeleteRecyclesID},
	{"sdk-ttl-timer-overflow", []string{"P-TTL-2", "P-CLEAN-1"}, "(TS) a ttl past 2^31-1 ms expires 1 ms after the task ends (Node's setTimeout runs a longer delay at once), so a Cleanup sweeps it too", sdkOnly, sdkTTLTimerOverflow},
	// Stores that declare truthfully what docs/wire.md tells them to, and still break a rule.
	{"sdk-ttl-restarts-declared", []string{"P-TTL-4"}, "the ttl counts from creation and starts again when the task becomes terminal, declared as ttl_from completion (P-TTL-2 holds; MCP's creation does not)", sdkOnly, sdkTTLRestartsDeclared},
	{"sdk-sessions-ignored", []string{"P-SESS-1", "P-SESS-3", "P-LIST-1", "P-WAIT-1"}, "every caller sees every session's task, declared sessionless unrestricted (no policy value says that sessions are ignored for everyone)", sdkOnly, sdkSessionsIgnored},
}

// DiesMidRunName names a store outside the catalogue: the honest store whose process
// exits (status 3) on its diesAfter-th operation. It breaks no rule; it proves that a
// store process dying mid-run is reported as aborted, never as killed (B-POWER-1). Run
// it over the wire: in process it ends the run's own process. Lookup finds it;
// Catalogue does not list it.
const DiesMidRunName = "dies-mid-run"

// diesAfter is the operation on which dies-mid-run exits: past the first few specs of
// the legacy era, well before its end.
const diesAfter = 3000

// diesMidRun is declared to break every legacy store rule, so that any failure blamed
// on a rule after its death would count as a kill if the judge let it.
var diesMidRun = Mutant{DiesMidRunName, []string{"L-CREATE-1", "L-CREATE-3", "L-GET-1", "L-UPDATE-1", "L-UPDATE-2",
	"L-DELETE-1", "L-OWNER-1", "L-LIST-1", "L-LIST-2", "L-LIST-3", "L-LIST-4", "L-CANCEL-1", "L-CLEAN-1", "L-CONC-1",
	"S-OWN-1", "S-OWN-2", "S-OWN-3", "S-ID-2", "S-VAL-1", "S-VAL-2", "S-CONC-1"},
	"the store process exits (status 3) in the middle of the run; not a catalogue mutant: it must be reported aborted", legacyOnly, diesMidRunDefect}

// RefusesUpdateName names a store outside the catalogue: the honest store whose legacy
// Update answers ErrUnsupported. It breaks no rule the battery can judge without
// Update: the report shows "setup refused" with one cause line (the store refused
// Update) and the run exits 1. Lookup finds it; Catalogue and Variants do not list it.
const RefusesUpdateName = "refuses-update"

var refusesUpdate = Mutant{RefusesUpdateName, nil, "legacy Update answers ErrUnsupported (not a catalogue mutant: its rules read setup refused)", legacyOnly, refusesUpdateDefect}

// PanicsInRaceName names a store outside the catalogue: the honest store whose legacy
// Update panics when another Update is in flight, that is inside a race spec's client
// goroutines. The run must still end with its summary, JSON and JUnit, the spec failed
// with the panic. Lookup finds it; Catalogue and Variants do not list it.
const PanicsInRaceName = "panics-in-race"

var panicsInRace = Mutant{PanicsInRaceName, []string{"L-CONC-1"}, "legacy Update panics when another Update is in flight (not a catalogue mutant: it proves a panicking store is reported, not fatal)", legacyOnly, panicsInRaceDefect}

// variants are honest stores that use a freedom of the specification a careless
// battery mistakes for a fault: they must pass.
var variants = []Mutant{
	{"list-ignores-owner-and-limit", nil, "none: List ignores Owner and Limit for every caller and returns every row matching Status (allowed by L-LIST-4)", legacyOnly, listIgnoresBoth},
	{"swap-own-not-found", nil, "none: Swap answers 'swap: task not found: X' for a missing, expired or foreign task alike (Get's message differs)", modernOnly, swapOwnNotFound},
}

// Variants returns the honest variants, sorted by name: stores without a defect that
// take a freedom the specification gives. The battery must pass each.
func Variants() []Mutant {
	out := append([]Mutant(nil), variants...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// inProcessOnly are the defects the wire protocol cannot carry, and why.
var inProcessOnly = map[defect]string{
	aliasesValues:         "values are serialised on the wire, so the caller never shares the store's memory",
	ignoresContext:        "the protocol has no cancellation: the Go client enforces contexts itself",
	waitIgnoresContext:    "the protocol has no cancellation: the Go client stops waiting for a held call itself",
	sleepsHoldingLock:     "the protocol has no cancellation: the Go client stops waiting for a call whose context ended itself",
	queuesOnChannel:       "the protocol has no cancellation: the Go client stops waiting for a call whose context ended itself",
	panicsInRaceDefect:    "a panic in the child process ends it: over the wire it is an aborted run, not a panic",
	staleInstance:         "one child process is one store instance",
	sdkResultWrittenApart: "its window between two writes is a scheduler yield inside the child: over the wire the readers' round trips rarely land in it",
}

// naturalRaces are the defects with no sleep or yield widening their window: ordinary
// code whose race only the battery's concurrency shows, so a run kills them only when
// its racers land in the window. `make mutants` measures how often (--runs 20).
var naturalRaces = map[defect]bool{
	lostUpdate: true, checkThenAct: true, toctouCAS: true, checkThenInsert: true,
	tornUpdate: true, updateResurrects: true, sdkRacyIDs: true, sdkTOCTOUFinish: true,
	sdkResultWrittenApart: true,
}

// measured are the defects only a timing measurement shows: P-LIST-3's ratio of page
// costs, which a loaded machine, or a round trip across a process boundary (over the
// wire it is most of a page's cost at 1 000 tasks), can bring under its bound in one run.
var measured = map[defect]bool{sdkQuadraticPaging: true}

// Measured reports whether the defect is shown only by a timing measurement, which a
// run may miss: like a natural race, one survival is not yet a verdict; k of N runs is.
func (m Mutant) Measured() bool { return measured[m.d] }

// NaturalRace reports whether the defect is a natural race: a run kills it only when
// the battery's racers happen to land in its window, so one survival is not yet a
// verdict on the battery's power; k of N runs is.
func (m Mutant) NaturalRace() bool { return naturalRaces[m.d] }

// InProcessOnly, when not empty, says why the defect cannot show through a process
// boundary (the wire protocol): such a mutant is not judged over the wire.
func (m Mutant) InProcessOnly() string { return inProcessOnly[m.d] }

// Catalogue returns every mutant, sorted by name.
func Catalogue() []Mutant {
	out := append([]Mutant(nil), catalogue...)

	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HonestName names the catalogue's store without a defect in Lookup.
const HonestName = "honest"

// Lookup finds a mutant by name; HonestName finds the honest store.
func Lookup(name string) (Mutant, bool) {
	if name == HonestName {
		return Mutant{Name: HonestName, Defect: "none: the honest store every mutant is a variant of", Eras: both}, true
	}
	switch name {
	case DiesMidRunName:
		return diesMidRun, true
	case RefusesUpdateName:
		return refusesUpdate, true
	case PanicsInRaceName:
		return panicsInRace, true
	}
	for _, m := range append(catalogue[:len(catalogue):len(catalogue)], variants...) {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}

// Harness puts the mutant under the battery.
func (m Mutant) Harness() harness.Harness {
	if o, ok := ownStores[m.Name]; ok {
		return o.harness()
	}
	if w, ok := wrappers[m.Name]; ok {
		return wrappedHarness{m.Name, w}
	}
	if m.d == honest {
		return Honest()
	}
	if waitsMutants[m.d] {
		return &unheldHarness{storeHarness{name: "mutant " + m.Name, d: m.d}}
	}
	return &storeHarness{name: "mutant " + m.Name, d: m.d}
}

// Stores returns a fresh pair of the mutant's stores reading clock, for serving it over
// the wire protocol.
func (m Mutant) Stores(clock reference.Clock) (legacy.Store, modern.Store) {
	if o, ok := ownStores[m.Name]; ok {
		return o.stores(clock)
	}
	if w, ok := wrappers[m.Name]; ok {
		return w.stores(clock)
	}
	s := &store{b: newBackend(clock), d: m.d}
	return legacyStore{s}, modernStore{s}
}

// SDKStore returns a fresh SDK-profile store of the mutant reading clock: its defect
// when it is one of the profile's, the honest store of the profile otherwise.
func (m Mutant) SDKStore(clock reference.Clock) sdk.Store {
	if w, ok := wrappers[m.Name]; ok {
		return w.wrapSDK(sdkStore{b: newSDKBackend(clock)})
	}
	return sdkStore{b: newSDKBackend(clock), d: m.d}
}

// Honest is the catalogue's store without a defect: it must pass the battery.
func Honest() harness.Harness { return &storeHarness{name: "mutants' honest store", d: honest} }

// HonestStores is Stores for the honest store.
func HonestStores(clock reference.Clock) (legacy.Store, modern.Store) {
	return Mutant{d: honest}.Stores(clock)
}

type storeHarness struct {
	name string
	d    defect
}

func (h *storeHarness) Name() string { return h.name }

func (h *storeHarness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, SDK: true, Clock: true, Shared: true, Facade: facadeMode(h.d)}
}

func (h *storeHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	return &namespace{b: newBackend(clock), sdk: newSDKBackend(clock), d: h.d}, nil
}

// namespace hands out instances over one backend. The stale-instance mutant gives every
// instance after the first a snapshot of the backend taken when it was opened.
type namespace struct {
	mu     sync.Mutex
	b      *backend
	sdk    *sdkBackend
	d      defect
	opened int
}

func (n *namespace) instance() *store {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.opened++
	if n.d == staleInstance && n.opened > 1 {
		return &store{b: n.b.snapshot(), d: honest}
	}
	d := n.d
	if d == staleInstance {
		d = honest
	}
	return &store{b: n.b, d: d}
}

func (n *namespace) Legacy(ctx context.Context) (legacy.Store, error) {
	return legacyStore{n.instance()}, nil
}

func (n *namespace) Modern(ctx context.Context) (modern.Store, error) {
	return modernStore{n.instance()}, nil
}

// SDK is the namespace's SDK-profile store: the mutant's defect when it is one of the
// profile's, the honest profile store otherwise. Its instances share the backend.
func (n *namespace) SDK(ctx context.Context) (sdk.Store, error) {
	return sdkStore{b: n.sdk, d: n.d}, nil
}

func (n *namespace) Close(ctx context.Context) error { return nil }

var _ harness.Blocker = (*namespace)(nil)

// Block holds back every call of the namespace's stores (reads too) until released: a
// lock held by someone else, which the honest store waits on with its context.
func (n *namespace) Block(ctx context.Context, era harness.Era, id string, reads bool) (harness.Hold, error) {
	release := n.b.hold()
	return harness.Hold{How: "a lock someone else holds", Release: func(context.Context) error {
		release()
		return nil
	}}, nil
}

func (b *backend) snapshot() *backend {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := newBackend(b.clock)
	for k, t := range b.legacy {
		c.legacy[k] = t.Clone()
	}
	for k, t := range b.modern {
		c.modern[k] = t.Clone()
	}
	for k, v := range b.updated {
		c.updated[k] = v
	}
	for k, v := range b.created {
		c.created[k] = v
	}
	return c
}
