package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

func mustErr(t *testing.T, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

func TestLegacyStoreRules(t *testing.T) {
	m := NewLegacy()
	got, err := m.Create("t1", legacy.Task{"status": "completed", "created_at": json.Number("5"), "task_id": "x", "a": map[string]any{"b": json.Number("1")}}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := legacy.Task{"task_id": "t1", "status": "working", "created_at": json.Number("1000"), "a": map[string]any{"b": json.Number("1")}}
	if !legacy.Equal(got, want) {
		t.Fatalf("Create: got %v, want %v", got, want)
	}
	_, err = m.Create("t1", legacy.Task{}, 2000)
	mustErr(t, err, reference.ErrExists, "Create of an existing id")
	for _, bad := range []string{"", "a\x00", "\xff", strings.Repeat("x", 513)} {
		_, err = m.Create(bad, legacy.Task{}, 0)
		mustErr(t, err, reference.ErrInvalid, "Create of an invalid id")
	}
	if _, err = m.Create(strings.Repeat("x", 512), legacy.Task{}, 0); err != nil {
		t.Fatalf("512-byte id refused: %v", err)
	}

	got, _ = m.Update("t1", legacy.Task{"a": map[string]any{"c": nil}, "n": nil})
	if !legacy.Equal(got, legacy.Task{"task_id": "t1", "status": "working", "created_at": json.Number("1000"), "a": map[string]any{"c": nil}, "n": nil}) {
		t.Fatalf("Update must replace nested objects and store null: %v", got)
	}
	_, err = m.Update("nope", legacy.Task{"a": 1})
	mustErr(t, err, reference.ErrNotFound, "Update of a missing id")
	if _, ok := m.Task("nope"); ok {
		t.Fatal("Update of a missing id created it")
	}

	_, err = m.UpdateIf("t1", []reference.Status{reference.StatusCompleted}, legacy.Task{"status": "failed"})
	mustErr(t, err, reference.ErrConflict, "UpdateIf with a status not allowed")
	if _, err = m.UpdateIf("t1", []reference.Status{reference.StatusWorking}, legacy.Task{"status": "completed"}); err != nil {
		t.Fatal(err)
	}

	// Cleanup: strictly older than ttl, terminal only.
	if _, err := m.Create("t2", legacy.Task{}, 1000); err != nil { // working: never removed
		t.Fatal(err)
	}
	if gone := m.Cleanup(time.Second, 2000); len(gone) != 0 {
		t.Fatalf("age == ttl removed %v", gone)
	}
	if gone := m.Cleanup(time.Second, 2001); len(gone) != 1 || gone[0] != "t1" {
		t.Fatalf("Cleanup at age ttl+1ms removed %v, want [t1]", gone)
	}
}

func TestLegacyCheckList(t *testing.T) {
	m := NewLegacy()
	for _, c := range []struct {
		id   string
		meta legacy.Task
	}{{"p/1", legacy.Task{"owner": "alice"}}, {"p/2", legacy.Task{"owner": "bob"}}, {"p/3", legacy.Task{}}} {
		if _, err := m.Create(c.id, c.meta, 0); err != nil {
			t.Fatal(err)
		}
	}
	ours := func(id string) bool { return strings.HasPrefix(id, "p/") }
	row := func(id string) legacy.Task { t, _ := m.Task(id); return t }
	alice := legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), Limit: new(5)}
	cases := []struct {
		name string
		opts legacy.ListOptions
		rows []legacy.Task
		rule string
	}{
		{"honours scope", alice, []legacy.Task{row("p/1"), row("p/3")}, ""},
		{"ignores both", alice, []legacy.Task{row("p/1"), row("p/2"), row("p/3")}, ""},
		{"limit 1 honoured", legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), Limit: new(1)}, []legacy.Task{row("p/3")}, ""},
		{"limit honoured, scope ignored", legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), Limit: new(1)}, []legacy.Task{row("p/2")}, "L-LIST-4"},
		{"scope ignored without limit, rows missing", legacy.ListOptions{Owner: legacy.AnonymousOwner()}, []legacy.Task{row("p/2"), row("p/3")}, "L-LIST-3"},
		{"missing own row", alice, []legacy.Task{row("p/3")}, "L-LIST-3"},
		{"twice", legacy.ListOptions{}, []legacy.Task{row("p/1"), row("p/1"), row("p/2"), row("p/3")}, "L-LIST-1"},
		{"limit exceeded", legacy.ListOptions{Limit: new(2)}, []legacy.Task{row("p/1"), row("p/3"), row("p/2")}, ""}, // all rows: ignores both
		{"limit exceeded within scope", legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), Limit: new(1)}, []legacy.Task{row("p/1"), row("p/3")}, "L-LIST-2"},
		{"limit 0 with rows", legacy.ListOptions{Limit: new(0), Owner: legacy.AnonymousOwner()}, []legacy.Task{row("p/3")}, "L-LIST-2"},
		{"wrong status", legacy.ListOptions{Status: new("completed")}, []legacy.Task{row("p/1")}, "L-LIST-1"},
		{"foreign rows ignored", legacy.ListOptions{Limit: new(1)}, []legacy.Task{{"task_id": "q/9"}}, ""},
	}
	for _, c := range cases {
		rule, err := m.CheckList(c.opts, c.rows, ours)
		if rule != c.rule {
			t.Errorf("%s: rule %q (%v), want %q", c.name, rule, err, c.rule)
		}
	}
}

func TestLegacyFacade(t *testing.T) {
	m := NewLegacy()
	if _, err := m.FacadeCreate("t", legacy.Task{"owner": "mallory"}, "alice", 0); err != nil {
		t.Fatal(err)
	}
	if tk, _ := m.Task("t"); LegacyOwner(tk) != "alice" {
		t.Fatalf("owner not stamped over meta's: %v", tk)
	}
	_, err := m.FacadeGet("t", reference.Principal("Alice"), false)
	mustErr(t, err, reference.ErrNotFound, "FGet by another principal")
	_, err = m.FacadeCancel("t", reference.Anonymous(), false)
	mustErr(t, err, reference.ErrNotFound, "FCancel by anonymous")
	if tk, _ := m.Task("t"); LegacyStatus(tk) != reference.StatusWorking {
		t.Fatal("denied cancel wrote")
	}
	_, err = m.FacadeUpdate("t", legacy.Task{"status": "Working"})
	mustErr(t, err, reference.ErrInvalidTransition, "FUpdate to an unknown status")
	if _, err = m.FacadeCancel("t", reference.Principal("alice"), true); err != nil {
		t.Fatal(err)
	}
	_, err = m.FacadeUpdate("t", legacy.Task{"status": "completed"})
	mustErr(t, err, reference.ErrTerminal, "FUpdate of a cancelled task")
	if _, err = m.FacadeUpdate("t", legacy.Task{"note": "x"}); err != nil {
		t.Fatalf("a write without status is not checked: %v", err)
	}
	if _, err = m.FacadeCreate("u", legacy.Task{}, "", 0); err != nil {
		t.Fatal(err)
	}
	if n := len(m.FacadeListVisible(legacy.ListOptions{}, reference.Anonymous(), true)); n != 0 {
		t.Fatalf("require_owner: anonymous sees %d unowned tasks", n)
	}
	if n := len(m.FacadeListVisible(legacy.ListOptions{}, reference.Anonymous(), false)); n != 1 {
		t.Fatalf("anonymous sees %d tasks, want the unowned one", n)
	}
}

func TestModernStore(t *testing.T) {
	m := NewModern()
	ttl := int64(1000)
	got, err := m.Create(modern.Task{TaskID: "t", Owner: "alice", CreatedAt: 5000, TTL: &ttl, Version: 7})
	if err != nil || got.Version != 1 {
		t.Fatalf("Create: %v %v, want version 1", got.Version, err)
	}
	if _, err := m.Get("t", reference.System(), 5999); err != nil {
		t.Fatalf("alive at created+ttl-1: %v", err)
	}
	_, err = m.Get("t", reference.System(), 6000)
	mustErr(t, err, reference.ErrNotFound, "Get at created+ttl")
	_, err = m.Create(modern.Task{TaskID: "t"})
	mustErr(t, err, reference.ErrExists, "Create over an expired task")
	_, err = m.Get("t", reference.Anonymous(), 0)
	mustErr(t, err, reference.ErrNotFound, "Get by anonymous of an owned task")

	next := got
	next.StatusMessage = "x"
	_, err = m.Swap(reference.Principal("bob"), 9, next, 0)
	mustErr(t, err, reference.ErrNotFound, "Swap of a foreign task with a stale version")
	_, err = m.Swap(reference.System(), 2, next, 0)
	mustErr(t, err, reference.ErrConflict, "stale Swap")
	bad := next
	bad.Owner = "bob"
	_, err = m.Swap(reference.System(), 1, bad, 0)
	mustErr(t, err, reference.ErrInvalid, "Swap changing the owner")
	if got, err = m.Swap(reference.Principal("alice"), 1, next, 0); err != nil || got.Version != 2 {
		t.Fatalf("Swap: %v %v", got.Version, err)
	}
	if n := m.Sweep(6000); n != 1 {
		t.Fatalf("Sweep removed %d, want 1", n)
	}
}

func TestModernFacade(t *testing.T) {
	f := Facade{DefaultTTL: time.Hour, MaxTTL: 2 * time.Hour}
	if ttl := f.TTL(new(3 * time.Hour)); ttl == nil || *ttl != 7_200_000 {
		t.Fatalf("ttl over the cap: %v", ttl)
	}
	if ttl := (Facade{MaxTTL: time.Minute}).TTL(nil); ttl == nil || *ttl != 60_000 {
		t.Fatalf("none with a cap must be the cap: %v", ttl)
	}
	if ttl := (Facade{}).TTL(new(1500 * time.Microsecond)); ttl == nil || *ttl != 2 {
		t.Fatalf("1.5 ms must round up to 2: %v", ttl)
	}
	m := NewModern()
	_, err := m.FacadeCreate(f, "x", CreateOptions{TTL: new(time.Duration(0))}, 0, nil)
	mustErr(t, err, reference.ErrInvalid, "ttl 0")
	hook := errors.New("boom")
	task, err := m.FacadeCreate(f, "t", CreateOptions{Owner: "alice"}, 100, hook)
	if !errors.Is(err, hook) || task.Status != reference.StatusFailed || task.Version != 2 || len(m.Notes) != 2 {
		t.Fatalf("hook failure: %v %v v%d notes %d", err, task.Status, task.Version, len(m.Notes))
	}

	if _, err := m.FacadeCreate(f, "u", CreateOptions{}, 100, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.FacadeRequireInput(f, "u", map[string]any{"k1": "q", "k2": "q"}, 200); err != nil {
		t.Fatal(err)
	}
	got, _ := m.FacadeUpdate(f, "u", reference.Anonymous(), map[string]any{"k1": "a", "zz": "ignored"}, 300)
	if got.Status != reference.StatusInputRequired || len(got.StagedResponses) != 1 || len(got.InputResponses) != 0 {
		t.Fatalf("partial answer: %+v", got)
	}
	before := len(m.Notes)
	if again, _ := m.FacadeUpdate(f, "u", reference.Anonymous(), map[string]any{"k1": "b"}, 300); again.Version != got.Version || len(m.Notes) != before {
		t.Fatal("answering a key twice wrote")
	}
	got, _ = m.FacadeUpdate(f, "u", reference.Anonymous(), map[string]any{"k2": "a"}, 300)
	if got.Status != reference.StatusWorking || len(got.InputResponses) != 2 || len(got.StagedResponses) != 0 {
		t.Fatalf("last answer: %+v", got)
	}
	_, err = m.FacadeRequireInput(f, "u", map[string]any{"k1": "again"}, 400)
	mustErr(t, err, reference.ErrKeyReused, "reissued key")
	if _, err = m.FacadeComplete(f, "u", map[string]any{"r": json.Number("1")}, 500); err != nil {
		t.Fatal(err)
	}
	cur, err := m.FacadeCancel(f, "u", reference.System(), 600)
	mustErr(t, err, reference.ErrTerminal, "Cancel of a completed task")
	if cur.Status != reference.StatusCompleted || cur.LastUpdatedAt != 500 {
		t.Fatalf("Cancel of a terminal task must answer it as it is: %+v", cur)
	}
	_, err = m.FacadeGet(Facade{RequireOwner: true}, "u", reference.Anonymous(), 600)
	mustErr(t, err, reference.ErrNotFound, "require_owner: anonymous Get of an unowned task")
}

func TestKind(t *testing.T) {
	hook := errors.New("hook")
	if Kind(errors.Join(errors.New("x"))) == nil || !SameKind(reference.NotFound("a"), reference.ErrorFor(reference.ErrNotFound, "b")) {
		t.Fatal("kinds")
	}
	if SameKind(nil, hook) || SameKind(hook, nil) || !SameKind(nil, nil) {
		t.Fatal("nil kinds")
	}
	if Kind(wrap(hook)) != hook {
		t.Fatal("Kind must unwrap to the cause")
	}
}

type wrapped struct{ err error }

func (w wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }
func wrap(err error) error      { return wrapped{err} }
