package wire

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonscan"
	"github.com/storecheck/storecheck/reference/modern"
)

// Hand-written JSON for the hot path of a round trip. Every function here is a fast path
// of an encoding/json or jsonvalue call it stands beside: it either gives exactly what
// that call gives (the same bytes when encoding; the same values when decoding) or says
// it cannot (ok false), and the caller then takes the slow path, which also writes the
// error messages. fastjson_test.go checks each against its slow twin.

// appendJSONString appends s quoted as encoding/json quotes it (HTML-escaped, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendArgs appends json.Marshal(v)'s bytes. The shapes requests are built of (maps of
// strings, integers, booleans, nested maps) are written directly; any other value is
// handed to json.Marshal, whose bytes for a value are the same inside a map as alone.
func appendArgs(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendJSONString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		var stack [8]string
		keys := stack[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendArgs(dst, x[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendModernTask appends json.Marshal(t)'s bytes (modern.Task.MarshalJSON, compacted
// by encoding/json): the keys of wireTask in order, maps through json.Marshal.
func appendModernTask(dst []byte, t modern.Task) ([]byte, error) {
	dst = append(dst, `{"task_id":`...)
	dst = appendJSONString(dst, t.TaskID)
	dst = append(dst, `,"owner":`...)
	if t.Owner == "" {
		dst = append(dst, "null"...)
	} else {
		dst = appendJSONString(dst, t.Owner)
	}
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, string(t.Status))
	dst = append(dst, `,"status_message":`...)
	dst = appendJSONString(dst, t.StatusMessage)
	dst = append(dst, `,"created_at_ms":`...)
	dst = strconv.AppendInt(dst, t.CreatedAt, 10)
	dst = append(dst, `,"last_updated_at_ms":`...)
	dst = strconv.AppendInt(dst, t.LastUpdatedAt, 10)
	dst = append(dst, `,"ttl_ms":`...)
	dst = appendIntPtr(dst, t.TTL)
	dst = append(dst, `,"poll_interval_ms":`...)
	dst = appendIntPtr(dst, t.PollInterval)
	var err error
	obj := func(key string, m map[string]any, nullable bool) {
		if err != nil {
			return
		}
		dst = append(dst, key...)
		switch {
		case m != nil && len(m) == 0:
			dst = append(dst, "{}"...) // json.Marshal's bytes for an empty map, without reflection
		case m != nil:
			var b []byte
			if b, err = json.Marshal(m); err == nil {
				dst = append(dst, b...)
			}
		case nullable:
			dst = append(dst, "null"...)
		default:
			dst = append(dst, "{}"...)
		}
	}
	obj(`,"result":`, t.Result, true)
	obj(`,"error":`, t.Error, true)
	obj(`,"input_requests":`, t.InputRequests, false)
	obj(`,"staged_responses":`, t.StagedResponses, false)
	obj(`,"input_responses":`, t.InputResponses, false)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"issued_keys":[`...)
	for i, k := range t.IssuedKeys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
	}
	dst = append(dst, `],"version":`...)
	dst = strconv.AppendInt(dst, t.Version, 10)
	return append(dst, '}'), nil
}

func appendIntPtr(dst []byte, p *int64) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, *p, 10)
}

// decodeModernFast reads a modern task's wire form straight into a modern.Task: ok is
// false when the answer is not exactly the fifteen keys, each once, or a value is not
// of its key's type or needs the slow path; modernFromObject then decodes it and words
// any error.
func decodeModernFast(raw []byte) (modern.Task, bool) {
	var buf [16]jsonscan.Field
	fields, ok := jsonscan.ScanObject(raw, buf[:0])
	if !ok || len(fields) != len(modernKeys) {
		return modern.Task{}, false
	}
	var t modern.Task
	for _, f := range fields {
		if !setModernFast(&t, modernKeyIndex(string(f.Key)), f.Val) {
			return modern.Task{}, false
		}
	}
	return t, true
}

// setModernFast sets the field of t at modernKeys[k] from its validated value v: false
// when v is not of the key's type or needs the slow path, or k is no key.
func setModernFast(t *modern.Task, k int, v []byte) bool {
	null := v[0] == 'n'
	switch k {
	case 0, 1, 2, 3: // task_id, owner, status, status_message
		var s string
		if !null || k == 0 || k == 2 {
			var ok bool
			if s, ok = jsonscan.PlainString(v); !ok {
				return false
			}
		}
		switch k {
		case 0:
			t.TaskID = s
		case 1:
			t.Owner = s
		case 2:
			t.Status = reference.Status(s)
		case 3:
			t.StatusMessage = s
		}
	case 4, 5, 14: // created_at_ms, last_updated_at_ms, version
		n, ok := plainInt(v)
		if !ok {
			return false
		}
		switch k {
		case 4:
			t.CreatedAt = n
		case 5:
			t.LastUpdatedAt = n
		case 14:
			t.Version = n
		}
	case 6, 7: // ttl_ms, poll_interval_ms
		if null {
			return true
		}
		n, ok := plainInt(v)
		if !ok {
			return false
		}
		if k == 6 {
			t.TTL = &n
		} else {
			t.PollInterval = &n
		}
	case 8, 9, 10, 11, 12: // the maps
		return null || setModernMapFast(t, k, v)
	case 13: // issued_keys
		return null || setIssuedKeysFast(t, v)
	default:
		return false
	}
	return true
}

// setModernMapFast sets the map field of t at modernKeys[k] (8 to 12) from v, not null.
func setModernMapFast(t *modern.Task, k int, v []byte) bool {
	if v[0] != '{' {
		return false
	}
	x, ok := jsonscan.Value(v)
	if !ok {
		return false
	}
	m := x.(map[string]any)
	switch k {
	case 8:
		t.Result = m
	case 9:
		t.Error = m
	case 10:
		t.InputRequests = m
	case 11:
		t.StagedResponses = m
	case 12:
		t.InputResponses = m
	}
	return true
}

// setIssuedKeysFast sets t.IssuedKeys from v, not null: false unless an array of plain
// strings.
func setIssuedKeysFast(t *modern.Task, v []byte) bool {
	if v[0] != '[' {
		return false
	}
	t.IssuedKeys = []string{}
	i := jsonscan.SkipWS(v, 1)
	if v[i] == ']' {
		return true
	}
	for {
		end := jsonscan.SkipValue(v, i)
		s, ok := jsonscan.PlainString(v[i:end])
		if !ok {
			return false
		}
		t.IssuedKeys = append(t.IssuedKeys, s)
		i = jsonscan.SkipWS(v, end)
		if v[i] == ']' {
			return true
		}
		i = jsonscan.SkipWS(v, i+1)
	}
}

// plainInt is a validated JSON number that is a plain integer literal in int64 range
// (what integer reads without its big.Rat fallback).
func plainInt(v []byte) (int64, bool) {
	neg := v[0] == '-'
	d := v
	if neg {
		d = v[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false // longer ones may overflow: leave them to integer
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func modernKeyIndex(k string) int {
	switch k {
	case "task_id":
		return 0
	case "owner":
		return 1
	case "status":
		return 2
	case "status_message":
		return 3
	case "created_at_ms":
		return 4
	case "last_updated_at_ms":
		return 5
	case "ttl_ms":
		return 6
	case "poll_interval_ms":
		return 7
	case "result":
		return 8
	case "error":
		return 9
	case "input_requests":
		return 10
	case "staged_responses":
		return 11
	case "input_responses":
		return 12
	case "issued_keys":
		return 13
	case "version":
		return 14
	}
	return -1
}
