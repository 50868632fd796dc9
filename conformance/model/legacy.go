package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy models a legacy store (docs/spec.md 1.1) and, through its F* methods, the legacy
// facade over it (1.2). Tasks are JSON objects in canonical form, keyed by id.
type Legacy struct {
	tasks map[string]legacy.Task
}

// NewLegacy returns an empty legacy model.
func NewLegacy() *Legacy { return &Legacy{tasks: map[string]legacy.Task{}} }

// Clone returns an independent copy.
func (m *Legacy) Clone() *Legacy {
	c := NewLegacy()
	for id, t := range m.tasks {
		c.tasks[id] = copyTask(t)
	}
	return c
}

// IDs lists the stored ids, sorted.
func (m *Legacy) IDs() []string {
	ids := make([]string, 0, len(m.tasks))
	for id := range m.tasks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Task returns a copy of the stored task.
func (m *Legacy) Task(id string) (legacy.Task, bool) {
	t, ok := m.tasks[id]
	if !ok {
		return nil, false
	}
	return copyTask(t), true
}

// Put stores task under id as it is (for a store that overwrote on Create, the
// L-CREATE-2 SHOULD reading, and for histories that learn created_at from the store).
func (m *Legacy) Put(id string, task legacy.Task) { m.tasks[id] = copyTask(task) }

// Equal reports whether two models hold the same tasks.
func (m *Legacy) Equal(o *Legacy) bool {
	if len(m.tasks) != len(o.tasks) {
		return false
	}
	for id, t := range m.tasks {
		u, ok := o.tasks[id]
		if !ok || !jsonvalue.Equal(map[string]any(t), map[string]any(u)) {
			return false
		}
	}
	return true
}

func copyTask(t legacy.Task) legacy.Task { return legacy.Task(jsonvalue.CloneObject(t)) }

func canonical(t legacy.Task) legacy.Task {
	if t == nil {
		return legacy.Task{}
	}
	v, err := jsonvalue.Normalize(map[string]any(t))
	if err != nil {
		panic(fmt.Sprintf("model: task with no JSON form: %v", err))
	}
	return legacy.Task(v.(map[string]any))
}

// LegacyStatus is a task's status: its status string, working when absent or not a
// string (L-CLEAN-1).
func LegacyStatus(t legacy.Task) reference.Status {
	if s, ok := t[legacy.KeyStatus].(string); ok {
		return reference.Status(s)
	}
	return reference.StatusWorking
}

// LegacyOwner is a task's owner: "" when absent or null (L-LIST-3); a non-string owner
// is NotStringOwner, an owner no principal can present.
func LegacyOwner(t legacy.Task) string {
	switch o := t[legacy.KeyOwner].(type) {
	case nil:
		return ""
	case string:
		return o
	}
	return NotStringOwner
}

// NotStringOwner stands for an owner that is present but not a string.
const NotStringOwner = "\x00not a string"

// Stamped is what Create stores (L-CREATE-1): meta with task_id, status working and
// created_at overriding the same keys.
func Stamped(id string, meta legacy.Task, createdAt int64) legacy.Task {
	t := canonical(meta)
	t[legacy.KeyTaskID] = id
	t[legacy.KeyStatus] = string(reference.StatusWorking)
	t[legacy.KeyCreatedAt] = json.Number(strconv.FormatInt(createdAt, 10))
	return t
}

// Create is L-CREATE-1/2 (the MUST reading and the SHOULD one: an existing id is
// ErrExists and is left untouched).
func (m *Legacy) Create(id string, meta legacy.Task, now int64) (legacy.Task, error) {
	if !ValidID(id) {
		return nil, reference.ErrorFor(reference.ErrInvalid, id)
	}
	if _, ok := m.tasks[id]; ok {
		return nil, reference.ErrorFor(reference.ErrExists, id)
	}
	t := Stamped(id, meta, now)
	m.tasks[id] = t
	return copyTask(t), nil
}

// Get is L-GET-1.
func (m *Legacy) Get(id string) (legacy.Task, error) {
	t, ok := m.tasks[id]
	if !ok {
		return nil, reference.NotFound(id)
	}
	return copyTask(t), nil
}

// Update is the shallow merge of L-UPDATE-1/2.
func (m *Legacy) Update(id string, changes legacy.Task) (legacy.Task, error) {
	t, ok := m.tasks[id]
	if !ok {
		return nil, reference.NotFound(id)
	}
	for k, v := range canonical(changes) {
		t[k] = v
	}
	return copyTask(t), nil
}

// UpdateIf is ConditionalUpdater.UpdateIf: Update when the status is one of allowed,
// else ErrConflict and nothing written.
func (m *Legacy) UpdateIf(id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	t, ok := m.tasks[id]
	if !ok {
		return nil, reference.NotFound(id)
	}
	if !slices.Contains(allowed, LegacyStatus(t)) {
		return nil, reference.ErrorFor(reference.ErrConflict, id)
	}
	return m.Update(id, changes)
}

// Delete is L-DELETE-1.
func (m *Legacy) Delete(id string) { delete(m.tasks, id) }

// Cancel is L-CANCEL-1: status cancelled, whatever it was.
func (m *Legacy) Cancel(id string) (legacy.Task, error) {
	return m.Update(id, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

// CleanupDue reports whether Cleanup(ttl) at now removes t (L-CLEAN-1): terminal, and
// now − created_at > ttl. A task without an integer created_at has no age and stays.
func CleanupDue(t legacy.Task, ttl time.Duration, now int64) bool {
	if !terminal(LegacyStatus(t)) {
		return false
	}
	n, ok := t[legacy.KeyCreatedAt].(json.Number)
	if !ok {
		return false
	}
	created, err := n.Int64()
	if err != nil {
		return false
	}
	// Ages are whole milliseconds, so comparing in nanoseconds is exact; the battery's
	// times are far from overflowing.
	return time.Duration(now-created)*time.Millisecond > ttl
}

// Cleanup is L-CLEAN-1; it returns the removed ids, sorted.
func (m *Legacy) Cleanup(ttl time.Duration, now int64) []string {
	var gone []string
	for _, id := range m.IDs() {
		if CleanupDue(m.tasks[id], ttl, now) {
			gone = append(gone, id)
			delete(m.tasks, id)
		}
	}
	return gone
}

func statusMatches(opts legacy.ListOptions, t legacy.Task) bool {
	return opts.Status == nil || string(LegacyStatus(t)) == *opts.Status
}

// CheckList judges the rows a store's List(opts) returned (L-LIST-1..4). ours tells the
// ids this check created from rows it must ignore (B-ISO-1: the backend may hold others).
// Each row of ours must be once, as stored and match Status; the answer as a whole must
// be one of L-LIST-4's readings (ReadList). It returns the rule broken and why, or "", nil.
func (m *Legacy) CheckList(opts legacy.ListOptions, rows []legacy.Task, ours func(id string) bool) (string, error) {
	if rule, err := m.eachRow(rows, ours, "L-LIST-1", map[string]bool{}, func(id string, r, want legacy.Task) (string, error) {
		if !jsonvalue.Equal(map[string]any(want), map[string]any(r)) {
			return "L-LIST-1", fmt.Errorf("returned task %q as %s, stored is %s", id, jsonvalue.Describe(map[string]any(r)), jsonvalue.Describe(map[string]any(want)))
		}
		if !statusMatches(opts, r) {
			return "L-LIST-1", fmt.Errorf("returned task %q with status %q for the status filter %q", id, LegacyStatus(r), *opts.Status)
		}
		return "", nil
	}); rule != "" {
		return rule, err
	}
	owned := map[string]OwnedRow{}
	for id, t := range m.tasks {
		if ours(id) {
			owned[id] = OwnedRow{Owner: LegacyOwner(t), Status: string(LegacyStatus(t))}
		}
	}
	a := ReadList(opts, owned, rows)
	if a.Honours || a.Ignores {
		return "", nil
	}
	return a.Broken(), fmt.Errorf("expected %s; got %s", a.Want(), a.Got())
}

// --- facade (docs/spec.md 1.2) ---

// FacadeCreate is L-F-CREATE-1: a non-empty owner is stamped over meta's.
func (m *Legacy) FacadeCreate(id string, meta legacy.Task, owner string, now int64) (legacy.Task, error) {
	meta = canonical(meta)
	if owner != "" {
		meta[legacy.KeyOwner] = owner
	}
	return m.Create(id, meta, now)
}

// FacadeGet is the facade's scoped Get (S-OWN-1/2): a denied task is not found.
func (m *Legacy) FacadeGet(id string, c reference.Caller, requireOwner bool) (legacy.Task, error) {
	t, ok := m.tasks[id]
	if !ok || !Visible(LegacyOwner(t), c, requireOwner) {
		return nil, reference.NotFound(id)
	}
	return copyTask(t), nil
}

// FacadeUpdate is the worker's Update (L-F-FIN-1): a write carrying status is refused with
// ErrTerminal on a terminal task and with ErrInvalidTransition against the table (a
// status that is not a known string included); other writes are not checked.
func (m *Legacy) FacadeUpdate(id string, changes legacy.Task) (legacy.Task, error) {
	raw, hasStatus := changes[legacy.KeyStatus]
	if !hasStatus {
		return m.Update(id, changes)
	}
	t, ok := m.tasks[id]
	if !ok {
		return nil, reference.NotFound(id)
	}
	from := LegacyStatus(t)
	to, _ := raw.(string)
	if terminal(from) {
		return nil, reference.ErrorFor(reference.ErrTerminal, id)
	}
	if !transition(from, reference.Status(to)) {
		return nil, reference.ErrorFor(reference.ErrInvalidTransition, id)
	}
	return m.Update(id, changes)
}

// FacadeCancel is the facade's scoped Cancel (L-F-SCOPE-1, L-F-CANCEL-1, L-F-FIN-1).
func (m *Legacy) FacadeCancel(id string, c reference.Caller, requireOwner bool) (legacy.Task, error) {
	t, err := m.FacadeGet(id, c, requireOwner)
	if err != nil {
		return nil, err
	}
	if terminal(LegacyStatus(t)) {
		return nil, reference.ErrorFor(reference.ErrTerminal, id)
	}
	return m.Cancel(id)
}

// FacadeListVisible is what the facade's List(opts, caller) may return (L-F-LIST-1): the
// caller's visible tasks matching the status filter, sorted by id; the facade returns
// min(Limit, len) of them in the store's order (Limit <= 0: none).
func (m *Legacy) FacadeListVisible(opts legacy.ListOptions, c reference.Caller, requireOwner bool) []legacy.Task {
	var out []legacy.Task
	for _, id := range m.IDs() {
		t := m.tasks[id]
		if statusMatches(opts, t) && Visible(LegacyOwner(t), c, requireOwner) {
			out = append(out, copyTask(t))
		}
	}
	return out
}

// FacadeCleanup is L-F-CLEAN-1: the store's Cleanup when it has one, else nothing and 0.
func (m *Legacy) FacadeCleanup(ttl time.Duration, now int64, hasCleaner bool) int {
	if !hasCleaner {
		return 0
	}
	return len(m.Cleanup(ttl, now))
}

// eachRow walks the rows of ours (a List's answer), marking each in seen, and judges
// each with the stored task it should be: a row returned twice, or of a task that does
// not exist, breaks rule; judge answers any other rule the row breaks, and why.
func (m *Legacy) eachRow(rows []legacy.Task, ours func(id string) bool, rule string, seen map[string]bool, judge func(id string, r, want legacy.Task) (string, error)) (string, error) {
	for _, r := range rows {
		id, _ := r[legacy.KeyTaskID].(string)
		if !ours(id) {
			continue
		}
		if seen[id] {
			return rule, fmt.Errorf("task %q returned twice", id)
		}
		seen[id] = true
		want, ok := m.tasks[id]
		if !ok {
			return rule, fmt.Errorf("returned task %q, which does not exist", id)
		}
		if broken, err := judge(id, r, want); broken != "" {
			return broken, err
		}
	}
	return "", nil
}

// CheckFList judges the rows of the facade's List(opts, caller) (L-F-LIST-1): each row
// once, visible to the caller (a leak breaks S-OWN-1), matching the status filter, equal
// to the stored task; at most Limit rows (none for Limit <= 0); and, while under the
// limit, every visible matching task of ours present.
func (m *Legacy) CheckFList(opts legacy.ListOptions, c reference.Caller, requireOwner bool, rows []legacy.Task, ours func(id string) bool) (string, error) {
	if opts.Limit != nil && len(rows) > max(*opts.Limit, 0) {
		return "L-F-LIST-1", fmt.Errorf("%d rows exceed Limit %d", len(rows), *opts.Limit)
	}
	seen := map[string]bool{}
	if rule, err := m.eachRow(rows, ours, "L-F-LIST-1", seen, func(id string, r, want legacy.Task) (string, error) {
		switch {
		case !Visible(LegacyOwner(want), c, requireOwner):
			return "S-OWN-1", fmt.Errorf("task %q owned by %q leaked to %s (require_owner %v)", id, LegacyOwner(want), c, requireOwner)
		case !statusMatches(opts, want):
			return "L-F-LIST-1", fmt.Errorf("returned task %q with status %q for the status filter %q", id, LegacyStatus(want), *opts.Status)
		case !jsonvalue.Equal(map[string]any(want), map[string]any(r)):
			return "L-F-LIST-1", fmt.Errorf("returned task %q as %s, stored is %s", id, jsonvalue.Describe(map[string]any(r)), jsonvalue.Describe(map[string]any(want)))
		}
		return "", nil
	}); rule != "" {
		return rule, err
	}
	if opts.Limit == nil || len(rows) < *opts.Limit {
		for _, t := range m.FacadeListVisible(opts, c, requireOwner) {
			if id := t[legacy.KeyTaskID].(string); ours(id) && !seen[id] {
				return "L-F-LIST-1", fmt.Errorf("task %q is visible to %s and matches, but is missing", id, c)
			}
		}
	}
	return "", nil
}
