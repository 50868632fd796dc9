package sharedspecs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy-era bodies of the value rules (S-VAL-1..4); the modern bodies live with the
// modern specs.

// deepValue is an object nested depth levels deep, alternating objects and arrays.
func deepValue(depth int) any {
	var v any = "bottom"
	for i := range depth {
		if i%2 == 0 {
			v = []any{v, json.Number(fmt.Sprint(i))}
		} else {
			v = map[string]any{fmt.Sprintf("level%d", i): v}
		}
	}
	return v
}

// scribble mutates every object and array inside v in place: the mutations a caller may
// make to values it passed or received (S-VAL-4).
func scribble(v any) {
	switch x := v.(type) {
	case legacy.Task:
		scribble(map[string]any(x))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		for _, k := range keys {
			switch x[k].(type) {
			case map[string]any, []any:
				scribble(x[k])
			default:
				x[k] = "scribbled"
			}
		}
		x["scribbled"] = true
	case []any:
		for i := range x {
			switch x[i].(type) {
			case map[string]any, []any:
				scribble(x[i])
			default:
				x[i] = "scribbled"
			}
		}
	}
}

// copyTask deep-copies a task for the spec's own expectations.
func copyTask(e *battery.Env, t legacy.Task) legacy.Task {
	c, err := legacy.Normalize(t)
	if err != nil {
		e.Fatalf("spec error: %v", err)
	}
	return c
}

// randomText is n bytes of printable text that does not compress to nothing.
func randomText(r *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func LegacyValues(s *battery.Suite) {
	s.It("S-VAL-1", "round-trips JSON values exactly through Create, Get, Update and List", func(e *battery.Env) {
		st := e.Legacy()
		values := battery.JSONValues()
		id := e.ID("val")
		input := fmt.Sprintf("Create(%s, %s)", battery.Literal(id), battery.Literal(values))
		got, err := st.Create(e.Ctx, id, values)
		e.RequireErr(err, nil, input)
		created, _ := got.CreatedAt()
		want := legacy.Stamp(id, values, created)
		battery.CheckTask(e, input+" returned", want, got)
		battery.CheckStored(e, st, id, want, input)
		var row legacy.Task
		for _, r := range battery.ListRows(e, st, legacy.ListOptions{}) {
			if r.ID() == id {
				row = r
			}
		}
		battery.CheckTask(e, "List({}) row "+battery.Literal(id), want, row)

		// The same values written by Update, at the top level and nested.
		id2 := e.ID("val")
		cur := battery.MustCreate(e, st, id2, legacy.Task{})
		for _, changes := range []legacy.Task{
			values,
			{"wrapped": map[string]any(values), "list": []any{map[string]any(values), map[string]any(values)}},
			{"deep": deepValue(40)},
		} {
			input := fmt.Sprintf("Update(%s, %s)", battery.Literal(id2), battery.Literal(changes))
			got, err := st.Update(e.Ctx, id2, changes)
			if !e.CheckErr(err, nil, input) {
				continue
			}
			cur = legacy.Merge(cur, changes)
			battery.CheckTask(e, input+" returned", cur, got)
			battery.CheckStored(e, st, id2, cur, input)
		}

		// Go values that are not yet canonical are stored as their JSON values.
		id3 := e.ID("val")
		native := legacy.Task{"i": int64(math.MaxInt64), "neg": int64(-math.MaxInt64), "f": 0.1, "tiny": 1e-7, "big": math.MaxFloat64, "u": uint32(7), "list": []any{1, "two", 3.5}}
		input = fmt.Sprintf("Create(%s, %s) with Go ints and floats", battery.Literal(id3), battery.Literal(native))
		got, err = st.Create(e.Ctx, id3, native)
		if e.CheckErr(err, nil, input) {
			created, _ := got.CreatedAt()
			battery.CheckStored(e, st, id3, legacy.Stamp(id3, native, created), input)
		}
	})

	s.It("S-VAL-2", "stores a string holding U+0000 exactly, or refuses it with ErrInvalid and changes nothing", func(e *battery.Env) {
		st := e.Legacy()
		cases := []legacy.Task{
			{"s": "a\x00b"},
			{"s": "\x00"},
			{"s": "end\x00", "other": "kept"},
			{"nested": map[string]any{"list": []any{"x\x00y"}}},
			{"k\x00ey": "value"},
		}
		for _, meta := range cases {
			id := e.ID("nul")
			const want = "success with the string intact, or an error wrapping ErrInvalid"
			createOrRefused(e, st, id, meta, fmt.Sprintf("Create(%s, %s)", battery.Literal(id), battery.Literal(meta)), reference.ErrInvalid, want)

			id = e.ID("nul")
			before := battery.MustCreate(e, st, id, legacy.Task{"s": "clean", "other": "kept"})
			updateOrRefused(e, st, id, before, meta, fmt.Sprintf("Update(%s, %s)", battery.Literal(id), battery.Literal(meta)), reference.ErrInvalid, want)
		}
	})

	s.It("S-VAL-3", "round-trips a task of 1 MiB, or refuses it with ErrTooLarge and changes nothing", func(e *battery.Env) {
		st := e.Legacy()
		r := rand.New(rand.NewPCG(uint64(e.Opts.Seed), 3))
		many := legacy.Task{}
		for i := range 4096 {
			many[fmt.Sprintf("k%04d", i)] = randomText(r, 250)
		}
		for _, big := range []legacy.Task{{"blob": randomText(r, 1<<20)}, many} {
			id := e.ID("big")
			const want = "success, or an error wrapping ErrTooLarge"
			createOrRefused(e, st, id, big, fmt.Sprintf("Create(%s, <%d keys, about 1 MiB>)", battery.Literal(id), len(big)), reference.ErrTooLarge, want)

			id = e.ID("big")
			before := battery.MustCreate(e, st, id, legacy.Task{"small": true})
			updateOrRefused(e, st, id, before, big, fmt.Sprintf("Update(%s, <%d keys, about 1 MiB>)", battery.Literal(id), len(big)), reference.ErrTooLarge, want)
		}
	})

	s.It("S-VAL-4", "keeps its own copies: mutating what a call returned or was passed never changes the stored task", func(e *battery.Env) {
		e.NotExercisedRemote(battery.RemoteCopies)
		st := e.Legacy()
		id := e.ID("copy")
		meta := legacy.Task{"obj": map[string]any{"k": "v", "in": map[string]any{"x": json.Number("1")}}, "arr": []any{"a", map[string]any{"x": json.Number("1")}, []any{"n"}}, "s": "str"}
		want := copyTask(e, meta)
		got, err := st.Create(e.Ctx, id, meta)
		e.RequireErr(err, nil, fmt.Sprintf("Create(%s, %s)", battery.Literal(id), battery.Literal(meta)))
		created, _ := got.CreatedAt()
		want = legacy.Stamp(id, want, created)
		scribble(meta)
		battery.CheckStored(e, st, id, want, "mutating the map passed to Create after it returned")
		scribble(got)
		battery.CheckStored(e, st, id, want, "mutating the task Create returned")
		g, _ := battery.Stored(e, st, id)
		scribble(g)
		battery.CheckStored(e, st, id, want, "mutating the task Get returned")

		changes := legacy.Task{"c": map[string]any{"d": []any{json.Number("1"), map[string]any{"e": "f"}}}, "obj": map[string]any{"new": []any{}}}
		want = legacy.Merge(want, copyTask(e, changes))
		got, err = st.Update(e.Ctx, id, changes)
		e.RequireErr(err, nil, fmt.Sprintf("Update(%s, %s)", battery.Literal(id), battery.Literal(changes)))
		scribble(changes)
		battery.CheckStored(e, st, id, want, "mutating the map passed to Update after it returned")
		scribble(got)
		battery.CheckStored(e, st, id, want, "mutating the task Update returned")

		for _, r := range battery.ListRows(e, st, legacy.ListOptions{}) {
			if r.ID() == id {
				scribble(r)
			}
		}
		battery.CheckStored(e, st, id, want, "mutating the row List returned")

		if cu, ok := st.(legacy.ConditionalUpdater); ok {
			changes := legacy.Task{"u": map[string]any{"v": []any{"w"}}}
			want = legacy.Merge(want, copyTask(e, changes))
			got, err := cu.UpdateIf(e.Ctx, id, []reference.Status{reference.StatusWorking}, changes)
			e.RequireErr(err, nil, fmt.Sprintf("UpdateIf(%s, [working], %s)", battery.Literal(id), battery.Literal(changes)))
			scribble(changes)
			battery.CheckStored(e, st, id, want, "mutating the map passed to UpdateIf after it returned")
			scribble(got)
			battery.CheckStored(e, st, id, want, "mutating the task UpdateIf returned")
		}
		if c, ok := st.(legacy.Canceler); ok {
			got, err := c.Cancel(e.Ctx, id)
			e.RequireErr(err, nil, fmt.Sprintf("Cancel(%s)", battery.Literal(id)))
			want = legacy.Merge(want, legacy.Task{legacy.KeyStatus: "cancelled"})
			scribble(got)
			battery.CheckStored(e, st, id, want, "mutating the task Cancel returned")
		}
		// The facade hands out copies too.
		fac := legacy.New(st)
		ft, err := fac.Get(e.Ctx, id, reference.System())
		e.RequireErr(err, nil, fmt.Sprintf("facade Get(%s, system)", battery.Literal(id)))
		scribble(ft)
		battery.CheckStored(e, st, id, want, "mutating the task the facade's Get returned")
	})
}

// createOrRefused judges a legacy Create(id, meta), described by input: accepted, the
// store holds meta exactly; refused with refusal, it holds nothing; any other answer
// fails with want.
func createOrRefused(e *battery.Env, st legacy.Store, id string, meta legacy.Task, input string, refusal error, want string) {
	got, err := st.Create(e.Ctx, id, meta)
	switch {
	case err == nil:
		created, _ := got.CreatedAt()
		battery.CheckStored(e, st, id, legacy.Stamp(id, meta, created), input)
	case errors.Is(err, refusal):
		battery.CheckGone(e, st, id, input+" (refused: nothing stored)")
	default:
		e.Check(false, input, want, err)
	}
}

// updateOrRefused is createOrRefused for an Update(id, changes) of the stored task
// before: accepted, the store holds the merge; refused, before is unchanged.
func updateOrRefused(e *battery.Env, st legacy.Store, id string, before, changes legacy.Task, input string, refusal error, want string) {
	_, err := st.Update(e.Ctx, id, changes)
	switch {
	case err == nil:
		battery.CheckStored(e, st, id, legacy.Merge(before, changes), input)
	case errors.Is(err, refusal):
		battery.CheckStored(e, st, id, before, input+" (refused: nothing changed)")
	default:
		e.Check(false, input, want, err)
	}
}
