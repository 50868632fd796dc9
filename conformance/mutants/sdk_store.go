package mutants

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK task-store profile's mutants (docs/spec.md section 6) are variants of one
// small honest store of the profile: a mutex, a map and the tasks in creation order.
// Each defect is one the SDKs' own in-memory stores have, or one a store author could
// easily make.

// sdkMutants are the profile's defects. Those marked (TS) are the TypeScript SDK's
// InMemoryTaskStore's own defects, found by the profile.
var sdkMutants = []Mutant{
	{"sdk-sequential-ids", []string{"P-ID-1"}, "CreateTask numbers its tasks: task-1, task-2, ... (distinct, guessable)", sdkOnly, inside(sdkSequentialIDs)},
	{"sdk-racy-ids", []string{"P-ID-2"}, "the next id is drawn ahead and replaced only after the insert: concurrent creates share it (natural race)", sdkOnly, &wrapper{d: sdkRacyIDs, race: true}},
	{"sdk-create-no-last-updated", []string{"P-CREATE-1"}, "a created task has no lastUpdatedAt until its first write", sdkOnly, inside(sdkCreateNoLastUpdated)},
	{"sdk-session-case-insensitive", []string{"P-SESS-1"}, "sessions are compared case-insensitively (session ABC sees session abc's tasks)", sdkOnly, inside(sdkSessionFold)},
	{"sdk-sessionless-sees-all", []string{"P-SESS-2"}, "(TS) a caller without a session sees and writes every session's task, while the store declares sessionless callers isolated", sdkOnly, inside(sdkSessionlessSeesAll)},
	{"sdk-aliases", []string{"P-RESULT-3"}, "(TS) CreateTask and GetTask hand out the stored task, StoreTaskResult keeps the caller's map, GetTaskResult returns the stored one", sdkOnly, inside(sdkAliases)},
	{"sdk-cursor-by-id", []string{"P-LIST-2"}, "(TS) the cursor is the last task's id: once that task is deleted or expired, ListTasks fails with invalid cursor", sdkOnly, inside(sdkCursorByID)},
	{"sdk-quadratic-paging", []string{"P-LIST-3"}, "(TS) every page copies all of the caller's tasks first: O(tasks) per page, O(tasks²) per listing", sdkOnly, &wrapper{d: sdkQuadraticPaging, measured: true}},
	{"sdk-ttl-removes-working", []string{"P-TTL-1"}, "(TS) the ttl removes a task whatever its status, working ones included", sdkOnly, inside(sdkTTLRemovesWorking)},
	{"sdk-ttl-restarts-at-completion", []string{"P-TTL-2"}, "(TS) the ttl is counted again from the terminal status while the store declares it counts from creation", sdkOnly, inside(sdkTTLRestarts)},
	{"sdk-ttl-zero-kept", []string{"P-TTL-3"}, "(TS) a task reports ttl 0 and never expires (if (ttl) is false for 0)", sdkOnly, inside(sdkTTLZeroKept)},
	{"sdk-unknown-status-stored", []string{"P-STATUS-1"}, "(TS) UpdateTaskStatus stores any status, bogus included", sdkOnly, inside(sdkUnknownStatusStored)},
	{"sdk-complete-without-result", []string{"P-RESULT-4"}, "(TS) UpdateTaskStatus(completed) is taken without a result: GetTaskResult can never answer", sdkOnly, inside(sdkCompleteWithoutResult)},
	{"sdk-terminal-overwritable", []string{"P-FIN-1", "P-FIN-2"}, "UpdateTaskStatus does not check for a terminal status: a completed task can be cancelled or resumed", sdkOnly, inside(sdkTerminalOverwritable)},
	{"sdk-toctou-finish", []string{"P-FIN-2"}, "terminal writes check the status under the lock, then write under it again later: racing writers both win (natural race)", sdkOnly, &wrapper{d: sdkTOCTOUFinish, race: true}},
	{"sdk-result-any-status", []string{"P-RESULT-1"}, "(TS) StoreTaskResult takes any status: a working task gets a result", sdkOnly, inside(sdkResultAnyStatus)},
	{"sdk-no-result-not-found", []string{"P-RESULT-2"}, "GetTaskResult of a task without a result answers not found, as if the task were gone", sdkOnly, inside(sdkNoResultNotFound)},
	{"sdk-list-stale", []string{"P-LIST-1"}, "ListTasks shows each task as it was created, not as it is", sdkOnly, inside(sdkListStale)},
	{"sdk-lists-expired", []string{"P-LIST-1"}, "ListTasks keeps listing a task whose ttl ended, which GetTask no longer finds", sdkOnly, inside(sdkListsExpired)},
	{"sdk-cursor-carries-session", []string{"P-SESS-1"}, "a cursor names the session it was issued to, and ListTasks goes on as that session: another session holding it reads the first one's tasks", sdkOnly, inside(sdkCursorCarriesSession)},
	{"sdk-cleanup-ttl-int32", []string{"P-CLEAN-1"}, "Cleanup passes the ttl as a 32-bit integer: a task kept 2^31 ms or more is swept at once", sdkOnly, inside(sdkCleanupTTLInt32)},
	{"sdk-delete-missing-succeeds", []string{"P-DELETE-1"}, "DeleteTask of a missing task answers success", sdkOnly, inside(sdkDeleteMissingSucceeds)},
	{"sdk-cleanup-removes-terminal", []string{"P-CLEAN-1"}, "Cleanup removes every terminal task with a ttl, expired or not", sdkOnly, inside(sdkCleanupRemovesTerminal)},
	{"sdk-wait-returns-at-once", []string{"P-WAIT-1"}, "WaitForUpdate returns at once, whether or not the task changed", sdkOnly, inside(sdkWaitReturnsAtOnce)},
	// At the edges: a page boundary, a cursor never issued, ttls a store cannot hold.
	{"sdk-list-loses-boundary", []string{"P-LIST-1"}, "has-more off by one: a full page gets a nextCursor only when more than one task is left, so a listing of page+1 tasks loses the last", sdkOnly, inside(sdkListLosesBoundary)},
	{"sdk-cursor-garbage-restarts", []string{"P-LIST-1"}, "a cursor it cannot read lists from the first page again instead of failing with ErrInvalid", sdkOnly, inside(sdkCursorGarbageRestarts)},
	{"sdk-keeps-negative-ttl", []string{"P-CREATE-1"}, "(TS) a negative ttl is kept and reported as is", sdkOnly, inside(sdkKeepsNegativeTTL)},
	{"sdk-session-prefix-255", []string{"P-SESS-1"}, "sessions are compared on their first 255 bytes (a VARCHAR(255) column): two sessions that differ after that share their tasks", sdkOnly, inside(sdkSessionPrefix255)},
	{"sdk-session-normalized", []string{"P-SESS-1"}, "sessions are compared after Unicode normalisation: \"café\" composed and decomposed are one session", sdkOnly, inside(sdkSessionNormalized)},
	{"sdk-result-written-apart", []string{"P-RESULT-1"}, "StoreTaskResult writes the status, then the result in a second write: a reader between them sees a completed task with no result (natural race)", sdkOnly, &wrapper{d: sdkResultWrittenApart, race: true, inProcessOnly: "its window between two writes is a scheduler yield inside the child: over the wire the readers' round trips rarely land in it"}},
	{"sdk-delete-foreign-succeeds", []string{"P-DELETE-1"}, "DeleteTask looks the id up without the session, then deletes by id and session: another session's task answers success and is left in place", sdkOnly, inside(sdkDeleteForeignSucceeds)},
	{"sdk-delete-expired-succeeds", []string{"P-DELETE-1"}, "DeleteTask finds a task whose ttl has passed but that no read or sweep has dropped yet, and answers success (a DELETE whose WHERE has no expiry)", sdkOnly, inside(sdkDeleteExpiredSucceeds)},
	{"sdk-delete-recycles-id", []string{"P-DELETE-1"}, "DeleteTask hands the deleted id back to a pool CreateTask draws from first: a later task takes the deleted one's id (a slot allocator)", sdkOnly, inside(sdkDeleteRecyclesID)},
	{"sdk-ttl-timer-overflow", []string{"P-TTL-2", "P-CLEAN-1"}, "(TS) a ttl past 2^31-1 ms expires 1 ms after the task ends (Node's setTimeout runs a longer delay at once), so a Cleanup sweeps it too", sdkOnly, inside(sdkTTLTimerOverflow)},
	// Stores that declare truthfully what docs/wire.md tells them to, and still break a rule.
	{"sdk-ttl-restarts-declared", []string{"P-TTL-4"}, "the ttl counts from creation and starts again when the task becomes terminal, declared as ttl_from completion (P-TTL-2 holds; MCP's creation does not)", sdkOnly, inside(sdkTTLRestartsDeclared)},
	{"sdk-sessions-ignored", []string{"P-SESS-1", "P-SESS-3", "P-LIST-1", "P-WAIT-1"}, "every caller sees every session's task, declared sessionless unrestricted (no policy value says that sessions are ignored for everyone)", sdkOnly, inside(sdkSessionsIgnored)},
}

// pageSize is the honest store's page size (the TypeScript and Python SDKs' own).
const sdkPageSize = 10

type sdkBackend struct {
	mu      sync.Mutex
	clock   reference.Clock
	seq     uint64
	counter int
	nextID  string   // the racy-ids mutant's next id
	freed   []string // the recycles-id mutant's ids of deleted tasks
	tasks   map[string]*sdkRow
	order   []*sdkRow // creation order; rows removed since stay in place, marked gone
}

type sdkRow struct {
	task       sdk.Task
	created    sdk.Task // the task as created, for the stale-list mutant
	session    string
	seq        uint64
	createdMs  int64
	terminalMs int64
	result     sdk.Result
	gone       bool
	wake       chan struct{}
}

func newSDKBackend(clock reference.Clock) *sdkBackend {
	return &sdkBackend{clock: clock, tasks: map[string]*sdkRow{}}
}

// store is the profile's store over a backend, with at most one defect switched on.
type sdkStore struct {
	b *sdkBackend
	d defect
}

var (
	_ sdk.Store   = sdkStore{}
	_ sdk.Deleter = sdkStore{}
	_ sdk.Cleaner = sdkStore{}
	_ sdk.Waiter  = sdkStore{}
)

func (s sdkStore) now() int64 { return reference.NowMillis(s.b.clock) }

func (s sdkStore) Policy() sdk.Policy {
	switch s.d {
	case sdkTTLRestartsDeclared:
		return sdk.Policy{Sessionless: sdk.SessionlessIsolated, TTLFrom: sdk.TTLFromCompletion}
	case sdkSessionsIgnored:
		return sdk.Policy{Sessionless: sdk.SessionlessUnrestricted, TTLFrom: sdk.TTLFromCreation}
	}
	return sdk.Policy{Sessionless: sdk.SessionlessIsolated, TTLFrom: sdk.TTLFromCreation}
}

func (s sdkStore) live(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mutant: %w", err)
	}
	return nil
}

// visible: a task is its session's; having no session is a session of its own.
func (s sdkStore) visible(r *sdkRow, caller string) bool {
	switch {
	case s.d == sdkSessionFold:
		return strings.EqualFold(r.session, caller)
	case s.d == sdkSessionPrefix255:
		return r.session[:min(len(r.session), 255)] == caller[:min(len(caller), 255)] // a VARCHAR(255) column
	case s.d == sdkSessionNormalized:
		return foldAccents(r.session) == foldAccents(caller)
	case s.d == sdkSessionlessSeesAll && caller == sdk.NoSession, s.d == sdkSessionsIgnored:
		return true
	}
	return r.session == caller
}

// expired: a terminal task whose ttl, counted from creation, has passed.
func (s sdkStore) expired(r *sdkRow, now int64) bool {
	if r.task.TTL == nil {
		return false
	}
	ttl := *r.task.TTL
	if s.d == sdkTTLTimerOverflow && ttl > 1<<31-1 {
		ttl = 1 // setTimeout runs a delay past 2^31-1 ms after 1 ms
	}
	if s.d == sdkTTLZeroKept && ttl == 0 {
		return false // if (ttl) { schedule cleanup }: 0 is false
	}
	if !r.task.Status.Terminal() && s.d != sdkTTLRemovesWorking {
		return false
	}
	from := r.createdMs
	if (s.d == sdkTTLRestarts || s.d == sdkTTLRestartsDeclared) && r.terminalMs != 0 {
		from = r.terminalMs
	}
	return now >= from+ttl
}

// lookup finds the live row of id visible to caller; b.mu is held.
func (s sdkStore) lookup(caller, id string, now int64) (*sdkRow, error) {
	r, ok := s.b.tasks[id]
	if !ok || !s.visible(r, caller) {
		return nil, reference.NotFound(id)
	}
	if s.expired(r, now) {
		if s.d != sdkListsExpired { // that mutant leaves expired rows to a sweep that never comes
			s.remove(r)
		}
		return nil, reference.NotFound(id)
	}
	return r, nil
}

func (s sdkStore) remove(r *sdkRow) {
	if r.gone {
		return
	}
	r.gone = true
	delete(s.b.tasks, r.task.TaskID)
	close(r.wake)
}

func (s sdkStore) touch(r *sdkRow, now int64) {
	r.task.LastUpdatedAt = sdk.FormatTime(now)
	if r.task.Status.Terminal() && r.terminalMs == 0 {
		r.terminalMs = now
	}
	close(r.wake)
	r.wake = make(chan struct{})
}

func (s sdkStore) out(t sdk.Task) sdk.Task {
	if s.d == sdkAliases {
		return t // the stored task itself: its ttl and poll interval are shared
	}
	return t.Clone()
}

func (s sdkStore) CreateTask(ctx context.Context, session string, p sdk.CreateParams) (sdk.Task, error) {
	if err := s.live(ctx); err != nil {
		return sdk.Task{}, err
	}
	now := s.now()
	at := sdk.FormatTime(now)
	s.b.mu.Lock()
	id := reference.GenerateID()
	switch s.d {
	case sdkSequentialIDs:
		s.b.counter++
		id = "task-" + strconv.Itoa(s.b.counter)
	case sdkDeleteRecyclesID:
		if n := len(s.b.freed); n > 0 {
			id, s.b.freed = s.b.freed[n-1], s.b.freed[:n-1]
		}
	case sdkRacyIDs:
		// The next id is drawn ahead and handed out on a read; it is replaced only
		// once the task is in: two creates between those moments share it.
		if s.b.nextID == "" {
			s.b.nextID = reference.GenerateID()
		}
		id = s.b.nextID
		s.b.mu.Unlock()
		runtime.Gosched()
		s.b.mu.Lock()
	}
	defer s.b.mu.Unlock()
	if p.TTL != nil && *p.TTL < 0 && s.d != sdkKeepsNegativeTTL {
		return sdk.Task{}, fmt.Errorf("mutant: negative ttl %d: %w", *p.TTL, reference.ErrInvalid)
	}
	s.b.seq++
	t := sdk.Task{TaskID: id, Status: reference.StatusWorking, CreatedAt: at, LastUpdatedAt: at}
	if p.TTL != nil {
		t.TTL = i64(*p.TTL)
	}
	if p.PollInterval != nil {
		t.PollInterval = i64(*p.PollInterval)
	}
	if s.d == sdkCreateNoLastUpdated {
		t.LastUpdatedAt = ""
	}
	r := &sdkRow{task: t, created: t.Clone(), session: session, seq: s.b.seq, createdMs: now, wake: make(chan struct{})}
	s.b.tasks[id] = r
	s.b.order = append(s.b.order, r)
	if s.d == sdkRacyIDs {
		s.b.nextID = reference.GenerateID()
	}
	return s.out(r.task), nil
}

func i64(v int64) *int64 { return &v }

func (s sdkStore) GetTask(ctx context.Context, session, id string) (sdk.Task, error) {
	if err := s.live(ctx); err != nil {
		return sdk.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	r, err := s.lookup(session, id, s.now())
	if err != nil {
		return sdk.Task{}, err
	}
	return s.out(r.task), nil
}

// finish is the terminal check and the write of StoreTaskResult and UpdateTaskStatus:
// under the lock, or, for the toctou-finish mutant, checked under it and written under
// it again later.
func (s sdkStore) finish(session, id string, update bool, write func(r *sdkRow, now int64)) error {
	now := s.now()
	s.b.mu.Lock()
	r, err := s.lookup(session, id, now)
	if err == nil && r.task.Status.Terminal() && !(update && s.d == sdkTerminalOverwritable) {
		err = reference.ErrorFor(reference.ErrTerminal, id)
	}
	if err != nil {
		s.b.mu.Unlock()
		return err
	}
	if s.d == sdkTOCTOUFinish {
		s.b.mu.Unlock()
		runtime.Gosched()
		s.b.mu.Lock()
	}
	defer s.b.mu.Unlock()
	write(r, now)
	s.touch(r, now)
	return nil
}

func (s sdkStore) StoreTaskResult(ctx context.Context, session, id string, status reference.Status, result sdk.Result) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	if status != reference.StatusCompleted && status != reference.StatusFailed && s.d != sdkResultAnyStatus {
		return fmt.Errorf("mutant: a result is stored with status completed or failed, not %q: %w", status, reference.ErrInvalid)
	}
	norm, err := jsonvalue.Normalize(result)
	obj, ok := norm.(map[string]any)
	if err != nil || !ok {
		return fmt.Errorf("mutant: the result is not a JSON object: %w", reference.ErrInvalid)
	}
	if s.d == sdkAliases {
		obj = result // the caller's own map
	}
	if s.d == sdkResultWrittenApart {
		// The status in one write, the result in a second: a reader between them sees a
		// terminal task without its result.
		if err := s.finish(session, id, false, func(r *sdkRow, now int64) { r.task.Status = status }); err != nil {
			return err
		}
		runtime.Gosched()
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		if r, ok := s.b.tasks[id]; ok {
			r.result = obj
		}
		return nil
	}
	return s.finish(session, id, false, func(r *sdkRow, now int64) {
		r.result = obj
		r.task.Status = status
	})
}

func (s sdkStore) GetTaskResult(ctx context.Context, session, id string) (sdk.Result, error) {
	if err := s.live(ctx); err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	r, err := s.lookup(session, id, s.now())
	if err != nil {
		return nil, err
	}
	if r.result == nil {
		if s.d == sdkNoResultNotFound {
			return nil, reference.NotFound(id)
		}
		return nil, reference.ErrorFor(reference.ErrNoResult, id)
	}
	if s.d == sdkAliases {
		return r.result, nil
	}
	return jsonvalue.CloneObject(r.result), nil
}

func (s sdkStore) UpdateTaskStatus(ctx context.Context, session, id string, status reference.Status, message string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	switch {
	case !status.Known() && s.d != sdkUnknownStatusStored:
		return fmt.Errorf("mutant: unknown status %q: %w", status, reference.ErrInvalid)
	case (status == reference.StatusCompleted || status == reference.StatusFailed) && s.d != sdkCompleteWithoutResult:
		return fmt.Errorf("mutant: %s is set with its result by StoreTaskResult: %w", status, reference.ErrInvalid)
	}
	return s.finish(session, id, true, func(r *sdkRow, now int64) {
		r.task.Status = status
		if message != "" {
			r.task.StatusMessage = message
		}
	})
}

// remaining counts, up to 2, the rows from r on that the caller would be listed.
func (s sdkStore) remaining(rows []*sdkRow, r *sdkRow, session string, now int64) int {
	n := 0
	for i := slices.Index(rows, r); i < len(rows) && n < 2; i++ {
		if x := rows[i]; !x.gone && s.visible(x, session) && !s.expired(x, now) {
			n++
		}
	}
	return n
}

func (s sdkStore) ListTasks(ctx context.Context, session, cursor string) (sdk.Page, error) {
	if err := s.live(ctx); err != nil {
		return sdk.Page{}, err
	}
	now := s.now()
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	rows := s.b.order
	if s.d == sdkQuadraticPaging {
		// Every page starts from a fresh copy of the caller's tasks.
		var mine []*sdkRow
		for _, r := range s.b.order {
			if !r.gone && s.visible(r, session) && !s.expired(r, now) {
				mine = append(mine, r)
			}
		}
		rows = mine
	}
	start := 0
	switch {
	case cursor == "":
	case s.d == sdkCursorByID:
		// The cursor is the last task's id, looked up among the tasks still there.
		start = -1
		for i, r := range rows {
			if !r.gone && r.task.TaskID == cursor {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return sdk.Page{}, fmt.Errorf("mutant: invalid cursor %s: %w", cursor, reference.ErrInvalid)
		}
	default:
		if s.d == sdkCursorCarriesSession {
			// The listing goes on as the session the cursor names, not the caller.
			var owner string
			cursor, owner, _ = strings.Cut(cursor, ":")
			session = owner
		}
		after, err := strconv.ParseUint(strings.TrimPrefix(cursor, "s"), 10, 64)
		if (err != nil || !strings.HasPrefix(cursor, "s")) && s.d == sdkCursorGarbageRestarts {
			break // a cursor it cannot read starts the listing again
		}
		if err != nil || !strings.HasPrefix(cursor, "s") {
			return sdk.Page{}, fmt.Errorf("mutant: invalid cursor %s: %w", cursor, reference.ErrInvalid)
		}
		start = sort.Search(len(rows), func(i int) bool { return rows[i].seq > after })
	}
	page := sdk.Page{Tasks: []sdk.Task{}}
	var last *sdkRow
	var expired []*sdkRow
	for _, r := range rows[start:] {
		if r.gone || !s.visible(r, session) {
			continue
		}
		if s.expired(r, now) && s.d != sdkListsExpired {
			expired = append(expired, r)
			continue
		}
		if len(page.Tasks) == sdkPageSize && s.d == sdkListLosesBoundary && s.remaining(rows, r, session, now) == 1 {
			break // has-more off by one: a page is followed only when more than one task is left
		}
		if len(page.Tasks) == sdkPageSize {
			if s.d == sdkCursorByID {
				page.NextCursor = last.task.TaskID
			} else {
				page.NextCursor = "s" + strconv.FormatUint(last.seq, 10)
			}
			if s.d == sdkCursorCarriesSession {
				page.NextCursor += ":" + session
			}
			break
		}
		t := r.task
		if s.d == sdkListStale {
			t = r.created
		}
		page.Tasks = append(page.Tasks, t.Clone())
		last = r
	}
	for _, r := range expired {
		s.remove(r)
	}
	return page, nil
}

func (s sdkStore) DeleteTask(ctx context.Context, session, id string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	switch r, ok := s.b.tasks[id]; {
	case s.d == sdkDeleteForeignSucceeds && ok && !s.visible(r, session):
		return nil // found by id, deleted by id and session: no row goes
	case s.d == sdkDeleteExpiredSucceeds && ok && s.visible(r, session):
		s.remove(r) // found by id and session, expired or not
		return nil
	}
	r, err := s.lookup(session, id, s.now())
	if err != nil {
		if s.d == sdkDeleteMissingSucceeds {
			return nil
		}
		return err
	}
	s.remove(r)
	if s.d == sdkDeleteRecyclesID {
		s.b.freed = append(s.b.freed, id)
	}
	return nil
}

func (s sdkStore) Cleanup(ctx context.Context) (int, error) {
	if err := s.live(ctx); err != nil {
		return 0, err
	}
	now := s.now()
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	var doomed []*sdkRow
	for _, r := range s.b.tasks {
		if s.d == sdkCleanupTTLInt32 && r.task.TTL != nil && r.task.Status.Terminal() && now >= r.createdMs+int64(int32(*r.task.TTL)) {
			doomed = append(doomed, r) // the sweep's ttl parameter is a 32-bit integer
			continue
		}
		if s.expired(r, now) || (s.d == sdkCleanupRemovesTerminal && r.task.TTL != nil && r.task.Status.Terminal()) {
			doomed = append(doomed, r)
		}
	}
	for _, r := range doomed {
		s.remove(r)
	}
	return len(doomed), nil
}

func (s sdkStore) WaitForUpdate(ctx context.Context, session, id string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	r, err := s.lookup(session, id, s.now())
	var wake chan struct{}
	if err == nil {
		wake = r.wake
	}
	s.b.mu.Unlock()
	if err != nil {
		return err
	}
	if s.d == sdkWaitReturnsAtOnce {
		return nil
	}
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mutant: %w", ctx.Err())
	}
}

// foldAccents is the sdk-session-normalized mutant's comparison: a combining acute accent
// folded into the precomposed letter, as a Unicode normalisation (NFC) would.
func foldAccents(s string) string {
	return strings.NewReplacer("e\u0301", "\u00e9", "a\u0301", "\u00e1").Replace(s)
}
