package wire

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/storecheck/storecheck/reference"
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

// field is one member of a JSON object: its key (plain, without escapes) and the raw
// bytes of its value.
type field struct {
	key []byte // a plain string's bytes (no escapes), quotes excluded: no copy per key
	val []byte
}

// scanObject splits a JSON object into its members, in order. ok is false when b is not
// exactly one JSON object (surrounding whitespace allowed) or when a key has an escape
// or appears twice: the caller then takes its slow path. The values are validated.
func scanObject(b []byte, dst []field) (fields []field, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return dst, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, plain := skipString(b, i)
		if end < 0 || !plain {
			return nil, false
		}
		key := b[i+1 : end-1]
		for _, f := range dst {
			if string(f.key) == string(key) {
				return nil, false
			}
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipWS(b, i+1)
		vend := skipValue(b, i, 0)
		if vend < 0 {
			return nil, false
		}
		dst = append(dst, field{key: key, val: b[i:vend]})
		i = skipWS(b, vend)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return dst, skipWS(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// maxFastDepth bounds the nesting skipValue and decodeFast follow; deeper values take
// the slow path.
const maxFastDepth = 64

// plainByte marks the bytes a JSON string holds as they are: printable ASCII but the
// quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipString returns the end (after the closing quote) of the string at b[i], or -1
// when it is not a valid JSON string. plain is true when it has no escape and is valid
// UTF-8, so that its bytes between the quotes are its value.
func skipString(b []byte, i int) (end int, plain bool) {
	plain = true
	ascii := true
	start := i + 1
	for i++; i < len(b); {
		for i < len(b) && plainByte[b[i]] { // the common bytes, in a tight loop
			i++
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(b[start:i]) {
				plain = false
			}
			return i + 1, plain
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return -1, false
					}
				}
				i += 6
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			i++
		}
	}
	return -1, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber returns the end of the JSON number at b[i], or -1.
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i
}

// skipValue returns the end of the JSON value at b[i], or -1 when there is none.
func skipValue(b []byte, i, depth int) int {
	if i >= len(b) || depth > maxFastDepth {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := skipString(b, i)
		return end
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	case c == 't':
		return skipLit(b, i, "true")
	case c == 'f':
		return skipLit(b, i, "false")
	case c == 'n':
		return skipLit(b, i, "null")
	case c == '[' || c == '{':
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i, _ = skipString(b, i); i < 0 {
					return -1
				}
				i = skipWS(b, i)
				if i >= len(b) || b[i] != ':' {
					return -1
				}
				i = skipWS(b, i+1)
			}
			if i = skipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case closer:
				return i + 1
			default:
				return -1
			}
		}
	}
	return -1
}

func skipLit(b []byte, i int, lit string) int {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// decodeScalar reads a validated scalar the way jsonvalue.Decode does (numbers as
// json.Number). ok is false for a container or a string with an escape or invalid
// UTF-8 (the slow path decodes those).
func decodeScalar(raw []byte) (v any, ok bool) {
	switch raw[0] {
	case '"':
		if _, plain := skipString(raw, 0); plain {
			return string(raw[1 : len(raw)-1]), true
		}
		return nil, false
	case 'n':
		return nil, true
	case 't':
		return true, true
	case 'f':
		return false, true
	case '{', '[':
		return nil, false
	}
	return json.Number(raw), true
}

// decodeFast is jsonvalue.Decode for a value scanObject or skipValue validated: objects
// as map[string]any (a repeated key keeps its last value), arrays as []any, numbers as
// json.Number. ok is false when a string needs unescaping the slow way.
func decodeFast(raw []byte, depth int) (v any, ok bool) {
	if v, ok := decodeScalar(raw); ok || (raw[0] != '{' && raw[0] != '[') {
		if !ok && raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, false
			}
			return s, true
		}
		return v, ok
	}
	if depth > maxFastDepth {
		return nil, false
	}
	if raw[0] == '[' {
		out := []any{}
		i := skipWS(raw, 1)
		if raw[i] == ']' {
			return out, true
		}
		for {
			end := skipValue(raw, i, 0)
			if end < 0 {
				return nil, false
			}
			e, ok := decodeFast(raw[i:end], depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, e)
			i = skipWS(raw, end)
			if raw[i] == ']' {
				return out, true
			}
			i = skipWS(raw, i+1)
		}
	}
	out := map[string]any{}
	i := skipWS(raw, 1)
	if raw[i] == '}' {
		return out, true
	}
	for {
		kend, plain := skipString(raw, i)
		if kend < 0 {
			return nil, false
		}
		var key string
		if plain {
			key = string(raw[i+1 : kend-1])
		} else if json.Unmarshal(raw[i:kend], &key) != nil {
			return nil, false
		}
		i = skipWS(raw, skipWS(raw, kend)+1)
		end := skipValue(raw, i, 0)
		if end < 0 {
			return nil, false
		}
		e, ok := decodeFast(raw[i:end], depth+1)
		if !ok {
			return nil, false
		}
		out[key] = e
		i = skipWS(raw, end)
		if raw[i] == '}' {
			return out, true
		}
		i = skipWS(raw, i+1)
	}
}

// decodeModernFast reads a modern task's wire form straight into a modern.Task: ok is
// false when the answer is not exactly the fifteen keys, each once, or a value is not
// of its key's type or needs the slow path; modernFromObject then decodes it and words
// any error.
func decodeModernFast(raw []byte) (modern.Task, bool) {
	var buf [16]field
	fields, ok := scanObject(raw, buf[:0])
	if !ok || len(fields) != len(modernKeys) {
		return modern.Task{}, false
	}
	var t modern.Task
	for _, f := range fields {
		v := f.val
		null := v[0] == 'n'
		switch k := modernKeyIndex(string(f.key)); k {
		case 0, 1, 2, 3: // task_id, owner, status, status_message
			var s string
			if !null || k == 0 || k == 2 {
				if s, ok = plainString(v); !ok {
					return modern.Task{}, false
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
				return modern.Task{}, false
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
				continue
			}
			n, ok := plainInt(v)
			if !ok {
				return modern.Task{}, false
			}
			if k == 6 {
				t.TTL = &n
			} else {
				t.PollInterval = &n
			}
		case 8, 9, 10, 11, 12: // the maps
			if null {
				continue
			}
			if v[0] != '{' {
				return modern.Task{}, false
			}
			x, ok := decodeFast(v, 0)
			if !ok {
				return modern.Task{}, false
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
		case 13: // issued_keys
			if null {
				continue
			}
			if v[0] != '[' {
				return modern.Task{}, false
			}
			t.IssuedKeys = []string{}
			i := skipWS(v, 1)
			if v[i] == ']' {
				continue
			}
			for {
				end := skipValue(v, i, 0)
				s, ok := plainString(v[i:end])
				if !ok {
					return modern.Task{}, false
				}
				t.IssuedKeys = append(t.IssuedKeys, s)
				i = skipWS(v, end)
				if v[i] == ']' {
					break
				}
				i = skipWS(v, i+1)
			}
		default:
			return modern.Task{}, false
		}
	}
	return t, true
}

// plainString is a validated JSON string without escapes, as its value.
func plainString(v []byte) (string, bool) {
	if v[0] != '"' {
		return "", false
	}
	if _, plain := skipString(v, 0); !plain {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
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
