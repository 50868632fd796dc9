package mutants

import (
	"context"
	"sort"
	"sync"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// obanGuideMutants are the Oban guide "Using Oban for MCP Tasks" (ConduitMCP's design
// documents), its reference code transcribed to Go as it is written: ObanTaskStore
// (legacy) with the worker's update_task as Update, and the modern store as its worker
// drives it (read, then write). Where the Elixir is silent or would fail for reasons
// that are no part of the guide's design (Ecto's NaiveDateTime seconds for created_at,
// validate_inclusion on status, free keys of the task), the transcription takes the
// charitable reading, so that the battery judges the design, not the transcription;
// adapters/riverstore/README.md lists each reading. What is left are the defects the
// guide really has: to_map returns no owner (L-OWNER-1), list pushes limit down while
// ignoring owners (L-LIST-4), and update_task reads, then writes, without a lock or
// version (L-CONC-1; M-SWAP-4 in the modern store).
var obanGuideMutants = []mutant.Mutant[Build]{
	{
		Name: "oban-guide-legacy",
		// L-LIST-3 fails too, as a consequence of L-OWNER-1: an id created again under
		// another owner is stored without one, so the scope of callers without an owner
		// lists it. Not S-CONC-1: its
		// state machine stops on the missing owner and files it under L-CREATE-1 (the
		// task read back lost the owner key of its metadata, a consequence of
		// L-OWNER-1), so S-CONC-1 is inconclusive; the column-wise Repo.update races
		// no status away.
		Breaks: []string{"L-OWNER-1", "L-LIST-4", "L-CONC-1"},
		Defect: "the Oban guide's ObanTaskStore as written: no owner column (to_map returns no owner), " +
			"list with limit pushed down and owners ignored, update_task read then write without a lock",
		Build: Build{Eras: legacyOnly},
	},
	{
		Name: "oban-guide-modern-worker",
		// Not S-CONC-1: its linearizability check catches the read-then-write Swap
		// only in some runs, so it cannot be a kill requirement.
		Breaks: []string{"M-SWAP-4", "M-F-FIN-2"},
		Defect: "the Oban guide's worker update on the modern store: the version is checked on a read, " +
			"then the row written without it (read, then write: no lock, no CAS)",
		Build: Build{Eras: modernOnly},
	},
}

// ownStore is a mutant that is a store of its own rather than the defect store with one
// defect switched on.
type ownStore struct {
	harness func() harness.Harness
	stores  func(reference.Clock) (legacy.Store, modern.Store)
}

// ownStores are those mutants, by name.
var ownStores = map[string]ownStore{
	"oban-guide-legacy": {
		harness: func() harness.Harness { return guideHarness{name: "mutant oban-guide-legacy"} },
		stores:  guideStores,
	},
	"oban-guide-modern-worker": {
		harness: func() harness.Harness { return guideHarness{name: "mutant oban-guide-modern-worker"} },
		stores:  guideStores,
	},
}

func guideStores(clock reference.Clock) (legacy.Store, modern.Store) {
	g := newGuideBackend(clock)
	return g.legacy(), g.modern()
}

// guideBackend is one namespace: the honest backend's maps hold the task rows, and jobs
// the state of each task's Oban job (create_with_job inserts both).
type guideBackend struct {
	b *backend

	mu   sync.Mutex
	jobs map[string]string // task id → job state
}

func newGuideBackend(clock reference.Clock) *guideBackend {
	return &guideBackend{b: newBackend(clock), jobs: map[string]string{}}
}

func (g *guideBackend) legacy() legacy.Store {
	return guideLegacy{g: g, s: legacyStore{&store{b: g.b}}}
}

func (g *guideBackend) modern() modern.Store {
	return guideModern{modernStore{&store{b: g.b}}}
}

// guideHarness shares one guideBackend between a namespace's instances (the guide's
// Postgres shape: every node on one database).
type guideHarness struct{ name string }

func (h guideHarness) Name() string { return h.name }

func (h guideHarness) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true, Clock: true, Shared: true}
}

func (h guideHarness) Open(ctx context.Context, clock reference.Clock) (harness.Namespace, error) {
	return guideNamespace{newGuideBackend(clock)}, nil
}

type guideNamespace struct{ g *guideBackend }

func (n guideNamespace) Legacy(ctx context.Context) (legacy.Store, error) { return n.g.legacy(), nil }
func (n guideNamespace) Modern(ctx context.Context) (modern.Store, error) { return n.g.modern(), nil }
func (n guideNamespace) Close(ctx context.Context) error                  { return nil }

// guideLegacy is MyApp.ObanTaskStore. It has no cleanup and no conditional update (the
// guide's store has neither), so the facade uses its fallbacks.
type guideLegacy struct {
	g *guideBackend
	s legacyStore // the row storage: an honest map under a mutex
}

// withoutOwner is what Ecto's cast/3 leaves of the attributes: the schema has no owner
// field, so owner is dropped without a word.
func withoutOwner(t legacy.Task) legacy.Task {
	if _, ok := t[legacy.KeyOwner]; !ok {
		return t
	}
	c := t.Clone()
	delete(c, legacy.KeyOwner)
	return c
}

// Create is create_with_job: the task row, the job and the link in one transaction.
func (l guideLegacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	t, err := l.s.Create(ctx, id, withoutOwner(meta))
	if err != nil {
		return nil, err
	}
	l.g.mu.Lock()
	l.g.jobs[id] = "available"
	l.g.mu.Unlock()
	return t, nil
}

// Get is get/1 with to_map/1: the row as it is (it never had an owner).
func (l guideLegacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	return l.s.Get(ctx, id)
}

// Update is the worker's update_task/2: Repo.get, then Repo.update of the changeset,
// with nothing held in between. A row deleted in between makes Repo.update raise
// (Ecto.StaleEntryError): not found, never a resurrection.
//
// Repo.update writes only the columns the changeset changed (UPDATE ... SET of the
// changed fields), not the whole row, so the write is column by column: status and
// result are columns of their own, and every other free key of the task lives in the
// one metadata map column (the charitable reading of the guide, which casts a whole
// metadata: map). A changed metadata column is written whole, from the stale read merged
// with the changes; that is the lost update of L-CONC-1 (two Updates of disjoint keys
// both rewrite the one column). Columns the changeset did not change keep what the row
// holds at the time of the write.
func (l guideLegacy) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := legacy.Normalize(withoutOwner(changes))
	if err != nil {
		return nil, err
	}
	b := l.g.b
	b.mu.Lock()
	cur, ok := b.legacy[id]
	b.mu.Unlock()
	if !ok {
		return nil, reference.NotFound(id)
	}
	cur = cur.Clone()
	merged := legacy.Merge(cur, c) // the changeset applied to the struct Repo.get loaded
	yield()                        // the round trip between Repo.get and Repo.update
	b.mu.Lock()
	defer b.mu.Unlock()
	row, ok := b.legacy[id]
	if !ok {
		return nil, reference.NotFound(id)
	}
	next := row.Clone()
	for _, col := range []string{guideColKey, guideColStatus, guideColResult, guideColMetadata} {
		if guideColumnEqual(col, cur, merged) {
			continue // not in the changeset's changes: not written
		}
		for k := range next {
			if guideColumn(k) == col {
				delete(next, k)
			}
		}
		for k, v := range merged {
			if guideColumn(k) == col {
				next[k] = jsonvalue.Clone(v)
			}
		}
	}
	b.legacy[id] = next
	// Repo.update returns the loaded struct with the changes applied, not the row read back.
	return merged, nil
}

// The columns of the guide's mcp_tasks table a task key lives in.
const (
	// task_id and created_at (inserted_at): the guide's changeset does not cast them, so
	// Repo.update would drop them; the charitable reading writes them like a column of
	// their own, so that L-UPDATE-1 judges the design and not the cast list.
	guideColKey      = "key"
	guideColStatus   = "status"
	guideColResult   = "result"
	guideColMetadata = "metadata"
)

func guideColumn(key string) string {
	switch key {
	case legacy.KeyTaskID, legacy.KeyCreatedAt:
		return guideColKey
	case legacy.KeyStatus:
		return guideColStatus
	case "result":
		return guideColResult
	}
	return guideColMetadata
}

// guideColumnEqual reports whether column col holds the same value in a and b (Ecto's
// cast records no change for a field whose new value equals the loaded one).
func guideColumnEqual(col string, a, b legacy.Task) bool {
	pick := func(t legacy.Task) map[string]any {
		m := map[string]any{}
		for k, v := range t {
			if guideColumn(k) == col {
				m[k] = v
			}
		}
		return m
	}
	return jsonvalue.Equal(pick(a), pick(b))
}

// Cancel is cancel/1: Repo.get, Oban.cancel_job (a failure only logged), then
// Repo.update to cancelled: a plain write, as docs/spec.md allows a store's Cancel.
func (l guideLegacy) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	if _, err := l.s.Get(ctx, id); err != nil {
		return nil, err
	}
	l.g.mu.Lock()
	if st := l.g.jobs[id]; st == "available" || st == "scheduled" || st == "executing" {
		l.g.jobs[id] = "cancelled"
	}
	l.g.mu.Unlock()
	return l.Update(ctx, id, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

// Delete is Repo.delete (the guide's store has none; the framework needs one).
func (l guideLegacy) Delete(ctx context.Context, id string) error {
	if err := l.s.Delete(ctx, id); err != nil {
		return err
	}
	l.g.mu.Lock()
	delete(l.g.jobs, id)
	l.g.mu.Unlock()
	return nil
}

// List is list/1: order_by inserted_at desc, where status, limit: the limit goes into
// the query, the owner scope goes nowhere (the table has no owner to filter on).
func (l guideLegacy) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := l.g.b
	b.mu.Lock()
	rows := make([]legacy.Task, 0, len(b.legacy))
	for _, t := range b.legacy {
		if opts.Status == nil || string(t.Status()) == *opts.Status {
			rows = append(rows, t.Clone())
		}
	}
	b.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool {
		ci, _ := rows[i].CreatedAt()
		cj, _ := rows[j].CreatedAt()
		if ci != cj {
			return ci > cj
		}
		return rows[i].ID() < rows[j].ID()
	})
	if opts.Limit != nil {
		// limit(query, ^l): LIMIT 0 is no rows; a negative LIMIT, which Postgres would
		// refuse, is read as no rows too.
		n := max(*opts.Limit, 0)
		if n < len(rows) {
			rows = rows[:n]
		}
	}
	return rows, nil
}

// guideModern is the modern store as the guide's worker writes it: the version is
// compared on a read, and the row written afterwards without it.
type guideModern struct{ modernStore }

func (s guideModern) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	n, err := s.inTask(next)
	if err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	cur, err := s.find(n.TaskID, caller)
	s.b.mu.Unlock()
	switch {
	case err != nil:
		return modern.Task{}, err
	case cur.Version != expected:
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, n.TaskID)
	case n.Owner != cur.Owner || n.CreatedAt != cur.CreatedAt:
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, n.TaskID)
	}
	yield() // the round trip between the read and the write
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if _, ok := s.b.modern[n.TaskID]; !ok {
		return modern.Task{}, reference.NotFound(n.TaskID)
	}
	n.Version = expected + 1
	s.b.modern[n.TaskID] = n
	return s.outTask(n), nil
}
