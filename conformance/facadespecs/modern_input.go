package facadespecs

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// inputState is the input-related part of a task that the M-F-INPUT specs judge.
type inputState struct {
	Status    reference.Status
	Requests  map[string]any // outstanding
	Staged    map[string]any
	Responses map[string]any
	Issued    [][]string // issued keys by call: order across calls, any order within one
	Version   int64
}

// checkInput checks got (a call's answer or the stored task) against want.
func checkInput(e *battery.Env, input string, want inputState, got modern.Task) bool {
	ok := got.Status == want.Status && mapSame(got.InputRequests, want.Requests) &&
		mapSame(got.StagedResponses, want.Staged) && mapSame(got.InputResponses, want.Responses) &&
		issuedMatch(got.IssuedKeys, want.Issued) && got.Version == want.Version
	if ok {
		return true
	}
	return e.Check(false, input, jsonvalue.Describe(map[string]any{
		"status": want.Status, "input_requests": want.Requests, "staged_responses": want.Staged,
		"input_responses": want.Responses, "issued_keys (grouped by call)": want.Issued, "version": want.Version,
	}), got)
}

func mapSame(a, b map[string]any) bool {
	return (len(a) == 0 && len(b) == 0) || jsonvalue.Equal(a, b)
}

// issuedMatch reports whether keys are the groups in order, each group in any order.
func issuedMatch(keys []string, groups [][]string) bool {
	for _, g := range groups {
		if len(keys) < len(g) {
			return false
		}
		a, b := slices.Clone(keys[:len(g)]), slices.Clone(g)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return false
		}
		keys = keys[len(g):]
	}
	return len(keys) == 0
}

// inputStep runs one facade call and checks its answer and the stored task.
func inputStep(e *battery.Env, st modern.Store, input string, want inputState, got modern.Task, err error, wantErr error) {
	if !e.CheckErr(err, wantErr, input) {
		return
	}
	if wantErr == nil {
		checkInput(e, input+" returned", want, got)
	}
	stored, ok := modernspecs.Stored(e, st, got.TaskID)
	if got.TaskID == "" || !ok {
		return
	}
	checkInput(e, "after "+input+": store Get", want, stored)
}

// aliceTask is where the input specs start: the era's store, a facade over it, and the
// id of a task alice owns, created through the facade.
func aliceTask(e *battery.Env) (modern.Store, modern.Facade, string) {
	st := e.Modern()
	f := battery.ModernFacade(e)
	return st, f, createThrough(e, f, modern.CreateOptions{Owner: "alice"}).TaskID
}

func ModernInput(s *battery.Suite) {
	s.It("M-F-INPUT-1", "RequireInput adds requests, records issued keys, clears the last round's responses; a reused key is ErrKeyReused", func(e *battery.Env) {
		st, f, id := aliceTask(e)
		alice := reference.Principal("alice")
		reqA := map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "A?"}}
		reqB := map[string]any{"method": "sampling/createMessage", "n": json.Number("9223372036854775807")}

		got, err := f.RequireInput(e.Ctx, id, map[string]any{"b": reqB, "a": reqA})
		w := inputState{Status: reference.StatusInputRequired, Requests: map[string]any{"a": reqA, "b": reqB}, Issued: [][]string{{"a", "b"}}, Version: 2}
		inputStep(e, st, "RequireInput("+battery.Literal(id)+", {a, b})", w, got, err, nil)

		got, err = f.Update(e.Ctx, id, alice, map[string]any{"a": "yes", "b": "no"})
		w = inputState{Status: reference.StatusWorking, Responses: map[string]any{"a": "yes", "b": "no"}, Issued: w.Issued, Version: 3}
		inputStep(e, st, "Update("+battery.Literal(id)+", alice, {a, b})", w, got, err, nil)

		// Round 2: the delivered answers of round 1 are cleared.
		got, err = f.RequireInput(e.Ctx, id, map[string]any{"c": "C?"})
		w = inputState{Status: reference.StatusInputRequired, Requests: map[string]any{"c": "C?"}, Issued: [][]string{{"a", "b"}, {"c"}}, Version: 4}
		inputStep(e, st, "RequireInput("+battery.Literal(id)+", {c}) after round 1 was delivered", w, got, err, nil)

		// More requests while c is outstanding join the outstanding set.
		got, err = f.RequireInput(e.Ctx, id, map[string]any{"d": "D?", "e": "E?"})
		w = inputState{Status: reference.StatusInputRequired, Requests: map[string]any{"c": "C?", "d": "D?", "e": "E?"}, Issued: [][]string{{"a", "b"}, {"c"}, {"d", "e"}}, Version: 5}
		inputStep(e, st, "RequireInput("+battery.Literal(id)+", {d, e}) while c is outstanding", w, got, err, nil)

		// Reuse of any key issued before, delivered or outstanding, alone or mixed.
		for _, reuse := range []map[string]any{{"a": "again"}, {"c": "again"}, {"f": "new", "b": "again"}, {"e": "E?"}} {
			_, err = f.RequireInput(e.Ctx, id, reuse)
			input := fmt.Sprintf("RequireInput(%s, %s) reusing an issued key", battery.Literal(id), jsonvalue.Describe(reuse))
			e.CheckErr(err, reference.ErrKeyReused, input)
			if stored, ok := modernspecs.Stored(e, st, id); ok {
				checkInput(e, "after "+input+": store Get", w, stored)
			}
		}

		// Finishing round 2 delivers c, d, e only.
		got, err = f.Update(e.Ctx, id, alice, map[string]any{"c": 1, "d": 2, "e": 3})
		w = inputState{Status: reference.StatusWorking, Responses: map[string]any{"c": json.Number("1"), "d": json.Number("2"), "e": json.Number("3")}, Issued: w.Issued, Version: 6}
		inputStep(e, st, "Update("+battery.Literal(id)+", alice, {c, d, e})", w, got, err, nil)

		// A reused key is refused after the task went back to working, too.
		_, err = f.RequireInput(e.Ctx, id, map[string]any{"d": "D?"})
		e.CheckErr(err, reference.ErrKeyReused, "RequireInput("+battery.Literal(id)+", {d}) once round 2 is delivered")
		if stored, ok := modernspecs.Stored(e, st, id); ok {
			checkInput(e, "after the refused RequireInput: store Get", w, stored)
		}
	})

	s.It("M-F-INPUT-2", "Update stages answers, ignores unknown and repeated keys, and delivers all at once", func(e *battery.Env) {
		st, f, id := aliceTask(e)
		alice := reference.Principal("alice")

		// Nothing outstanding: nothing to apply, nothing written, no error.
		got, err := f.Update(e.Ctx, id, alice, map[string]any{"x": "unasked"})
		w := inputState{Status: reference.StatusWorking, Version: 1}
		inputStep(e, st, "Update("+battery.Literal(id)+", alice, {x}) with nothing outstanding", w, got, err, nil)

		_, err = f.RequireInput(e.Ctx, id, map[string]any{"a": "A?", "b": "B?", "c": "C?"})
		e.RequireErr(err, nil, "setup: RequireInput("+battery.Literal(id)+", {a, b, c})")
		issued := [][]string{{"a", "b", "c"}}
		ansA := map[string]any{"action": "accept", "content": modernspecs.Tricky()}

		got, err = f.Update(e.Ctx, id, alice, map[string]any{"a": ansA, "zz": "unknown"})
		w = inputState{Status: reference.StatusInputRequired, Requests: map[string]any{"b": "B?", "c": "C?"}, Staged: map[string]any{"a": ansA}, Issued: issued, Version: 3}
		inputStep(e, st, "Update("+battery.Literal(id)+", alice, {a, zz}): a partial answer and an unknown key", w, got, err, nil)

		for _, ignored := range []map[string]any{{"a": "second answer"}, {"zz": true}, {}, nil} {
			got, err = f.Update(e.Ctx, id, alice, ignored)
			inputStep(e, st, fmt.Sprintf("Update(%s, alice, %s): nothing outstanding answered", battery.Literal(id), jsonvalue.Describe(ignored)), w, got, err, nil)
		}

		got, err = f.Update(e.Ctx, id, alice, map[string]any{"b": nil, "a": "overwrite?"})
		w = inputState{Status: reference.StatusInputRequired, Requests: map[string]any{"c": "C?"}, Staged: map[string]any{"a": ansA, "b": nil}, Issued: issued, Version: 4}
		inputStep(e, st, "Update("+battery.Literal(id)+", alice, {b: null, a}): b staged, a answered before", w, got, err, nil)

		got, err = f.Update(e.Ctx, id, alice, map[string]any{"c": false})
		w = inputState{Status: reference.StatusWorking, Responses: map[string]any{"a": ansA, "b": nil, "c": false}, Issued: issued, Version: 5}
		inputStep(e, st, "Update("+battery.Literal(id)+", alice, {c}): the last answer delivers all", w, got, err, nil)

		for _, late := range []map[string]any{{"c": "again"}, {"a": "again", "b": "again"}} {
			got, err = f.Update(e.Ctx, id, alice, late)
			inputStep(e, st, fmt.Sprintf("Update(%s, alice, %s) after delivery", battery.Literal(id), jsonvalue.Describe(late)), w, got, err, nil)
		}

		// Next round: only its own answers are delivered.
		_, err = f.RequireInput(e.Ctx, id, map[string]any{"d": "D?"})
		e.RequireErr(err, nil, "setup: RequireInput("+battery.Literal(id)+", {d})")
		got, err = f.Update(e.Ctx, id, alice, map[string]any{"d": "dee", "a": "stale"})
		w = inputState{Status: reference.StatusWorking, Responses: map[string]any{"d": "dee"}, Issued: append(issued, []string{"d"}), Version: 7}
		inputStep(e, st, "Update("+battery.Literal(id)+", alice, {d, a}) in round 2", w, got, err, nil)
	})
}
