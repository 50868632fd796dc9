package mutants

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Defects in the values a store keeps (S-VAL-*, M-FIELDS-1, timestamps): layers that
// mangle a value on its way in, and a hook that hands out the stored value itself.

// valueMutants are the value defects.
var valueMutants = []mutant.Mutant[Build]{
	{Name: "float-numbers", Breaks: []string{"S-VAL-1", "M-FIELDS-1"}, Defect: "numbers pass through float64 (9223372036854775807 comes back rounded)", Build: Build{both, valuesIn(floatNumber, nil)}},
	{Name: "sniffs-strings", Breaks: []string{"S-VAL-1", "L-UPDATE-1", "M-FIELDS-1"}, Defect: `strings that parse as JSON come back parsed: "123" as the number 123, "true" as true, "null" as null (a status message "null" as none)`, Build: Build{both, valuesIn(sniffString, nullMessage)}},
	{Name: "cuts-at-nul", Breaks: []string{"S-VAL-2"}, Defect: "strings are cut at U+0000 without an error", Build: Build{both, valuesIn(cutAtNUL[any], cutAtNUL[string])}},
	{Name: "aliases-values", Breaks: []string{"S-VAL-4"}, Defect: "returns the store's own maps: a caller's mutation changes the stored task", Build: Build{both, &wrapper{hooks: hooks{shareStored: true}, inProcessOnly: "values are serialised on the wire, so the caller never shares the store's memory"}}},
	{Name: "seconds-timestamps", Breaks: []string{"L-CREATE-1", "M-FIELDS-1", "M-CREATE-1"}, Defect: "timestamps are stored in seconds, not milliseconds", Build: Build{both, &wrapper{legacy: func(st legacyStore, _ *wrapState) legacy.Store { return legacySeconds{st} }, modern: func(st modernStore, _ *wrapState) modern.Store { return modernSeconds{st} }}}},
	{Name: "drops-ttl", Breaks: []string{"M-FIELDS-1", "M-SWEEP-1", "M-GET-1"}, Defect: "the ttl is not stored: every task lives forever", Build: Build{modernOnly, modernLayer(func(st modernStore) modern.Store { return ttlDropped{st} })}},
}

// valuesIn is a layer over both eras that normalises each value on its way in, then
// passes every number and string in it through leaf; message, when not nil, mangles a
// modern task's status message.
func valuesIn(leaf func(any) any, message func(string) string) *wrapper {
	m := mangler{leaf, message}
	return &wrapper{
		legacy: func(st legacyStore, _ *wrapState) legacy.Store { return legacyMangled{st, m} },
		modern: func(st modernStore, _ *wrapState) modern.Store { return modernMangled{st, m} },
	}
}

type mangler struct {
	leaf    func(any) any
	message func(string) string
}

// walk passes every leaf of v through m.leaf, in place.
func (m mangler) walk(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = m.walk(e)
		}
	case []any:
		for i, e := range x {
			x[i] = m.walk(e)
		}
	default:
		return m.leaf(v)
	}
	return v
}

// task mangles a legacy task; one that does not normalise goes in as it is, for the
// honest store to refuse.
func (m mangler) task(t legacy.Task) legacy.Task {
	n, err := legacy.Normalize(t)
	if err != nil {
		return t
	}
	return legacy.Task(m.walk(map[string]any(n)).(map[string]any))
}

type legacyMangled struct {
	legacyStore
	m mangler
}

func (s legacyMangled) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	return s.legacyStore.Create(ctx, id, s.m.task(meta))
}

func (s legacyMangled) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return s.legacyStore.Update(ctx, id, s.m.task(changes))
}

func (s legacyMangled) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return s.legacyStore.UpdateIf(ctx, id, allowed, s.m.task(changes))
}

type modernMangled struct {
	modernStore
	m mangler
}

// task mangles a modern task's maps and status message.
func (s modernMangled) task(t modern.Task) modern.Task {
	n, err := t.Normalize()
	if err != nil {
		return t
	}
	for _, f := range []map[string]any{n.Result, n.Error, n.InputRequests, n.StagedResponses, n.InputResponses} {
		s.m.walk(f)
	}
	if s.m.message != nil {
		n.StatusMessage = s.m.message(n.StatusMessage)
	}
	return n
}

func (s modernMangled) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	return s.modernStore.Create(ctx, s.task(task))
}

func (s modernMangled) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	return s.modernStore.Swap(ctx, caller, expected, s.task(next))
}

// floatNumber passes a number through float64.
func floatNumber(v any) any {
	if x, ok := v.(json.Number); ok {
		f, _ := x.Float64()
		b, _ := json.Marshal(f)
		return json.Number(b)
	}
	return v
}

// sniffString reads a string back as the JSON it looks like, as a store that keeps values
// as text and parses them back without their type would.
func sniffString(v any) any {
	x, ok := v.(string)
	if !ok {
		return v
	}
	var back any
	dec := json.NewDecoder(strings.NewReader(x))
	dec.UseNumber()
	if dec.Decode(&back) == nil && !dec.More() {
		return back
	}
	return v
}

// nullMessage reads a status message "null" back as the null it looks like: none.
func nullMessage(s string) string {
	if s == "null" {
		return ""
	}
	return s
}

// cutAtNUL cuts a string at U+0000.
func cutAtNUL[T any](v T) T {
	if x, ok := any(v).(string); ok {
		if i := strings.IndexByte(x, 0); i >= 0 {
			return any(x[:i]).(T)
		}
	}
	return v
}

// legacySeconds stamps created_at in seconds.
type legacySeconds struct{ legacyStore }

func (s legacySeconds) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	t, err := s.stamp(ctx, id, meta, s.now()/1000)
	if err != nil {
		return nil, err
	}
	return s.insert(id, t)
}

// modernSeconds stores the timestamps in seconds.
type modernSeconds struct{ modernStore }

func (s modernSeconds) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	task.CreatedAt /= 1000
	task.LastUpdatedAt /= 1000
	return s.modernStore.Create(ctx, task)
}

// ttlDropped does not store the ttl.
type ttlDropped struct{ modernStore }

func (s ttlDropped) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	task.TTL = nil
	return s.modernStore.Create(ctx, task)
}

func (s ttlDropped) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	next.TTL = nil
	return s.modernStore.Swap(ctx, caller, expected, next)
}
