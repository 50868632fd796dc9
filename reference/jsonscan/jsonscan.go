// Package jsonscan reads JSON text without reflection: a validating scanner and a
// decoder into the values jsonvalue.Decode makes (objects as map[string]any, arrays as
// []any, numbers as json.Number). Every function answers ok = false, rather than an
// error, for what it does not take (escaped keys, repeated keys, deep nesting,
// malformed text): the caller then takes encoding/json's slow path, which words the
// error. It serves the wire protocol's hot path and jsonvalue.Decode.
package jsonscan

import (
	"encoding/json"
	"unicode/utf8"
)

// Field is one member of a JSON object: its key (plain, without escapes) and the raw
// bytes of its value.
type Field struct {
	Key []byte // a plain string's bytes (no escapes), quotes excluded: no copy per key
	Val []byte
}

// ScanObject splits a JSON object into its members, in order. ok is false when b is not
// exactly one JSON object (surrounding whitespace allowed) or when a key has an escape
// or appears twice: the caller then takes its slow path. The values are validated.
func ScanObject(b []byte, dst []Field) (fields []Field, ok bool) {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return dst, SkipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, plain := SkipString(b, i)
		if end < 0 || !plain {
			return nil, false
		}
		key := b[i+1 : end-1]
		for _, f := range dst {
			if string(f.Key) == string(key) {
				return nil, false
			}
		}
		i = SkipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = SkipWS(b, i+1)
		vend := skipValue(b, i, 0)
		if vend < 0 {
			return nil, false
		}
		dst = append(dst, Field{Key: key, Val: b[i:vend]})
		i = SkipWS(b, vend)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case '}':
			return dst, SkipWS(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// maxFastDepth bounds the nesting skipValue and decode follow; deeper values take
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

// SkipString returns the end (after the closing quote) of the string at b[i], or -1
// when it is not a valid JSON string. plain is true when it has no escape and is valid
// UTF-8, so that its bytes between the quotes are its value.
func SkipString(b []byte, i int) (end int, plain bool) {
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

// SkipNumber returns the end of the JSON number (RFC 8259 section 6) at b[i], or -1. It
// takes text as bytes or as a string, so that checking a json.Number copies nothing.
func SkipNumber[T string | []byte](b T, i int) int {
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
		end, _ := SkipString(b, i)
		return end
	case c == '-' || c >= '0' && c <= '9':
		return SkipNumber(b, i)
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
		i = SkipWS(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i, _ = SkipString(b, i); i < 0 {
					return -1
				}
				i = SkipWS(b, i)
				if i >= len(b) || b[i] != ':' {
					return -1
				}
				i = SkipWS(b, i+1)
			}
			if i = skipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = SkipWS(b, i)
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i = SkipWS(b, i+1)
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

// Scalar reads a validated scalar the way jsonvalue.Decode does (numbers as
// json.Number). ok is false for a container or a string with an escape or invalid
// UTF-8 (the slow path decodes those).
func Scalar(raw []byte) (v any, ok bool) {
	switch raw[0] {
	case '"':
		if _, plain := SkipString(raw, 0); plain {
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

// decode is jsonvalue.Decode for a value ScanObject or skipValue validated: objects
// as map[string]any (a repeated key keeps its last value), arrays as []any, numbers as
// json.Number. ok is false when a string needs unescaping the slow way.
func decode(raw []byte, depth int) (v any, ok bool) {
	if v, ok := Scalar(raw); ok || (raw[0] != '{' && raw[0] != '[') {
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
		i := SkipWS(raw, 1)
		if raw[i] == ']' {
			return out, true
		}
		for {
			e, end, ok := element(raw, i, depth)
			if !ok {
				return nil, false
			}
			out = append(out, e)
			i = SkipWS(raw, end)
			if raw[i] == ']' {
				return out, true
			}
			i = SkipWS(raw, i+1)
		}
	}
	out := map[string]any{}
	i := SkipWS(raw, 1)
	if raw[i] == '}' {
		return out, true
	}
	for {
		kend, plain := SkipString(raw, i)
		if kend < 0 {
			return nil, false
		}
		var key string
		if plain {
			key = string(raw[i+1 : kend-1])
		} else if json.Unmarshal(raw[i:kend], &key) != nil {
			return nil, false
		}
		i = SkipWS(raw, SkipWS(raw, kend)+1)
		e, end, ok := element(raw, i, depth)
		if !ok {
			return nil, false
		}
		out[key] = e
		i = SkipWS(raw, end)
		if raw[i] == '}' {
			return out, true
		}
		i = SkipWS(raw, i+1)
	}
}

// element decodes the member or item at raw[i] of a container at depth; end is where
// the value stops.
func element(raw []byte, i, depth int) (v any, end int, ok bool) {
	end = skipValue(raw, i, 0)
	if end < 0 {
		return nil, end, false
	}
	v, ok = decode(raw[i:end], depth+1)
	return v, end, ok
}

// PlainString is a validated JSON string without escapes, as its value.
func PlainString(v []byte) (string, bool) {
	if v[0] != '"' {
		return "", false
	}
	if _, plain := SkipString(v, 0); !plain {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// SkipValue returns the end of the JSON value at b[i], or -1 when there is none (or it
// nests deeper than the fast path follows).
func SkipValue(b []byte, i int) int { return skipValue(b, i, 0) }

// Value decodes raw, one JSON value SkipValue validated, the way jsonvalue.Decode does.
// ok is false when it must take the slow path.
func Value(raw []byte) (v any, ok bool) { return decode(raw, 0) }

// Decode is jsonvalue.Decode's fast path: data must be exactly one JSON value,
// whitespace around it allowed.
func Decode(data []byte) (v any, ok bool) {
	i := SkipWS(data, 0)
	end := SkipValue(data, i)
	if end < 0 || SkipWS(data, end) != len(data) {
		return nil, false
	}
	return Value(data[i:end])
}
