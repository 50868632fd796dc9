package jsonvalue

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestEqual(t *testing.T) {
	same := [][2]any{
		{json.Number("9223372036854775807"), int64(math.MaxInt64)},
		{json.Number("-9223372036854775808"), int64(math.MinInt64)},
		{json.Number("18446744073709551615"), uint64(math.MaxUint64)},
		{json.Number("1e-7"), json.Number("1e-07")},
		{json.Number("1.0"), json.Number("1")},
		{json.Number("0.1"), 0.1},
		{json.Number("1.7976931348623157e308"), math.MaxFloat64},
		{int8(-3), json.Number("-3")},
		{map[string]any{"": nil, "a.b": []any{true, "x"}, "$x": map[string]any{}}, map[string]any{"$x": map[string]any{}, "a.b": []any{true, "x"}, "": nil}},
		{[]int{1, 2}, []any{json.Number("1"), json.Number("2")}},
		{map[string]int{"a": 1}, map[string]any{"a": json.Number("1")}},
		{"𝄞 مرحبا e\u0301", "𝄞 مرحبا e\u0301"},
		{nil, nil},
		{json.RawMessage(`{"n": 12345678901234567890}`), map[string]any{"n": json.Number("12345678901234567890")}},
	}
	for _, p := range same {
		if !Equal(p[0], p[1]) || !Equal(p[1], p[0]) {
			t.Errorf("S-VAL-1: Equal(%s, %s): want true", Describe(p[0]), Describe(p[1]))
		}
	}
	differ := [][2]any{
		{json.Number("9223372036854775807"), json.Number("9223372036854775808")},
		{int64(math.MaxInt64), json.Number("9223372036854775806")},
		{int64(math.MinInt64), json.Number("-9223372036854775807")},
		{int64(math.MaxInt64), float64(math.MaxInt64)}, // the float is 2^63
		{json.Number("0.1"), json.Number("0.10000000000000001")},
		{"", nil},
		{false, nil},
		{json.Number("0"), false},
		{"1", json.Number("1")},
		{map[string]any{}, []any{}},
		{map[string]any{"a": nil}, map[string]any{}},
		{map[string]any{"a": 1}, map[string]any{"b": 1}},
		{[]any{1, 2}, []any{2, 1}},
		{[]any{1}, []any{1, 1}},
		{"e\u0301", "\u00e9"},
		{math.NaN(), math.NaN()},
		{make(chan int), make(chan int)},
	}
	for _, p := range differ {
		if Equal(p[0], p[1]) || Equal(p[1], p[0]) {
			t.Errorf("S-VAL-1: Equal(%s, %s): want false", Describe(p[0]), Describe(p[1]))
		}
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		in   any
		want any
	}{
		{int64(math.MaxInt64), json.Number("9223372036854775807")},
		{int64(math.MinInt64), json.Number("-9223372036854775808")},
		{uint64(math.MaxUint64), json.Number("18446744073709551615")},
		{int(-7), json.Number("-7")},
		{float32(0.1), json.Number("0.1")},
		{1e-7, json.Number("1e-7")},
		{map[string]any{"x": []any{uint8(1), nil}}, map[string]any{"x": []any{json.Number("1"), nil}}},
		{struct {
			A int `json:"a"`
		}{5}, map[string]any{"a": json.Number("5")}},
	}
	for _, c := range cases {
		got, err := Normalize(c.in)
		if err != nil || Describe(got) != Describe(c.want) || !equal(got, c.want) {
			t.Errorf("Normalize(%#v): want %s, got %s, %v", c.in, Describe(c.want), Describe(got), err)
		}
	}
	for _, bad := range []any{math.Inf(1), math.NaN(), make(chan int), func() {}, map[int]any{1: func() {}}, json.Number("1x"), json.Number("")} {
		if _, err := Normalize(bad); !errors.Is(err, ErrNotJSON) {
			t.Errorf("Normalize(%#v): want ErrNotJSON, got %v", bad, err)
		}
	}
	// Normalize copies: the result shares nothing mutable with its input.
	in := map[string]any{"a": map[string]any{"b": []any{"c"}}}
	out, err := Normalize(in)
	if err != nil {
		t.Fatal(err)
	}
	out.(map[string]any)["a"].(map[string]any)["b"].([]any)[0] = "changed"
	if in["a"].(map[string]any)["b"].([]any)[0] != "c" {
		t.Errorf("S-VAL-4: Normalize must deep-copy its input")
	}
}

func TestDecodeAndClone(t *testing.T) {
	v, err := DecodeObject([]byte(`{"big": 9223372036854775807, "neg": -9223372036854775808, "f": 1e-7, "u": "\u0000x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if v["big"] != json.Number("9223372036854775807") || v["neg"] != json.Number("-9223372036854775808") || v["u"] != "\x00x" {
		t.Errorf("S-VAL-1: DecodeObject must keep integers exact and strings verbatim, got %s", Describe(v))
	}
	for _, bad := range []string{`[1]`, `{"a":1} {}`, `{"a":`, `1`} {
		if _, err := DecodeObject([]byte(bad)); err == nil {
			t.Errorf("DecodeObject(%s): want an error", bad)
		}
	}
	c := CloneObject(v)
	c["big"] = "changed"
	if v["big"] != json.Number("9223372036854775807") {
		t.Errorf("S-VAL-4: CloneObject must copy")
	}
	if CloneObject(nil) != nil {
		t.Errorf("CloneObject(nil): want nil")
	}
}

func TestValidNumberAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "01", "1.", ".1", "1.5", "1e5", "1E+5", "1e-5",
		"1e", "1e+", "-", "+1", "1.5e3", "0.0", "00", "9223372036854775807", "1x", "", "0x10", "NaN", "1.e3"} {
		var v any
		want := json.Unmarshal([]byte(s), &v) == nil
		if _, isNum := v.(float64); !isNum {
			want = false
		}
		if got := validNumber(s); got != want {
			t.Errorf("validNumber(%q) = %v, want %v (encoding/json)", s, got, want)
		}
	}
}

func TestNormalizeRefusesPaddedNumber(t *testing.T) {
	// " 1" is valid JSON text but not a number literal: stored as json.Number it would
	// not survive a re-encode byte for byte.
	if _, err := Normalize(json.Number(" 1")); err == nil {
		t.Error(`Normalize(json.Number(" 1")) succeeded, want ErrNotJSON`)
	}
}

func TestCheckUTF8(t *testing.T) {
	good := map[string]any{"a": []any{"x", map[string]any{"é": "😀"}}, "n": json.Number("1")}
	if err := CheckUTF8(good); err != nil {
		t.Errorf("CheckUTF8(valid) = %v", err)
	}
	for _, bad := range []struct {
		v    any
		path string
	}{
		{map[string]any{"a": []any{"x", "\xff"}}, "$.a[1]"},
		{map[string]any{"b": map[string]any{"\xfe": 1}}, "$.b"},
		{[]string{"ok", "\xc3"}, "$[1]"},
	} {
		err := CheckUTF8(bad.v)
		if !errors.Is(err, ErrNotUTF8) || !strings.Contains(err.Error(), bad.path) {
			t.Errorf("CheckUTF8(%#v) = %v, want ErrNotUTF8 at %s", bad.v, err, bad.path)
		}
	}
}
