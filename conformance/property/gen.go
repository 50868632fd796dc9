package property

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"pgregory.net/rapid"
)

// Generators shared by the property checks of both eras: tricky ids, owners, keys and
// JSON values (the cases of S-ID-2, S-OWN-3 and S-VAL-1), drawn so that rapid shrinks
// towards the plainest one (the first of each list).

// idSuffixes make a check's ids from its prefix: separators, wildcards, case, non-ASCII
// and one id of exactly 512 bytes.
var idSuffixes = []string{"a", "A", "a:b", "{a}", "a%", "a_*", "é🙂", "\u05d0\u0301"}

// idPool returns the valid ids of one check (prefix + each suffix, plus a 512-byte id)
// and ids every store must refuse or not find (S-ID-2).
func idPool(prefix string) (valid, invalid []string) {
	for _, s := range idSuffixes {
		valid = append(valid, prefix+s)
	}
	valid = append(valid, prefix+strings.Repeat("x", reference.MaxIDBytes-len(prefix)))
	invalid = []string{"", prefix + "\x00", prefix + "\xff", prefix + strings.Repeat("y", reference.MaxIDBytes+1-len(prefix))}
	return valid, invalid
}

// drawID picks an id of the pool; about one draw in twelve is an invalid one.
func drawID(t *rapid.T, valid, invalid []string) string {
	if len(invalid) > 0 && rapid.IntRange(0, 11).Draw(t, "invalid id?") == 11 {
		return rapid.SampledFrom(invalid).Draw(t, "invalid id")
	}
	// The first three ids come up most, so that operations meet on one task.
	if rapid.Bool().Draw(t, "common id?") {
		return valid[rapid.IntRange(0, 2).Draw(t, "id")]
	}
	return rapid.SampledFrom(valid).Draw(t, "id")
}

// owners are distinct principals that a sloppy comparison would merge (S-OWN-3).
var owners = []string{"alice", "Alice", "alice ", "al\u0456ce", "bob", "%", "a*", "_"}

func drawOwner(t *rapid.T) string { return rapid.SampledFrom(owners).Draw(t, "owner") }

// drawCaller picks the system, anonymous or a principal.
func drawCaller(t *rapid.T) reference.Caller {
	switch rapid.IntRange(0, 3).Draw(t, "caller kind") {
	case 0:
		return reference.System()
	case 1:
		return reference.Anonymous()
	}
	return reference.Principal(drawOwner(t))
}

// keys are object keys that document stores treat specially.
var keys = []string{"a", "b", "a.b", "$x", "_id", "", "кл"}

// values are JSON values in canonical form that must round-trip exactly (S-VAL-1).
var values = []any{
	json.Number("1"), nil, true, false, "", "text",
	json.Number("9223372036854775807"), json.Number("-9223372036854775808"),
	json.Number("0.1"), json.Number("1e-7"), json.Number("1.7976931348623157e308"),
	"\U0001F600 \u05e9\u05dc\u05d5\u05dd e\u0301", " text ", "\ttext\n",
	map[string]any{}, []any{},
	map[string]any{"n": map[string]any{"x": json.Number("1")}}, map[string]any{"n": map[string]any{"y": json.Number("2")}},
	map[string]any{"": json.Number("1"), "a.b": map[string]any{"$x": []any{json.Number("1"), nil, "x"}}},
}

func drawValue(t *rapid.T) any {
	return jsonvalue.Clone(rapid.SampledFrom(values).Draw(t, "value"))
}

// drawObject draws an object of min..max keys.
func drawObject(t *rapid.T, min, max int) map[string]any {
	n := rapid.IntRange(min, max).Draw(t, "keys")
	out := make(map[string]any, n)
	for range n {
		out[rapid.SampledFrom(keys).Draw(t, "key")] = drawValue(t)
	}
	return out
}

// statusNames are the statuses plus near misses a status filter must not match.
var statusNames = []string{"working", "work", "completed", "Working", "input_required", "failed", "cancelled"}

func statuses() []reference.Status { return reference.Statuses() }

// scrub writes a case's id prefix (new on every run and replay) as P/, so that traces
// of two runs with one seed compare equal (B-REPRO-1) and rapid sees one failure as the
// same on every replay while it shrinks. The pool's padded ids, whose padding depends on
// the prefix's length (a counter), are written by their length alone.
func scrub(s, prefix string) string {
	if prefix == "" {
		return s
	}
	// Quoted forms escape nothing in a prefix of [a-z0-9/-], so one pass suffices.
	s = strings.ReplaceAll(s, prefix, "P/")
	return padded.ReplaceAllStringFunc(s, func(m string) string {
		return fmt.Sprintf("P/%c…(%d bytes)", m[2], len(m)-2+len(prefix))
	})
}

// fixedPrefix makes a case's id prefix from a fresh id, padded to one width, so that
// nothing derived from it (a padded id, a value cut at a length) depends on the counter
// inside the id: two runs with one seed then describe their cases alike (B-REPRO-1).
func fixedPrefix(id string) string {
	const width = 24
	if len(id) < width {
		id += strings.Repeat("-", width-len(id))
	}
	return id + "/"
}

// padded matches a scrubbed padded id of idPool: P/ then a run of x or y.
var padded = regexp.MustCompile(`P/(x{16,}|y{16,})`)

// ruleFault renders a model divergence: the rule broken, its text, the call, what the
// model expected and what came back.
func ruleFault(id, input string, want, got any) string {
	r, ok := rules.ByID(id)
	text := id
	if ok {
		text = r.String()
	}
	return fmt.Sprintf("%s\n  input:    %s\n  expected: %s\n  got:      %s", text, input, battery.Show(want), battery.Show(got))
}

// readAll reads every id of a machine's state check at once and returns the answers in
// the ids' order. Nothing else runs between two steps, so the reads see one state
// whatever their order; at once, a store behind a network pays one round trip for them
// instead of one each.
func readAll[T any](ids []string, get func(id string) (T, error)) ([]T, []error) {
	gots, errs := make([]T, len(ids)), make([]error, len(ids))
	var cs battery.Clients // a panicking store panics in the case's goroutine, as when read in turn
	for i, id := range ids {
		cs.Run(i, func() { gots[i], errs[i] = get(id) })
	}
	cs.Wait()
	return gots, errs
}
