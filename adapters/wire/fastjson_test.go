package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonscan"
	"github.com/storecheck/storecheck/reference/modern"
)

// The fast paths of fastjson.go must give exactly what their encoding/json twins give.

var oddStrings = []string{"", "plain", "<a href='x'>&amp;</a>", "quote\" back\\slash", "nul\x00ctl\x01\x1f\b\f\n\r\t",
	"\u2028\u2029", "héllo wörld ✓ 😀", "bad\xffutf8\xc3", "\x7f", "9223372036854775807"}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range oddStrings {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestAppendArgsMatchesEncodingJSON(t *testing.T) {
	for _, v := range []any{
		map[string]any{},
		map[string]any{"task_id": "t<1>", "caller": callerArg(reference.System())},
		map[string]any{"caller": callerArg(reference.Principal("p&q")), "expected_version": int64(-9223372036854775808), "task": json.RawMessage(`{"a":1}`)},
		map[string]any{"now_ms": (*int64)(nil), "ms": 5, "b": true, "n": nil, "f": 1.5, "l": []string{"x"}, "m": map[string]any(nil)},
		map[string]any{"z": 1, "a": 2, "é": 3, "A": map[string]any{"y": "\x00", "b": []any{1, "2"}}, "k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5, "k6": 6, "k7": 7},
	} {
		want, werr := json.Marshal(v)
		got, err := appendArgs(nil, v)
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
			t.Errorf("appendArgs(%v) = %s, %v; want %s, %v", v, got, err, want, werr)
		}
	}
	if _, err := appendArgs(nil, map[string]any{"c": make(chan int)}); err == nil {
		t.Error("appendArgs of a channel: no error")
	}
}

func TestAppendModernTaskMatchesMarshalJSON(t *testing.T) {
	ttl := int64(86_400_000)
	for i, task := range []modern.Task{
		{},
		{TaskID: "t1", Status: reference.StatusWorking, CreatedAt: 1, LastUpdatedAt: 2, TTL: &ttl, Version: 3},
		{TaskID: oddStrings[2], Owner: oddStrings[3], Status: "completed", StatusMessage: oddStrings[4], PollInterval: &ttl,
			Result: map[string]any{"n": json.Number("9223372036854775807"), "s": "\x00<"}, Error: map[string]any{},
			InputRequests: map[string]any{"a": []any{}}, StagedResponses: map[string]any{"b": nil}, InputResponses: map[string]any{"c": true},
			IssuedKeys: []string{"k1", oddStrings[5]}, Version: -1},
	} {
		want, werr := json.Marshal(task)
		got, err := appendModernTask(nil, task)
		if !bytes.Equal(got, want) || werr != nil || err != nil {
			t.Errorf("task %d: appendModernTask = %s, %v; json.Marshal = %s, %v", i, got, err, want, werr)
		}
	}
}

func TestAppendAnswerModernTaskMatchesMarshal(t *testing.T) {
	task := modern.Task{TaskID: "t", Status: reference.StatusWorking, Result: map[string]any{"x": json.Number("1e400")}}
	raw, _ := json.Marshal(task)
	want := `{"id":7,"ok":` + string(raw) + "}\n"
	if got := appendAnswer(nil, 7, task, nil); string(got) != want {
		t.Errorf("appendAnswer = %s, want %s", got, want)
	}
	bad := modern.Task{TaskID: "t", Result: map[string]any{"c": make(chan int)}}
	if got := appendAnswer(nil, 8, bad, nil); !bytes.Contains(got, []byte(`"code":"internal"`)) {
		t.Errorf("appendAnswer of an unencodable task = %s, want an internal error", got)
	}
}

var fastSeeds = []string{
	`{"id":1,"ok":null}`,
	`{"id":2,"error":{"code":"not_found","message":"task not found: t1"}}`,
	`{"id":2,"error":{"code":"x","message":null}}`,
	`{"id":2,"error":{"code":null}}`,
	`{"id":2,"error":{"code":"a\u0062"}}`,
	`{"id":7.0,"ok":1}`, `{"id":-0,"ok":1}`, `{"id":1e2,"ok":1}`, `{"id":"1","ok":1}`,
	`{"id":1,"ok":1,"ok":2}`, `{"i\u0064":1,"ok":1}`, `{"ID":1,"OP":"x","args":{}}`,
	` { "id" : 3 , "op" : "modern.get" , "args" : { "task_id" : "t\u0000" , "caller" : { "scope" : "system" } } } `,
	`{"id":3,"op":"x","args":null}`, `{"id":3,"op":"x","args":[1]}`, `{"id":3,"op":5,"args":{}}`,
	`{"id":9223372036854775808,"op":"x","args":{}}`, `{"id":4,"op":"x","args":{"a":1,"a":2}}`,
	`{"id":5,"ok":{"task_id":"t","owner":null,"status":"working","status_message":"","created_at_ms":1,"last_updated_at_ms":1,"ttl_ms":null,"poll_interval_ms":5,"result":null,"error":{"e":[1,{"f":"\ud83d\ude00"}]},"input_requests":{},"staged_responses":{},"input_responses":{},"issued_keys":["k"],"version":1}}`,
	`{"id":5,"ok":{"task_id":"t","owner":null,"status":"working","status_message":null,"created_at_ms":1.0,"last_updated_at_ms":1,"ttl_ms":null,"poll_interval_ms":5,"result":null,"error":null,"input_requests":null,"staged_responses":{},"input_responses":{},"issued_keys":null,"version":1}}`,
	"{\"id\":11,\"ok\":\"\xff\"}", `{"id":1,"ok":[1,2,]}`, `{"id":1,"ok":01}`, `{"id":1,"ok":"\x"}`, `{"id":1,"ok":tru}`,
	`{"id":1,"ok":-}`, `{"id":1,"ok":1.}`, `{"id":1,"ok":1e}`, `{}`, `{"id":1,}`, `[]`, `null`,
}

// FuzzFastJSON checks every fast decoder against its slow twin: whatever the fast path
// accepts, the slow path accepts with the same result.
func FuzzFastJSON(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}

func TestFastJSONSeeds(t *testing.T) {
	for _, s := range fastSeeds {
		checkFast(t, []byte(s))
	}
}

func checkFast(t *testing.T, line []byte) {
	t.Helper()
	// The generic scanner and decoder are checked against encoding/json in
	// reference/jsonscan (FuzzDecode); here, what the wire's own fast paths build on them.
	if _, ok := jsonscan.ScanObject(line, nil); ok && !json.Valid(line) {
		t.Fatalf("ScanObject accepts %q, encoding/json does not", line)
	}
	if utf8.Valid(line) {
		if a, ok := decodeAnswerFast(line); ok {
			want, err := decodeAnswerSlow(line)
			if err != nil || a.ID != want.ID || !bytes.Equal(a.OK, want.OK) || (a.Err == nil) != (want.Err == nil) ||
				a.Err != nil && (*a.Err != *want.Err) {
				t.Fatalf("decodeAnswerFast(%q) = %+v; slow path = %+v, %v", line, a, want, err)
			}
			if a.OK != nil {
				if task, ok := decodeModernFast(a.OK); ok {
					m, err := decodeObject(a.OK, "a modern task")
					var want modern.Task
					if err == nil {
						want, err = modernFromObject(m)
					}
					if err != nil || !reflect.DeepEqual(task, want) {
						t.Fatalf("decodeModernFast(%q) = %+v; slow path = %+v, %v", a.OK, task, want, err)
					}
				}
			}
		}
	}
	if id, op, args, ok := decodeRequestFast(line); ok {
		wid, wop, wargs, bad, err := decodeRequestSlow(line)
		if bad != "" || err != nil || id != wid || op != wop || !reflect.DeepEqual(args, wargs) {
			t.Fatalf("decodeRequestFast(%q) = %d %q %#v; slow path = %d %q %#v %q %v", line, id, op, args, wid, wop, wargs, bad, err)
		}
	}
}
