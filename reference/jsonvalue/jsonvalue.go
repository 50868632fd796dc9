// Package jsonvalue is the in-memory form of JSON values that task stores keep: nil, bool,
// string, json.Number, []any and map[string]any. Numbers stay json.Number so that an
// integer up to ±(2^63−1) never passes through float64 (S-VAL-1).
//
// It deep-copies (S-VAL-4), decodes without float64, and compares the way the battery
// judges a round trip: structurally, with numbers equal when their exact decimal values
// are (so 1e-7 equals 1e-07 and 1.0 equals 1, but 9223372036854775807 does not equal
// 9223372036854775808).
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/storecheck/storecheck/reference/jsonscan"
)

// ErrNotJSON is wrapped by Normalize for values that have no JSON form.
var ErrNotJSON = errors.New("value has no JSON form")

// Decode parses one JSON value, keeping numbers as json.Number.
func Decode(data []byte) (any, error) {
	// The common case without reflection (adapters decode every task they read): the
	// same values, or ok = false and encoding/json below, which also words the errors.
	if v, ok := jsonscan.Decode(data); ok {
		return v, nil
	}
	return decodeSlow(data)
}

// decodeSlow is Decode through encoding/json.
func decodeSlow(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("jsonvalue: trailing data after JSON value")
	}
	return v, nil
}

// DecodeObject parses a JSON object, keeping numbers as json.Number.
func DecodeObject(data []byte) (map[string]any, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("jsonvalue: want a JSON object, got %s", Kind(v))
	}
	return m, nil
}

// Normalize returns a deep copy of v in canonical form: Go integers and floats become
// json.Number, typed maps and slices become map[string]any and []any, and anything else
// goes through encoding/json. It fails, wrapping ErrNotJSON, for values JSON cannot hold
// (NaN, channels, functions, maps with non-string keys).
func Normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool, string:
		return x, nil
	case json.Number:
		if !validNumber(string(x)) {
			return nil, fmt.Errorf("%w: invalid number %q", ErrNotJSON, string(x))
		}
		return x, nil
	case int, int8, int16, int32, int64:
		return json.Number(strconv.FormatInt(reflect.ValueOf(x).Int(), 10)), nil
	case uint, uint8, uint16, uint32, uint64:
		return json.Number(strconv.FormatUint(reflect.ValueOf(x).Uint(), 10)), nil
	case float32:
		return floatNumber(float64(x), 32)
	case float64:
		return floatNumber(x, 64)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case json.RawMessage:
		return decodeNormalized(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return decodeNormalized(b)
}

func decodeNormalized(b []byte) (any, error) {
	v, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return v, nil
}

func floatNumber(f float64, bits int) (any, error) {
	b, err := json.Marshal(f)
	if bits == 32 {
		b, err = json.Marshal(float32(f))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return json.Number(b), nil
}

// validNumber reports whether s is a JSON number literal (RFC 8259 section 6); it runs
// for every number a store copies in, so it scans rather than parses.
func validNumber(s string) bool { return jsonscan.SkipNumber(s, 0) == len(s) }

// Clone deep-copies a value already in canonical form. It is the fast path stores use
// to copy on the way in and out (S-VAL-4); values of other types are returned as they
// are, so call Normalize first on untrusted input.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return CloneObject(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}

// CloneObject deep-copies an object in canonical form; nil stays nil.
func CloneObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[k] = Clone(e)
	}
	return out
}

// Equal reports whether a and b are the same JSON value: same structure, same strings
// byte for byte, numbers equal as exact decimals. Non-canonical inputs are normalised
// first; a value with no JSON form is equal to nothing.
func Equal(a, b any) bool {
	na, err := Normalize(a)
	if err != nil {
		return false
	}
	nb, err := Normalize(b)
	if err != nil {
		return false
	}
	return equal(na, nb)
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && NumbersEqual(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// NumbersEqual compares two JSON numbers as exact decimals.
func NumbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	ra, ok1 := new(big.Rat).SetString(string(a))
	rb, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

// Describe renders v as compact JSON for failure messages; it never fails.
func Describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	const max = 600
	if len(b) > max {
		return string(b[:max]) + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return string(b)
}

// Kind names the JSON kind of a canonical value for messages ("a string", "null"); a
// value of no JSON kind is named by its Go type.
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// ErrNotUTF8 is wrapped by CheckUTF8.
var ErrNotUTF8 = errors.New("string is not valid UTF-8")

// CheckUTF8 reports the first string or key in v (a canonical value, or a []string) that
// is not valid UTF-8, with its path ("$.a[2]"). JSON text cannot carry such a string:
// encoding/json would turn it into U+FFFD without a word, so stores that keep JSON text
// refuse it instead of changing it.
func CheckUTF8(v any) error { return checkUTF8(v, "$") }

func checkUTF8(v any, path string) error {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return fmt.Errorf("%w: the string at %s", ErrNotUTF8, path)
		}
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) {
				return fmt.Errorf("%w: the key %q at %s", ErrNotUTF8, k, path)
			}
			if err := checkUTF8(e, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := checkUTF8(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case []string:
		for i, e := range x {
			if err := checkUTF8(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
