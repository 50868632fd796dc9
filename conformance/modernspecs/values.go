package modernspecs

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// deep nests an array in an object depth times around a leaf.
func deep(depth int, leaf any) map[string]any {
	v := leaf
	for i := range depth {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"d": v}
		}
	}
	return map[string]any{"deep": v}
}

// scribble mutates every mutable part of t in place: what a careless caller does to
// a task it passed in or got back (S-VAL-4).
func scribble(t *modern.Task) {
	if t.TTL != nil {
		*t.TTL = 7
	}
	if t.PollInterval != nil {
		*t.PollInterval = 7
	}
	for _, m := range []map[string]any{t.Result, t.Error, t.InputRequests, t.StagedResponses, t.InputResponses} {
		for k, v := range m {
			switch x := v.(type) {
			case map[string]any:
				x["scribbled"] = true
				for kk := range x {
					if kk != "scribbled" {
						x[kk] = "scribbled"
					}
				}
			case []any:
				for i := range x {
					if mm, ok := x[i].(map[string]any); ok {
						mm["text"] = "scribbled"
					} else {
						x[i] = "scribbled"
					}
				}
			default:
				m[k] = "scribbled"
			}
		}
		if m != nil {
			m["added"] = "scribbled"
		}
	}
	for i := range t.IssuedKeys {
		t.IssuedKeys[i] = "scribbled"
	}
}

// rich is a task with every mutable part populated.
func rich(e *battery.Env, id string) modern.Task {
	t := Owned(e, id, "alice")
	t.TTL = MS(longTTL)
	t.PollInterval = MS(500)
	t.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "hello"}}, "meta": map[string]any{"n": json.Number("1")}}
	t.Error = modern.RPCError(-32000, "x", map[string]any{"why": []any{"a", "b"}})
	t.InputRequests = map[string]any{"q": map[string]any{"message": "?"}, "n": json.Number("3")}
	t.StagedResponses = map[string]any{"s": []any{json.Number("1"), "two"}}
	t.InputResponses = map[string]any{"r": map[string]any{"ok": true}}
	t.IssuedKeys = []string{"q", "n", "s", "r"}
	return t
}

func Values(s *battery.Suite) {
	s.It("S-VAL-1", "JSON values round-trip exactly in every JSON field of a modern task", func(e *battery.Env) {
		st := e.Modern()
		in := task(e, e.ID("json"))
		in.Result = Tricky()
		in.Error = modern.RPCError(-32603, "ünïcödé 🎉", Tricky())
		in.InputRequests = Tricky()
		in.StagedResponses = Tricky()
		in.InputResponses = Tricky()
		cur, ok := roundTrip(e, st, in, 0)
		if !ok {
			return
		}
		next := cur.Clone()
		next.Result = deep(64, json.Number("-9223372036854775808"))
		next.InputRequests = map[string]any{"k": Tricky()}
		next.StagedResponses = map[string]any{"": []any{Tricky(), nil, json.Number("1e-7")}}
		roundTrip(e, st, next, cur.Version)
	})

	s.It("S-VAL-2", "a U+0000 in a modern task round-trips exactly or is refused with ErrInvalid", func(e *battery.Env) {
		st := e.Modern()
		cases := []struct {
			what string
			set  func(*modern.Task)
		}{
			{"status_message", func(t *modern.Task) { t.StatusMessage = "before\x00after" }},
			{"a string in result", func(t *modern.Task) { t.Result = map[string]any{"text": "a\x00b", "n": "\x00"} }},
			{"an object key in input_requests", func(t *modern.Task) { t.InputRequests = map[string]any{"k\x00ey": "v"} }},
			{"a string in error.data", func(t *modern.Task) { t.Error = modern.RPCError(1, "m\x00", []any{"\x00\x00"}) }},
			{"an issued key", func(t *modern.Task) { t.IssuedKeys = []string{"a\x00", "b"} }},
		}
		for _, c := range cases {
			// Create.
			in := task(e, e.ID("nul"))
			c.set(&in)
			call := "Create(" + battery.Literal(in) + ") with U+0000 in " + c.what
			createOrRefused(e, st, in, call, reference.ErrInvalid, "success with the value intact, or ErrInvalid")
			// Swap into a clean task.
			cur := CreateTask(e, st, task(e, e.ID("nul-swap")))
			next := Next(cur, "")
			c.set(&next)
			call = SwapCall(reference.System(), cur.Version, next) + " with U+0000 in " + c.what
			swapOrRefused(e, st, cur, next, call, reference.ErrInvalid, "success with the value intact, or ErrInvalid")
		}
	})

	s.It("S-VAL-3", "a modern task of 1 MiB round-trips, or is refused with ErrTooLarge and changes nothing", func(e *battery.Env) {
		st := e.Modern()
		big := map[string]any{"content": []any{map[string]any{"type": "text", "text": longText(1 << 20)}}}
		in := task(e, e.ID("big"))
		in.Result = big
		call := "Create(" + battery.Literal(in) + ") of 1 MiB"
		createOrRefused(e, st, in, call, reference.ErrTooLarge, "success, or ErrTooLarge")
		cur := CreateTask(e, st, task(e, e.ID("grow")))
		next := Next(cur, "grown")
		next.Result = big
		call = SwapCall(reference.System(), cur.Version, next) + " growing the task to 1 MiB"
		swapOrRefused(e, st, cur, next, call, reference.ErrTooLarge, "success, or ErrTooLarge")
	})

	s.It("S-VAL-4", "the modern store copies values in and out", func(e *battery.Env) {
		e.NotExercisedRemote(battery.RemoteCopies)
		st := e.Modern()
		in := rich(e, e.ID("copy"))
		want := WithVersion(in.Clone(), 1)
		got, err := st.Create(e.Ctx, in)
		e.RequireErr(err, nil, "setup: Create("+battery.Literal(in)+")")
		scribble(&in)
		CheckStored(e, st, want, "mutating the task passed to Create after it returned")
		scribble(&got)
		CheckStored(e, st, want, "mutating the task Create returned")
		for _, c := range []reference.Caller{reference.System(), reference.Principal("alice")} {
			r, err := st.Get(e.Ctx, want.TaskID, c)
			e.RequireErr(err, nil, fmt.Sprintf("Get(%s, %s)", battery.Literal(want.TaskID), c))
			scribble(&r)
			CheckStored(e, st, want, fmt.Sprintf("mutating the task Get(%s, %s) returned", battery.Literal(want.TaskID), c))
		}

		next := rich(e, want.TaskID)
		next.CreatedAt = want.CreatedAt
		next.StatusMessage = "swapped"
		wantNext := WithVersion(next.Clone(), 2)
		sw, err := st.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "setup: "+SwapCall(reference.System(), 1, next))
		scribble(&next)
		CheckStored(e, st, wantNext, "mutating the task passed to Swap after it returned")
		scribble(&sw)
		CheckStored(e, st, wantNext, "mutating the task Swap returned")

		// Two reads never share values either.
		a, _ := Stored(e, st, want.TaskID)
		b, _ := Stored(e, st, want.TaskID)
		scribble(&a)
		CheckTask(e, "mutating one Get's answer, then comparing another's", wantNext, b)
	})

	s.It("S-VAL-4", "a task's maps are not shared with the caller's nested values", func(e *battery.Env) {
		e.NotExercisedRemote(battery.RemoteCopies)
		st := e.Modern()
		shared := map[string]any{"inner": map[string]any{"v": "original"}}
		in := task(e, e.ID("alias"))
		in.Result = map[string]any{"a": shared}
		in.InputRequests = map[string]any{"b": shared}
		want := WithVersion(in.Clone(), 1)
		CreateTask(e, st, in)
		shared["inner"].(map[string]any)["v"] = "changed"
		shared["new"] = strings.Repeat("x", 3)
		CheckStored(e, st, want, "mutating a nested object the caller passed to Create")
	})
}
