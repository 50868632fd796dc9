package mutants

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// backend is the data of one namespace: a plain mutex and two maps. It is deliberately
// the simplest honest store there is, so that each mutant differs from an obviously
// correct store by its one defect.
type backend struct {
	// mu guards the maps. The honest store takes it exclusively for every call; the
	// natural race mutants take it shared to read, then exclusively to write.
	mu sync.RWMutex
	// wmu serialises the read-modify-write calls of the update-resurrects mutant.
	wmu sync.Mutex
	// updating counts the legacy Updates in flight (panics-in-race).
	updating atomic.Int64
	clock    reference.Clock
	legacy   map[string]legacy.Task
	modern   map[string]modern.Task
	// updated records when a legacy task's status last changed, for the mutant that
	// measures cleanup age from completion.
	updated map[string]int64
	// created records when Create stamped a legacy task, for the mutant that ages tasks
	// from it rather than from the created_at they hold.
	created map[string]int64

	ioState
	// missed is the get-caches-misses mutant's cache of ids Get did not find; nothing
	// clears it.
	missed map[string]bool
	// formerOwner is the delete-keeps-owner mutant's owner index: Delete leaves the
	// deleted task's owner in it, and a Create of the id takes it from there.
	formerOwner map[string]string

	// held, while not nil, holds back every call until it is closed: the hold of
	// harness.Blocker, a lock taken by someone else.
	holdMu sync.Mutex
	held   chan struct{}
}

func newBackend(clock reference.Clock) *backend {
	return &backend{clock: clock, legacy: map[string]legacy.Task{}, modern: map[string]modern.Task{}, updated: map[string]int64{}, created: map[string]int64{}}
}

// store is one instance over a backend, with at most one defect switched on.
type store struct {
	b *backend
	d defect
}

func (s *store) now() int64 { return reference.NowMillis(s.b.clock) }

// ops counts the operations of this process's dies-mid-run stores.
var ops atomic.Int64

// ctxErr starts every call: it answers a context that has ended, then waits while the
// backend is held (harness.Blocker), giving up when the context ends.
func (s *store) ctxErr(ctx context.Context) error {
	if s.d == ignoresContext {
		s.waitHeld(nil)
		return nil
	}
	if s.d == diesMidRunDefect && ops.Add(1) == diesAfter {
		fmt.Fprintf(os.Stderr, "mutant %s: exiting on operation %d\n", DiesMidRunName, diesAfter)
		os.Exit(3)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mutant store: %w", err)
	}
	if s.d == waitIgnoresContext {
		s.waitHeld(nil)
		return nil
	}
	if waitsMutants[s.d] {
		s.waitSlowly()
	}
	return s.waitHeld(ctx)
}

// waitHeld waits while the backend is held, or until ctx ends; a nil ctx never ends.
func (s *store) waitHeld(ctx context.Context) error {
	s.b.holdMu.Lock()
	held := s.b.held
	s.b.holdMu.Unlock()
	if held == nil {
		return nil
	}
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	select {
	case <-held:
		return nil
	case <-done:
		return fmt.Errorf("mutant store: waiting on a lock: %w", ctx.Err())
	}
}

// hold holds back every later call of the backend until release.
func (b *backend) hold() (release func()) {
	ch := make(chan struct{})
	b.holdMu.Lock()
	b.held = ch
	b.holdMu.Unlock()
	return func() {
		b.holdMu.Lock()
		if b.held == ch {
			b.held = nil
		}
		b.holdMu.Unlock()
		close(ch)
	}
}

func (s *store) checkID(id string) error {
	switch s.d {
	case trimsIDs:
		return reference.ValidateID(id)
	case acceptsEmptyID:
		if id == "" {
			return nil
		}
	case strictIDs:
		if strings.ContainsAny(id, ":{}%_*") || len(id) > 255 {
			return reference.ErrorFor(reference.ErrInvalid, id)
		}
	}
	return reference.ValidateID(id)
}

func (s *store) key(id string) string {
	if s.d == trimsIDs {
		return strings.ToLower(strings.TrimSpace(id))
	}
	return id
}

// in copies a value on the way in, applying the value-mangling defects.
func (s *store) in(t legacy.Task) (legacy.Task, error) {
	n, err := legacy.Normalize(t)
	if err != nil {
		return nil, err
	}
	return legacy.Task(s.mangle(map[string]any(n)).(map[string]any)), nil
}

func (s *store) mangle(v any) any {
	switch x := v.(type) {
	case json.Number:
		if s.d == floatNumbers {
			f, _ := x.Float64()
			b, _ := json.Marshal(f)
			return json.Number(b)
		}
	case string:
		if s.d == sniffsStrings {
			// A store that keeps values as text and parses them back without their type.
			var back any
			dec := json.NewDecoder(strings.NewReader(x))
			dec.UseNumber()
			if dec.Decode(&back) == nil && !dec.More() {
				return back
			}
		}
		if s.d == cutsAtNUL {
			if i := strings.IndexByte(x, 0); i >= 0 {
				return x[:i]
			}
		}
	case map[string]any:
		for k, e := range x {
			x[k] = s.mangle(e)
		}
	case []any:
		for i, e := range x {
			x[i] = s.mangle(e)
		}
	}
	return v
}

// out copies a stored task on the way out (or, for the aliasing mutant, does not).
func (s *store) out(t legacy.Task) legacy.Task {
	if s.d == aliasesValues {
		return t
	}
	c := t.Clone()
	if s.d == ownerNotPromoted {
		if o, ok := c[legacy.KeyOwner]; ok {
			delete(c, legacy.KeyOwner)
			c["metadata"] = map[string]any{"owner": o}
		}
	}
	return c
}

// ---- legacy era ----

type legacyStore struct{ *store }

func (s legacyStore) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := s.checkID(id); err != nil {
		return nil, err
	}
	if s.d == checkThenInsert {
		// Check-then-insert: a cheap existence check first, under the read lock; the
		// insert (createIfAbsent) takes the write lock without looking again.
		s.b.mu.RLock()
		_, exists := s.b.legacy[s.key(id)]
		s.b.mu.RUnlock()
		if exists {
			return nil, reference.ErrorFor(reference.ErrExists, id)
		}
	}
	m, err := s.in(meta)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if s.d == secondsTimestamps {
		now /= 1000
	}
	t := legacy.Stamp(id, m, now)
	if s.d == createKeepsMetaKeys {
		for _, k := range []string{legacy.KeyStatus, legacy.KeyCreatedAt} {
			if v, ok := m[k]; ok {
				t[k] = v
			}
		}
	}
	k := s.key(id)
	if s.d == checkThenInsert {
		return s.createIfAbsent(id, k, t)
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if old, ok := s.b.legacy[k]; ok {
		if s.d != createMerges {
			return nil, reference.ErrorFor(reference.ErrExists, id)
		}
		t = legacy.Merge(old, m)
	}
	s.b.legacy[k] = t
	s.b.updated[k] = now
	s.b.created[k] = now
	return s.out(t), nil
}

func (s legacyStore) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	t, ok := s.b.legacy[s.key(id)]
	if !ok {
		if s.d == getMissingEmpty {
			return legacy.Task{}, nil
		}
		return nil, reference.NotFound(id)
	}
	return s.out(t), nil
}

func (s legacyStore) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	switch s.d {
	case refusesUpdateDefect:
		return nil, fmt.Errorf("legacy Update of %q: %w", id, reference.ErrUnsupported)
	case panicsInRaceDefect:
		n := s.b.updating.Add(1)
		defer s.b.updating.Add(-1)
		if n > 1 {
			panic(fmt.Sprintf("mutant %s: Update of %q while %d other Updates are in flight", PanicsInRaceName, id, n-1))
		}
	}
	return s.update(ctx, id, nil, changes)
}

func (s legacyStore) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if allowed == nil {
		allowed = []reference.Status{}
	}
	return s.update(ctx, id, allowed, changes)
}

// update is Update (allowed nil) and UpdateIf.
func (s legacyStore) update(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	switch {
	case s.d == lostUpdate, s.d == updateResurrects, s.d == checkThenAct && allowed != nil:
		return s.updateInSteps(id, allowed, changes)
	case s.d == tornUpdate && allowed == nil:
		return s.updateKeyByKey(id, changes)
	}
	c, err := s.in(changes)
	if err != nil {
		return nil, err
	}
	k := s.key(id)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	cur, ok := s.b.legacy[k]
	if !ok {
		if s.d != updateCreates {
			return nil, reference.NotFound(id)
		}
		cur = legacy.Task{legacy.KeyTaskID: id}
	}
	if allowed != nil && !statusIn(cur.Status(), allowed) {
		return nil, reference.ErrorFor(reference.ErrConflict, id)
	}
	var next legacy.Task
	if s.d == deepMerge {
		next = legacy.Task(deepMergeObjects(cur, c))
	} else {
		next = legacy.Merge(cur, c)
	}
	if s.d == updateKeepsStamps {
		for _, key := range []string{legacy.KeyTaskID, legacy.KeyCreatedAt} {
			if v, ok := cur[key]; ok {
				next[key] = v
			} else {
				delete(next, key)
			}
		}
	}
	s.b.legacy[k] = next
	if _, changed := c[legacy.KeyStatus]; changed {
		s.b.updated[k] = s.now()
	}
	return s.out(next), nil
}

// updateInSteps is the update of the natural race mutants: ordinary code that reads
// under the shared lock, works outside it, and writes under the exclusive lock. No
// sleep or yield widens the window; only the battery's concurrency can show it.
//   - lost-update: the merged task is computed from the read and written back, so an
//     Update that ran in between is lost.
//   - check-then-act: UpdateIf checks the status on the read, then merges into the
//     task as it is at the write, so a racing status change slips past the check.
//   - update-resurrects: read-modify-write calls are serialised among themselves by
//     their own lock (no update is lost), but Delete takes only the map lock, so a
//     task deleted between the read and the write is written back.
func (s legacyStore) updateInSteps(id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if s.d == updateResurrects {
		s.b.wmu.Lock()
		defer s.b.wmu.Unlock()
	}
	k := s.key(id)
	s.b.mu.RLock()
	cur, ok := s.b.legacy[k]
	s.b.mu.RUnlock()
	if !ok {
		return nil, reference.NotFound(id)
	}
	if allowed != nil && !statusIn(cur.Status(), allowed) {
		return nil, reference.ErrorFor(reference.ErrConflict, id)
	}
	c, err := s.in(changes)
	if err != nil {
		return nil, err
	}
	next := legacy.Merge(cur, c)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.d == checkThenAct {
		if cur, ok = s.b.legacy[k]; !ok {
			return nil, reference.NotFound(id)
		}
		next = legacy.Merge(cur, c)
	}
	s.b.legacy[k] = next
	if _, changed := c[legacy.KeyStatus]; changed {
		s.b.updated[k] = s.now()
	}
	return s.out(next), nil
}

// updateKeyByKey is the torn-update mutant's Update: ordinary code that writes the
// changes one key at a time, each under its own acquisition of the exclusive lock (as a
// store writing one column or hash field per statement would). No key is lost and the
// end state is right, but between two of its writes a concurrent Get or List reads a
// task with some of the changes and not the others. No sleep or yield widens the window.
func (s legacyStore) updateKeyByKey(id string, changes legacy.Task) (legacy.Task, error) {
	c, err := s.in(changes)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(c))
	for key := range c {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	k := s.key(id)
	var next legacy.Task
	write := func(key string, some bool) error {
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		cur, ok := s.b.legacy[k]
		if !ok {
			return reference.NotFound(id)
		}
		part := legacy.Task{}
		if some {
			part[key] = c[key]
		}
		next = legacy.Merge(cur, part) // a fresh map: readers hold the old one
		s.b.legacy[k] = next
		if some && key == legacy.KeyStatus {
			s.b.updated[k] = s.now()
		}
		return nil
	}
	if len(keys) == 0 { // nothing to change: the task must still exist
		if err := write("", false); err != nil {
			return nil, err
		}
	}
	for _, key := range keys {
		if err := write(key, true); err != nil {
			return nil, err
		}
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.out(next), nil
}

// createIfAbsent is the insert of the check-then-insert create: Create looked for the
// id under the shared lock; this inserts under the exclusive lock without looking
// again, so two Creates of one id can both find it absent and both succeed.
func (s legacyStore) createIfAbsent(id, k string, t legacy.Task) (legacy.Task, error) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.legacy[k] = t
	s.b.updated[k] = s.now()
	s.b.created[k] = s.now()
	return s.out(t), nil
}

func statusIn(s reference.Status, set []reference.Status) bool {
	for _, a := range set {
		if a == s {
			return true
		}
	}
	return false
}

func deepMergeObjects(a, b map[string]any) map[string]any {
	out := jsonvalue.CloneObject(a)
	for k, v := range b {
		am, ok1 := out[k].(map[string]any)
		bm, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = deepMergeObjects(am, bm)
			continue
		}
		out[k] = jsonvalue.Clone(v)
	}
	return out
}

func (s legacyStore) Delete(ctx context.Context, id string) error {
	if err := s.ctxErr(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	k := s.key(id)
	if _, ok := s.b.legacy[k]; !ok && s.d == deleteMissingFails {
		return reference.NotFound(id)
	}
	delete(s.b.legacy, k)
	delete(s.b.updated, k)
	delete(s.b.created, k)
	return nil
}

func (s legacyStore) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	out := []legacy.Task{}
	_, isPrincipal := opts.Owner.Principal()
	if s.d == listIgnoresBoth || (s.d == principalsIgnoreScope && isPrincipal) {
		// Leaves Owner and Limit to the facade (L-LIST-4), for every caller or only
		// for principals.
		opts.Limit = nil
	}
	if s.d == limitInt32 && opts.Limit != nil {
		opts.Limit = new(int(int32(*opts.Limit))) // an INT column or a 32-bit parameter
	}
	for _, t := range s.b.legacy {
		if opts.Limit != nil && len(out) >= *opts.Limit && (s.d != limitZeroUnbounded || *opts.Limit > 0) {
			break
		}
		if !s.listMatches(opts, t) {
			continue
		}
		out = append(out, s.out(t))
	}
	return out, nil
}

func (s legacyStore) listMatches(opts legacy.ListOptions, t legacy.Task) bool {
	if opts.Status != nil {
		st := string(t.Status())
		if s.d == statusPrefix {
			if !strings.HasPrefix(st, *opts.Status) {
				return false
			}
		} else if st != *opts.Status {
			return false
		}
	}
	if s.d == limitIgnoresOwner || s.d == listIgnoresBoth {
		return true
	}
	owner := t.Owner()
	id, isPrincipal := opts.Owner.Principal()
	switch {
	case s.d == principalsIgnoreScope && isPrincipal:
		return true
	case s.d == ownerFirst12 && isPrincipal && owner != "":
		return prefix12(owner) == prefix12(id)
	case opts.Owner.IsAny():
		return true
	case owner == "":
		return !opts.RequireOwner
	case s.d == anonymousFailsOpen && opts.Owner.IsAnonymous():
		return true
	case isPrincipal:
		return s.ownerMatches(owner, id)
	}
	return false
}

// ownerMatches compares an owner with a principal, with the comparison defects.
func (s *store) ownerMatches(owner, principal string) bool {
	switch s.d {
	case ownerCaseInsensitive:
		return strings.EqualFold(owner, principal)
	case ownerPrefix:
		return strings.HasPrefix(owner, principal) || strings.HasPrefix(principal, owner)
	case ownerWildcard:
		return wildcardMatch(owner, principal)
	}
	return owner == principal
}

// prefix12 is an owner as a CHAR(12) index column holds it: its first 12 bytes.
func prefix12(o string) string { return o[:min(len(o), 12)] }

// wildcardMatch treats % and * in the stored owner as "anything", as an unescaped SQL
// LIKE or glob would.
func wildcardMatch(pattern, s string) bool {
	if !strings.ContainsAny(pattern, "%*") {
		return pattern == s
	}
	prefix := pattern[:strings.IndexAny(pattern, "%*")]
	return strings.HasPrefix(s, prefix)
}

func (s legacyStore) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	if s.d == cancelMissingSucceeds {
		if err := s.ctxErr(ctx); err != nil {
			return nil, err
		}
		s.b.mu.Lock()
		_, ok := s.b.legacy[s.key(id)]
		s.b.mu.Unlock()
		if !ok {
			return legacy.Task{legacy.KeyTaskID: id, legacy.KeyStatus: "cancelled"}, nil
		}
	}
	return s.update(ctx, id, nil, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

func (s legacyStore) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	if err := s.ctxErr(ctx); err != nil {
		return 0, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	now := s.now()
	ttlMs := ttl.Milliseconds()
	if s.d == cleanupTTLInt32 {
		ttlMs = int64(int32(ttlMs))
	}
	n := 0
	for k, t := range s.b.legacy {
		if !t.Status().Terminal() && s.d != cleanupRemovesLive {
			continue
		}
		born, ok := t.CreatedAt()
		switch s.d {
		case cleanupFromCompletion:
			born, ok = s.b.updated[k], true
		case cleanupCreateTime:
			born, ok = s.b.created[k], true
		}
		if !ok {
			continue // a created_at that is not an integer has no age
		}
		age := now - born
		expired := age > ttlMs
		if s.d == cleanupGE {
			expired = age >= ttlMs
		}
		if expired {
			delete(s.b.legacy, k)
			delete(s.b.updated, k)
			delete(s.b.created, k)
			n++
		}
	}
	return n, nil
}

// ---- modern era ----

type modernStore struct{ *store }

func (s modernStore) visible(t modern.Task, caller reference.Caller) bool {
	if t.Owner == "" || caller.IsSystem() {
		return true
	}
	if caller.IsAnonymous() {
		return s.d == anonymousFailsOpen
	}
	id, _ := caller.PrincipalID()
	return s.ownerMatches(t.Owner, id)
}

func (s modernStore) expired(t modern.Task) bool {
	if t.TTL == nil || s.d == expiredVisible {
		return false
	}
	if s.d == expiryDouble {
		// created_at + ttl summed in a double, as a JavaScript store would
		return float64(s.now()) >= float64(t.CreatedAt)+float64(*t.TTL)
	}
	if s.d == expiryOffByOne {
		return s.now() > t.CreatedAt+*t.TTL
	}
	return t.Expired(s.now())
}

// find returns the stored task visible to caller; must hold the lock.
func (s modernStore) find(id string, caller reference.Caller) (modern.Task, error) {
	t, ok := s.b.modern[s.key(id)]
	if !ok || s.expired(t) {
		return modern.Task{}, reference.NotFound(id)
	}
	if !s.visible(t, caller) {
		if s.d == deniedDiffers {
			return modern.Task{}, fmt.Errorf("task %s: access denied: %w", id, reference.ErrNotFound)
		}
		return modern.Task{}, reference.NotFound(id)
	}
	return t, nil
}

func (s modernStore) inTask(t modern.Task) (modern.Task, error) {
	n, err := t.Normalize()
	if err != nil {
		return modern.Task{}, err
	}
	for _, m := range []map[string]any{n.Result, n.Error, n.InputRequests, n.StagedResponses, n.InputResponses} {
		s.mangle(m)
	}
	if s.d == cutsAtNUL {
		n.StatusMessage = s.mangle(n.StatusMessage).(string)
	}
	if s.d == dropsTTL {
		n.TTL = nil
	}
	return n, nil
}

func (s modernStore) outTask(t modern.Task) modern.Task {
	if s.d == aliasesValues {
		return t
	}
	return t.Clone()
}

func (s modernStore) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	if err := s.checkID(task.TaskID); err != nil {
		return modern.Task{}, err
	}
	if s.d == checkThenInsert {
		// Check-then-insert: a cheap existence check first, under the read lock; the
		// insert below takes the write lock without looking again.
		s.b.mu.RLock()
		_, exists := s.b.modern[s.key(task.TaskID)]
		s.b.mu.RUnlock()
		if exists {
			return modern.Task{}, reference.ErrorFor(reference.ErrExists, task.TaskID)
		}
	}
	t, err := s.inTask(task)
	if err != nil {
		return modern.Task{}, err
	}
	t.Version = 1
	if s.d == createVersionZero {
		t.Version = 0
	}
	if s.d == secondsTimestamps {
		t.CreatedAt /= 1000
		t.LastUpdatedAt /= 1000
	}
	k := s.key(t.TaskID)
	if s.d == checkThenInsert {
		s.b.mu.Lock()
		defer s.b.mu.Unlock()
		s.b.modern[k] = t
		return s.outTask(t), nil
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if _, ok := s.b.modern[k]; ok && s.d != createOverwrites {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, t.TaskID)
	}
	if owner, ok := s.b.formerOwner[k]; ok {
		t.Owner = owner // the owner index kept the deleted task's row
	}
	s.b.modern[k] = t
	return s.outTask(t), nil
}

func (s modernStore) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.d == getCachesMisses {
		if s.b.missed[s.key(id)] {
			return modern.Task{}, reference.NotFound(id)
		}
		if _, ok := s.b.modern[s.key(id)]; !ok {
			if s.b.missed == nil {
				s.b.missed = map[string]bool{}
			}
			s.b.missed[s.key(id)] = true
		}
	}
	t, err := s.find(id, caller)
	if err != nil {
		return modern.Task{}, err
	}
	return s.outTask(t), nil
}

func (s modernStore) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	if s.d == toctouCAS || s.d == updateResurrects {
		return s.swapInSteps(caller, expected, next)
	}
	n, err := s.inTask(next)
	if err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	cur, ok := s.b.modern[s.key(n.TaskID)]
	if ok && s.d == foreignConflicts && cur.Version != expected {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, n.TaskID)
	}
	cur, err = s.find(n.TaskID, caller)
	if err != nil {
		if s.d == swapOwnNotFound {
			// Swap has its own message, the same for a missing, expired or foreign
			// task: it leaks nothing, though it differs from Get's.
			return modern.Task{}, fmt.Errorf("swap: task not found: %s: %w", n.TaskID, reference.ErrNotFound)
		}
		return modern.Task{}, err
	}
	if cur.Version != expected && s.d != casIgnoresVersion {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, n.TaskID)
	}
	if (n.Owner != cur.Owner && s.d != swapOwnerMutable) || (n.CreatedAt != cur.CreatedAt && s.d != swapCreatedAtMutable) {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, n.TaskID)
	}
	switch s.d {
	case casIgnoresVersion:
		n.Version = cur.Version + 1
	case swapVersionFromNext:
		n.Version = next.Version + 1
	default:
		n.Version = expected + 1
	}
	s.b.modern[s.key(n.TaskID)] = n
	return s.outTask(n), nil
}

// swapInSteps is the Swap of the natural race mutants: it checks the version under the
// shared lock, prepares the new row outside it and stores it under the exclusive lock.
//   - toctou-cas: two Swaps with the same expected version can both pass the check, and
//     both succeed.
//   - update-resurrects: Swaps are serialised among themselves by their own lock (the
//     compare-and-swap holds), but Delete takes only the map lock, so a task deleted
//     between the check and the write is written back.
func (s modernStore) swapInSteps(caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if s.d == updateResurrects {
		s.b.wmu.Lock()
		defer s.b.wmu.Unlock()
	}
	s.b.mu.RLock()
	cur, err := s.find(next.TaskID, caller)
	s.b.mu.RUnlock()
	if err != nil {
		return modern.Task{}, err
	}
	if cur.Version != expected {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, next.TaskID)
	}
	if next.Owner != cur.Owner || next.CreatedAt != cur.CreatedAt {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, next.TaskID)
	}
	n, err := s.inTask(next)
	if err != nil {
		return modern.Task{}, err
	}
	n.Version = expected + 1
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.modern[s.key(n.TaskID)] = n
	return s.outTask(n), nil
}

func (s modernStore) Delete(ctx context.Context, id string) error {
	if err := s.ctxErr(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	k := s.key(id)
	if _, ok := s.b.modern[k]; !ok && s.d == deleteMissingFails {
		return reference.NotFound(id)
	}
	if t, ok := s.b.modern[k]; ok && s.d == deleteKeepsOwner {
		if s.b.formerOwner == nil {
			s.b.formerOwner = map[string]string{}
		}
		s.b.formerOwner[k] = t.Owner
	}
	delete(s.b.modern, k)
	return nil
}

func (s modernStore) Sweep(ctx context.Context) (int, error) {
	if err := s.ctxErr(ctx); err != nil {
		return 0, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	n := 0
	for k, t := range s.b.modern {
		if s.expired(t) || (s.d == sweepRemovesLive && t.TTL != nil) {
			delete(s.b.modern, k)
			n++
		}
	}
	return n, nil
}

// yield stands for a database round trip between a read and a write (the Oban guide's
// Repo.get, then Repo.update): a store that is two network calls away has that window
// whatever the battery does. The natural race mutants above do without it.
func yield() {
	for range 3 {
		runtime.Gosched()
	}
	time.Sleep(50 * time.Microsecond)
}
